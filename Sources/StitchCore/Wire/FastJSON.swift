import Foundation

// The wire format's hot path. Foundation's JSONEncoder/JSONDecoder are general and slow for what
// sync moves (tens of thousands of small records): every record used to travel bytes → JSONValue →
// bytes → typed record, with a thrown error per failed guess in `JSONValue.init(from:)`. Here a
// byte parser builds `JSONValue` directly, a writer turns it back into bytes, and a Codable
// encoder/decoder pair converts between `JSONValue` and typed values without any bytes at all.
// The format is exactly `StitchJSON`'s: camelCase keys, sorted on output, ISO-8601 millisecond
// dates, no escaped slashes; decoding errors are the same `DecodingError`s with the same paths.

extension StitchJSON {
    /// Encodes a value as the wire format's JSON bytes.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try encodeBytes(value))
    }

    /// The same JSON laid out for people (two-space indents, `"key" : value`, keys sorted), as
    /// exports and `--json` output are: ids lower-case, dates as on the wire.
    public static func encodePretty<T: Encodable>(_ value: T) throws -> Data {
        var out: [UInt8] = []
        JSONWriter.writePretty(try JSONValueEncoder.encode(value), indent: 0, into: &out)
        out.append(UInt8(ascii: "\n"))
        return Data(out)
    }

    public static func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        // Room for a page at once (a change is about 400 bytes) rather than a dozen regrowths.
        out.reserveCapacity(1024 + ((value as? SyncResponse)?.changes.count ?? (value as? SyncRequest)?.changes.count ?? 0) * 400)
        if let direct = value as? any JSONDirect {
            try direct.writeJSON(into: &out)
        } else {
            JSONWriter.write(try JSONValueEncoder.encode(value), into: &out)
        }
        return out
    }

    /// Decodes wire-format JSON bytes as a typed value. Malformed JSON is a `dataCorrupted` error
    /// with an empty coding path, as with Foundation's decoder.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(T.self, from: $0) }
    }

    /// Sync requests and responses are read straight from the bytes where they can be
    /// (`WireReader`); everything else, and any body that reader gives up on, goes through the
    /// general parser and decoder.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        if let fast = WireReader.decode(T.self, from: bytes) { return fast }
        return try generalDecode(T.self, from: bytes)
    }

    /// The general path alone (what the fast one is tested against).
    public static func generalDecode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        try JSONValueDecoder.decode(T.self, from: try JSONValue.parse(bytes))
    }
}

extension JSONValue {
    /// Parses JSON text (UTF-8, validated; nesting limited to 512 levels).
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { try parse($0) }
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes.bindMemory(to: UInt8.self))
        return try parser.parseDocument()
    }

    /// The JSON text of this value, keys sorted.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return out
    }
}

// MARK: - Parser

struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    static let maxDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func fail(_ message: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(message) at byte \(i)"))
    }

    mutating func parseDocument() throws -> JSONValue {
        // A UTF-8 byte-order mark is tolerated, as Foundation does.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        let value = try parseValue()
        skipWhitespace()
        guard i == bytes.count else { throw fail("unexpected text after the value") }
        return value
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < bytes.count {
            let c = bytes[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    mutating func parseValue() throws -> JSONValue {
        skipWhitespace()
        guard i < bytes.count else { throw fail("unexpected end of data") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count else { throw fail("unexpected end of data") }
        let p = word.utf8Start
        for k in 0..<count where bytes[i + k] != p[k] { throw fail("unexpected character") }
        i += count
    }

    mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nested too deeply") }
    }

    mutating func parseObject() throws -> JSONValue {
        try enter()
        i += 1
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(8)
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(object) }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            object[key] = try parseValue()
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of data") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("expected ',' or '}'")
        }
        depth -= 1
        return .object(object)
    }

    mutating func parseArray() throws -> JSONValue {
        try enter()
        i += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(array) }
        while true {
            array.append(try parseValue())
            skipWhitespace()
            guard i < bytes.count else { throw fail("unexpected end of data") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw fail("expected ',' or ']'")
        }
        depth -= 1
        return .array(array)
    }

    mutating func parseString() throws -> String {
        i += 1  // the opening quote
        let start = i
        // Fast path: no escapes (and for ASCII, nothing to validate).
        var seen: UInt8 = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                if seen < 0x80 {
                    return String(unsafeUninitializedCapacity: slice.count) { _ = $0.initialize(fromContentsOf: slice); return slice.count }
                }
                guard let text = String(validating: slice, as: UTF8.self) else { throw fail("invalid UTF-8") }
                return text
            }
            seen |= c
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw fail("unescaped control character in a string") }
            i += 1
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8") }
                return text
            }
            if c < 0x20 { throw fail("unescaped control character in a string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("unpaired surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
                out.append(contentsOf: UTF8.encode(u)!)
            default:
                throw fail("invalid escape")
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("invalid escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 55)
            default: throw fail("invalid escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func parseNumber() throws -> JSONValue {
        let start = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
        if bytes[i] == UInt8(ascii: "0"), i + 1 < bytes.count, isDigit(bytes[i + 1]) { throw fail("leading zero in a number") }
        var integer: Int64 = 0
        var overflow = false
        while i < bytes.count, isDigit(bytes[i]) {
            let d = Int64(bytes[i] - 48)
            if !overflow {
                let (m, o1) = integer.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { overflow = true } else { integer = s }
            }
            i += 1
        }
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw fail("invalid number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if isInteger && !overflow { return .int(integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw fail("number out of range") }
        return .double(double)
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
}

// MARK: - Writer

enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .int(let i): writeInt(i, into: &out)
        case .double(let d):
            if d.isFinite, d == d.rounded(), abs(d) < 1e15 { writeInt(Int64(d), into: &out) } else { out.append(contentsOf: "\(d)".utf8) }
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (index, element) in a.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for key in o.keys.sorted() {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(o[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writePretty(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        func newline(_ level: Int) {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
        }
        switch value {
        case .array(let a) where !a.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, element) in a.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writePretty(element, indent: indent + 1, into: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (index, key) in o.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writeString(key, into: &out)
                out.append(contentsOf: Array(" : ".utf8))
                writePretty(o[key]!, indent: indent + 1, into: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default:
            write(value, into: &out)
        }
    }

    static func writeInt(_ value: Int64, into out: inout [UInt8]) {
        if value == 0 { out.append(48); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 { buffer[count] = UInt8(48 + v % 10); v /= 10; count += 1 }
        }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buffer in
            for k in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[k]) }
        }
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// A string given as valid UTF-8, quoted and escaped.
    static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for (index, c) in bytes.enumerated() where c < 0x20 || c == 0x22 || c == 0x5C {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            runStart = index + 1
            switch c {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            default: out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        out.append(UInt8(ascii: "\""))
    }
}

// MARK: - Encoder: typed value → JSONValue

/// Turns any `Encodable` value into a ``JSONValue`` tree, the way `JSONEncoder` would encode it.
public enum JSONValueEncoder {
    public static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try box(value, path: [])
    }

    static func box<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> JSONValue {
        // Type identity checks are a pointer comparison; `as?` casts on every field were not.
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Date.self { return .string(Timestamp.string(from: unsafeBitCast(value, to: Date.self))) }
        if T.self == UUID.self { return .string(unsafeBitCast(value, to: UUID.self).wireText) }
        if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Int64.self { return .int(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == JSONValue.self { return value as! JSONValue }
        if RecordWire.isRecord(T.self) { return .object((value as! any SyncRecord).wireFields) }
        if T.self == Double.self {
            let v = unsafeBitCast(value, to: Double.self)
            guard v.isFinite else { throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "Unable to encode \(v) in JSON")) }
            return .double(v)
        }
        let encoder = ValueEncoder(codingPath: path)
        try value.encode(to: encoder)
        return encoder.slot?.resolve() ?? .object([:])
    }
}

/// Where an encoder's output goes: a value, or a container still being filled.
enum EncodedSlot {
    case value(JSONValue)
    case object(ObjectRef)
    case array(ArrayRef)
    case encoder(ValueEncoder)

    func resolve() -> JSONValue {
        switch self {
        case .value(let v): return v
        case .object(let o): return .object(o.items.mapValues { $0.resolve() })
        case .array(let a): return .array(a.items.map { $0.resolve() })
        case .encoder(let e): return e.slot?.resolve() ?? .object([:])
        }
    }
}

final class ObjectRef { var items: [String: EncodedSlot] = [:] }
final class ArrayRef { var items: [EncodedSlot] = [] }

struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var slot: EncodedSlot?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let ref: ObjectRef
        if case .object(let existing)? = slot { ref = existing } else { ref = ObjectRef(); slot = .object(ref) }
        return KeyedEncodingContainer(KeyedEncoder<Key>(ref: ref, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let ref: ArrayRef
        if case .array(let existing)? = slot { ref = existing } else { ref = ArrayRef(); slot = .array(ref) }
        return UnkeyedEncoder(ref: ref, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoder(encoder: self) }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let ref: ObjectRef
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { ref.items[key.stringValue] = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { ref.items[key.stringValue] = .value(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { ref.items[key.stringValue] = .value(.string(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { ref.items[key.stringValue] = .value(.int(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { ref.items[key.stringValue] = .value(.int(value)) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { ref.items[key.stringValue] = .value(.string(value)) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { ref.items[key.stringValue] = .value(.int(Int64(value))) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { ref.items[key.stringValue] = .value(.bool(value)) }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        ref.items[key.stringValue] = .value(try JSONValueEncoder.box(value, path: codingPath + [key]))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectRef()
        ref.items[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(ref: nested, codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayRef()
        ref.items[key.stringValue] = .array(nested)
        return UnkeyedEncoder(ref: nested, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder { superEncoder(key: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key.stringValue) }
    private func superEncoder(key: String) -> any Encoder {
        let encoder = ValueEncoder(codingPath: codingPath)
        ref.items[key] = .encoder(encoder)
        return encoder
    }
}

struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let ref: ArrayRef
    let codingPath: [any CodingKey]
    var count: Int { ref.items.count }

    mutating func encodeNil() throws { ref.items.append(.value(.null)) }
    mutating func encode(_ value: String) throws { ref.items.append(.value(.string(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        ref.items.append(.value(try JSONValueEncoder.box(value, path: codingPath + [IndexKey(count)])))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectRef()
        let path = codingPath + [IndexKey(count)]
        ref.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(ref: nested, codingPath: path))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayRef()
        let path = codingPath + [IndexKey(count)]
        ref.items.append(.array(nested))
        return UnkeyedEncoder(ref: nested, codingPath: path)
    }
    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(codingPath: codingPath + [IndexKey(count)])
        ref.items.append(.encoder(encoder))
        return encoder
    }
}

struct SingleEncoder: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.slot = .value(.null) }
    mutating func encode(_ value: String) throws { encoder.slot = .value(.string(value)) }
    mutating func encode(_ value: Bool) throws { encoder.slot = .value(.bool(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.slot = .value(try JSONValueEncoder.box(value, path: codingPath))
    }
}

// MARK: - Decoder: JSONValue → typed value

/// Reads a typed `Decodable` value from a ``JSONValue`` tree, the way `JSONDecoder` would decode it.
public enum JSONValueDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try unbox(value, as: T.self, path: [])
    }

    static func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, path: [any CodingKey]) throws -> T {
        if RecordWire.isRecord(T.self), case .object(let fields) = value,
           let record = (T.self as! any SyncRecord.Type).init(wireFields: fields) {
            return record as! T
        }
        if T.self == SyncChange.self, let change = SyncChange(wire: value) { return change as! T }
        if T.self == SyncResult.self, let result = SyncResult(wire: value) { return result as! T }
        if T.self == String.self {
            guard case .string(let s) = value else { throw mismatch(T.self, value, path) }
            return s as! T
        }
        if T.self == Date.self {
            guard case .string(let s) = value else { throw mismatch(T.self, value, path) }
            guard let date = Timestamp.date(from: s) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Expected an ISO-8601 date such as 2026-01-31T12:00:00.000Z"))
            }
            return date as! T
        }
        if T.self == UUID.self {
            guard case .string(let s) = value else { throw mismatch(T.self, value, path) }
            guard let uuid = UUID(text: s) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Attempted to decode UUID from invalid UUID string."))
            }
            return uuid as! T
        }
        if T.self == Int.self { return try integer(value, Int.self, path) as! T }
        if T.self == Int64.self { return try integer(value, Int64.self, path) as! T }
        if T.self == Bool.self {
            guard case .bool(let b) = value else { throw mismatch(T.self, value, path) }
            return b as! T
        }
        if T.self == Double.self { return try double(value, path) as! T }
        if T.self == JSONValue.self { return value as! T }
        return try T(from: ValueDecoder(value: value, codingPath: path))
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }

    static func integer<I: FixedWidthInteger>(_ value: JSONValue, _ type: I.Type, _ path: [any CodingKey]) throws -> I {
        switch value {
        case .int(let i):
            guard let v = I(exactly: i) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Number \(i) does not fit in \(I.self)."))
            }
            return v
        case .double(let d):
            guard let v = I(exactly: d) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Number \(d) is not representable in \(I.self)."))
            }
            return v
        default:
            throw mismatch(I.self, value, path)
        }
    }

    static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: throw mismatch(Double.self, value, path)
        }
    }
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw JSONValueDecoder.mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else { throw JSONValueDecoder.mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedDecoder(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleDecoder(value: value, codingPath: codingPath) }
}

struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func value(_ key: Key) throws -> JSONValue {
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let v = try value(key)
        guard case .string(let s) = v else { throw JSONValueDecoder.mismatch(String.self, v, codingPath + [key]) }
        return s
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let v = object[key.stringValue] else { return nil }
        switch v {
        case .null: return nil
        case .string(let s): return s
        default: throw JSONValueDecoder.mismatch(String.self, v, codingPath + [key])
        }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder.unbox(try value(key), as: T.self, path: codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = object[key.stringValue], v != .null else { return nil }
        return try JSONValueDecoder.unbox(v, as: T.self, path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: object["super"] ?? .null, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key]) }
}

struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [JSONValue], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    mutating func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return array[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if array[currentIndex] == .null { currentIndex += 1; return true }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = codingPath + [IndexKey(currentIndex)]
        return try JSONValueDecoder.unbox(try next(T.self), as: T.self, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = codingPath + [IndexKey(currentIndex)]
        return try ValueDecoder(value: try next([String: JSONValue].self), codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = codingPath + [IndexKey(currentIndex)]
        return try ValueDecoder(value: try next([JSONValue].self), codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = codingPath + [IndexKey(currentIndex)]
        return ValueDecoder(value: try next(JSONValue.self), codingPath: path)
    }
}

struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONValueDecoder.unbox(value, as: T.self, path: codingPath) }
}
