import Foundation

/// Citations that don't depend on the model remembering them. A small model often answers
/// right and cites nothing, or cites a number at random. After the answer, each sentence is held
/// against the notes it was shown: a citation whose note shares nothing with its sentence is
/// taken out, and a sentence left without one gets the shown note that supports it best, if any
/// note supports it well enough. Such citations are Selene's, not the model's, and are marked so.
/// A wrong citation is worse than none, so the bar is high: enough of the sentence's own content
/// words (by stem, numbers included) must be in the note, and clearly more than in any other.
public enum CitationAttribution {
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
        let shared = TextTokens.matched(sentenceTerms, in: (note.title ?? "") + " " + note.content)
        return (Double(shared) / Double(sentenceTerms.count), shared)
    }

    /// The content words of a sentence that could tie it to a note: not the question's framing
    /// words ("say", "said") and not citation markers.
    static func terms(_ sentence: String) -> [String] {
        let unmarked = CitationParser.marker.stringByReplacingMatches(
            in: sentence, range: NSRange(sentence.startIndex..., in: sentence), withTemplate: " ")
        return TextTokens.searchTerms(unmarked).filter { !framing.contains($0) }
    }

    static let framing: Set<String> = ["said", "say", "says", "according", "mentioned", "mention", "wrote", "write", "based", "seems",
                                       "yes", "sure", "okay", "ok", "hi", "hello", "question", "answer", "selene",
                                       // "How much did I spend…": "much" made a note's "much better crumb" about the question.
                                       "much", "many"]

    /// Sentences of an answer with the range each covers, line breaks kept.
    static func sentences(_ text: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var start = text.startIndex
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            var ends = c == "\n"
            if ".!?".contains(c) {
                // A full stop inside a number ("1.5") or before a citation marker doesn't end it.
                let following = next < text.endIndex ? text[next] : " "
                ends = following == " " || following == "\n"
            }
            if ends {
                // Markers right after the end belong to this sentence: "… chimney. [1]".
                var end = next
                while end < text.endIndex, text[end] == " " || text[end] == "[" {
                    if text[end] == "[", let close = text[end...].firstIndex(of: "]"),
                       CitationParser.marker.firstMatch(in: text, range: NSRange(end...close, in: text)) != nil {
                        end = text.index(after: close)
                    } else if text[end] == " " {
                        end = text.index(after: end)
                    } else { break }
                }
                out.append(start..<end)
                start = end
                i = end
                continue
            }
            i = next
        }
        if start < text.endIndex { out.append(start..<text.endIndex) }
        return out
    }

    /// The words that say what a question is about: its content words without its words of time
    /// ("this month" would tie every note that says "next month" to it) or of asking.
    static func questionTerms(_ question: String) -> [String] {
        QueryAnalyzer.analyze(question, now: Date()).keywords.flatMap { TextTokens.searchTerms($0) }.filter { !framing.contains($0) }
    }

    /// Whether a note shares a content word with the question (by stem).
    static func relevant(_ note: Note, to questionTerms: [String]) -> Bool {
        !questionTerms.isEmpty && TextTokens.matched(questionTerms, in: (note.title ?? "") + " " + note.content) > 0
    }

    /// A context line copied back (`ContextBuilder.line`): `[n] Title: text (written 26 Nov 2026)`,
    /// perhaps numbered as a list item.
    static let echoedLine = try! NSRegularExpression(pattern: #"^\s*(?:\d+[.)]\s*)?\[(\d{1,3})\]\s*(.*?)\s*\(written\b[^)]*\)?\s*$"#)
    /// The day of a context line, copied (or cut off) anywhere in an answer's line.
    static let echoedDate = try! NSRegularExpression(pattern: #"\s*\(written(?:\s+\d{1,2}(?:\s+[A-Z][a-z]{2}(?:\s+\d{0,4})?)?)?\)?"#)

    /// A small model often copies the notes it was shown back, as they were listed ("[2] Sourdough:
    /// Fed the starter… (written 26 Nov 2026)"), the ones about the question among the rest. A
    /// copied line of a note that shares a word with the question becomes that note's words with
    /// its citation; one of a note about something else goes (when some line is left), with its
    /// number and day or without (`copiedNote`); a copied day goes (`isTitleAndDay`).
    public static func withoutEchoedContext(_ answer: String, context: [Int: Note], question: String, dropsCopies: Bool = true) -> String {
        let terms = questionTerms(question)
        let whenWritten = AnswerPassage.asksWhenWritten(question)
        var kept: [String] = []
        var dropped = false
        for line in answer.components(separatedBy: "\n") {
            let range = NSRange(line.startIndex..., in: line)
            if dropsCopies, !whenWritten, isTitleAndDay(line, context: context) { dropped = true; continue }
            if let m = echoedLine.firstMatch(in: line, range: range), let nr = Range(m.range(at: 1), in: line), let n = Int(line[nr]),
               let note = context[n], let rest = Range(m.range(at: 2), in: line) {
                guard relevant(note, to: terms) else { dropped = true; continue }
                var body = String(line[rest]).trimmingCharacters(in: .whitespaces)
                if let title = note.title?.trimmingCharacters(in: .whitespaces), !title.isEmpty, body.hasPrefix(title + ":") {
                    body = body.dropFirst(title.count + 1).trimmingCharacters(in: .whitespaces)
                }
                if CitationParser.marker.firstMatch(in: body, range: NSRange(body.startIndex..., in: body)) == nil { body = insertMarker(n, into: body) }
                kept.append(body)
            } else if dropsCopies, let note = copiedNote(line, context: context), !relevant(note, to: terms) {
                dropped = true
            } else {
                kept.append(echoedDate.stringByReplacingMatches(in: line, range: range, withTemplate: ""))
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
        let item = AnswerPassage.listNumber.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "")
        let said = words(item)
        let label = item.firstIndex(of: ":").map { words(String(item[..<$0])) } ?? []
        return context.values.sorted { $0.id < $1.id }.first { note in
            let title = words(note.title ?? "")
            if !label.isEmpty, label == title { return true }
            let own = title + words(note.content)
            return said.count >= copiedWords && zip(said, own).prefix { $0 == $1 }.count >= copiedWords
        }
    }

    static let copiedWords = 4

    /// A text's words, lower-cased, without citation markers.
    static func words(_ text: String) -> [String] {
        let unmarked = CitationParser.marker.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: " ")
        return unmarked.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// A line that is only the day a shown note was written, perhaps after its title or a label
    /// ("[1] Anna's birthday: 27 Nov 2026", "Answer: 27 Nov 2026": SmolLM2-135M on the tier,
    /// 2026-11-27): the ends of its context line, without its words. It answers nothing but when
    /// the note was written, unless a shown note says that day in its words.
    static func isTitleAndDay(_ line: String, context: [Int: Note]) -> Bool {
        func bare(_ text: String) -> String { words(text).filter { $0 != "written" }.joined(separator: " ") }
        var said = bare(AnswerPassage.listNumber.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: ""))
        if said.hasPrefix("answer ") { said = String(said.dropFirst("answer ".count)) }
        guard said.contains(where: \.isNumber) else { return false }
        let days = Set(context.values.map { bare(ContextBuilder.writtenOn($0.createdAt)) })
        guard let day = days.first(where: { said == $0 || said.hasSuffix(" " + $0) }) else { return false }
        let before = said.dropLast(day.count).trimmingCharacters(in: .whitespaces)
        guard before.isEmpty || context.values.contains(where: { $0.title.map { bare($0) == before } ?? false }) else { return false }
        return !context.values.contains { " \(bare(($0.title ?? "") + " " + $0.content)) ".contains(" \(day) ") }
    }

    public static func attribute(_ answer: String, context: [Int: Note], question: String? = nil, settings: Settings = .default) -> Result {
        guard !context.isEmpty else { return Result(text: answer, added: [], removed: []) }
        var result = attributeSentences(question.map { withoutEchoedContext(answer, context: context, question: $0, dropsCopies: settings.dropsCopies) } ?? answer,
                                         context: context, settings: settings)
        // Citations of notes about something else beside ones about the question: the model went
        // through the list. Those go, when at least one cited note shares a word with the question.
        guard let question else { return result }
        let terms = questionTerms(question)
        let cited = citedNumbers(result.text)
        let offTopic = cited.filter { n in context[n].map { !relevant($0, to: terms) } ?? false }
        guard !offTopic.isEmpty, !terms.isEmpty else { return result }
        if offTopic.count < cited.count {
            result.text = removeMarkers(offTopic, from: result.text)
        } else {
            // Nothing cited is about the question: a citation stays only where its sentence is
            // (a note about the house for "what did I decide about the house": the answer's words
            // say so); a sentence about something else with a note about something else goes.
            var out = ""
            for range in sentences(result.text) {
                let sentence = String(result.text[range])
                out += TextTokens.matched(terms, in: sentence) > 0 ? sentence : removeMarkers(offTopic, from: sentence)
            }
            result.text = out
        }
        let gone = cited.subtracting(citedNumbers(result.text))
        result.added.subtract(gone)
        result.removed.formUnion(gone)
        return result
    }

    /// The context numbers a text's markers cite.
    static func citedNumbers(_ text: String) -> Set<Int> {
        Set(CitationParser.marker.matches(in: text, range: NSRange(text.startIndex..., in: text)).flatMap { m -> [Int] in
            guard let r = Range(m.range(at: 1), in: text) else { return [] }
            return numbers(text[r])
        })
    }

    /// "1, #3" → [1, 3]: the numbers inside one marker.
    static func numbers(_ inner: Substring) -> [Int] {
        inner.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: " #"))) }
    }

    /// `text` without the citation markers of `numbers` (a marker citing others too keeps those).
    static func removeMarkers(_ numbers: Set<Int>, from text: String) -> String {
        var out = text
        for m in CitationParser.marker.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            guard let r = Range(m.range, in: out), let inner = Range(m.range(at: 1), in: out) else { continue }
            let all = Self.numbers(out[inner])
            let keep = all.filter { !numbers.contains($0) }
            if keep.count == all.count { continue }
            var lower = r.lowerBound
            if keep.isEmpty, lower > out.startIndex, out[out.index(before: lower)] == " " { lower = out.index(before: lower) }
            out.replaceSubrange(lower..<r.upperBound, with: keep.map { "[\($0)]" }.joined())
        }
        return out
    }

    static func attributeSentences(_ answer: String, context: [Int: Note], settings: Settings) -> Result {
        var out = ""
        var modelCited = Set<Int>()
        var seleneCited = Set<Int>()
        var removed = Set<Int>()
        for range in sentences(answer) {
            let sentence = String(answer[range])
            let terms = terms(sentence)
            let marks = CitationParser.marker.matches(in: sentence, range: NSRange(sentence.startIndex..., in: sentence))
            var kept = sentence
            var keptAny = false
            // Model's markers: those whose note shares nothing with the sentence go.
            for match in marks.reversed() {
                guard let r = Range(match.range, in: sentence), let inner = Range(match.range(at: 1), in: sentence) else { continue }
                let numbers = Self.numbers(sentence[inner])
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
                kept = insertMarker(best, into: kept)
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

    /// "… the chimney." → "… the chimney [2]." (before the sentence's closing punctuation and
    /// trailing space, after any marker already there).
    static func insertMarker(_ number: Int, into sentence: String) -> String {
        var end = sentence.endIndex
        while end > sentence.startIndex, sentence[sentence.index(before: end)].isWhitespace { end = sentence.index(before: end) }
        var body = end
        while body > sentence.startIndex, ".!?".contains(sentence[sentence.index(before: body)]) { body = sentence.index(before: body) }
        return String(sentence[..<body]) + " [\(number)]" + String(sentence[body...])
    }
}
