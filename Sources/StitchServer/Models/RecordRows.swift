import FluentKit
import Foundation
import SQLKit
import StitchCore

// Records read from and written to SQL rows directly. Fluent's model hydration walks each model's
// properties with reflection (`Mirror`), which dominated sync pulls, pushes and list pages of
// thousands of rows; the hot paths use these instead, and the Fluent models stay for the
// one-row REST writes and the migrations. Each model lists its columns once, in `columns`;
// `values` binds a record in that order and `read` reads one back in the same order (RowCursor.swift).

/// A value to bind, or SQL NULL.
@inline(__always)
func bind(_ value: (any Encodable & Sendable)?) -> any SQLExpression {
    guard let value else { return SQLLiteral.null }
    if let id = value as? UUID { return SQLUUID(id) }
    return SQLBind(value)
}

/// An id bound as its database's own type would encode it: the same text Foundation's UUID
/// encoding gives for SQLite (without its formatted printing), the native uuid for PostgreSQL.
struct SQLUUID: SQLExpression {
    let id: UUID
    init(_ id: UUID) { self.id = id }
    func serialize(to serializer: inout SQLSerializer) {
        if serializer.dialect.name == "sqlite" { serializer.write(bind: id.text) } else { serializer.write(bind: id) }
    }
}

/// `column` is one of `ids`, however many, with the ids bound as one value: a JSON array of their
/// text read by `json_each` on SQLite, a `uuid[]` on PostgreSQL. A placeholder per id (the
/// push's current-state read, 1,000 ids to a statement) cost more to build, encode and parse
/// than to run: ~10 ms per 1,000 ids on SQLite even when none were stored.
struct SQLUUIDIn: SQLExpression {
    let column: String
    let ids: [UUID]
    init(_ column: String, _ ids: [UUID]) {
        self.column = column
        self.ids = ids
    }
    func serialize(to serializer: inout SQLSerializer) {
        SQLIdentifier(column).serialize(to: &serializer)
        if serializer.dialect.name == "sqlite" {
            var json = "["
            json.reserveCapacity(ids.count * 39 + 2)
            for (index, id) in ids.enumerated() {
                if index > 0 { json += "," }
                json += "\""
                json += id.text
                json += "\""
            }
            json += "]"
            serializer.write(" IN (SELECT value FROM json_each(")
            serializer.write(bind: json)
            serializer.write("))")
        } else {
            serializer.write(" = ANY(")
            serializer.write(bind: ids)
            serializer.write(")")
        }
    }
}

/// The bookkeeping columns every record table ends with.
let stampColumns = ["version", "created_at", "updated_at", "deleted_at"]

func stampValues<R: SyncRecord>(_ r: R, version: Int64) -> [any SQLExpression] {
    [SQLBind(version), SQLBind(r.createdAt), SQLBind(r.updatedAt), bind(r.deletedAt)]
}

protocol RecordRows {
    associatedtype Record: SyncRecord
    static var schema: String { get }
    /// Every column, `id` and `user_id` first.
    static var columns: [String] { get }
    static func values(_ record: Record, userId: UUID, version: Int64) -> [any SQLExpression]
    /// A row's columns read back in `columns` order: the record, its owner and its version.
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<Record>
    /// The record's wire fields in the order its `writeWire` puts them, each with its column
    /// (what a pull page is written from; see WireRows.swift).
    static var wire: [WireColumn] { get }
}

/// The values of the stamp columns, read after a record's own fields (`stampColumns`).
struct Stamps {
    var version: Int64
    var createdAt: Date
    var updatedAt: Date
    var deletedAt: Date?

    init<C: ColumnCursor>(_ c: inout C) throws {
        version = try c.int64()
        createdAt = try c.date()
        updatedAt = try c.date()
        deletedAt = try c.optionalDate()
    }
}

extension ThreadModel: RecordRows {
    static let columns = ["id", "user_id", "brand", "number", "color_name", "color_hex", "fiber_type", "quantity", "barcode",
                          "weight_or_length", "notes"] + stampColumns
    static func values(_ r: InventoryThread, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLBind(r.brand), SQLBind(r.number), bind(r.colorName), bind(r.colorHex),
         SQLBind(r.fiberType.rawValue), SQLBind(r.quantity), bind(r.barcode), bind(r.weightOrLength), bind(r.notes)]
            + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<InventoryThread> {
        let id = try c.uuid(), userId = try c.uuid()
        let brand = try c.string(), number = try c.string(), colorName = try c.optionalString(), colorHex = try c.optionalString()
        let fiberType = try c.raw(FiberType.other), quantity = try c.int(), barcode = try c.optionalString()
        let weightOrLength = try c.optionalString(), notes = try c.optionalString()
        let s = try Stamps(&c)
        return StoredRecord(record: InventoryThread(
            id: id, brand: brand, number: number, colorName: colorName, colorHex: colorHex, fiberType: fiberType, quantity: quantity,
            barcode: barcode, weightOrLength: weightOrLength, notes: notes,
            createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt), userId: userId, version: s.version)
    }
}

extension CanvasModel: RecordRows {
    static let columns = ["id", "user_id", "designer", "design_name", "acquired_at", "image_key", "size", "mesh_count", "notes"]
        + stampColumns
    static func values(_ r: Canvas, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLBind(r.designer), SQLBind(r.designName), bind(r.acquiredAt), bind(r.imageKey),
         bind(r.size), bind(r.meshCount), bind(r.notes)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<Canvas> {
        let id = try c.uuid(), userId = try c.uuid()
        let designer = try c.string(), designName = try c.string(), acquiredAt = try c.optionalDate(), imageKey = try c.optionalString()
        let size = try c.optionalString(), meshCount = try c.optionalInt(), notes = try c.optionalString()
        let s = try Stamps(&c)
        return StoredRecord(record: Canvas(
            id: id, designer: designer, designName: designName, acquiredAt: acquiredAt, imageKey: imageKey, size: size,
            meshCount: meshCount, notes: notes, createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt),
            userId: userId, version: s.version)
    }
}

extension ProjectModel: RecordRows {
    static let columns = ["id", "user_id", "canvas_id", "status", "started_at", "finishing_at", "completed_at", "notes"] + stampColumns
    static func values(_ r: Project, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.canvasId), SQLBind(r.status.rawValue), SQLBind(r.startedAt), bind(r.finishingAt),
         bind(r.completedAt), bind(r.notes)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<Project> {
        let id = try c.uuid(), userId = try c.uuid()
        let canvasId = try c.uuid(), status = try c.raw(ProjectStatus.wip), startedAt = try c.date()
        let finishingAt = try c.optionalDate(), completedAt = try c.optionalDate(), notes = try c.optionalString()
        let s = try Stamps(&c)
        return StoredRecord(record: Project(
            id: id, canvasId: canvasId, status: status, startedAt: startedAt, finishingAt: finishingAt, completedAt: completedAt,
            notes: notes, createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt), userId: userId, version: s.version)
    }
}

extension SectionModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "name", "sort_order", "status", "notes"] + stampColumns
    static func values(_ r: ProjectSection, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), SQLBind(r.name), SQLBind(r.sortOrder), SQLBind(r.status.rawValue),
         bind(r.notes)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<ProjectSection> {
        let id = try c.uuid(), userId = try c.uuid()
        let projectId = try c.uuid(), name = try c.string(), sortOrder = try c.int(), status = try c.raw(SectionStatus.notStarted)
        let notes = try c.optionalString()
        let s = try Stamps(&c)
        return StoredRecord(record: ProjectSection(
            id: id, projectId: projectId, name: name, sortOrder: sortOrder, status: status, notes: notes,
            createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt), userId: userId, version: s.version)
    }
}

extension RequirementModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "section_id", "thread_id", "brand", "number", "color_name",
                          "quantity_needed", "notes"] + stampColumns
    static func values(_ r: ProjectThread, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), bind(r.sectionId), bind(r.threadId), SQLBind(r.brand),
         SQLBind(r.number), bind(r.colorName), SQLBind(r.quantityNeeded), bind(r.notes)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<ProjectThread> {
        let id = try c.uuid(), userId = try c.uuid()
        let projectId = try c.uuid(), sectionId = try c.optionalUUID(), threadId = try c.optionalUUID(), brand = try c.string()
        let number = try c.string(), colorName = try c.optionalString(), quantityNeeded = try c.int(), notes = try c.optionalString()
        let s = try Stamps(&c)
        return StoredRecord(record: ProjectThread(
            id: id, projectId: projectId, sectionId: sectionId, threadId: threadId, brand: brand, number: number,
            colorName: colorName, quantityNeeded: quantityNeeded, notes: notes,
            createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt), userId: userId, version: s.version)
    }
}

extension JournalEntryModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "notes"] + stampColumns
    static func values(_ r: JournalEntry, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), SQLBind(r.notes)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<JournalEntry> {
        let id = try c.uuid(), userId = try c.uuid()
        let projectId = try c.uuid(), notes = try c.string()
        let s = try Stamps(&c)
        return StoredRecord(record: JournalEntry(
            id: id, projectId: projectId, notes: notes, createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt),
            userId: userId, version: s.version)
    }
}

extension JournalImageModel: RecordRows {
    static let columns = ["id", "user_id", "entry_id", "image_key", "sort_order"] + stampColumns
    static func values(_ r: JournalImage, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.entryId), SQLBind(r.imageKey), SQLBind(r.sortOrder)] + stampValues(r, version: version)
    }
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<JournalImage> {
        let id = try c.uuid(), userId = try c.uuid()
        let entryId = try c.uuid(), imageKey = try c.string(), sortOrder = try c.int()
        let s = try Stamps(&c)
        return StoredRecord(record: JournalImage(
            id: id, entryId: entryId, imageKey: imageKey, sortOrder: sortOrder,
            createdAt: s.createdAt, updatedAt: s.updatedAt, deletedAt: s.deletedAt), userId: userId, version: s.version)
    }
}

/// A row read with its owner and version (what a push compares against and a pull pages by).
struct StoredRecord<R: Sendable>: Sendable {
    var record: R
    var userId: UUID
    var version: Int64
}

extension RecordRows {
    /// `SELECT` of every column, in `columns` order (what `Database.selectRecords` reads).
    static func select(on db: any Database) -> SQLSelectBuilder {
        db.sql.select().columns(columns.map { SQLColumn($0) }).from(schema)
    }
}
