import Foundation

/// What a briefing draws on, and the two ways it becomes text: a prompt for the LLM, or an
/// extractive briefing written from the same data when no LLM answers.
public struct BriefingContext: Sendable, Hashable {
    public var date: String
    public var newNotes: [Note]
    public var threads: [NoteThread]
    public var associations: [Association]
    public var tasks: [ThreadTask]
    public var memories: [Memory]

    public init(date: String, newNotes: [Note], threads: [NoteThread], associations: [Association], tasks: [ThreadTask], memories: [Memory] = []) {
        self.date = date
        self.newNotes = newNotes
        self.threads = threads
        self.associations = associations
        self.tasks = tasks
        self.memories = memories
    }
}

/// Writes what the morning briefing may draw on into its prompt, and keeps only the sentences the notes support.
public enum BriefingContextBuilder {
    /// The briefing's prompt: the data in numbered, compact form, within `budget` tokens.
    public static func prompt(_ context: BriefingContext, budget: Int = 3000) -> String {
        var lines: [String] = ["Today is \(context.date). \(task)"]
        lines.append("")
        lines.append("New notes since the last briefing (\(context.newNotes.count)):")
        for note in context.newNotes.prefix(20) {
            lines.append("- \(note.displayTitle): \(TokenBudget.truncate(note.content, toTokens: 60))")
        }
        lines.append("")
        lines.append("Threads with the most momentum:")
        for thread in context.threads.prefix(5) {
            lines.append("- \(thread.name) (\(thread.noteCount) notes, momentum \(String(format: "%.1f", thread.momentum))): \(thread.summary)")
        }
        if !context.associations.isEmpty {
            lines.append("")
            lines.append("Links between threads:")
            for a in context.associations.prefix(5) {
                lines.append("- \"\(a.noteA.displayTitle)\" (\(a.threadA?.name ?? "no thread")) ↔ \"\(a.noteB.displayTitle)\" (\(a.threadB?.name ?? "no thread"))")
            }
        }
        if !context.tasks.isEmpty {
            lines.append("")
            lines.append("Open tasks:")
            for task in context.tasks.prefix(10) { lines.append("- \(task.title)") }
        }
        lines.append("")
        lines.append(instructions)
        return TokenBudget.truncate(lines.joined(separator: "\n"), toTokens: budget)
    }

    public static let system = "You are Selene, a calm thinking companion. You write short, specific morning briefings from the person's own notes. Never invent notes."

    /// What the prompt asks for, above the notes and below them.
    static let task = "Write my morning briefing from my notes below."
    static let instructions = "In under 200 words: what is new, which threads are moving, one surprising connection worth a look, and the tasks that matter today. Plain text, warm and direct."

    /// Everything the model is told besides the notes: what `AnswerTidy` takes out when the
    /// briefing copies it back.
    public static let told = [system, task, instructions].joined(separator: " ")

    /// How many of the briefing's new notes, threads and tasks `text` speaks of: an item counts
    /// when the text has two of its words (by stem; one, when it has only one), one of them a word
    /// of four letters or more, leaving out the words the prompt itself uses ("notes", "morning",
    /// "threads", …) and bare numbers: a model's run of "2023-58, 2023-60, …" shares "58" and "60"
    /// with "Car service due at 60,000 km, currently 58,400" and says nothing of the car (CI,
    /// 2026-11-27).
    public static func mentions(_ text: String, context: BriefingContext) -> Int {
        let generic = genericTerms(context)
        let items = context.newNotes.prefix(20).map { ($0.title ?? "") + " " + $0.content }
            + context.threads.prefix(5).map { $0.name + " " + $0.summary } + context.tasks.prefix(10).map(\.title)
        let isWord = { (term: String) in term.count >= 4 && term.allSatisfy(\.isLetter) }
        return items.filter { item in
            let terms = TextTokens.searchTerms(item, limit: 16).filter { term in
                term.contains(where: \.isLetter) && !generic.contains(TextTokens.stem(term))
            }
            let found = TextTokens.matching(terms, in: text)
            return !terms.isEmpty && found.count >= min(2, terms.count) && found.contains(where: isWord)
        }.count
    }

    /// Whether a model's briefing is about the person's notes: it speaks of at least one of what
    /// it was given (anything, when it was given nothing). A small model sometimes writes a story
    /// of its own ("The day I woke up and I had to make a decision…"); the person is better
    /// served by the briefing written from the data.
    public static func isGrounded(_ text: String, in context: BriefingContext) -> Bool {
        context.newNotes.isEmpty && context.threads.isEmpty && context.tasks.isEmpty || mentions(text, context: context) > 0
    }

    /// The model's briefing without the sentences none of what it was given supports: a sentence
    /// goes when most of its content words (the prompt's own words aside) appear in none of the
    /// notes, threads, tasks and links ("My team and I are on a sprint…", "I'm not sure how that
    /// will work with the new laptop." — the real-model tier, 2026-11-27). A sentence without
    /// content words ("Good morning!") stays. Nil when too little is left to be a briefing
    /// (nothing, or fewer than half of its sentences with content): then the one written from
    /// the data is shown instead.
    public static func supported(_ text: String, in context: BriefingContext) -> (text: String, removed: [String])? {
        let generic = genericTerms(context)
        var given = context.newNotes.prefix(20).map { ($0.title ?? "") + " " + $0.content }
            + context.threads.prefix(5).map { $0.name + " " + $0.summary } + context.tasks.prefix(10).map(\.title)
        given += context.associations.prefix(5).flatMap { [$0.noteA.displayTitle + " " + $0.noteA.content, $0.noteB.displayTitle + " " + $0.noteB.content] }
        let known = Set(given.flatMap { TextTokens.searchTerms($0, limit: 400) }.map(TextTokens.stem))
        var removed: [String] = []
        var withContent = 0, keptWithContent = 0
        var paragraphs: [String] = []
        for paragraph in text.components(separatedBy: "\n") {
            var kept: [String] = []
            let before = removed.count
            for sentence in AnswerText.sentences(ofLine: Substring(paragraph)) {
                let terms = TextTokens.searchTerms(sentence, limit: 64).filter { $0.contains(where: \.isLetter) }.map(TextTokens.stem)
                    .filter { !generic.contains($0) }
                guard !terms.isEmpty else {
                    if echoesPrompt(sentence) { removed.append(sentence) } else { kept.append(sentence) }
                    continue
                }
                withContent += 1
                let found = terms.filter(known.contains).count
                if found * 2 >= terms.count {
                    kept.append(sentence)
                    keptWithContent += 1
                } else {
                    removed.append(sentence)
                }
            }
            // A paragraph nothing left keeps its words as written; one that lost them all goes.
            if removed.count == before { paragraphs.append(paragraph) } else if !kept.isEmpty { paragraphs.append(kept.joined(separator: " ")) }
        }
        guard keptWithContent > 0, keptWithContent * 2 >= withContent else { return nil }
        let out = paragraphs.joined(separator: "\n").replacingOccurrences(of: #"\n{3,}"#, with: "\n\n", options: .regularExpression)
        return (out.trimmingCharacters(in: .whitespacesAndNewlines), removed)
    }

    /// Whether `sentence`, which has no words of its own, copies four words or more in a row of
    /// what the model was told ("This note is from the person's own notes:", the real-model tier's
    /// briefing in CI, 2026-12-03: the system prompt's "from the person's own notes" said back). A
    /// greeting or a heading ("Good morning!", "Which threads are moving:") stays.
    static func echoesPrompt(_ sentence: String) -> Bool {
        let words = TextTokens.words(AnswerText.unmarked(sentence))
        guard words.count >= 4 else { return false }
        return toldSentences.contains { rule in
            rule.count >= 4 && (0...(words.count - 4)).contains { start in
                let run = Array(words[start..<(start + 4)])
                return (0...(rule.count - 4)).contains { Array(rule[$0..<($0 + 4)]) == run }
            }
        }
    }

    /// Who the model was told it is and what to write, each sentence as its words in order. The
    /// last line's list ("which threads are moving, … the tasks that matter today") is left out:
    /// a briefing's headings are made of it.
    static let toldSentences = (system + " " + task).split(separator: ".").map { TextTokens.words(String($0)) }

    /// The words of the instructions and the prompt's frame, and a greeting's: no sign that a
    /// sentence is about the notes ("Good morning.", "Have a good day." need no note behind them).
    static func genericTerms(_ context: BriefingContext) -> Set<String> {
        Set((TextTokens.searchTerms(system + " " + prompt(BriefingContext(date: context.date, newNotes: [], threads: [], associations: [], tasks: [])),
                                    limit: 200) + courtesy).map(TextTokens.stem))
    }

    static let courtesy = ["good", "morning", "afternoon", "evening", "day", "great", "hello", "hi", "hope", "nice", "wonderful",
                           "happy", "welcome", "thanks", "thank", "enjoy", "lovely", "ahead"]

    /// The briefing written from the data alone.
    public static func extractive(_ context: BriefingContext) -> String {
        var parts: [String] = []
        switch context.newNotes.count {
        case 0: parts.append("No new notes since the last briefing.")
        case 1: parts.append("1 new note since the last briefing: \(context.newNotes[0].displayTitle).")
        default:
            let titles = context.newNotes.prefix(3).map(\.displayTitle).joined(separator: "; ")
            parts.append("\(context.newNotes.count) new notes since the last briefing, among them: \(titles).")
        }
        if !context.threads.isEmpty {
            let moving = context.threads.prefix(3).map { "\($0.name) (\($0.noteCount) notes)" }.joined(separator: ", ")
            parts.append("Moving threads: \(moving).")
        }
        if let link = context.associations.first {
            parts.append("A link across threads: \"\(link.noteA.displayTitle)\" and \"\(link.noteB.displayTitle)\" (\(Int((link.similarity * 100).rounded()))% similar).")
        }
        if !context.tasks.isEmpty {
            let tasks = context.tasks.prefix(3).map(\.title).joined(separator: "; ")
            parts.append("Open tasks (\(context.tasks.count)): \(tasks).")
        }
        return parts.joined(separator: "\n\n")
    }
}
