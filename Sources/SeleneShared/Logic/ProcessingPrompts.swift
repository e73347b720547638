import Foundation

/// The prompts the server's processing sends: a note's analysis and a new thread's name.
public enum ProcessingPrompts {
    /// What a note's analysis asks. The schema goes with it (a grammar where the server takes one),
    /// so the prompt names no enum values and no counts: SmolLM2-135M copied those ("up to 5
    /// concepts", "someday") into 38% of its phrases with the earlier prompt that listed them,
    /// 12% with this one, 2% with this one and a repetition penalty (`SELENE_REPEAT_PENALTY`);
    /// README, "Analyses at the first try".
    public static let analysisSystem = analysisSystem(askingNames: true)

    /// The analysis prompt, with or without asking for the people and places the note names
    /// (#85): a note with no name in it (`ProperNames.any(in:)`) isn't asked for them — a small
    /// model writes names whatever the note, which Selene then drops, at a third more of an
    /// analysis's time (selenes-performance.md, "People and places").
    public static func analysisSystem(askingNames: Bool) -> String {
        """
        You analyse one personal note at a time for a private second-brain app. Answer with JSON: what the note is \
        about in the note's own words (a few short phrases, each once, with your confidence from 0 to 1), its main theme \
        in two to four words, other themes if it has them, its sentiment with a score from -1 to 1, its emotional tone in \
        a word or two, the writer's energy,
        """ + (askingNames ? " what kind of note it is, whether it asks for action, and the people and places it names."
                           : " what kind of note it is and whether it asks for action.")
    }

    public static func analysis(title: String?, content: String, numCtx: Int) -> String {
        // Leave room for the system prompt and the answer within the context window.
        let budget = max(256, numCtx - 1024)
        var text = ""
        if let title, !title.isEmpty { text += "Title: \(title)\n\n" }
        text += TokenBudget.truncate(content, toTokens: budget)
        return "Note:\n\(text)"
    }

    public static let threadSystem = """
        You name a thread of related personal notes. Answer only with JSON: a name of two to five words that \
        says what the notes are about, and a summary of one or two sentences.
        """

    public static func threadNaming(notes: [Note], numCtx: Int) -> String {
        let per = max(60, (numCtx - 1024) / max(1, notes.count))
        let body = notes.prefix(12).enumerated().map { index, note in
            "\(index + 1). \(note.displayTitle): \(TokenBudget.truncate(note.content, toTokens: per))"
        }.joined(separator: "\n")
        return "Notes in this thread:\n\(body)"
    }

    /// The text embedded for a note: its title and content.
    public static func embeddingText(title: String?, content: String) -> String {
        [title, content].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// The later parts of a long note, each embedded on its own (the model reads about 256
    /// tokens, some 180 words): over 180 words, windows of 150 words every 120 words from the
    /// 120th, each with the title; at most `maxChunks`. A short note has none.
    public static func embeddingChunks(title: String?, content: String) -> [String] {
        let words = content.split(whereSeparator: \.isWhitespace)
        guard words.count > 180 else { return [] }
        return stride(from: 120, to: words.count, by: 120).prefix(maxChunks).map { start in
            embeddingText(title: title, content: words[start..<min(start + 150, words.count)].joined(separator: " "))
        }
    }

    /// Chunks a note may have (a 1 MB note of words is embedded in its first ~7,700 words).
    public static let maxChunks = 63
}
