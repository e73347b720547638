import Foundation

/// Timestamps travel as ISO-8601 in UTC with millisecond precision. Every instant the system
/// stores or compares is first rounded to whole milliseconds, so a value survives the round trip
/// through JSON, SQLite and PostgreSQL unchanged and last-write-wins comparisons stay exact.
public enum Timestamp {
    /// `2026-01-31T12:00:00.000Z`, always UTC with exactly three fraction digits.
    @inlinable
    public static func string(from date: Date) -> String {
        String(unsafeUninitializedCapacity: 24) { out in
            write(date, to: out.baseAddress!)
            return 24
        }
    }

    /// The same 24 characters, appended to `out` (a page of records writes thousands).
    @inlinable
    public static func write(_ date: Date, into out: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            write(date, to: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            out.append(contentsOf: UnsafeRawBufferPointer(buffer))
        }
    }

    /// Writes the 24 characters at `out` (inlined into the public writers; not API).
    @inlinable
    static func write(_ date: Date, to out: UnsafeMutablePointer<UInt8>) {
        let ms = date.millisecondsSince1970
        var days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = ms - days * 86_400_000
        // Civil-from-days (Howard Hinnant's algorithm): exact for every proleptic Gregorian date.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func put(_ value: Int64, _ width: Int, at offset: Int) {
            var v = value
            for i in stride(from: offset + width - 1, through: offset, by: -1) { out[i] = UInt8(truncatingIfNeeded: 48 + v % 10); v /= 10 }
        }
        put(year, 4, at: 0); out[4] = 45; put(month, 2, at: 5); out[7] = 45; put(day, 2, at: 8); out[10] = 84
        put(msOfDay / 3_600_000, 2, at: 11); out[13] = 58; put(msOfDay / 60_000 % 60, 2, at: 14); out[16] = 58
        put(msOfDay / 1000 % 60, 2, at: 17); out[19] = 46; put(msOfDay % 1000, 3, at: 20); out[23] = 90
    }

    /// Parses RFC 3339 date-times with or without fractional seconds, in UTC (`Z`) or with an
    /// offset (`+02:00`, hours below 24). Sub-millisecond digits are rounded away. Leap seconds
    /// (`:60`) are refused: nothing a person records needs one, and stored instants can't hold one.
    @inlinable
    public static func date(from string: String) -> Date? {
        var string = string
        return string.withUTF8 { date(from: $0) }
    }

    /// `date(from:)` on the text's UTF-8 bytes.
    @inlinable
    public static func date(from b: UnsafeBufferPointer<UInt8>) -> Date? {
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard b.count >= 20, let year = num(0, 4), b[4] == 45, let month = num(5, 2), b[7] == 45, let day = num(8, 2),
              b[10] == 84 || b[10] == 116, let hour = num(11, 2), b[13] == 58, let minute = num(14, 2), b[16] == 58,
              let second = num(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var i = 19
        var fractionMs: Double = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale = 100.0
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fractionMs += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            guard let oh = num(i + 1, 2), b.count > i + 3, b[i + 3] == 58, let om = num(i + 4, 2), oh < 24, om < 60 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let daysInMonth: Int64 = switch month {
        case 2: leap ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
        guard day <= daysInMonth else { return nil }
        // Days-from-civil, the inverse of the algorithm above.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        let ms = seconds * 1000 + Int64(fractionMs.rounded())
        return Date(millisecondsSince1970: ms)
    }
}

extension Date {
    /// The same instant, rounded to whole milliseconds (see `Timestamp`).
    @inlinable
    public var roundedToMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Milliseconds since 1970, the unit used for exact comparisons.
    @inlinable
    public var millisecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    @inlinable
    public init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}
