import Fluent
import Foundation
import StitchCore

/// Who writes a record, when, and through which database: what every record write needs to know
/// of the request that asked for it (the API's and the web app's alike).
struct Writer: Sendable {
    var userId: UUID
    var now: Date
    var db: any Database
}

/// A change to one record as JSON fields: a JSON merge patch (RFC 7386). Keys that are absent
/// stay as they are, `null` clears an optional field, and the result is decoded and validated as a
/// whole record, so the API's bodies and the web app's forms share every rule of the record.
struct RecordPatch: Sendable, ExpressibleByDictionaryLiteral {
    private(set) var fields: [String: JSONValue]

    init(_ fields: [String: JSONValue] = [:]) { self.fields = fields }

    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.fields = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// A JSON request body: it must be an object.
    init(json data: Data) throws {
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(data)
        } catch {
            throw APIError(.badRequest, "The request body is not valid: malformed JSON")
        }
        guard case .object(let object) = parsed else {
            throw APIError(.badRequest, "The request body must be a JSON object")
        }
        self.fields = object
    }

    subscript(key: String) -> JSONValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    var keys: Set<String> { Set(fields.keys) }
    var isEmpty: Bool { fields.isEmpty }

    /// The patch without `key`.
    func removing(_ key: String) -> RecordPatch {
        var copy = self
        copy.fields.removeValue(forKey: key)
        return copy
    }

    /// `other`'s fields over this patch's.
    func merging(_ other: RecordPatch) -> RecordPatch {
        RecordPatch(fields.merging(other.fields, uniquingKeysWith: { _, theirs in theirs }))
    }

    /// The id a client chose for a new record, if it sent one.
    func clientId() throws -> UUID? {
        switch fields["id"] {
        case nil, .null?: return nil
        case .string(let text)?:
            if let id = UUID(text: text) { return id }
        default: break
        }
        throw APIError.validation(["id": "id must be a UUID"])
    }

    /// The record with this patch applied, `protected` keys kept as `base` has them (or absent
    /// where it has none).
    func applied<R: Codable>(to base: R, protected: Set<String>) throws -> R {
        guard case .object(var object) = try JSONValue.from(base) else { throw APIError.validation([:]) }
        let original = object
        for (key, value) in fields where !protected.contains(key) {
            if value == .null { object.removeValue(forKey: key) } else { object[key] = value }
        }
        for key in protected { object[key] = original[key] }
        return try JSONValue.object(object).decode(as: R.self)
    }

    /// A new record from `defaults`, this patch over them, and `protected` over both.
    func created<R: Decodable>(defaults: RecordPatch, protected: RecordPatch) throws -> R {
        var object = defaults.fields
        for (key, value) in fields where protected.fields[key] == nil {
            if value == .null { object.removeValue(forKey: key) } else { object[key] = value }
        }
        for (key, value) in protected.fields { object[key] = value }
        return try JSONValue.object(object).decode(as: R.self)
    }
}

extension JSONValue {
    /// A form's optional text: the text, or `null` (clear the field) when absent.
    static func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    static func time(_ date: Date) -> JSONValue { .string(Timestamp.string(from: date)) }
    static func id(_ id: UUID) -> JSONValue { .string(id.text) }
    static func id(_ id: UUID?) -> JSONValue { id.map { .string($0.text) } ?? .null }
    static func number(_ value: Int) -> JSONValue { .int(Int64(value)) }
}
