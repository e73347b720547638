import Foundation

/// Selene's wire format: camelCase keys, ISO-8601 UTC dates with milliseconds
/// (`2026-01-31T12:00:00.000Z`), accepted with or without fractions and with any offset.
/// Both ends encode and decode with these, so they cannot disagree (SELENE.md §10).
public enum SeleneJSON {
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an ISO-8601 date such as 2026-01-31T12:00:00.000Z")
            }
            return date
        }
        return decoder
    }

    public static func encode<T: Encodable>(_ value: T) throws -> Data { try makeEncoder().encode(value) }
    public static func decode<T: Decodable>(_ type: T.Type = T.self, from data: Data) throws -> T {
        try makeDecoder().decode(T.self, from: data)
    }
}

/// ISO-8601 instants as Selene writes and reads them.
public enum WireDate {
    /// `2026-01-31T12:00:00.000Z`: the instant rounded to the millisecond (formatters truncate,
    /// which would turn .123 stored as .12299999 into .122).
    public static func string(from date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (dayNumber, msOfDay) = floorDivision(ms, 86_400_000)
        let (year, month, day) = civil(dayNumber)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(msOfDay / 3_600_000, 2)):\(pad(msOfDay / 60_000 % 60, 2)):"
            + "\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a >= 0 ? a / b : -((-a + b - 1) / b)
        return (q, a - q * b)
    }

    /// The (year, month, day) of a day counted from 1970-01-01 (proleptic Gregorian): the
    /// inverse of `daysSince1970`, by 400-year eras counted from a March 1st.
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A date-time with `Z` or an offset (`+02:00`), with or without fractional seconds; nil
    /// for anything else, an impossible day (February 30th) or a leap second included.
    public static func date(from text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for i in at..<(at + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
              b[10] == 84 || b[10] == 116, let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58,
              let second = digits(17, 2), (1...12).contains(month), hour < 24, minute < 60, second < 60,
              day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = digits(i + 4, 2), oh < 24, om < 60 {
            offset = (b[i] == 45 ? -1 : 1) * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = Double(daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
        return rounded(Date(timeIntervalSince1970: seconds + fraction))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Count from March, so the leap day comes last in the year counted.
        let y = month <= 2 ? year - 1 : year
        let shifted = (month + 9) % 12
        let dayOfYear = (153 * shifted + 2) / 5 + day - 1
        let yearDays = y * 365 + Int((Double(y) / 4).rounded(.down)) - Int((Double(y) / 100).rounded(.down)) + Int((Double(y) / 400).rounded(.down))
        return yearDays + dayOfYear - 719_468
    }

    /// `2026-01-31` (UTC), the day part of an instant.
    public static func day(of date: Date) -> String { String(string(from: date).prefix(10)) }

}

extension WireDate {
    /// The same instant at whole milliseconds, the precision every store and the wire keep.
    public static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
