import Foundation

/// What kind of question a chat message is, so the right notes are looked for: a search, one
/// thread, a time range ("last week"), the open tasks, or open conversation (nothing to look up).
public struct QueryAnalysis: Sendable, Hashable {
    /// The kind of question: a search, about a named thread, about a time, about tasks, or open chat.
    public enum Kind: Sendable, Hashable {
        case search
        case thread(name: String)
        case timeRange
        case tasks
        case openChat
    }

    /// How the answer should be written (the prompt builder's mode).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case chat, deepDive, synthesis, thinkingPartner
    }

    public var kind: Kind
    public var mode: Mode
    /// The question's content words, for searching.
    public var keywords: [String]
    /// For `timeRange` (and any question that names one): the interval asked about.
    public var range: DateInterval?
    /// Names in the question ("Priya", "Dr Okafor" for "Dr. Okafor", "Kallax"): capitalised words that aren't a
    /// question's opening word, a title, a month or a weekday. A note that has them is wanted.
    public var names: [String] = []
    /// "When did I last…", "the latest…": the newest of the matching notes is the answer.
    public var wantsLatest = false
    /// Words in quotes ("kitchen sink", “Porco Rosso”): a note with them in that order is wanted.
    public var phrases: [String] = []
}

/// Reads what a question asks for: its kind, its terms, the time it names.
public enum QueryAnalyzer {
    public static func analyze(_ text: String, now: Date, calendar: Calendar = QueryAnalyzer.utcCalendar) -> QueryAnalysis {
        let lower = text.lowercased().trimmingCharacters(in: .whitespacesAndNewlines)
        let range = timeRange(in: lower, now: now, calendar: calendar)
        var keywords = TextTokens.searchTerms(text).filter {
            !timeWords.contains($0) && !taskWords.contains($0) && !modeWords.contains($0) && !askingWords.contains($0)
        }
        let mode = self.mode(lower)
        let latest = wantsLatest(lower)
        let names = self.names(in: text)
        func analysis(_ kind: QueryAnalysis.Kind, keywords: [String], range: DateInterval?) -> QueryAnalysis {
            QueryAnalysis(kind: kind, mode: mode, keywords: keywords, range: range, names: names, wantsLatest: latest, phrases: phrases(in: text))
        }
        if let name = threadName(in: text) {
            keywords = keywords.filter { !["thread", "threads"].contains($0) }
            return analysis(.thread(name: name), keywords: keywords, range: range)
        }
        if isTaskQuestion(lower) { return analysis(.tasks, keywords: keywords, range: range) }
        if range != nil { return analysis(.timeRange, keywords: keywords, range: range) }
        if isSmallTalk(lower) || keywords.isEmpty { return analysis(.openChat, keywords: keywords, range: nil) }
        return analysis(.search, keywords: keywords, range: nil)
    }

    /// "when did I last", "last time I", "the latest", "most recent(ly)".
    static func wantsLatest(_ lower: String) -> Bool {
        lower.range(of: #"\b(when (did|was|were|have) (i|we|you|the|my|\w+) (\w+ )?last|last time|latest|most recent)"#,
                    options: .regularExpression) != nil
    }

    /// Text between straight or curly double quotes, of at least one word; quotes pair up in
    /// order, and one left open ends nothing.
    static func phrases(in text: String) -> [String] {
        var phrases: [String] = []
        var current: String?
        for character in text {
            if let open = current {
                if character == "\"" || character == "”" {
                    let phrase = open.trimmingCharacters(in: .whitespaces)
                    if !TextTokens.words(phrase).isEmpty { phrases.append(phrase) }
                    current = nil
                } else {
                    current = open + String(character)
                }
            } else if character == "\"" || character == "“" {
                current = ""
            }
        }
        return phrases
    }

    static let titles: Set<String> = ["dr", "mr", "mrs", "ms", "mx", "prof", "aunt", "uncle", "st"]

    /// Capitalised words, possessive dropped, in order and without repeats; a title ("Dr.",
    /// "Aunt") stays with the name after it. Not names: the question's first word when it is a
    /// common word ("What", "Tell"), "I", months, weekdays and other words of time.
    static func names(in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: #"\p{Lu}[\p{L}\p{M}'’\-]*"#) else { return [] }
        var names: [String] = []
        var pendingTitle: String?
        let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
        for match in matches {
            guard let range = Range(match.range, in: text) else { continue }
            var word = String(text[range])
            for suffix in ["'s", "’s", "'", "’"] where word.hasSuffix(suffix) { word.removeLast(suffix.count); break }
            let lower = word.lowercased()
            let atStart = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces).isEmpty
                || text[..<range.lowerBound].trimmingCharacters(in: .whitespaces).last.map { ".?!\n".contains($0) } == true
                && pendingTitle == nil
            if titles.contains(lower) { pendingTitle = word; continue }
            defer { pendingTitle = nil }
            if word.count < 2 || lower == "i" || timeWords.contains(lower) || TextTokens.stopWords.contains(lower) { continue }
            if atStart && (questionOpeners.contains(lower) || modeWords.contains(lower) || taskWords.contains(lower)) { continue }
            let name = pendingTitle.map { "\($0) \(word)" } ?? word
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    static let questionOpeners: Set<String> = ["what", "when", "where", "who", "why", "how", "which", "tell", "show", "find", "remind",
                                               "list", "give", "did", "do", "does", "is", "are", "was", "were", "can", "could", "should",
                                               "any", "anything", "everything", "summarise", "summarize", "search"]

    public static let utcCalendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        c.firstWeekday = 2
        return c
    }()

    static let timeWords: Set<String> = ["today", "yesterday", "week", "month", "year", "last", "past", "days", "weeks", "months",
                                         "since", "ago", "recently", "recent", "lately", "monday", "tuesday", "wednesday", "thursday",
                                         "friday", "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
                                         "august", "september", "october", "november", "december", "weekend"]
    /// Words of asking, not of what is asked about ("what do I know about…", "did I write…").
    static let askingWords: Set<String> = ["know", "knew", "remember", "anything", "everything", "something", "write", "wrote", "written",
                                           "note", "notes", "say", "said", "mention", "mentioned"]
    static let taskWords: Set<String> = ["task", "tasks", "todo", "todos", "need", "next", "steps", "action", "items", "open"]
    static let modeWords: Set<String> = ["deep", "dive", "everything", "connect", "connections", "patterns", "think", "help", "thinking"]

    /// "my garden thread", "the thread about garden", "thread: garden", "/thread garden".
    static func threadName(in text: String) -> String? {
        // "my X thread" first: in "my garden thread about compost" the thread is "garden".
        let patterns = [
            #"(?i)^/thread\s+(.+)$"#,
            #"(?i)\b(?:my|the|our)\s+["“]?([^"”?.!,]+?)["”]?\s+thread\b"#,
            #"(?i)\bthread(?:s)?\s+(?:about|on|called|named|for)\s+["“]?([^"”?.!,]+)"#,
            #"(?i)\bthread\s*:\s*["“]?([^"”?.!,]+)"#,
        ]
        for pattern in patterns {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                  let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text) else { continue }
            let name = text[range].trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty, name.count <= 80 { return name }
        }
        return nil
    }

    static func isTaskQuestion(_ lower: String) -> Bool {
        ["my tasks", "open tasks", "to-do", "todo", "to do list", "what should i do", "what do i need to do", "what do i have to do",
         "action items", "next steps", "what's next", "what is next", "tasks"].contains { lower.contains($0) }
    }

    static func isSmallTalk(_ lower: String) -> Bool {
        let stripped = lower.trimmingCharacters(in: CharacterSet.punctuationCharacters.union(.whitespaces))
        return ["hi", "hello", "hey", "thanks", "thank you", "good morning", "good night", "how are you", "ok", "okay", "cool"]
            .contains { stripped == $0 || stripped.hasPrefix($0 + " ") && stripped.count < $0.count + 12 }
    }

    static func mode(_ lower: String) -> QueryAnalysis.Mode {
        if ["help me think", "think through", "what do you think", "should i ", "thinking partner", "challenge me", "play devil"].contains(where: lower.contains) {
            return .thinkingPartner
        }
        if ["connect", "connection", "patterns", "how do ", "relate", "in common", "across"].contains(where: lower.contains) && lower.contains(" and ") || lower.contains("patterns across") {
            return .synthesis
        }
        if ["deep dive", "everything about", "go deep", "in depth", "all i know about", "tell me everything"].contains(where: lower.contains) {
            return .deepDive
        }
        return .chat
    }

    /// The interval a question names, if any.
    static func timeRange(in lower: String, now: Date, calendar: Calendar) -> DateInterval? {
        func startOfDay(_ d: Date) -> Date { calendar.startOfDay(for: d) }
        let today = startOfDay(now)
        func days(_ n: Int) -> Date { calendar.date(byAdding: .day, value: n, to: today)! }
        if lower.contains("yesterday") { return DateInterval(start: days(-1), end: today) }
        if lower.contains("today") || lower.contains("this morning") { return DateInterval(start: today, end: now) }
        if let match = firstMatch(#"(?:last|past)\s+(\d{1,3})\s+(day|days|week|weeks|month|months)"#, in: lower) {
            let n = Int(match[0]) ?? 1
            let unit: Calendar.Component = match[1].hasPrefix("day") ? .day : match[1].hasPrefix("week") ? .weekOfYear : .month
            return DateInterval(start: calendar.date(byAdding: unit, value: -n, to: now)!, end: now)
        }
        if lower.contains("this week") || lower.contains("past week") {
            let start = calendar.dateInterval(of: .weekOfYear, for: now)?.start ?? days(-7)
            return DateInterval(start: lower.contains("past week") ? days(-7) : start, end: now)
        }
        if lower.contains("last week") {
            let thisWeek = calendar.dateInterval(of: .weekOfYear, for: now)!.start
            return DateInterval(start: calendar.date(byAdding: .weekOfYear, value: -1, to: thisWeek)!, end: thisWeek)
        }
        if lower.contains("last weekend") {
            let thisWeek = calendar.dateInterval(of: .weekOfYear, for: now)!.start
            return DateInterval(start: calendar.date(byAdding: .day, value: -2, to: thisWeek)!, end: thisWeek)
        }
        if lower.contains("this month") { return DateInterval(start: calendar.dateInterval(of: .month, for: now)!.start, end: now) }
        if lower.contains("last month") {
            let thisMonth = calendar.dateInterval(of: .month, for: now)!.start
            return DateInterval(start: calendar.date(byAdding: .month, value: -1, to: thisMonth)!, end: thisMonth)
        }
        if lower.contains("this year") { return DateInterval(start: calendar.dateInterval(of: .year, for: now)!.start, end: now) }
        if lower.contains("recently") || lower.contains("lately") { return DateInterval(start: days(-14), end: now) }
        let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        for (index, month) in months.enumerated() where lower.range(of: #"\b(in|during|since)\s+"# + month + #"\b"#, options: .regularExpression) != nil {
            var c = calendar.dateComponents([.year], from: now)
            c.month = index + 1
            c.day = 1
            var start = calendar.date(from: c)!
            if start > now { start = calendar.date(byAdding: .year, value: -1, to: start)! }
            let end = lower.contains("since") ? now : min(now, calendar.date(byAdding: .month, value: 1, to: start)!)
            return DateInterval(start: start, end: end)
        }
        let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        for (index, day) in weekdays.enumerated() where lower.range(of: #"\b(on|since|last)\s+"# + day + #"\b"#, options: .regularExpression) != nil {
            var date = today
            repeat { date = calendar.date(byAdding: .day, value: -1, to: date)! } while calendar.component(.weekday, from: date) != index + 1
            let end = lower.contains("since") ? now : calendar.date(byAdding: .day, value: 1, to: date)!
            return DateInterval(start: date, end: end)
        }
        return nil
    }

    static func firstMatch(_ pattern: String, in text: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
    }
}
