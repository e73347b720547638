import Foundation

// The values in a cell, read the way spreadsheets write them: whole numbers, colours, days.

enum NumberText {
    /// "3", "3.0", "3,0" (a decimal comma), "+3", "1,200" / "1.200" are not guessed at.
    static func wholeNumber(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" { negative = digits.first == "-"; digits = digits.dropFirst() }
        if let mark = digits.firstIndex(where: { $0 == "." || $0 == "," }) {
            let fraction = digits[digits.index(after: mark)...]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0 == "0" }) else { return nil }
            digits = digits[..<mark]
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else { return nil }
        return negative ? -value : value
    }

    /// A whole number, maybe followed by one of `units` ("13", "13 mesh", "18ct").
    static func leadingWholeNumber(_ text: String, units: [String]) -> Int? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let rest = ImportHeader.normalize(String(text.dropFirst(digits.count)))
        guard !digits.isEmpty, digits.count <= 6, rest.isEmpty || units.contains(rest) else { return nil }
        return Int(digits)
    }

    /// "7.7540E+11": what a spreadsheet makes of a long barcode.
    static func isScientific(_ text: String) -> Bool {
        let upper = text.uppercased()
        guard let e = upper.firstIndex(of: "E") else { return false }
        let mantissa = upper[..<e], exponent = upper[upper.index(after: e)...].drop { $0 == "+" }
        return !mantissa.isEmpty && mantissa.allSatisfy { $0.isNumber || $0 == "." || $0 == "," } && mantissa.contains { $0.isNumber }
            && !exponent.isEmpty && exponent.allSatisfy(\.isNumber)
    }
}

enum ColorText {
    /// `#A1B2C3`, `A1B2C3`, `#ABC`, or red, green and blue as `161,178,195`, `161 178 195` or `rgb(161, 178, 195)`.
    static func hex(_ text: String) -> String? {
        var value = text.trimmedWhitespace
        if value.lowercased().hasPrefix("rgb(") && value.hasSuffix(")") { value = String(value.dropFirst(4).dropLast()) }
        let parts = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" || $0 == "/" }).map(String.init)
        if parts.count == 3 {
            let channels = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
            guard channels.count == 3 else { return nil }
            return "#" + channels.map { String(format: "%02X", $0) }.joined()
        }
        if value.hasPrefix("#") { value.removeFirst() }
        guard value.allSatisfy(\.isHexDigit), value.allSatisfy(\.isASCII) else { return nil }
        if value.count == 3 { value = value.map { "\($0)\($0)" }.joined() }
        return value.count == 6 ? "#" + value.uppercased() : nil
    }
}

enum DayText {
    enum Reading: Equatable { case day(Date), ambiguous(String, String), unreadable }

    /// 2024-03-05, 2024/03/05, a full timestamp, 05.03.2024 (day first, as dots are written),
    /// or 3/5/2024 where only one reading is a date.
    static func read(_ text: String) -> Reading {
        if let full = Timestamp.date(from: text) { return .day(full) }
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "/" || $0 == "." }).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }), let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2])
        else { return .unreadable }
        func make(_ y: Int, _ m: Int, _ d: Int) -> Date? {
            Timestamp.date(from: String(format: "%04d-%02d-%02dT00:00:00Z", y, m, d))
        }
        if parts[0].count == 4 { return make(a, b, c).map(Reading.day) ?? .unreadable }
        guard parts[2].count == 4 else { return .unreadable }
        if text.contains(".") { return make(c, b, a).map(Reading.day) ?? .unreadable }
        let dayFirst = make(c, b, a), monthFirst = make(c, a, b)
        switch (dayFirst, monthFirst) {
        case let (x?, y?) where x != y:
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_GB")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "d MMMM yyyy"
            return .ambiguous(f.string(from: x), f.string(from: y))
        case let (x?, _): return .day(x)
        case let (nil, y?): return .day(y)
        default: return .unreadable
        }
    }
}
