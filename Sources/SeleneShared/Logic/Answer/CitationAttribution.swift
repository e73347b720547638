import Foundation

/// Citations that don't depend on the model remembering them. A small model often answers
/// right and cites nothing, or cites a number at random. After the answer, each sentence is held
/// against the notes it was shown: a citation whose note shares nothing with its sentence is
/// taken out, and a sentence left without one gets the shown note that supports it best, if any
/// note supports it well enough. Such citations are Selene's, not the model's, and are marked so.
/// A wrong citation is worse than none, so the bar is high: enough of the sentence's own content
/// words (by stem, numbers included) must be in the note, and clearly more than in any other.
public enum CitationAttribution {
    /// How closely an answer's line must match a note to be credited to it.
    public struct Settings: Sendable, Hashable {
        /// The least share of a sentence's content words a note must have to be cited for it.
        public var minShare: Double
        /// The least number of them.
        public var minShared: Int
        /// How much more of the sentence the best note must hold than the next best.
        public var minLead: Double

        /// Whether lines that only copy a shown note about something else, or a note's day, go
        /// (`withoutEchoedContext`'s `copiedNote` and `isTitleAndDay`; its numbered lines go always).
        public var dropsCopies: Bool

        public init(minShare: Double = 0.34, minShared: Int = 2, minLead: Double = 0.15, dropsCopies: Bool = true) {
            self.minShare = minShare
            self.minShared = minShared
            self.minLead = minLead
            self.dropsCopies = dropsCopies
        }

        public static let `default` = Settings()
    }

    /// An answer after attribution: its text with Selene's markers, and which citations were added or taken out.
    public struct Result: Sendable, Hashable {
        /// The answer with Selene's markers added and unsupported ones taken out.
        public var text: String
        /// Context numbers that only Selene cites.
        public var added: Set<Int>
        /// Context numbers the model cited where its sentence shares nothing with the note.
        public var removed: Set<Int>
    }

    /// How much of `sentence` a note holds: the share of its content words found in the note, and how many.
    static func support(_ sentenceTerms: [String], note: Note) -> (share: Double, shared: Int) {
        guard !sentenceTerms.isEmpty else { return (0, 0) }
        let shared = AnswerText.held(sentenceTerms, by: note)
        return (Double(shared) / Double(sentenceTerms.count), shared)
    }

    /// A small model often copies the notes it was shown back, as they were listed ("[2] Sourdough:
    /// Fed the starter… (written 26 Nov 2026)"), the ones about the question among the rest. A
    /// copied line of a note that shares a word with the question becomes that note's words with
    /// its citation; one of a note about something else goes (when some line is left), with its
    /// number and day or without (`copiedNote`); a copied day goes (`isTitleAndDay`).
    public static func withoutEchoedContext(_ answer: String, context: [Int: Note], question: String, dropsCopies: Bool = true) -> String {
        withoutEchoedContext(answer, facts: AnswerFacts(notes: context, question: question, now: Date(),
                                                        attribution: Settings(dropsCopies: dropsCopies)))
    }

    static func withoutEchoedContext(_ answer: String, facts: AnswerFacts) -> String {
        let context = facts.context.notes, dropsCopies = facts.attribution.dropsCopies
        var kept: [String] = []
        var dropped = false
        for line in answer.components(separatedBy: "\n") {
            if dropsCopies, !facts.asksWhenWritten, isTitleAndDay(line, context: context) { dropped = true; continue }
            if let copied = ContextBuilder.copiedLine(line), let note = context[copied.number] {
                guard facts.isAbout(note) else { dropped = true; continue }
                var body = copied.body
                if let title = note.title?.trimmingCharacters(in: .whitespaces), !title.isEmpty, body.hasPrefix(title + ":") {
                    body = body.dropFirst(title.count + 1).trimmingCharacters(in: .whitespaces)
                }
                if AnswerText.citedNumbers(body).isEmpty { body = AnswerText.insertMarker(copied.number, into: body) }
                kept.append(body)
            } else if dropsCopies, let note = copiedNote(line, context: context), !facts.isAbout(note) {
                dropped = true
            } else {
                kept.append(ContextBuilder.withoutCopiedDay(line))
            }
        }
        let text = kept.joined(separator: "\n")
        return dropped && text.allSatisfy(\.isWhitespace) ? answer : text
    }

    /// The shown note a line copies, without its context line's number and day: its first words
    /// (title first), at least `copiedWords` of them, perhaps as a list item ("2. Holiday: Thinking
    /// about Lisbon in October…" for "When does Anna turn 40?", SmolLM2-135M on the tier); or
    /// its title as the line's label, whatever follows ("Budget: 300/420 at the pharmacy." for
    /// "What was my blood pressure at the pharmacy?").
    static func copiedNote(_ line: String, context: [Int: Note]) -> Note? {
        let item = AnswerText.withoutListNumbers(line)
        let said = AnswerText.words(item)
        let label = item.firstIndex(of: ":").map { AnswerText.words(String(item[..<$0])) } ?? []
        return context.values.sorted { $0.id < $1.id }.first { note in
            let title = AnswerText.words(note.title ?? "")
            if !label.isEmpty, label == title { return true }
            let own = title + AnswerText.words(note.content)
            return said.count >= copiedWords && zip(said, own).prefix { $0 == $1 }.count >= copiedWords
        }
    }

    static let copiedWords = 4

    /// A line that is only the day a shown note was written, perhaps after its title or a label
    /// ("[1] Anna's birthday: 27 Nov 2026", "Answer: 27 Nov 2026": SmolLM2-135M on the tier,
    /// 2026-11-27): the ends of its context line, without its words. It answers nothing but when
    /// the note was written, unless a shown note says that day in its words.
    static func isTitleAndDay(_ line: String, context: [Int: Note]) -> Bool {
        func bare(_ text: String) -> String { AnswerText.words(text).filter { $0 != "written" }.joined(separator: " ") }
        var said = bare(AnswerText.withoutListNumbers(line))
        if said.hasPrefix("answer ") { said = String(said.dropFirst("answer ".count)) }
        guard said.contains(where: \.isNumber) else { return false }
        let days = Set(context.values.map { bare(ContextBuilder.writtenOn($0.createdAt)) })
        guard let day = days.first(where: { said == $0 || said.hasSuffix(" " + $0) }) else { return false }
        let before = said.dropLast(day.count).trimmingCharacters(in: .whitespaces)
        guard before.isEmpty || context.values.contains(where: { $0.title.map { bare($0) == before } ?? false }) else { return false }
        return !context.values.contains { " \(bare(($0.title ?? "") + " " + $0.content)) ".contains(" \(day) ") }
    }

    /// The attribution steps of `AnswerPipeline` on their own (echoed context, sentences, off-topic
    /// citations), for an answer to `question` (nil: the sentences only).
    public static func attribute(_ answer: String, context: [Int: Note], question: String? = nil, settings: Settings = .default) -> Result {
        guard !context.isEmpty else { return Result(text: answer, added: [], removed: []) }
        let facts = AnswerFacts(notes: context, question: question, now: Date(), attribution: settings)
        var result = attributeSentences(question == nil ? answer : withoutEchoedContext(answer, facts: facts), context: context, settings: settings)
        guard question != nil else { return result }
        let gone = withoutOffTopic(&result.text, facts: facts)
        result.added.subtract(gone)
        result.removed.formUnion(gone)
        return result
    }

    /// Citations of notes about something else beside ones about the question: the model went
    /// through the list. Those go, when at least one cited note shares a word with the question;
    /// answers the numbers no longer cited. A note is about something else when it has none of
    /// the question's words, or fewer than half as many as the cited note having the most: "the
    /// long walk with Mum" shares only "long" with "how long was my long run in marathon
    /// training?", which the training note answers with all four (the real-model tier, 2026-11-30).
    static func withoutOffTopic(_ text: inout String, facts: AnswerFacts) -> Set<Int> {
        let cited = AnswerText.citedNumbers(text)
        var held: [Int: Int] = [:]
        for n in cited { if let note = facts.context.notes[n] { held[n] = AnswerText.held(facts.questionTerms, by: note) } }
        let most = held.values.max() ?? 0
        let offTopic = cited.filter { n in held[n].map { $0 == 0 || 2 * $0 < most } ?? false }
        guard !offTopic.isEmpty, !facts.questionTerms.isEmpty else { return [] }
        if offTopic.count < cited.count {
            text = AnswerText.removeMarkers(offTopic, from: text)
        } else {
            // Nothing cited is about the question: a citation stays only where its sentence is
            // (a note about the house for "what did I decide about the house": the answer's words
            // say so); a sentence about something else with a note about something else goes.
            var out = ""
            for range in AnswerText.sentences(text) {
                let sentence = String(text[range])
                out += TextTokens.matched(facts.questionTerms, in: sentence) > 0 ? sentence : AnswerText.removeMarkers(offTopic, from: sentence)
            }
            text = out
        }
        return cited.subtracting(AnswerText.citedNumbers(text))
    }

    static func attributeSentences(_ answer: String, context: [Int: Note], settings: Settings) -> Result {
        var out = ""
        var modelCited = Set<Int>()
        var seleneCited = Set<Int>()
        var removed = Set<Int>()
        for range in AnswerText.sentences(answer) {
            let sentence = String(answer[range])
            let terms = AnswerText.terms(sentence)
            let marks = CitationParser.marker.matches(in: sentence, range: NSRange(sentence.startIndex..., in: sentence))
            var kept = sentence
            var keptAny = false
            // Model's markers: those whose note shares nothing with the sentence go.
            for match in marks.reversed() {
                guard let r = Range(match.range, in: sentence), let inner = Range(match.range(at: 1), in: sentence) else { continue }
                let numbers = AnswerText.numbers(sentence[inner])
                let supported = numbers.filter { n in
                    guard let note = context[n] else { return false }
                    return terms.isEmpty || support(terms, note: note).shared > 0
                }
                for n in numbers where context[n] != nil && !supported.contains(n) { removed.insert(n) }
                if supported.isEmpty {
                    guard let kr = Range(NSRange(r, in: sentence), in: kept) else { continue }
                    var lower = kr.lowerBound
                    if lower > kept.startIndex, kept[kept.index(before: lower)] == " " { lower = kept.index(before: lower) }
                    kept.removeSubrange(lower..<kr.upperBound)
                } else {
                    keptAny = true
                    modelCited.formUnion(supported)
                    if supported.count != numbers.count, let kr = Range(NSRange(r, in: sentence), in: kept) {
                        kept.replaceSubrange(kr, with: supported.map { "[\($0)]" }.joined())
                    }
                }
            }
            if !keptAny, terms.count >= settings.minShared, let best = bestNote(terms, context: context, settings: settings) {
                seleneCited.insert(best)
                kept = AnswerText.insertMarker(best, into: kept)
            }
            out += kept
        }
        return Result(text: out, added: seleneCited.subtracting(modelCited), removed: removed.subtracting(modelCited))
    }

    /// The shown note that supports `terms` best, if it clears the bar and leads the next one.
    static func bestNote(_ terms: [String], context: [Int: Note], settings: Settings) -> Int? {
        let scored = context.map { (number: $0.key, support: support(terms, note: $0.value)) }
            .sorted { ($0.support.share, -$0.number) > ($1.support.share, -$1.number) }
        guard let best = scored.first, best.support.share >= settings.minShare, best.support.shared >= settings.minShared else { return nil }
        let runnerUp = scored.dropFirst().first?.support.share ?? 0
        return best.support.share - runnerUp >= settings.minLead ? best.number : nil
    }
}
