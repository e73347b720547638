import Foundation

// Records to and from their wire fields without going through Codable: a sync page carries
// thousands of records, and the generic encoder/decoder (a container per record, a coding path
// per field) was the largest cost of a pull on both sides. The output is exactly what the
// synthesized Codable conformances produce (tested field by field); on any input the fast reader
// doesn't take as-is, decoding falls back to Codable, which also gives the precise error.

enum RecordWire {
    /// Whether `T` is one of the record types (pointer comparisons; the coders ask per value).
    @inline(__always) static func isRecord<T>(_ type: T.Type) -> Bool {
        T.self == InventoryThread.self || T.self == Canvas.self || T.self == Project.self || T.self == ProjectSection.self
            || T.self == ProjectThread.self || T.self == JournalEntry.self || T.self == JournalImage.self
            || T.self == Pattern.self || T.self == ShoppingLine.self
    }
}

/// Typed reads of a record's wire fields, from a parsed dictionary (`WireFields`) or straight
/// from the bytes of a page (`RawFields`). Every read answers nil where Codable would not simply
/// succeed; absent or null optionals are `.some(nil)`. A sync change's envelope (id and
/// timestamps) can stand in for the data's own fields.
public protocol WireFieldSource {
    var envelope: (id: UUID, updatedAt: Date, deletedAt: Date?)? { get }
    func string(_ key: StaticString) -> String?
    func optionalString(_ key: StaticString) -> String??
    func int(_ key: StaticString) -> Int?
    func optionalInt(_ key: StaticString) -> Int??
    func uuid(_ key: StaticString) -> UUID?
    func optionalUUID(_ key: StaticString) -> UUID??
    func date(_ key: StaticString) -> Date?
    func optionalDate(_ key: StaticString) -> Date??
}

extension WireFieldSource {
    /// The record's own stamps: the envelope's where there is one (its createdAt defaults to
    /// the envelope's updatedAt).
    @inlinable public var id: UUID? { envelope?.id ?? uuid("id") }
    @inlinable public var createdAt: Date? {
        guard let envelope else { return date("createdAt") }
        guard let given = optionalDate("createdAt") else { return nil }
        return given ?? envelope.updatedAt
    }
    @inlinable public var updatedAt: Date? { envelope?.updatedAt ?? date("updatedAt") }
    @inlinable public var deletedAt: Date?? { if let envelope { return .some(envelope.deletedAt) } else { return optionalDate("deletedAt") } }
}

/// Wire fields parsed into a dictionary.
public struct WireFields: WireFieldSource {
    let fields: [String: JSONValue]
    public var envelope: (id: UUID, updatedAt: Date, deletedAt: Date?)?

    init(fields: [String: JSONValue], envelope: (id: UUID, updatedAt: Date, deletedAt: Date?)? = nil) {
        self.fields = fields
        self.envelope = envelope
    }

    private func value(_ key: StaticString) -> JSONValue? { fields[DictionarySink.key(key)] }

    public func string(_ key: StaticString) -> String? {
        if case .string(let s)? = value(key) { return s }
        return nil
    }
    public func optionalString(_ key: StaticString) -> String?? {
        switch value(key) {
        case nil, .null?: return .some(nil)
        case .string(let s)?: return .some(s)
        default: return nil
        }
    }
    public func int(_ key: StaticString) -> Int? {
        if case .int(let v)? = value(key), let i = Int(exactly: v) { return i }
        return nil
    }
    public func optionalInt(_ key: StaticString) -> Int?? {
        switch value(key) {
        case nil, .null?: return .some(nil)
        case .int(let v)?: return Int(exactly: v).map { .some($0) }
        default: return nil
        }
    }
    public func uuid(_ key: StaticString) -> UUID? { string(key).flatMap(UUID.init(text:)) }
    public func optionalUUID(_ key: StaticString) -> UUID?? { optional(key, UUID.init(text:)) }
    public func date(_ key: StaticString) -> Date? { string(key).flatMap(Timestamp.date(from:)) }
    public func optionalDate(_ key: StaticString) -> Date?? { optional(key, Timestamp.date(from:)) }

    /// An optional string field parsed into `T`: absent or null is `.some(nil)`, unparsable is nil.
    private func optional<T>(_ key: StaticString, _ parse: (String) -> T?) -> T?? {
        guard let s = optionalString(key) else { return nil }
        guard let s else { return .some(nil) }
        return parse(s).map { .some($0) }
    }
}

/// Where a record writes its wire fields: a dictionary (`wireFields`) or JSON bytes directly
/// (`JSONDirect`). Records put their fields in sorted key order, the order the JSON is written in;
/// nil optionals are left out, as the synthesized `encode(to:)` does.
public protocol WireSink {
    mutating func put(_ key: StaticString, _ value: String?)
    mutating func put(_ key: StaticString, _ value: Int?)
    mutating func put(_ key: StaticString, _ value: UUID?)
    mutating func put(_ key: StaticString, _ value: Date?)
}

extension WireSink {
    mutating func put<E: RawRepresentable>(_ key: StaticString, _ value: E) where E.RawValue == String { put(key, value.rawValue) }
}

struct DictionarySink: WireSink {
    var fields: [String: JSONValue] = [:]
    init(capacity: Int) { fields.reserveCapacity(capacity) }
    @inline(__always) static func key(_ key: StaticString) -> String {
        key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
    mutating func put(_ key: StaticString, _ value: String?) { if let value { fields[Self.key(key)] = .string(value) } }
    mutating func put(_ key: StaticString, _ value: Int?) { if let value { fields[Self.key(key)] = .int(Int64(value)) } }
    mutating func put(_ key: StaticString, _ value: UUID?) { if let value { fields[Self.key(key)] = .string(value.wireText) } }
    mutating func put(_ key: StaticString, _ value: Date?) { if let value { fields[Self.key(key)] = .string(Timestamp.string(from: value)) } }
}

/// Writes an object's `"key":value` pairs straight into bytes (see `JSONObjectSink.object`).
public struct JSONObjectSink: WireSink {
    var out: [UInt8]
    var first = true

    init(into out: [UInt8]) { self.out = out }

    @inline(__always) mutating func key(_ key: StaticString) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }
    public mutating func put(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        JSONWriter.writeString(value, into: &out)
    }
    public mutating func put(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        JSONWriter.writeInt(Int64(value), into: &out)
    }
    public mutating func put(_ key: StaticString, _ value: UUID?) {
        guard let value else { return }
        self.key(key)
        out.append(UInt8(ascii: "\""))
        value.write(into: &out)
        out.append(UInt8(ascii: "\""))
    }
    public mutating func put(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        self.key(key)
        out.append(UInt8(ascii: "\""))
        Timestamp.write(value, into: &out)
        out.append(UInt8(ascii: "\""))
    }
    /// A string value given as its UTF-8 bytes (a database cell's, say), escaped as `put` escapes a `String`.
    public mutating func put(_ key: StaticString, utf8 value: UnsafeRawBufferPointer) {
        self.key(key)
        JSONWriter.writeString(utf8: value.bindMemory(to: UInt8.self), into: &out)
    }
    mutating func put(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }
    /// A value written by its own writer.
    public mutating func put(_ key: StaticString, json write: (inout [UInt8]) throws -> Void) rethrows {
        self.key(key)
        try write(&out)
    }
}

extension SyncRecord {
    public init?(wireFields fields: [String: JSONValue]) { self.init(wire: WireFields(fields: fields)) }

    public var wireFields: [String: JSONValue] {
        var sink = DictionarySink(capacity: 13)
        writeWire(to: &sink)
        return sink.fields
    }
}

// The sync envelopes read the same way: nil wherever Codable must decide (and explain).
extension SyncChange {
    init?(wire value: JSONValue) {
        guard case .object(let fields) = value else { return nil }
        let f = WireFields(fields: fields)
        guard let type = f.string("type").flatMap(EntityType.init(rawValue:)), let id = f.uuid("id"),
              let action = f.string("action").flatMap(SyncAction.init(rawValue:)), let updatedAt = f.date("updatedAt"),
              let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        var data = fields["data"]
        if data == .null { data = nil }
        // Data that isn't an object is for Codable to refuse (and say why).
        if let data, case .object = data {} else if data != nil { return nil }
        self.init(type: type, id: id, action: action, data: data, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension SyncResult {
    init?(wire value: JSONValue) {
        guard case .object(let fields) = value, fields["error"] == nil || fields["error"] == .null else { return nil }
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let status = f.string("status").flatMap(SyncStatus.init(rawValue:)) else { return nil }
        var type: EntityType?
        switch fields["type"] {
        case nil, .null?: type = nil
        case .string(let raw)?: guard let known = EntityType(rawValue: raw) else { return nil }; type = known
        default: return nil
        }
        var clamped: Bool?
        switch fields["clamped"] {
        case nil, .null?: clamped = nil
        case .bool(let b)?: clamped = b
        default: return nil
        }
        self.init(id: id, type: type, status: status, clamped: clamped)
    }
}
