import Foundation

/// Turns a `DecodingError` into the field it is about and a sentence a client can show.
public enum DecodingFailure {
    /// A field path and a sentence for a decoding failure, without echoing the input back.
    public static func describe(_ error: DecodingError) -> (String?, String) {
        func path(_ codingPath: [any CodingKey], extra: (any CodingKey)? = nil) -> String? {
            let keys = (codingPath + (extra.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            let joined = keys.reduce("") { acc, key in
                key.hasPrefix("[") ? acc + key : (acc.isEmpty ? key : acc + "." + key)
            }
            return joined.isEmpty ? nil : joined
        }
        switch error {
        case let .keyNotFound(key, context):
            let field = path(context.codingPath, extra: key)
            return (field, "\(field ?? "a field") is required")
        case let .valueNotFound(_, context):
            let field = path(context.codingPath)
            return (field, "\(field ?? "a value") must not be null")
        case let .typeMismatch(type, context):
            let field = path(context.codingPath)
            return (field, "\(field ?? "the body") has the wrong type (expected \(typeName(type)))")
        case let .dataCorrupted(context):
            let field = path(context.codingPath)
            if field == nil { return (nil, "malformed JSON") }
            return (field, "\(field!) has an invalid value")
        @unknown default:
            return (nil, "malformed JSON")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Int64.Type, is Int32.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is UUID.Type: "a UUID"
        case is Date.Type: "an ISO-8601 date"
        default: "\(type)".contains("Array") ? "a list" : "an object"
        }
    }
}
