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
    }
}

/// Typed reads of wire fields; every read answers nil where Codable would not simply succeed.
struct WireFields {
    let fields: [String: JSONValue]

    func string(_ key: String) -> String? {
        if case .string(let s)? = fields[key] { return s }
        return nil
    }
    /// Absent or null is `.some(nil)`; a wrong type is nil.
    func optionalString(_ key: String) -> String?? {
        switch fields[key] {
        case nil, .null?: return .some(nil)
        case .string(let s)?: return .some(s)
        default: return nil
        }
    }
    func int(_ key: String) -> Int? {
        if case .int(let v)? = fields[key], let i = Int(exactly: v) { return i }
        return nil
    }
    func optionalInt(_ key: String) -> Int?? {
        switch fields[key] {
        case nil, .null?: return .some(nil)
        case .int(let v)?: return Int(exactly: v).map { .some($0) }
        default: return nil
        }
    }
    func uuid(_ key: String) -> UUID? { string(key).flatMap(UUID.init(uuidString:)) }
    func optionalUUID(_ key: String) -> UUID?? { optional(key, UUID.init(uuidString:)) }
    func date(_ key: String) -> Date? { string(key).flatMap(Timestamp.date(from:)) }
    func optionalDate(_ key: String) -> Date?? { optional(key, Timestamp.date(from:)) }

    /// An optional string field parsed into `T`: absent or null is `.some(nil)`, unparsable is nil.
    private func optional<T>(_ key: String, _ parse: (String) -> T?) -> T?? {
        guard let s = optionalString(key) else { return nil }
        guard let s else { return .some(nil) }
        return parse(s).map { .some($0) }
    }
}

/// Builds wire fields the way the synthesized `encode(to:)` does: nil optionals are left out.
struct WireWriter {
    var fields: [String: JSONValue] = [:]
    init(capacity: Int) { fields.reserveCapacity(capacity) }
    mutating func put(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
    mutating func put(_ key: String, _ value: Int?) { if let value { fields[key] = .int(Int64(value)) } }
    mutating func put(_ key: String, _ value: UUID?) { if let value { fields[key] = .string(value.uuidString) } }
    mutating func put(_ key: String, _ value: Date?) { if let value { fields[key] = .string(Timestamp.string(from: value)) } }
}

extension InventoryThread {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 13)
        w.put("id", id); w.put("brand", brand); w.put("number", number); w.put("colorName", colorName)
        w.put("colorHex", colorHex); w.put("fiberType", fiberType.rawValue); w.put("quantity", quantity)
        w.put("barcode", barcode); w.put("weightOrLength", weightOrLength); w.put("notes", notes)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let brand = f.string("brand"), let number = f.string("number"),
              let colorName = f.optionalString("colorName"), let colorHex = f.optionalString("colorHex"),
              let fiber = f.string("fiberType").flatMap(FiberType.init(rawValue:)), let quantity = f.int("quantity"),
              let barcode = f.optionalString("barcode"), let weightOrLength = f.optionalString("weightOrLength"),
              let notes = f.optionalString("notes"), let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"),
              let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, brand: brand, number: number, colorName: colorName, colorHex: colorHex, fiberType: fiber,
                  quantity: quantity, barcode: barcode, weightOrLength: weightOrLength, notes: notes,
                  createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension Canvas {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 11)
        w.put("id", id); w.put("designer", designer); w.put("designName", designName); w.put("acquiredAt", acquiredAt)
        w.put("imageKey", imageKey); w.put("size", size); w.put("meshCount", meshCount); w.put("notes", notes)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let designer = f.string("designer"), let designName = f.string("designName"),
              let acquiredAt = f.optionalDate("acquiredAt"), let imageKey = f.optionalString("imageKey"),
              let size = f.optionalString("size"), let meshCount = f.optionalInt("meshCount"), let notes = f.optionalString("notes"),
              let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"), let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, designer: designer, designName: designName, acquiredAt: acquiredAt, imageKey: imageKey, size: size,
                  meshCount: meshCount, notes: notes, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension Project {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 10)
        w.put("id", id); w.put("canvasId", canvasId); w.put("status", status.rawValue); w.put("startedAt", startedAt)
        w.put("finishingAt", finishingAt); w.put("completedAt", completedAt); w.put("notes", notes)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let canvasId = f.uuid("canvasId"), let status = f.string("status").flatMap(ProjectStatus.init(rawValue:)),
              let startedAt = f.date("startedAt"), let finishingAt = f.optionalDate("finishingAt"),
              let completedAt = f.optionalDate("completedAt"), let notes = f.optionalString("notes"),
              let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"), let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, canvasId: canvasId, status: status, startedAt: startedAt, finishingAt: finishingAt, completedAt: completedAt,
                  notes: notes, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension ProjectSection {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 9)
        w.put("id", id); w.put("projectId", projectId); w.put("name", name); w.put("sortOrder", sortOrder)
        w.put("status", status.rawValue); w.put("notes", notes)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let projectId = f.uuid("projectId"), let name = f.string("name"), let sortOrder = f.int("sortOrder"),
              let status = f.string("status").flatMap(SectionStatus.init(rawValue:)), let notes = f.optionalString("notes"),
              let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"), let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, projectId: projectId, name: name, sortOrder: sortOrder, status: status, notes: notes,
                  createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension ProjectThread {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 12)
        w.put("id", id); w.put("projectId", projectId); w.put("sectionId", sectionId); w.put("threadId", threadId)
        w.put("brand", brand); w.put("number", number); w.put("colorName", colorName); w.put("quantityNeeded", quantityNeeded)
        w.put("notes", notes); w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let projectId = f.uuid("projectId"), let sectionId = f.optionalUUID("sectionId"),
              let threadId = f.optionalUUID("threadId"), let brand = f.string("brand"), let number = f.string("number"),
              let colorName = f.optionalString("colorName"), let quantityNeeded = f.int("quantityNeeded"),
              let notes = f.optionalString("notes"), let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"),
              let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, projectId: projectId, sectionId: sectionId, threadId: threadId, brand: brand, number: number,
                  colorName: colorName, quantityNeeded: quantityNeeded, notes: notes,
                  createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension JournalEntry {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 6)
        w.put("id", id); w.put("projectId", projectId); w.put("notes", notes)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let projectId = f.uuid("projectId"), let notes = f.string("notes"),
              let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"), let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, projectId: projectId, notes: notes, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}

extension JournalImage {
    public var wireFields: [String: JSONValue] {
        var w = WireWriter(capacity: 7)
        w.put("id", id); w.put("entryId", entryId); w.put("imageKey", imageKey); w.put("sortOrder", sortOrder)
        w.put("createdAt", createdAt); w.put("updatedAt", updatedAt); w.put("deletedAt", deletedAt)
        return w.fields
    }

    public init?(wireFields fields: [String: JSONValue]) {
        let f = WireFields(fields: fields)
        guard let id = f.uuid("id"), let entryId = f.uuid("entryId"), let imageKey = f.string("imageKey"), let sortOrder = f.int("sortOrder"),
              let createdAt = f.date("createdAt"), let updatedAt = f.date("updatedAt"), let deletedAt = f.optionalDate("deletedAt")
        else { return nil }
        self.init(id: id, entryId: entryId, imageKey: imageKey, sortOrder: sortOrder, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
    }
}
