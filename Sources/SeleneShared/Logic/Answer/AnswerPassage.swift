import Foundation

/// What a person's note says, shown when the model's answer doesn't cite it. A small model often
/// answers a direct question with a figure of its own ("Wednesdays, 12:00 PM" for a dentist's
/// "Tuesday 3pm") or with the line of a neighbouring note (the first roofer's quote for the
/// second); the person then has nothing to check it against. When one shown note is clearly about
/// the question — it holds at least `minShare` of the question's content words (by stem) and at
/// least `minLead` more of them than any other shown note — and the answer doesn't cite it, its
/// sentence holding most of them is quoted under the answer and cited as Selene's: "Your note
/// says: “Dentist appointment moved to Tuesday 3pm.” [1]". Nothing is quoted when no note clears
/// the bar: a wrong quote is worse than none. The bar is chosen and measured in
/// `selene-bench --only passages` (README "Selene's quotes").
///
/// Citing the note is not enough when the answer's figures aren't the note's: SmolLM2-135M
/// answered "How long was my long run?" with "Answer: 27 Nov 2026 [1]" — the day the note was
/// written, copied from its context line — and "When does Anna turn 40?" with "Anna's birthday:
/// 27 Nov 2026" for a note saying "the 12th of May". An answer stating a figure (a run of digits)
/// that nothing the person wrote holds (`figures`) gets the quote too; one whose every figure is
/// of that kind is replaced by it. The day a note was written counts as held only when the
/// question asks when something was written.
///
/// An answer that states no figure (but the question's), when the note's sentence holds one, gets
/// the quote as well (`quotesMissingFigure`): asked for the next loaf's hydration, SmolLM2-135M
/// described the other loaf's note in words, cited the right one and never said "75%"; asked when
/// Anna turns 40, "Anna turns 40 [1]".
public enum AnswerPassage {
    /// How long a quoted passage may be and how closely it must match the note.
    public struct Settings: Sendable, Hashable {
        /// The least share of the question's content words the note must hold.
        public var minShare: Double
        /// How many more of them it must hold than the next shown note.
        public var minLead: Int

        /// Whether figures the shown notes don't hold bring the quote (see above).
        public var checksFigures: Bool
        /// Whether an answer without a figure brings the quote when the quote has one (see above).
        public var quotesMissingFigure: Bool

        /// Whether a quote without a figure takes the next sentence that has one (`quote`).
        public var quotesNextFigure: Bool

        public init(minShare: Double = 0.5, minLead: Int = 1, checksFigures: Bool = true, quotesMissingFigure: Bool = true, quotesNextFigure: Bool = true) {
            self.minShare = minShare
            self.minLead = minLead
            self.checksFigures = checksFigures
            self.quotesMissingFigure = quotesMissingFigure
            self.quotesNextFigure = quotesNextFigure
        }

        public static let `default` = Settings()
    }

    /// The longest quote, in characters; a longer sentence is cut at a word.
    static let longest = 240

    /// The shown note (its context number) clearly about `question`, and its sentence to quote.
    public static func find(for question: String, context: [Int: Note], settings: Settings = .default) -> (number: Int, text: String)? {
        find(terms: AnswerFacts.terms(of: question, now: Date()), context: context, settings: settings)
    }

    /// The same for a question's content words (`AnswerFacts.questionTerms`).
    static func find(terms: [String], context: [Int: Note], settings: Settings) -> (number: Int, text: String)? {
        guard !terms.isEmpty else { return nil }
        let scored = context.map { (number: $0.key, note: $0.value, shared: AnswerText.held(terms, by: $0.value)) }
            .sorted { ($0.shared, -$0.number) > ($1.shared, -$1.number) }
        guard let best = scored.first, best.shared > 0, Double(best.shared) >= settings.minShare * Double(terms.count),
              best.shared - (scored.dropFirst().first?.shared ?? 0) >= settings.minLead else { return nil }
        return (best.number, quote(best.note.content, terms: terms, nextFigure: settings.quotesNextFigure))
    }

    /// The pipeline's `passage` step: `answer` with the quote under it (or the quote alone, when
    /// every figure of the answer is nobody's) and the quote's context number — when one shown
    /// note is clearly about the question and the answer doesn't cite it, states a figure no
    /// cited note holds, or states none where the quote has one; nil when it stays as it is.
    static func quoted(under answer: String, facts: AnswerFacts) -> (text: String, number: Int)? {
        guard let question = facts.question, let settings = facts.passage,
              let found = find(terms: facts.questionTerms, context: facts.context.notes, settings: settings),
              let note = facts.context.notes[found.number] else { return nil }
        let citing = Set(AnswerText.citedNumbers(answer).compactMap { facts.context.notes[$0]?.id })
        let stated = figures(of: answer, context: facts.context, question: question, earlier: facts.earlier, citing: citing)
        let wrongFigure = settings.checksFigures && stated.unheld > 0
        let missingFigure = settings.quotesMissingFigure && stated.none && !AnswerText.digitRuns(found.text).isEmpty
        guard !citing.contains(note.id) || wrongFigure || missingFigure else { return nil }
        return (appending(found, to: wrongFigure && stated.allUnheld ? "" : answer), found.number)
    }

    /// The sentence of `content` holding most of `terms` (the first among equals), trimmed; with
    /// the next sentence when that one has a figure and it has none, and both fit: "Bought the
    /// wrong size of picture hooks again. Measure first next time: 3 mm."
    static func quote(_ content: String, terms: [String], nextFigure: Bool = true) -> String {
        let sentences = AnswerText.sentences(content).map { content[$0].trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var index = 0
        var most = 0
        for (i, sentence) in sentences.enumerated() {
            let shared = TextTokens.matched(terms, in: sentence)
            if shared > most { (index, most) = (i, shared) }
        }
        var chosen = sentences.indices.contains(index) ? sentences[index] : content
        if nextFigure, AnswerText.digitRuns(chosen).isEmpty, sentences.indices.contains(index + 1), !AnswerText.digitRuns(sentences[index + 1]).isEmpty,
           chosen.count + 1 + sentences[index + 1].count <= longest {
            chosen += " " + sentences[index + 1]
        }
        guard chosen.count > longest else { return chosen }
        let cut = chosen.prefix(longest)
        return String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)]) + "…"
    }

    /// An answer's figures against what the model was shown: how many of them the notes it cites,
    /// a recalled memory, the thread or open tasks shown with them, the question or the person's
    /// earlier words hold, and how many none does.
    public struct Figures: Sendable, Hashable {
        public var held = 0
        public var unheld = 0

        /// Every figure is one nobody wrote: the answer says nothing the person can trust.
        public var allUnheld: Bool { unheld > 0 && held == 0 }
        /// Of those held, how many the question itself holds ("Anna turns 40" for "When does Anna turn 40?").
        public var fromQuestion = 0

        /// The answer states no figure but the question's.
        public var none: Bool { unheld == 0 && held == fromQuestion }
    }

    /// `citing`: the notes the answer cites; a figure must be in one of them (the first roofer's
    /// quote cited as the second's is not held), or in any shown note when it cites none.
    /// `earlier`: what the person said before in the conversation (its figures are theirs).
    public static func figures(of answer: String, context: ChatContext, question: String, earlier: String = "", citing: Set<Int64> = []) -> Figures {
        let text = AnswerText.withoutListNumbers(AnswerText.unmarked(answer), replacement: " ")
        let asked = Set(AnswerText.digitRuns(question))
        var shown = asked.union(AnswerText.digitRuns(([earlier, context.extra] + context.memories.map(\.content)).joined(separator: " ")))
        let whenWritten = AnswerFacts.asksWhenWritten(question)
        for note in context.notes.values where citing.isEmpty || citing.contains(note.id) {
            shown.formUnion(AnswerText.digitRuns((note.title ?? "") + " " + note.content))
            if whenWritten { shown.formUnion(AnswerText.digitRuns(ContextBuilder.writtenOn(note.createdAt))) }
        }
        var figures = Figures()
        for run in AnswerText.digitRuns(text) {
            if shown.contains(run) { figures.held += 1 } else { figures.unheld += 1 }
            if asked.contains(run) { figures.fromQuestion += 1 }
        }
        return figures
    }

    /// `answer` with the passage under it, cited by its context number.
    public static func appending(_ passage: (number: Int, text: String), to answer: String) -> String {
        let line = "Your note says: “\(passage.text)” [\(passage.number)]"
        return answer.allSatisfy(\.isWhitespace) ? line : answer + "\n\n" + line
    }
}
