import Foundation

// Each synced record is described once (Descriptions.swift): its fields with their wire key,
// column, type, optionality, default and rule. The wire writer and reader, validation and
// normalising, the server's rows and pages and the device store's writes are all driven by it,
// so a field added to a record's description reaches every path (SyncRecord's sync, backup,
// restore and the device store) without being listed again. Migrations stay explicit; tests
// compare each table's columns with the description on every database.

/// A field's value, in one of the types records are made of.
public enum FieldValue: Hashable, Sendable {
    case null
    case text(String)
    case int(Int)
    case id(UUID)
    case instant(Date)
}

/// How a field is stored and sent. `choice` is an enumeration sent and stored as its raw text
/// (its values are the field's `choices`).
public enum FieldType: Hashable, Sendable {
    case text
    case int
    case id
    case instant
    case choice
}

/// What a field must hold, checked by `Validatable.validate` with the messages people see.
public enum FieldRule: Sendable {
    case none
    /// Text of at most `max` code points, no control characters; not blank when `required`
    /// (optional fields are never required: nil is how they are left out).
    case text(label: String, max: Int, required: Bool = true)
    /// `#RRGGBB`.
    case hexColor(message: String)
    /// A whole number from `min` to `max`; below `min` says `belowMin`, above says "`label` must be at most `max`".
    case range(label: String, min: Int, max: Int, belowMin: String)
}

/// How text is cleaned before it is validated and stored (`SyncRecord.normalized`).
public enum TextCleaning: Sendable {
    /// Kept as given.
    case none
    /// Surrounding whitespace trimmed; blank optional text is "not set".
    case trim
    /// Kept as written (line breaks and indentation are the writer's); blank means "not set" (or empty when required).
    case notes
    /// Trimmed and upper-cased (hex colours); blank is "not set".
    case upper
}

/// One field of a record `R`. A class: the readers and writers walk the fields once per record,
/// and copying one is then a single reference, not each of its values.
public final class RecordField<R>: @unchecked Sendable {
    /// The wire key, which is also the property's name and the device store's column.
    public let key: StaticString
    /// The server's column.
    public let column: String
    public let type: FieldType
    public let isOptional: Bool
    /// A `choice` field's values.
    public let choices: [String]
    /// What a new record holds when nothing is given (and what a new non-null column's migration fills).
    public let defaultValue: FieldValue
    public let rule: FieldRule
    public let cleaning: TextCleaning
    public let get: (R) -> FieldValue
    /// Sets the field; false when the value is not of the field's type (or not one of its choices).
    public let set: (inout R, FieldValue) -> Bool

    public let name: String

    init(key: StaticString, column: String, type: FieldType, choices: [String] = [], isOptional: Bool, defaultValue: FieldValue,
         rule: FieldRule, cleaning: TextCleaning, get: @escaping (R) -> FieldValue, set: @escaping (inout R, FieldValue) -> Bool) {
        self.key = key
        self.column = column
        self.type = type
        self.choices = choices
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.rule = rule
        self.cleaning = cleaning
        self.get = get
        self.set = set
        name = key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}

// Each field is read and written through closures written at its description's line
// (`{ $0.brand }`, `{ $0.brand = $1 }`): direct property access once specialised. Key paths read
// the same but are projected at run time (a metadata lookup per field per record), which cost a
// fifth of a sync's speed.
extension RecordField {
    public static func text(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> String, _ set: @escaping (inout R, String) -> Void,
        default value: String = "", rule: FieldRule = .none, cleaning: TextCleaning = .trim
    ) -> RecordField {
        RecordField(key: key, column: column, type: .text, isOptional: false, defaultValue: .text(value), rule: rule, cleaning: cleaning,
                    get: { .text(get($0)) },
                    set: { record, value in
                        guard case .text(let text) = value else { return false }
                        set(&record, text)
                        return true
                    })
    }

    public static func text(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> String?, _ set: @escaping (inout R, String?) -> Void,
        rule: FieldRule = .none, cleaning: TextCleaning = .trim
    ) -> RecordField {
        optional(key, column, get, set, type: .text, rule: rule, cleaning: cleaning, wrap: FieldValue.text) {
            if case .text(let text) = $0 { text } else { nil }
        }
    }

    public static func int(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> Int, _ set: @escaping (inout R, Int) -> Void,
        default value: Int = 0, rule: FieldRule = .none
    ) -> RecordField {
        RecordField(key: key, column: column, type: .int, isOptional: false, defaultValue: .int(value), rule: rule, cleaning: .none,
                    get: { .int(get($0)) },
                    set: { record, value in
                        guard case .int(let number) = value else { return false }
                        set(&record, number)
                        return true
                    })
    }

    public static func int(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> Int?, _ set: @escaping (inout R, Int?) -> Void, rule: FieldRule = .none
    ) -> RecordField {
        optional(key, column, get, set, type: .int, rule: rule, cleaning: .none, wrap: FieldValue.int) {
            if case .int(let number) = $0 { number } else { nil }
        }
    }

    /// A reference to another record (never defaulted: a record is made with its parent).
    public static func id(_ key: StaticString, _ column: String, _ get: @escaping (R) -> UUID, _ set: @escaping (inout R, UUID) -> Void) -> RecordField {
        RecordField(key: key, column: column, type: .id, isOptional: false, defaultValue: .null, rule: .none, cleaning: .none,
                    get: { .id(get($0)) },
                    set: { record, value in
                        guard case .id(let id) = value else { return false }
                        set(&record, id)
                        return true
                    })
    }

    public static func id(_ key: StaticString, _ column: String, _ get: @escaping (R) -> UUID?, _ set: @escaping (inout R, UUID?) -> Void) -> RecordField {
        optional(key, column, get, set, type: .id, rule: .none, cleaning: .none, wrap: FieldValue.id) {
            if case .id(let id) = $0 { id } else { nil }
        }
    }

    public static func instant(_ key: StaticString, _ column: String, _ get: @escaping (R) -> Date, _ set: @escaping (inout R, Date) -> Void) -> RecordField {
        RecordField(key: key, column: column, type: .instant, isOptional: false, defaultValue: .null, rule: .none, cleaning: .none,
                    get: { .instant(get($0)) },
                    set: { record, value in
                        guard case .instant(let date) = value else { return false }
                        set(&record, date)
                        return true
                    })
    }

    public static func instant(_ key: StaticString, _ column: String, _ get: @escaping (R) -> Date?, _ set: @escaping (inout R, Date?) -> Void) -> RecordField {
        optional(key, column, get, set, type: .instant, rule: .none, cleaning: .none, wrap: FieldValue.instant) {
            if case .instant(let date) = $0 { date } else { nil }
        }
    }

    public static func choice<E: RawRepresentable & CaseIterable>(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> E, _ set: @escaping (inout R, E) -> Void, default value: E
    ) -> RecordField where E.RawValue == String {
        RecordField(key: key, column: column, type: .choice, choices: E.allCases.map(\.rawValue), isOptional: false,
                    defaultValue: .text(value.rawValue), rule: .none, cleaning: .none,
                    get: { .text(get($0).rawValue) },
                    set: { record, value in
                        guard case .text(let raw) = value, let choice = E(rawValue: raw) else { return false }
                        set(&record, choice)
                        return true
                    })
    }

    private static func optional<V>(
        _ key: StaticString, _ column: String, _ get: @escaping (R) -> V?, _ set: @escaping (inout R, V?) -> Void, type: FieldType,
        rule: FieldRule, cleaning: TextCleaning, wrap: @escaping (V) -> FieldValue, unwrap: @escaping (FieldValue) -> V?
    ) -> RecordField {
        RecordField(key: key, column: column, type: type, isOptional: true, defaultValue: .null, rule: rule, cleaning: cleaning,
                    get: { get($0).map(wrap) ?? .null },
                    set: { record, value in
                        if case .null = value {
                            set(&record, nil)
                            return true
                        }
                        guard let unwrapped = unwrap(value) else { return false }
                        set(&record, unwrapped)
                        return true
                    })
    }
}

/// A synced record's description: its table and its own fields. Every record also has the
/// stamps `id`, `createdAt`, `updatedAt` and `deletedAt` (`SyncRecord`), stored in columns of the
/// same names in snake case, and on the server `user_id` and `version`.
public final class RecordDescription<R: SyncRecord>: Sendable {
    /// The table on the server and on the device.
    public let table: String
    public let fields: [RecordField<R>]
    /// A record holding every default, which the readers fill in.
    let blank: R
    /// Every wire key in the order the JSON is written (sorted, as the synthesized Codable
    /// conformance and `JSONEncoder.sortedKeys` order them).
    public let wireOrder: [WireSlot]

    /// A place in the wire order: one of the stamps or one of `fields`.
    public enum WireSlot: Sendable {
        case id, createdAt, updatedAt, deletedAt
        case field(Int)
    }

    public init(table: String, blank: R, fields: [RecordField<R>]) {
        self.table = table
        var filled = blank
        for field in fields where field.defaultValue != .null || field.isOptional { _ = field.set(&filled, field.defaultValue) }
        self.blank = filled
        self.fields = fields
        var keyed: [(String, WireSlot)] = [("id", .id), ("createdAt", .createdAt), ("updatedAt", .updatedAt), ("deletedAt", .deletedAt)]
        for (index, field) in fields.enumerated() { keyed.append((field.name, .field(index))) }
        wireOrder = keyed.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }.map(\.1)
    }

    /// The wire keys of the stamps, and the server columns they are stored in.
    public static var stampKeys: [(key: String, column: String)] {
        [("id", "id"), ("createdAt", "created_at"), ("updatedAt", "updated_at"), ("deletedAt", "deleted_at")]
    }

    /// A new record with every field's default and the given stamps.
    public func blank(id: UUID, createdAt: Date, updatedAt: Date, deletedAt: Date?) -> R {
        var record = blank
        record.id = id
        record.createdAt = createdAt
        record.updatedAt = updatedAt
        record.deletedAt = deletedAt
        return record
    }

    public func field(named name: String) -> RecordField<R>? { fields.first { $0.name == name } }
}

/// A synced record with a description.
public protocol DescribedRecord: SyncRecord {
    static var described: RecordDescription<Self> { get }
    /// Rules that compare fields, beyond each field's own (none unless a record says so).
    func validateAcrossFields(into v: inout Validator)
}

extension DescribedRecord {
    public func validateAcrossFields(into v: inout Validator) {}
}

// MARK: - What the description drives

extension DescribedRecord {
    /// Puts the record's JSON fields in key order, nil optionals left out as the synthesized
    /// `encode(to:)` leaves them (a sink that stores columns sees them as NULL). Inlinable, so
    /// the device store's and the server's sinks get it specialised for each record type.
    @inlinable
    public func writeWire<S: WireSink>(to w: inout S) {
        let description = Self.described
        for slot in description.wireOrder {
            switch slot {
            case .id: w.put("id", id)
            case .createdAt: w.put("createdAt", createdAt)
            case .updatedAt: w.put("updatedAt", updatedAt)
            case .deletedAt: w.put("deletedAt", deletedAt)
            case .field(let index):
                let field = description.fields[index]
                w.put(field.key, field.type, field.get(self))
            }
        }
    }

    /// Reads every field the fast way; nil where only Codable can decide (then it decodes, or says why not).
    @inlinable
    public init?<F: WireFieldSource>(wire f: F) {
        guard let id = f.id, let createdAt = f.createdAt, let updatedAt = f.updatedAt, let deletedAt = f.deletedAt else { return nil }
        let description = Self.described
        var record = description.blank(id: id, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
        for field in description.fields {
            guard let value = f.value(field.key, field.type, optional: field.isOptional), field.set(&record, value) else { return nil }
        }
        self = record
    }

    public func validate(into v: inout Validator) {
        for field in Self.described.fields {
            field.check(self, into: &v)
        }
        validateAcrossFields(into: &v)
    }

    /// Text trimmed and blank optionals removed, as each field's cleaning says.
    public var normalized: Self {
        var copy = self
        for field in Self.described.fields where field.cleaning != .none {
            guard case .text(let text) = field.get(self) else { continue }
            var cleaned: String?
            switch field.cleaning {
            case .none: cleaned = text
            case .trim: cleaned = field.isOptional ? Rules.clean(text) : text.trimmedWhitespace
            case .notes: cleaned = Rules.cleanNotes(text) ?? (field.isOptional ? nil : "")
            case .upper: cleaned = Rules.clean(text)?.uppercased() ?? (field.isOptional ? nil : "")
            }
            _ = field.set(&copy, cleaned.map(FieldValue.text) ?? .null)
        }
        return copy
    }

    /// Every field's value, by wire key (the stamps included): what a test compares path by path.
    public var fieldValues: [(key: String, value: FieldValue)] {
        [("id", .id(id)), ("createdAt", .instant(createdAt)), ("updatedAt", .instant(updatedAt)),
         ("deletedAt", deletedAt.map(FieldValue.instant) ?? .null)]
            + Self.described.fields.map { ($0.name, $0.get(self)) }
    }
}

extension RecordField {
    func check(_ record: R, into v: inout Validator) {
        let value = get(record)
        switch rule {
        case .none:
            break
        case .text(let label, let max, let required):
            guard case .text(let text) = value else { return }
            if required && !isOptional { v.required(text, name, label: label, max: max) } else { v.optional(text, name, label: label, max: max) }
        case .hexColor(let message):
            if case .text(let text) = value, !Rules.isHexColor(text) { v.fail(name, message) }
        case .range(let label, let min, let max, let belowMin):
            guard case .int(let number) = value else { return }
            if number < min { v.fail(name, belowMin) } else if number > max { v.fail(name, "\(label) must be at most \(max)") }
        }
    }
}

extension WireSink {
    /// A described field's value, nil as the field's own type's nil.
    @inlinable
    public mutating func put(_ key: StaticString, _ type: FieldType, _ value: FieldValue) {
        switch value {
        case .text(let text): put(key, text)
        case .int(let number): put(key, number)
        case .id(let id): put(key, id)
        case .instant(let date): put(key, date)
        case .null:
            switch type {
            case .text, .choice: put(key, nil as String?)
            case .int: put(key, nil as Int?)
            case .id: put(key, nil as UUID?)
            case .instant: put(key, nil as Date?)
            }
        }
    }
}

extension WireFieldSource {
    /// A field's value read as its type; nil where only Codable can decide.
    @inlinable
    public func value(_ key: StaticString, _ type: FieldType, optional: Bool) -> FieldValue? {
        switch (type, optional) {
        case (.text, false), (.choice, false): string(key).map(FieldValue.text)
        case (.text, true), (.choice, true): optionalString(key).map { $0.map(FieldValue.text) ?? .null }
        case (.int, false): int(key).map(FieldValue.int)
        case (.int, true): optionalInt(key).map { $0.map(FieldValue.int) ?? .null }
        case (.id, false): uuid(key).map(FieldValue.id)
        case (.id, true): optionalUUID(key).map { $0.map(FieldValue.id) ?? .null }
        case (.instant, false): date(key).map(FieldValue.instant)
        case (.instant, true): optionalDate(key).map { $0.map(FieldValue.instant) ?? .null }
        }
    }
}
