import Foundation

/// Any JSON value: JSON schemas sent to the LLM (`format`), and answers read before they are
/// checked against their type.
public indirect enum JSONValue: Codable, Sendable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .null: try c.encodeNil()
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
                     ExpressibleByDictionaryLiteral, ExpressibleByBooleanLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(Dictionary(elements, uniquingKeysWith: { $1 })) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

/// Small builders for the JSON schemas Selene asks the LLM to answer in.
public enum Schema {
    public static func object(_ properties: [String: JSONValue], required: [String]? = nil) -> JSONValue {
        .object(["type": .string("object"), "properties": .object(properties),
                 "required": .array((required ?? properties.keys.sorted()).map(JSONValue.string))])
    }
    public static func string(maxLength: Int? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["type": .string("string")]
        if let maxLength { o["maxLength"] = .number(Double(maxLength)) }
        return .object(o)
    }
    public static func number(_ min: Double, _ max: Double) -> JSONValue {
        .object(["type": .string("number"), "minimum": .number(min), "maximum": .number(max)])
    }
    public static func `enum`(_ values: [String]) -> JSONValue {
        .object(["type": .string("string"), "enum": .array(values.map(JSONValue.string))])
    }
    public static func array(_ items: JSONValue, maxItems: Int? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["type": .string("array"), "items": items]
        if let maxItems { o["maxItems"] = .number(Double(maxItems)) }
        return .object(o)
    }
}
