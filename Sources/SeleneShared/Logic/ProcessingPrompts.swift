import Foundation

/// The prompts the server's processing sends: a note's analysis and a new thread's name.
public enum ProcessingPrompts {
    public static let analysisSystem = """
        You analyse one personal note at a time for a private second-brain app. Answer only with JSON matching the \
        schema: up to 5 concepts the note is about with your confidence (0–1), its primary theme (a short noun \
        phrase), up to 3 secondary themes, the overall sentiment (positive, neutral, negative or mixed) with a score \
        from -1 to 1, the emotional tone in a word or two, the writer's energy (low, medium, high), the note type \
        (idea, task, reflection, question, reference, log) and whether it asks for action (actionable, someday, none).
        """

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
