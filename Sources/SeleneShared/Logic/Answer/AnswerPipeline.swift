import Foundation

/// The facts of one answer, computed once and read by every step: what the model was shown,
/// the question's content words and whether it asks when something was written, what the person
/// said earlier in the conversation, and `now` (the question's "this month" is the asker's).
public struct AnswerFacts: Sendable {
    public var context: ChatContext
    public var question: String?
    /// The words that say what the question is about (`terms(of:now:)`); empty without a question.
    public var questionTerms: [String]
    public var asksWhenWritten: Bool
    public var earlier: String
    public var attribution: CitationAttribution.Settings
    /// nil: no quote under the answer.
    public var passage: AnswerPassage.Settings?

    public init(context: ChatContext, question: String?, earlier: String = "", now: Date,
                attribution: CitationAttribution.Settings = .default, passage: AnswerPassage.Settings? = .default) {
        self.context = context
        self.question = question
        self.questionTerms = question.map { Self.terms(of: $0, now: now) } ?? []
        self.asksWhenWritten = question.map(Self.asksWhenWritten) ?? false
        self.earlier = earlier
        self.attribution = attribution
        self.passage = passage
    }

    /// The facts when only the notes shown are known (a step used on its own).
    init(notes: [Int: Note], question: String?, now: Date, attribution: CitationAttribution.Settings = .default) {
        self.init(context: ChatContext(text: "", notes: notes, memories: [], omitted: 0), question: question, now: now, attribution: attribution)
    }

    /// The words that say what a question is about: its content words without its words of time
    /// ("this month" would tie every note that says "next month" to it) or of asking.
    static func terms(of question: String, now: Date) -> [String] {
        QueryAnalyzer.analyze(question, now: now).keywords.flatMap { TextTokens.searchTerms($0) }.filter { !AnswerText.framing.contains($0) }
    }

    static let whenWritten = try! NSRegularExpression(pattern: #"\bwhen\b.*\b(?:write|wrote|written|noted?|mention(?:ed)?|log(?:ged)?|captured?|jot(?:ted)?)\b"#,
                                                      options: [.caseInsensitive])

    /// Whether the question asks when something was written (the one question a note's day answers).
    static func asksWhenWritten(_ question: String) -> Bool {
        whenWritten.firstMatch(in: question, range: NSRange(question.startIndex..., in: question)) != nil
    }

    /// Whether a note shares a content word with the question (by stem).
    func isAbout(_ note: Note) -> Bool { AnswerText.held(questionTerms, by: note) > 0 }
}

/// An answer on its way through the steps: its text, and the context numbers of the citations
/// Selene added (not the model).
public struct AnswerDraft: Sendable, Hashable {
    public var text: String
    public var bySelene: Set<Int> = []
}

/// One named step of the answer pipeline: a pure transform of the draft, given the facts, that
/// answers how many pieces it took out or added (0: it changed nothing).
public struct AnswerStep: Sendable {
    public let name: String
    let transform: @Sendable (inout AnswerDraft, AnswerFacts) -> Int

    public init(_ name: String, _ transform: @escaping @Sendable (inout AnswerDraft, AnswerFacts) -> Int) {
        self.name = name
        self.transform = transform
    }

    /// A step that only rewrites the text, counting what it removed.
    static func text(_ name: String, _ rewrite: @escaping @Sendable (String, inout Int) -> String) -> AnswerStep {
        AnswerStep(name) { draft, _ in
            var removed = 0
            draft.text = rewrite(draft.text, &removed)
            return removed
        }
    }
}

/// What becomes of a model's whole answer before it is kept, as an ordered list of named steps:
///
/// 1. a small model's debris goes (`AnswerTidy.steps`: the instructions copied back, repeated
///    lines, loops, loops varied by their numbers, open markers, a hanging label, runs of blank lines);
/// 2. `echoed-context`: the notes' own context lines copied back become the note's words, or go;
/// 3. `attribution`: each sentence's citations checked against the notes shown, and added where
///    the model left them out (`CitationAttribution`);
/// 4. `off-topic`: citations of notes about something else beside ones about the question go;
/// 5. `tidy-again`: the debris steps once more (citations taken out can bare a loop);
/// 6. `passage`: the sentence of the note clearly about the question quoted under the answer, or
///    instead of it, when the answer doesn't cite it or its figures aren't the notes'
///    (`AnswerPassage`).
///
/// Then the citation parser runs once (`CitationParser.parse`). `selene-bench --only answers
/// --without NAME,…` measures the pipeline with steps switched off.
public struct AnswerPipeline: Sendable {
    public var steps: [AnswerStep]

    public static let standard = AnswerPipeline(steps: AnswerTidy.steps + [
        AnswerStep("echoed-context") { draft, facts in
            guard facts.question != nil, !facts.context.notes.isEmpty else { return 0 }
            let before = draft.text
            draft.text = CitationAttribution.withoutEchoedContext(draft.text, facts: facts)
            return before == draft.text ? 0 : 1
        },
        AnswerStep("attribution") { draft, facts in
            guard !facts.context.notes.isEmpty else { return 0 }
            let result = CitationAttribution.attributeSentences(draft.text, context: facts.context.notes, settings: facts.attribution)
            draft.text = result.text
            draft.bySelene.formUnion(result.added)
            return result.added.count + result.removed.count
        },
        AnswerStep("off-topic") { draft, facts in
            guard facts.question != nil, !facts.context.notes.isEmpty else { return 0 }
            let gone = CitationAttribution.withoutOffTopic(&draft.text, facts: facts)
            draft.bySelene.subtract(gone)
            return gone.count
        },
        AnswerStep("tidy-again") { draft, facts in
            AnswerTidy.steps.reduce(0) { $0 + $1.transform(&draft, facts) }
        },
        AnswerStep("passage") { draft, facts in
            guard let quoted = AnswerPassage.quoted(under: draft.text, facts: facts) else { return 0 }
            draft.text = quoted.text
            draft.bySelene.insert(quoted.number)
            return 1
        },
    ])

    /// The pipeline without the steps named.
    public func without(_ names: Set<String>) -> AnswerPipeline {
        AnswerPipeline(steps: steps.filter { !names.contains($0.name) })
    }

    /// The answer resolved, and what each step changed (by name, in order).
    public func run(_ text: String, facts: AnswerFacts) -> (answer: ParsedAnswer, changes: [(step: String, count: Int)]) {
        var draft = AnswerDraft(text: text)
        var changes: [(step: String, count: Int)] = []
        for step in steps {
            changes.append((step.name, step.transform(&draft, facts)))
        }
        return (CitationParser.parse(draft.text, context: facts.context.notes, bySelene: draft.bySelene), changes)
    }
}
