import Foundation

/// What a small model leaves in an answer that a person shouldn't have to read: Selene's own
/// instructions copied back ("Answer from these notes only. After each sentence, …"), the same
/// words again and again until the token limit ("2026-11-26 — 2026-11-26 — 2026-…"), a line it
/// already wrote (under another citation number too), a citation left open ("[2"), and a label
/// left hanging at the end ("Answer:", "The answer is:"). The first
/// time stays; the copies, repeats and the hanging label go. Nothing else changes. Seen with SmolLM2-135M on
/// the real-model tier; a larger model rarely needs it, and then it changes nothing.
public enum AnswerTidy {
    /// The steps, in order, each named (`AnswerPipeline` runs them; `selene-bench` can switch
    /// any off).
    static let steps: [AnswerStep] = [
        .text("instructions", withoutInstructions),
        .text("repeated-lines", withoutRepeatedLines),
        .text("loops", withoutLoops),
        .text("numbered-loops", withoutNumberedLoops),
        .text("open-markers", withoutOpenMarkers),
        .text("hanging-label", withoutHangingLabel),
        .text("blank-lines", withoutBlankRuns),
    ]

    /// `text` tidied, and how many repeats and labels were taken out; `instructions`, when given,
    /// are what the model was told in place of a chat's (a briefing's prompt), whose copies go.
    public static func tidy(_ text: String, instructions: String? = nil) -> (text: String, removed: Int) {
        var draft = AnswerDraft(text: text)
        let facts = AnswerFacts(notes: [:], question: nil, now: Date(timeIntervalSince1970: 0))
        var steps = self.steps
        if let instructions {
            let rules = instructionSentences(instructions)
            steps = steps.map { step in
                step.name != "instructions" ? step : .text("instructions") { withoutCopies(of: rules, in: $0, removed: &$1) }
            }
        }
        let removed = steps.reduce(0) { $0 + $1.transform(&draft, facts) }
        return (draft.text, removed)
    }

    /// No run of empty lines, whether the model wrote it (SmolLM2-135M on the tier, 2026-11-27:
    /// fifty of them between two markers) or what was taken out left it; no space around the
    /// whole. (What it changes isn't counted: nothing of the answer goes.)
    static func withoutBlankRuns(_ text: String, removed: inout Int) -> String {
        text.replacingOccurrences(of: #"\n[ \t]*\n(?:[ \t]*\n)+"#, with: "\n\n", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The sentences of `instructions`, each as its words in order.
    static func instructionSentences(_ instructions: String) -> [[String]] {
        instructions.split(separator: ".").map { TextTokens.words(String($0)) }.filter { !$0.isEmpty }
    }

    /// The instructions a chat prompt gives the model (who Selene is, the citation rule).
    static let chatInstructions = instructionSentences(PromptBuilder.system(for: .chat) + " " + PromptBuilder.citationRule)

    /// Whether `words` (a sentence of the answer) copies one of `instructions`' sentences: at least
    /// 70% of the words of one of four words or more (perhaps in the first person: "I'm Selene, a
    /// private thinking companion"), or the opening three words or more of one and nothing else
    /// ("In under 200 words:", a briefing on the real-model tier, CI 2026-11-29). Words of an
    /// instruction elsewhere in a sentence are the answer's own ("The notes don't answer the
    /// question" stays).
    static func copies(_ words: [String], of instructions: [[String]]) -> Bool {
        let set = Set(words)
        return instructions.contains { rule in
            (rule.count >= 4 && Double(Set(rule).intersection(set).count) >= 0.7 * Double(Set(rule).count) && set.count <= rule.count * 2)
                || (words.count >= 3 && words.count < rule.count && Array(rule.prefix(words.count)) == words)
        }
    }

    static func withoutInstructions(_ text: String, removed: inout Int) -> String {
        withoutCopies(of: chatInstructions, in: text, removed: &removed)
    }

    /// A sentence of the answer that copies the instructions (`copies(_:of:)`), or a line
    /// "Question: …" (the prompt's own label, the question copied back), is dropped.
    static func withoutCopies(of instructions: [[String]], in text: String, removed: inout Int) -> String {
        var out = ""
        for range in AnswerText.sentences(text) {
            let sentence = text[range]
            let atLineStart = range.lowerBound == text.startIndex || text[text.index(before: range.lowerBound)] == "\n"
            let copied = (atLineStart && sentence.trimmingCharacters(in: .whitespaces).hasPrefix("Question:"))
                || copies(TextTokens.words(AnswerText.unmarked(String(sentence))), of: instructions)
            if copied {
                removed += 1
                // Its line break stays, so the lines around it stay apart.
                if sentence.hasSuffix("\n") { out += "\n" }
                continue
            }
            out += sentence
        }
        return out
    }

    /// A line equal (case and spacing aside) to one before it, dropped; empty lines kept. After
    /// a repeat, a last line that begins one already written (the repeat cut by the token limit) goes too.
    static func withoutRepeatedLines(_ text: String, removed: inout Int) -> String {
        var seen = Set<String>()
        var kept: [Substring] = []
        var repeated = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let key = lineKey(line)
            if key.count >= 8, !seen.insert(key).inserted {
                removed += 1
                repeated = true
                continue
            }
            kept.append(line)
        }
        if repeated, let last = kept.last {
            let key = lineKey(last)
            if key.count >= 3, seen.contains(where: { $0.count > key.count && $0.hasPrefix(key) }) {
                kept.removeLast()
                removed += 1
            }
        }
        return kept.joined(separator: "\n")
    }

    /// A loop the model varied only by its numbers ("Sourdough 2: Second loaf with the longer cold
    /// proof [1]. Sourdough 3: Second loaf … Sourdough 16: …", the real-model tier, 2026-11-27): a
    /// sentence or line said three times or more with nothing but its numbers changed keeps its
    /// first time only. Twice is left alone ("Loaf 1: 500 g flour. Loaf 2: 500 g flour." can be
    /// what the notes say).
    static func withoutNumberedLoops(_ text: String, removed: inout Int) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let split = lines.map { AnswerText.sentences(ofLine: $0) }
        var counts: [String: Int] = [:]
        for line in split { for sentence in line { if let key = numberBlindKey(sentence) { counts[key, default: 0] += 1 } } }
        guard counts.values.contains(where: { $0 >= 3 }) else { return text }
        var seen = Set<String>()
        var out: [String] = []
        for (line, sentences) in zip(lines, split) {
            let kept = sentences.filter { sentence in
                guard let key = numberBlindKey(sentence), counts[key, default: 0] >= 3 else { return true }
                return seen.insert(key).inserted
            }
            removed += sentences.count - kept.count
            // A line the loop filled goes whole; a line it didn't touch stays as it was.
            if kept.count == sentences.count { out.append(String(line)) } else if !kept.isEmpty { out.append(kept.joined(separator: " ")) }
        }
        return out.joined(separator: "\n")
    }

    /// A sentence with its numbers blanked ("sourdough #: second loaf …"), when it has a number and
    /// enough words to be a loop's unit; nil otherwise.
    static func numberBlindKey(_ sentence: String) -> String? {
        let key = lineKey(Substring(sentence))
        guard key.contains(where: \.isNumber) else { return nil }
        // A loop cut by the token limit ends without its full stop: the same sentence still.
        let blind = key.replacingOccurrences(of: #"\d+(?:[.,:]\d+)*"#, with: "#", options: .regularExpression)
            .trimmingCharacters(in: CharacterSet(charactersIn: " .!?;:,"))
        return blind.filter(\.isLetter).count >= 8 ? blind : nil
    }

    /// What makes two lines the same: their words, case and spacing aside, without citation markers,
    /// list numbers or an "Answer:" label ("[1] 27 Nov 2026" and "2. [3] 27 Nov 2026" are one line
    /// said twice, and so are "[1] Sourdough 2: …" and "Answer: [2] Sourdough 2: …", CI 2026-11-29;
    /// the markers go later anyway when their notes don't hold the line).
    static func lineKey(_ line: Substring) -> String {
        AnswerText.unmarked(String(line)).replacingOccurrences(of: #"^\s*\d{1,3}[.)]\s"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"^\s*(?:the\s+)?answer(?:\s+is)?\s*:\s*"#, with: "", options: [.regularExpression, .caseInsensitive])
            .lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// A citation marker the token limit or the model left open ("… [2" or "… [" at a line's end).
    static let openMarker = try! NSRegularExpression(pattern: #"[ \t]*\[(?:\d{1,3}(?:,\s*\d{1,3})*)?[ \t]*$"#, options: [.anchorsMatchLines])

    static func withoutOpenMarkers(_ text: String, removed: inout Int) -> String {
        let count = openMarker.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
        guard count > 0 else { return text }
        removed += count
        return openMarker.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
    }

    /// A piece of 3 to 80 characters said three or more times in a row, kept once; a start of it
    /// that follows (the loop cut by the token limit) goes too.
    static let loop = try! NSRegularExpression(pattern: #"(.{3,80}?)\1{2,}"#, options: [.dotMatchesLineSeparators])

    static func withoutLoops(_ text: String, removed: inout Int) -> String {
        var out = ""
        var cursor = text.startIndex
        for match in loop.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let piece = Range(match.range(at: 1), in: text),
                  whole.lowerBound >= cursor else { continue }
            let unit = text[piece]
            // "ha ha ha" or "!!!" is a word's own repeat, not a loop: only pieces with a letter or digit
            // and more than one kind of character count.
            guard unit.contains(where: { $0.isLetter || $0.isNumber }), Set(unit).count > 2 else { continue }
            out += text[cursor..<whole.lowerBound]
            out += unit
            removed += 1
            cursor = whole.upperBound
            let rest = text[cursor...]
            if !rest.isEmpty, rest.count < unit.count, unit.hasPrefix(rest) { cursor = text.endIndex }
        }
        out += text[cursor...]
        return out
    }

    /// "Answer:", "The answer is:", "Answer: [1]" with nothing after it, at the end.
    static let hangingLabel = try! NSRegularExpression(
        pattern: #"(?:^|\n|(?<=[.!?])\s)\s*(?:the\s+)?answer(?:\s+is)?\s*[:.]?\s*(?:\[\d+\]\s*)*[.:]?\s*$"#, options: [.caseInsensitive])

    static func withoutHangingLabel(_ text: String, removed: inout Int) -> String {
        guard let match = hangingLabel.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range, in: text) else { return text }
        let before = text[..<range.lowerBound]
        // An answer that is nothing but the label stays as it is: there is nothing else to show.
        guard !before.allSatisfy({ $0.isWhitespace }) else { return text }
        removed += 1
        return String(before)
    }
}
