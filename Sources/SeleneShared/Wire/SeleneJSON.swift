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
    public static func string(from date: Date) -> String {
        date.formatted(withFraction)
    }

    /// A date-time with `Z` or an offset, with or without fractional seconds; `nil` otherwise.
    public static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 20, trimmed.count <= 40 else { return nil }
        if let date = try? withFraction.parse(trimmed) { return rounded(date) }
        if let date = try? withoutFraction.parse(trimmed) { return date }
        return nil
    }

    /// `2026-01-31` (UTC), the day part of an instant.
    public static func day(of date: Date) -> String { String(string(from: date).prefix(10)) }

    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
    private static let withoutFraction = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)
}

extension WireDate {
    /// The same instant at whole milliseconds, the precision every store and the wire keep.
    public static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
