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
public enum AnswerPassage {
    public struct Settings: Sendable, Hashable {
        /// The least share of the question's content words the note must hold.
        public var minShare: Double
        /// How many more of them it must hold than the next shown note.
        public var minLead: Int

        public init(minShare: Double = 0.5, minLead: Int = 1) {
            self.minShare = minShare
            self.minLead = minLead
        }

        public static let `default` = Settings()
    }

    /// The longest quote, in characters; a longer sentence is cut at a word.
    static let longest = 240

    /// The shown note (its context number) clearly about `question`, and its sentence to quote.
    public static func find(for question: String, context: [Int: Note], settings: Settings = .default) -> (number: Int, text: String)? {
        let terms = CitationAttribution.questionTerms(question)
        guard !terms.isEmpty else { return nil }
        let scored = context.map { (number: $0.key, note: $0.value, shared: TextTokens.matched(terms, in: ($0.value.title ?? "") + " " + $0.value.content)) }
            .sorted { ($0.shared, -$0.number) > ($1.shared, -$1.number) }
        guard let best = scored.first, best.shared > 0, Double(best.shared) >= settings.minShare * Double(terms.count),
              best.shared - (scored.dropFirst().first?.shared ?? 0) >= settings.minLead else { return nil }
        return (best.number, quote(best.note.content, terms: terms))
    }

    /// The sentence of `content` holding most of `terms` (the first among equals), trimmed.
    static func quote(_ content: String, terms: [String]) -> String {
        let sentences = CitationAttribution.sentences(content).map { content[$0].trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var chosen = sentences.first ?? content
        var most = 0
        for sentence in sentences {
            let shared = TextTokens.matched(terms, in: sentence)
            if shared > most { (chosen, most) = (sentence, shared) }
        }
        guard chosen.count > longest else { return chosen }
        let cut = chosen.prefix(longest)
        return String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)]) + "…"
    }

    /// `answer` with the passage under it, cited by its context number.
    public static func appending(_ passage: (number: Int, text: String), to answer: String) -> String {
        let line = "Your note says: “\(passage.text)” [\(passage.number)]"
        return answer.allSatisfy(\.isWhitespace) ? line : answer + "\n\n" + line
    }
}
