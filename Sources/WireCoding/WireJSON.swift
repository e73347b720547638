import Foundation

/// The JSON both products speak (SPEC's API, SELENE.md §10): camelCase keys, sorted, slashes
/// unescaped; instants as ``Timestamp`` writes them (`2026-01-31T12:00:00.000Z`), read with or
/// without fractions and with any offset. Client and server encode and decode with these, so they
/// cannot disagree.
public enum WireJSON {
    /// A fresh encoder for the wire format.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A fresh decoder for the wire format; a date it can't read is a `DecodingError` naming an example.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected an ISO-8601 date such as 2026-01-31T12:00:00.000Z")
            }
            return date
        }
        return decoder
    }

    /// `value` as wire JSON.
    public static func encode<T: Encodable>(_ value: T) throws -> Data { try makeEncoder().encode(value) }

    /// A `T` read from wire JSON.
    public static func decode<T: Decodable>(_ type: T.Type = T.self, from data: Data) throws -> T {
        try makeDecoder().decode(T.self, from: data)
    }
}
