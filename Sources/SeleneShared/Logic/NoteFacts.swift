import Foundation

/// What processing understood about a note, as words searched beside the note's own (#85):
/// the concepts, people, places and themes the model wrote down, the name of the thread the note is in, and the
/// days the note mentions resolved to dates at the note's moment ("yesterday" in a note written
/// on 24 November is 23 November 2026, a Monday). A question about "Sam's move" then finds the
/// note that only says "signed for the flat in Lisbon" when the model wrote down "moving".
public enum NoteFacts {
    /// The words, one line, at most `maxCharacters` (concepts first). A chat export's turn
    /// ("[03/03/2024, 19:42] Priya: …") was said on its header's day, not the day it was
    /// imported: its days are resolved there, and that day is one of its facts.
    public static func text(concepts: [String], people: [String] = [], places: [String] = [], themes: [String], threadName: String?,
                            content: String, writtenAt: Date,
                            calendar: Calendar = QueryAnalyzer.utcCalendar) -> String {
        var parts: [String] = []
        var seen = Set<String>()
        let said = ChatTurn.day(of: content, calendar: calendar)
        let days = DateMentions.words(for: [said].compactMap { $0 } + DateMentions.dates(in: content, at: said ?? writtenAt, calendar: calendar),
                                      calendar: calendar)
        for part in concepts + people + places + themes + [threadName].compactMap({ $0 }) + days {
            let clean = part.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !clean.isEmpty, seen.insert(clean.lowercased()).inserted else { continue }
            parts.append(clean)
        }
        let joined = parts.joined(separator: " · ")
        return joined.count <= maxCharacters ? joined : String(joined.prefix(maxCharacters))
    }

    public static let maxCharacters = 2_000
}

/// Days a note mentions, resolved at the moment it was written.
public enum DateMentions {
    public static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    public static let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]

    /// The days `text` names ("today", "yesterday", "tomorrow", "last Tuesday", "on Friday", "next
    /// Monday", "3 days ago", "4 March", "March 4th", "2026-03-04"), each once, in order.
    public static func dates(in text: String, at moment: Date, calendar: Calendar = QueryAnalyzer.utcCalendar) -> [Date] {
        let lower = text.lowercased()
        let today = calendar.startOfDay(for: moment)
        func day(_ offset: Int) -> Date { calendar.date(byAdding: .day, value: offset, to: today)! }
        var found: [(at: Int, date: Date)] = []
        func each(_ pattern: String, _ resolve: ([String]) -> Date?) {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return }
            for match in regex.matches(in: lower, range: NSRange(lower.startIndex..., in: lower)) {
                let groups = (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: lower).map { String(lower[$0]) } ?? "" }
                if let date = resolve(groups) { found.append((match.range.location, date)) }
            }
        }
        each(#"\b(today|tonight|this (?:morning|afternoon|evening))\b"#) { _ in today }
        each(#"\byesterday\b"#) { _ in day(-1) }
        each(#"\btomorrow\b"#) { _ in day(1) }
        each(#"\b(\d{1,3}) days? ago\b"#) { g in Int(g[1]).map { day(-$0) } }
        each(#"\b(last|on|this|next|coming) (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b"#) { g in
            guard let index = weekdays.firstIndex(of: g[2]) else { return nil }
            let step = g[1] == "last" ? -1 : 1
            var date = today
            repeat { date = calendar.date(byAdding: .day, value: step, to: date)! } while calendar.component(.weekday, from: date) != index + 1
            return date
        }
        let monthNames = months.joined(separator: "|")
        func dated(month: String, day: String, year: String?) -> Date? {
            guard let m = months.firstIndex(where: { $0.hasPrefix(month.prefix(3)) }), let d = Int(day), (1...31).contains(d) else { return nil }
            var c = DateComponents()
            c.year = year.flatMap { Int($0) } ?? calendar.component(.year, from: moment)
            c.month = m + 1
            c.day = d
            return calendar.date(from: c)
        }
        each(#"\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?("# + monthNames + #")(?:,? (\d{4}))?\b"#) { g in dated(month: g[2], day: g[1], year: g[3].isEmpty ? nil : g[3]) }
        each(#"\b("# + monthNames + #") (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?\b"#) { g in dated(month: g[1], day: g[2], year: g[3].isEmpty ? nil : g[3]) }
        each(#"\b(\d{4})-(\d{2})-(\d{2})\b"#) { g in
            var c = DateComponents()
            c.year = Int(g[1]); c.month = Int(g[2]); c.day = Int(g[3])
            guard let m = c.month, (1...12).contains(m), let d = c.day, (1...31).contains(d) else { return nil }
            return calendar.date(from: c)
        }
        var dates: [Date] = []
        for (_, date) in found.sorted(by: { $0.at < $1.at }) where !dates.contains(date) { dates.append(date) }
        return dates
    }

    /// Each day as words a question might use: "2026-11-23 Monday 23 November 2026".
    public static func words(in text: String, at moment: Date, calendar: Calendar = QueryAnalyzer.utcCalendar) -> [String] {
        words(for: dates(in: text, at: moment, calendar: calendar), calendar: calendar)
    }

    /// Each of (at most 20) days as words, each once.
    public static func words(for dates: [Date], calendar: Calendar = QueryAnalyzer.utcCalendar) -> [String] {
        var seen = Set<Date>()
        return dates.filter { seen.insert($0).inserted }.prefix(20).map { date in
            let c = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let iso = String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
            return "\(iso) \(weekdays[c.weekday! - 1].capitalized) \(c.day!) \(months[c.month! - 1].capitalized) \(c.year!)"
        }
    }
}
