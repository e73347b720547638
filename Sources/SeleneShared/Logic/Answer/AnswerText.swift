import Foundation

/// The text helpers every answer step uses, in one place: an answer's sentences and words, its
/// citation markers (found, stripped, counted, added, taken out), its figures, and how much of a
/// set of words a note holds — the one way "which note is this about" is decided.
public enum AnswerText {
    // MARK: Markers

    /// `text` with every citation marker (`CitationParser.marker`) replaced by a space.
    static func unmarked(_ text: String) -> String {
        CitationParser.marker.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: " ")
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

    /// "… the chimney." → "… the chimney [2]." (before the sentence's closing punctuation and
    /// trailing space, after any marker already there).
    static func insertMarker(_ number: Int, into sentence: String) -> String {
        var end = sentence.endIndex
        while end > sentence.startIndex, sentence[sentence.index(before: end)].isWhitespace { end = sentence.index(before: end) }
        var body = end
        while body > sentence.startIndex, ".!?".contains(sentence[sentence.index(before: body)]) { body = sentence.index(before: body) }
        return String(sentence[..<body]) + " [\(number)]" + String(sentence[body...])
    }

    // MARK: Sentences and words

    /// Sentences of an answer with the range each covers, line breaks kept; the markers right
    /// after a sentence's end belong to it ("… chimney. [1]").
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

    /// A line's sentences (split after ".", "!" or "?" — and their markers — and a space), trimmed.
    static func sentences(ofLine line: Substring) -> [String] {
        let text = String(line)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        return text.replacingOccurrences(of: #"([.!?](?:\s*\[\d{1,3}(?:,\s*\d{1,3})*\])?)\s+(?=\S)"#, with: "$1\u{1F}", options: .regularExpression)
            .split(separator: "\u{1F}").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A text's words, lower-cased, without citation markers.
    static func words(_ text: String) -> [String] {
        unmarked(text).lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// Words that say how something was asked or answered, not what about: not what ties a
    /// sentence or a question to a note.
    static let framing: Set<String> = ["said", "say", "says", "according", "mentioned", "mention", "wrote", "write", "based", "seems",
                                       "yes", "sure", "okay", "ok", "hi", "hello", "question", "answer", "selene",
                                       // "How much did I spend…": "much" made a note's "much better crumb" about the question.
                                       "much", "many"]

    /// The content words of a sentence that could tie it to a note: not framing words and not
    /// citation markers.
    static func terms(_ sentence: String) -> [String] {
        TextTokens.searchTerms(unmarked(sentence)).filter { !framing.contains($0) }
    }

    // MARK: Figures

    /// Runs of digits ("1,450" → 1 and 450; "3pm" → 3).
    static func digitRuns(_ text: String) -> [String] {
        text.split(whereSeparator: { !$0.isASCII || !$0.isNumber }).map(String.init)
    }

    /// A list item's number at a line's start ("2. ", "3) ").
    static let listNumber = try! NSRegularExpression(pattern: #"(?m)^\s*\d{1,2}[.)]\s"#)

    /// `text` without its list items' numbers (each replaced by `replacement`).
    static func withoutListNumbers(_ text: String, replacement: String = "") -> String {
        listNumber.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replacement)
    }

    // MARK: Which note it is about

    /// How many of `terms` (by stem) a note holds, in its title or its words: the one measure of
    /// how much a sentence or a question is about a note.
    static func held(_ terms: [String], by note: Note) -> Int {
        terms.isEmpty ? 0 : TextTokens.matched(terms, in: (note.title ?? "") + " " + note.content)
    }
}
