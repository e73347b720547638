import FluentKit
import Foundation
import SQLKit
import StitchCore

// Records read from and written to SQL rows directly. Fluent's model hydration walks each model's
// properties with reflection (`Mirror`), which dominated sync pulls, pushes and list pages of
// thousands of rows; the hot paths use these instead, and the Fluent models stay for the
// one-row REST writes and the migrations. Each model lists its columns once, in `columns`, and
// `values` binds a record in that order; `read` is its inverse.

/// One row's columns, by name, with the rounding every stored instant gets.
struct RowReader {
    let row: any SQLRow
    /// SQLite keeps ids as text (what Foundation's UUID encoding wrote); they are read as text and
    /// parsed here, not through the Codable path and the C library's scanner.
    let idsAsText: Bool

    func callAsFunction<T: Decodable>(_ column: String, _ type: T.Type = T.self) throws -> T {
        if idsAsText {
            if T.self == UUID.self { return try uuid(row.decode(column: column, as: String.self), column) as! T }
            if T.self == UUID?.self { return try row.decode(column: column, as: String?.self).map { try uuid($0, column) } as! T }
        }
        return try row.decode(column: column, as: T.self)
    }

    private func uuid(_ text: String, _ column: String) throws -> UUID {
        guard let id = UUID(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(column) is not an id: \(text)"))
        }
        return id
    }

    func date(_ column: String) throws -> Date { try row.decode(column: column, as: Date.self).roundedToMilliseconds }
    func optionalDate(_ column: String) throws -> Date? { try row.decode(column: column, as: Date?.self)?.roundedToMilliseconds }

    func raw<E: RawRepresentable>(_ column: String, _ fallback: E) throws -> E where E.RawValue == String {
        E(rawValue: try row.decode(column: column, as: String.self)) ?? fallback
    }
}

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

/// The bookkeeping columns every record table ends with.
let stampColumns = ["version", "created_at", "updated_at", "deleted_at"]

func stampValues<R: SyncRecord>(_ r: R, version: Int64) -> [any SQLExpression] {
    [SQLBind(version), SQLBind(r.createdAt), SQLBind(r.updatedAt), bind(r.deletedAt)]
}

protocol RecordRows {
    associatedtype Record: SyncRecord
    /// Every column, `id` and `user_id` first.
    static var columns: [String] { get }
    static func values(_ record: Record, userId: UUID, version: Int64) -> [any SQLExpression]
    static func read(_ row: RowReader) throws -> Record
}

extension ThreadModel: RecordRows {
    static let columns = ["id", "user_id", "brand", "number", "color_name", "color_hex", "fiber_type", "quantity", "barcode",
                          "weight_or_length", "notes"] + stampColumns
    static func values(_ r: InventoryThread, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLBind(r.brand), SQLBind(r.number), bind(r.colorName), bind(r.colorHex),
         SQLBind(r.fiberType.rawValue), SQLBind(r.quantity), bind(r.barcode), bind(r.weightOrLength), bind(r.notes)]
            + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> InventoryThread {
        InventoryThread(
            id: try c("id"), brand: try c("brand"), number: try c("number"), colorName: try c("color_name"),
            colorHex: try c("color_hex"), fiberType: try c.raw("fiber_type", FiberType.other), quantity: try c("quantity"),
            barcode: try c("barcode"), weightOrLength: try c("weight_or_length"), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension CanvasModel: RecordRows {
    static let columns = ["id", "user_id", "designer", "design_name", "acquired_at", "image_key", "size", "mesh_count", "notes"]
        + stampColumns
    static func values(_ r: Canvas, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLBind(r.designer), SQLBind(r.designName), bind(r.acquiredAt), bind(r.imageKey),
         bind(r.size), bind(r.meshCount), bind(r.notes)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> Canvas {
        Canvas(
            id: try c("id"), designer: try c("designer"), designName: try c("design_name"), acquiredAt: try c.optionalDate("acquired_at"),
            imageKey: try c("image_key"), size: try c("size"), meshCount: try c("mesh_count"), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension ProjectModel: RecordRows {
    static let columns = ["id", "user_id", "canvas_id", "status", "started_at", "finishing_at", "completed_at", "notes"] + stampColumns
    static func values(_ r: Project, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.canvasId), SQLBind(r.status.rawValue), SQLBind(r.startedAt), bind(r.finishingAt),
         bind(r.completedAt), bind(r.notes)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> Project {
        Project(
            id: try c("id"), canvasId: try c("canvas_id"), status: try c.raw("status", ProjectStatus.wip),
            startedAt: try c.date("started_at"), finishingAt: try c.optionalDate("finishing_at"),
            completedAt: try c.optionalDate("completed_at"), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension SectionModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "name", "sort_order", "status", "notes"] + stampColumns
    static func values(_ r: ProjectSection, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), SQLBind(r.name), SQLBind(r.sortOrder), SQLBind(r.status.rawValue),
         bind(r.notes)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> ProjectSection {
        ProjectSection(
            id: try c("id"), projectId: try c("project_id"), name: try c("name"), sortOrder: try c("sort_order"),
            status: try c.raw("status", SectionStatus.notStarted), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension RequirementModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "section_id", "thread_id", "brand", "number", "color_name",
                          "quantity_needed", "notes"] + stampColumns
    static func values(_ r: ProjectThread, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), bind(r.sectionId), bind(r.threadId), SQLBind(r.brand),
         SQLBind(r.number), bind(r.colorName), SQLBind(r.quantityNeeded), bind(r.notes)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> ProjectThread {
        ProjectThread(
            id: try c("id"), projectId: try c("project_id"), sectionId: try c("section_id"), threadId: try c("thread_id"),
            brand: try c("brand"), number: try c("number"), colorName: try c("color_name"),
            quantityNeeded: try c("quantity_needed"), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension JournalEntryModel: RecordRows {
    static let columns = ["id", "user_id", "project_id", "notes"] + stampColumns
    static func values(_ r: JournalEntry, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.projectId), SQLBind(r.notes)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> JournalEntry {
        JournalEntry(
            id: try c("id"), projectId: try c("project_id"), notes: try c("notes"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

extension JournalImageModel: RecordRows {
    static let columns = ["id", "user_id", "entry_id", "image_key", "sort_order"] + stampColumns
    static func values(_ r: JournalImage, userId: UUID, version: Int64) -> [any SQLExpression] {
        [SQLUUID(r.id), SQLUUID(userId), SQLUUID(r.entryId), SQLBind(r.imageKey), SQLBind(r.sortOrder)] + stampValues(r, version: version)
    }
    static func read(_ c: RowReader) throws -> JournalImage {
        JournalImage(
            id: try c("id"), entryId: try c("entry_id"), imageKey: try c("image_key"), sortOrder: try c("sort_order"),
            createdAt: try c.date("created_at"), updatedAt: try c.date("updated_at"), deletedAt: try c.optionalDate("deleted_at"))
    }
}

/// A row read with its owner and version (what a push compares against and a pull pages by).
struct StoredRecord<R> {
    var record: R
    var userId: UUID
    var version: Int64
}

extension RecordRows {
    static func stored(_ row: any SQLRow, idsAsText: Bool) throws -> StoredRecord<Record> {
        let reader = RowReader(row: row, idsAsText: idsAsText)
        return StoredRecord(record: try read(reader), userId: try reader("user_id"), version: try reader("version"))
    }
}

extension Database {
    /// Whether this database keeps ids as text (SQLite) rather than as a native uuid.
    var idsAsText: Bool { sql.dialect.name == "sqlite" }
}
