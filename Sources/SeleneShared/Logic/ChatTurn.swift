import Foundation

/// A note that is one turn of a chat export: "Maya (7:42 pm on 3 March, 2024): …" or
/// "[03/03/2024, 19:42] Priya: …". Such a note is dated the day it was imported; the moment it
/// was said is in its header.
public enum ChatTurn {
    /// The speaker and the moment (in brackets before it or in parentheses after it) of a note
    /// starting with a chat export's header; nil for a note that doesn't start so.
    public static func header(of content: String) -> (speaker: String, moment: String?)? {
        let start = NSRange(content.startIndex..<(content.index(content.startIndex, offsetBy: 120, limitedBy: content.endIndex) ?? content.endIndex), in: content)
        guard let match = speakerHeader.firstMatch(in: content, range: start), let name = Range(match.range(at: 2), in: content) else { return nil }
        let moment = [1, 3].compactMap { Range(match.range(at: $0), in: content).map { String(content[$0]) } }.first
        return (String(content[name]), moment)
    }

    /// Whether a note starts with a chat export's header that has the moment in it — a note of
    /// one's own starting "Boiler: …" or "Retro (the long one): …" has a speaker's shape, no moment.
    public static func isExportTurn(_ content: String) -> Bool {
        header(of: content)?.moment?.contains(where: \.isNumber) ?? false
    }

    /// The day the turn was said, from its header: "… on 3 March, 2024", "March 3, 2024",
    /// "2024-03-03", or a numeric date as exports write it ("03/03/2024, 19:42", "3.3.24"), read
    /// day first as most of the world writes it unless the second number can't be a month. nil
    /// when the note has no header or its moment holds no whole date.
    public static func day(of content: String, calendar: Calendar = QueryAnalyzer.utcCalendar) -> Date? {
        guard let moment = header(of: content)?.moment else { return nil }
        if let named = DateMentions.dates(in: moment, at: Date(timeIntervalSince1970: 0), calendar: calendar).first,
           moment.range(of: #"\d{4}"#, options: .regularExpression) != nil {
            return named
        }
        guard let match = numericDate.firstMatch(in: moment, range: NSRange(moment.startIndex..., in: moment)) else { return nil }
        let numbers = (1...3).compactMap { Range(match.range(at: $0), in: moment).flatMap { Int(moment[$0]) } }
        guard numbers.count == 3 else { return nil }
        var (day, month) = (numbers[0], numbers[1])
        if month > 12 { (day, month) = (month, day) }
        var c = DateComponents()
        c.year = numbers[2] < 100 ? 2000 + numbers[2] : numbers[2]
        c.month = month
        c.day = day
        guard (1...12).contains(month), (1...31).contains(day), let date = calendar.date(from: c),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// "[moment] Speaker: " or "Speaker (moment): " or "Speaker: ".
    static let speakerHeader = try! NSRegularExpression(
        pattern: #"^\s*(?:\[([0-9./\-, :apmAPM]{6,30})\]\s*)?(\p{Lu}[\p{L}'’\-]{1,30})(?:\s\(([^)\n]{3,60})\))?:\s"#)

    static let numericDate = try! NSRegularExpression(pattern: #"\b(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})\b"#)
}
