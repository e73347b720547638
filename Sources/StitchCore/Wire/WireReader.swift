import Foundation

// Sync bodies read straight from their bytes into typed values. The general path parses a whole
// push or page into a `JSONValue` tree (a dictionary per change and per record, a string for
// every id and date) and then reads the tree; here the envelopes are read key by key, each
// record's fields are noted as positions in the bytes, and ids and dates are parsed where they
// lie. Anything this reader doesn't take as-is (an escaped key, a wrong type, a field only
// Codable can judge, a rejected change's error) makes it give up on the whole body, and the
// general path decodes it instead, with its exact errors: the two paths answer the same
// (tested), this one only sooner.

/// One field of a flat JSON object, as positions in the bytes it was read from.
struct RawField {
    enum Value {
        /// A string with no escapes and only ASCII: its bytes are its text.
        case text(start: Int, end: Int)
        /// A string that needed decoding (escapes, non-ASCII).
        case decoded(String)
        case int(Int64)
        case null
        /// Anything else (a fraction, a boolean, an array, an object): no record field takes it as-is.
        case other
    }
    var keyStart: Int
    var keyEnd: Int
    /// The key's first eight bytes (zero-padded): most keys differ there, so a lookup compares
    /// one word before it compares bytes.
    var keyPrefix: UInt64
    var value: Value

    init(keyStart: Int, keyEnd: Int, in bytes: UnsafeBufferPointer<UInt8>, value: Value) {
        self.keyStart = keyStart
        self.keyEnd = keyEnd
        keyPrefix = RawField.prefix(UnsafeRawPointer(bytes.baseAddress! + keyStart), count: keyEnd - keyStart)
        self.value = value
    }

    @inline(__always) static func prefix(_ start: UnsafeRawPointer, count: Int) -> UInt64 {
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: start, byteCount: min(count, 8)) }
        return word
    }
}

/// A record's fields read from the bytes of a body (see `WireFieldSource`).
struct RawFields: WireFieldSource {
    let bytes: UnsafeBufferPointer<UInt8>
    let fields: [RawField]
    var envelope: (id: UUID, updatedAt: Date, deletedAt: Date?)?

    /// The last field with this key, as a dictionary would keep it.
    private func value(_ key: StaticString) -> RawField.Value? {
        let count = key.utf8CodeUnitCount
        let k = key.utf8Start
        let prefix = RawField.prefix(UnsafeRawPointer(k), count: count)
        return fields.withUnsafeBufferPointer { fields in
            var i = fields.count - 1
            while i >= 0 {
                let f = fields[i]
                if f.keyPrefix == prefix, f.keyEnd - f.keyStart == count,
                   count <= 8 || memcmp(bytes.baseAddress! + f.keyStart + 8, k + 8, count - 8) == 0 { return f.value }
                i -= 1
            }
            return nil
        }
    }

    private func text(_ start: Int, _ end: Int) -> String {
        String(unsafeUninitializedCapacity: end - start) { out in
            _ = out.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return end - start
        }
    }

    func string(_ key: StaticString) -> String? {
        switch value(key) {
        case .text(let start, let end)?: return text(start, end)
        case .decoded(let s)?: return s
        default: return nil
        }
    }
    func optionalString(_ key: StaticString) -> String?? {
        switch value(key) {
        case nil, .null?: return .some(nil)
        case .text(let start, let end)?: return .some(text(start, end))
        case .decoded(let s)?: return .some(s)
        default: return nil
        }
    }
    func int(_ key: StaticString) -> Int? {
        if case .int(let v)? = value(key) { return Int(exactly: v) }
        return nil
    }
    func optionalInt(_ key: StaticString) -> Int?? {
        switch value(key) {
        case nil, .null?: return .some(nil)
        case .int(let v)?: return Int(exactly: v).map { .some($0) }
        default: return nil
        }
    }
    /// A string field parsed into `T`, from its bytes where it has no escapes.
    private func parsed<T>(_ key: StaticString, _ fromBytes: (UnsafeBufferPointer<UInt8>) -> T?, _ fromText: (String) -> T?) -> T?? {
        switch value(key) {
        case nil, .null?: return .some(nil)
        case .text(let start, let end)?: return fromBytes(UnsafeBufferPointer(rebasing: bytes[start..<end])).map { .some($0) }
        case .decoded(let s)?: return fromText(s).map { .some($0) }
        default: return nil
        }
    }
    func uuid(_ key: StaticString) -> UUID? { optionalUUID(key) ?? nil }
    func optionalUUID(_ key: StaticString) -> UUID?? { parsed(key, UUID.init(utf8:), UUID.init(text:)) }
    func date(_ key: StaticString) -> Date? { optionalDate(key) ?? nil }
    func optionalDate(_ key: StaticString) -> Date?? { parsed(key, Timestamp.date(from:), Timestamp.date(from:)) }
}

/// Reads sync bodies on top of `JSONParser` (which does the validation of strings and numbers).
/// Every method answers nil where the body is not in the shape it reads fast.
struct WireReader {
    var p: JSONParser
    /// The fields of the record being read (reused from change to change).
    var fields: [RawField] = []

    init(bytes: UnsafeBufferPointer<UInt8>) {
        p = JSONParser(bytes: bytes)
        fields.reserveCapacity(16)
    }

    var bytes: UnsafeBufferPointer<UInt8> { p.bytes }

    /// The whole body as one value read by `body`, with nothing but white space after it.
    mutating func document<T>(_ body: (inout WireReader) throws -> T?) -> T? {
        // A byte-order mark is left to the general path.
        guard let value = try? body(&self) else { return nil }
        p.skipWhitespace()
        return p.i == bytes.count ? value : nil
    }

    @inline(__always) mutating func consume(_ c: UInt8) -> Bool {
        p.skipWhitespace()
        guard p.i < bytes.count, bytes[p.i] == c else { return false }
        p.i += 1
        return true
    }

    /// Calls `body` with each key of an object (as byte positions; keys with escapes are refused)
    /// positioned at its value, which `body` must read. Answers false if the object is malformed
    /// or `body` answered false.
    mutating func object(_ body: (inout WireReader, Int, Int) throws -> Bool) throws -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        try p.enter()
        defer { p.depth -= 1 }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard consume(UInt8(ascii: "\"")) else { return false }
            let start = p.i
            while p.i < bytes.count, bytes[p.i] != UInt8(ascii: "\"") {
                let c = bytes[p.i]
                guard c >= 0x20, c < 0x80, c != UInt8(ascii: "\\") else { return false }
                p.i += 1
            }
            guard p.i < bytes.count else { return false }
            let end = p.i
            p.i += 1
            guard consume(UInt8(ascii: ":")) else { return false }
            guard try body(&self, start, end) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// Calls `body` for each element of an array, positioned at it.
    mutating func array(_ body: (inout WireReader) throws -> Bool) throws -> Bool {
        guard consume(UInt8(ascii: "[")) else { return false }
        try p.enter()
        defer { p.depth -= 1 }
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard try body(&self) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    @inline(__always) func key(_ start: Int, _ end: Int, is name: StaticString) -> Bool {
        end - start == name.utf8CodeUnitCount && memcmp(bytes.baseAddress! + start, name.utf8Start, end - start) == 0
    }

    /// The next value as a record field.
    mutating func fieldValue() throws -> RawField.Value {
        p.skipWhitespace()
        guard p.i < bytes.count else { throw p.fail("unexpected end of data") }
        switch bytes[p.i] {
        case UInt8(ascii: "\""):
            let start = p.i + 1
            // Plain ASCII up to the closing quote is the text itself; anything else (an escape,
            // a control character, non-ASCII to validate) is decoded by the parser.
            let base = bytes.baseAddress!, count = bytes.count
            var i = start
            // Eight bytes at a time while none of them ends the plain run.
            while i + 8 <= count, !WireReader.endsPlainText(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            while i < count {
                let c = base[i]
                if c == UInt8(ascii: "\"") {
                    p.i = i + 1
                    return .text(start: start, end: i)
                }
                if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\\") { break }
                i += 1
            }
            return .decoded(try p.parseString())
        case UInt8(ascii: "n"):
            try p.literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if case .int(let v) = try p.parseNumber() { return .int(v) }
            return .other
        default:
            _ = try p.parseValue()
            return .other
        }
    }

    /// Whether any of the eight bytes in `w` is a quote, a backslash, a control character or
    /// not ASCII (the classic "has a byte less than / equal to" word tricks).
    @inline(__always) static func endsPlainText(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let control = (w &- ones &* 0x20) & ~w & highs
        return (w & highs) | control | hasZero(w ^ (ones &* 0x22)) | hasZero(w ^ (ones &* 0x5C)) != 0
    }

    mutating func string() throws -> String? {
        switch try fieldValue() {
        case .text(let start, let end):
            return String(unsafeUninitializedCapacity: end - start) { out in
                _ = out.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                return end - start
            }
        case .decoded(let s): return s
        default: return nil
        }
    }

    /// A string field parsed where it lies (no escapes), or through its decoded text.
    mutating func parsed<T>(_ fromBytes: (UnsafeBufferPointer<UInt8>) -> T?, _ fromText: (String) -> T?) throws -> T? {
        switch try fieldValue() {
        case .text(let start, let end): return fromBytes(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        case .decoded(let s): return fromText(s)
        default: return nil
        }
    }

    /// One of an enum's raw values, matched on the bytes (no string made).
    mutating func enumValue<E: WireEnum>(_ type: E.Type) throws -> E? {
        switch try fieldValue() {
        case .text(let start, let end):
            let base = bytes.baseAddress! + start, count = end - start
            for (utf8, value) in E.wireCases where utf8.count == count {
                if utf8.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, count) == 0 }) { return value }
            }
            return nil
        case .decoded(let s): return E(rawValue: s)
        default: return nil
        }
    }

    mutating func uuid() throws -> UUID? { try parsed(UUID.init(utf8:), UUID.init(text:)) }
    mutating func date() throws -> Date? { try parsed(Timestamp.date(from:), Timestamp.date(from:)) }

    mutating func bool() throws -> Bool? {
        p.skipWhitespace()
        guard p.i < bytes.count else { return nil }
        if bytes[p.i] == UInt8(ascii: "t") { try p.literal("true"); return true }
        if bytes[p.i] == UInt8(ascii: "f") { try p.literal("false"); return false }
        return nil
    }

    /// Whether the next value is `null` (and if so, reads it).
    mutating func null() throws -> Bool {
        p.skipWhitespace()
        guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: "n") else { return false }
        try p.literal("null")
        return true
    }

    /// Reads and drops a value (a key nothing here knows, as Codable ignores it).
    mutating func skip() throws {
        _ = try fieldValue()
    }

    /// A flat object's fields into `fields`.
    mutating func rawObject() throws -> Bool {
        fields.removeAll(keepingCapacity: true)
        return try object { r, start, end in
            r.fields.append(RawField(keyStart: start, keyEnd: end, in: r.bytes, value: try r.fieldValue()))
            return true
        }
    }

    // MARK: Sync bodies

    mutating func syncChange() throws -> SyncChange? {
        var type: EntityType?, id: UUID?, action: SyncAction?, updatedAt: Date?
        var deletedAt: Date?? = .some(nil)
        var hasData = false
        let read = try object { r, start, end in
            if r.key(start, end, is: "type") {
                type = try r.enumValue(EntityType.self)
                return type != nil
            } else if r.key(start, end, is: "id") {
                id = try r.uuid()
                return id != nil
            } else if r.key(start, end, is: "action") {
                action = try r.enumValue(SyncAction.self)
                return action != nil
            } else if r.key(start, end, is: "updatedAt") {
                updatedAt = try r.date()
                return updatedAt != nil
            } else if r.key(start, end, is: "deletedAt") {
                if try r.null() { deletedAt = .some(nil); return true }
                guard let date = try r.date() else { return false }
                deletedAt = .some(date)
                return true
            } else if r.key(start, end, is: "data") {
                if try r.null() { hasData = false; r.fields.removeAll(keepingCapacity: true); return true }
                hasData = true
                return try r.rawObject()
            }
            try r.skip()
            return true
        }
        guard read, let type, let id, let action, let updatedAt, let deletedAt else { return nil }
        var change = SyncChange(type: type, id: id, action: action, data: nil, updatedAt: updatedAt, deletedAt: deletedAt)
        guard hasData else { return change }
        let source = RawFields(bytes: bytes, fields: fields, envelope: (id, updatedAt, deletedAt))
        func fromSource<R: SyncRecord>(_ type: R.Type) -> (any SyncRecord)? { R(wire: source) }
        let record: (any SyncRecord)?
        switch type {
        case .thread: record = fromSource(InventoryThread.self)
        case .canvas: record = fromSource(Canvas.self)
        case .project: record = fromSource(Project.self)
        case .projectSection: record = fromSource(ProjectSection.self)
        case .projectThread: record = fromSource(ProjectThread.self)
        case .journalEntry: record = fromSource(JournalEntry.self)
        case .journalImage: record = fromSource(JournalImage.self)
        case .pattern: record = fromSource(Pattern.self)
        case .shoppingLine: record = fromSource(ShoppingLine.self)
        }
        guard let record else { return nil }
        change.directRecord = record
        return change
    }

    mutating func syncChanges() throws -> [SyncChange]? {
        var changes: [SyncChange] = []
        let read = try array { r in
            guard let change = try r.syncChange() else { return false }
            changes.append(change)
            return true
        }
        return read ? changes : nil
    }

    mutating func syncResult() throws -> SyncResult? {
        var id: UUID?, status: SyncStatus?, type: EntityType?, clamped: Bool?
        let read = try object { r, start, end in
            if r.key(start, end, is: "id") {
                id = try r.uuid()
                return id != nil
            } else if r.key(start, end, is: "status") {
                status = try r.enumValue(SyncStatus.self)
                return status != nil
            } else if r.key(start, end, is: "type") {
                if try r.null() { type = nil; return true }
                type = try r.enumValue(EntityType.self)
                return type != nil
            } else if r.key(start, end, is: "clamped") {
                if try r.null() { clamped = nil; return true }
                clamped = try r.bool()
                return clamped != nil
            } else if r.key(start, end, is: "error") {
                // A refusal's error is read by the general path.
                return try r.null()
            }
            try r.skip()
            return true
        }
        guard read, let id, let status else { return nil }
        return SyncResult(id: id, type: type, status: status, clamped: clamped)
    }

    mutating func syncRequest() throws -> SyncRequest? {
        var cursor: String?, clientId: UUID?, changes: [SyncChange]?, limit: Int?
        let read = try object { r, start, end in
            if r.key(start, end, is: "changes") {
                changes = try r.syncChanges()
                return changes != nil
            } else if r.key(start, end, is: "clientId") {
                clientId = try r.uuid()
                return clientId != nil
            } else if r.key(start, end, is: "cursor") {
                if try r.null() { cursor = nil; return true }
                cursor = try r.string()
                return cursor != nil
            } else if r.key(start, end, is: "limit") {
                switch try r.fieldValue() {
                case .null: limit = nil; return true
                case .int(let v): limit = Int(exactly: v); return limit != nil
                default: return false
                }
            }
            try r.skip()
            return true
        }
        guard read, let clientId, let changes else { return nil }
        return SyncRequest(cursor: cursor, clientId: clientId, changes: changes, limit: limit)
    }

    mutating func syncResponse() throws -> SyncResponse? {
        var cursor: String?, hasMore: Bool?, changes: [SyncChange]?, results: [SyncResult]?
        let read = try object { r, start, end in
            if r.key(start, end, is: "changes") {
                changes = try r.syncChanges()
                return changes != nil
            } else if r.key(start, end, is: "cursor") {
                cursor = try r.string()
                return cursor != nil
            } else if r.key(start, end, is: "hasMore") {
                hasMore = try r.bool()
                return hasMore != nil
            } else if r.key(start, end, is: "results") {
                var list: [SyncResult] = []
                let ok = try r.array { r in
                    guard let result = try r.syncResult() else { return false }
                    list.append(result)
                    return true
                }
                results = list
                return ok
            }
            try r.skip()
            return true
        }
        guard read, let cursor, let hasMore, let changes, let results else { return nil }
        return SyncResponse(cursor: cursor, hasMore: hasMore, changes: changes, results: results)
    }
}

/// An enum the wire reader matches on the bytes: its raw values as UTF-8, made once.
protocol WireEnum: CaseIterable, RawRepresentable where RawValue == String {
    static var wireCases: [(utf8: [UInt8], value: Self)] { get }
}

extension WireEnum {
    static func makeWireCases() -> [(utf8: [UInt8], value: Self)] { allCases.map { (Array($0.rawValue.utf8), $0) } }
}

extension EntityType: WireEnum { static let wireCases = makeWireCases() }
extension SyncAction: WireEnum { static let wireCases = makeWireCases() }
extension SyncStatus: WireEnum { static let wireCases = makeWireCases() }

extension WireReader {
    /// The fast reading of `T` from a whole body, for the sync bodies; nil for any other type or
    /// any body not in the expected shape.
    static func decode<T>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) -> T? {
        guard T.self == SyncRequest.self || T.self == SyncResponse.self else { return nil }
        var reader = WireReader(bytes: bytes.bindMemory(to: UInt8.self))
        if T.self == SyncRequest.self { return reader.document { try $0.syncRequest() } as! T? }
        return reader.document { try $0.syncResponse() } as! T?
    }
}
