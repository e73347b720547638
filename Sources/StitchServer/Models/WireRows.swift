import FluentKit
import Foundation
import SQLKit
import StitchCore

// A pull page's records written from their rows straight to wire JSON. Reading each row into a
// record and then writing the record as JSON did the work twice (and on PostgreSQL decoded every
// text cell into a `String` only to copy it out again); a page of thousands of records is read
// here once, into one buffer, and the response copies each record's bytes as they are. Each
// model lists its wire fields in `wire`, in the order its record's `writeWire` puts them, with
// the column each is stored in; the bytes are exactly `SyncRecord.writeJSON`'s (tested).

/// How a wire field's value is stored.
enum WireKind {
    case text, optionalText, int, optionalInt, id, optionalId, instant, optionalInstant
    /// The record's own id and last change, which the change's envelope carries too (read once).
    case recordId, recordUpdatedAt
}

/// One wire field of a record and the column that holds it.
struct WireColumn {
    let key: StaticString
    let column: String
    let kind: WireKind

    init(_ key: StaticString, _ column: String, _ kind: WireKind) {
        self.key = key
        self.column = column
        self.kind = kind
    }

    static let id = WireColumn("id", "id", .recordId)
    static let createdAt = WireColumn("createdAt", "created_at", .instant)
    static let updatedAt = WireColumn("updatedAt", "updated_at", .recordUpdatedAt)
    // `deletedAt` is never in an upsert's data (a deleted record travels as a delete).
}

/// What a pull page reads ahead of each record's fields: its place and its envelope.
let wireEnvelopeColumns = ["id", "version", "updated_at", "deleted_at"]

extension RecordRows {
    /// The columns `selectWire` reads: the envelope, then each stored wire field in key order.
    static var wireColumns: [String] {
        wireEnvelopeColumns + wire.filter { $0.kind != .recordId && $0.kind != .recordUpdatedAt }.map(\.column)
    }

    /// `SELECT` of `wireColumns` (what `WireChangeReader` reads).
    static func selectWire(on db: any Database) -> SQLSelectBuilder {
        db.sql.select().columns(wireColumns.map { SQLColumn($0) }).from(schema)
    }
}

extension RecordRows {
    /// A live row's stored wire fields (the columns after the envelope) written as its record's
    /// JSON object, the record's id and last change given (the envelope carries them).
    static func writeWireObject<C: ColumnCursor>(id: UUID, updatedAt: Date, from c: inout C, into out: inout [UInt8]) throws {
        try JSONObjectSink.object(&out) { o in
            for field in wire {
                switch field.kind {
                case .recordId: o.put(field.key, id)
                case .recordUpdatedAt: o.put(field.key, updatedAt)
                case .text: try c.putText(field.key, optional: false, into: &o)
                case .optionalText: try c.putText(field.key, optional: true, into: &o)
                case .int: o.put(field.key, try c.int())
                case .optionalInt: o.put(field.key, try c.optionalInt())
                case .id: o.put(field.key, try c.uuid())
                case .optionalId: o.put(field.key, try c.optionalUUID())
                case .instant: o.put(field.key, try c.date())
                case .optionalInstant: o.put(field.key, try c.optionalDate())
                }
            }
        }
    }
}

/// Rows selected by `RecordRows.selectWire`, each written straight as its whole change (the
/// bytes `SyncChange.writeJSON` writes for it), as the elements of one JSON array: a page that
/// needs nothing else of its changes (nothing pushed to compare them with) skips making them.
struct WireChangeWriter<M: RecordRows>: RowReader {
    private(set) var out: [UInt8] = [UInt8(ascii: "[")]
    private(set) var count = 0
    /// The rows came in (version, id) order, as the query asks (checked: the caller falls back if not).
    private(set) var ordered = true
    private var last: SyncCursor?

    mutating func reserve(rows count: Int) {
        out.reserveCapacity(2 + count * (M.wire.count * 32 + 128))
    }

    mutating func read<C: ColumnCursor>(_ c: inout C) throws {
        let id = try c.uuid(), version = try c.int64(), updatedAt = try c.date(), deletedAt = try c.optionalDate()
        let place = SyncCursor(version: version, rank: M.Record.entityType.dependencyRank, id: id)
        if let last, !(last < place) { ordered = false }
        last = place
        if count > 0 { out.append(UInt8(ascii: ",")) }
        count += 1
        try SyncChange.writeJSON(action: deletedAt == nil ? .upsert : .delete, type: M.Record.entityType, id: id,
                                 updatedAt: updatedAt, deletedAt: deletedAt, into: &out) { o in
            guard deletedAt == nil else { return }
            try o.put("data") { try M.writeWireObject(id: id, updatedAt: updatedAt, from: &c, into: &$0) }
        }
    }

    /// The array, closed.
    mutating func close() -> [UInt8] {
        out.append(UInt8(ascii: "]"))
        return out
    }
}

/// Rows selected by `RecordRows.selectWire`, each as its cursor position and its change, every
/// upsert's data written into one buffer.
struct WireChangeReader<M: RecordRows>: RowReader {
    private struct Row {
        var id: UUID
        var version: Int64
        var updatedAt: Date
        var deletedAt: Date?
        var data: Range<Int>?
    }

    private var bytes: [UInt8] = []
    private var rows: [Row] = []

    mutating func reserve(rows count: Int) {
        rows.reserveCapacity(count)
        bytes.reserveCapacity(count * M.wire.count * 32)
    }

    mutating func read<C: ColumnCursor>(_ c: inout C) throws {
        let id = try c.uuid(), version = try c.int64(), updatedAt = try c.date(), deletedAt = try c.optionalDate()
        var data: Range<Int>?
        if deletedAt == nil {
            let start = bytes.count
            try M.writeWireObject(id: id, updatedAt: updatedAt, from: &c, into: &bytes)
            data = start..<bytes.count
        }
        rows.append(Row(id: id, version: version, updatedAt: updatedAt, deletedAt: deletedAt, data: data))
    }

    /// The changes read, in row order.
    var changes: [(SyncCursor, SyncChange)] {
        let type = M.Record.entityType
        return rows.map { row in
            (SyncCursor(version: row.version, rank: type.dependencyRank, id: row.id),
             SyncChange(type: type, id: row.id, updatedAt: row.updatedAt, deletedAt: row.deletedAt, wireData: row.data.map { bytes[$0] }))
        }
    }
}

extension ThreadModel {
    static let wire: [WireColumn] = [
        .init("barcode", "barcode", .optionalText), .init("brand", "brand", .text), .init("colorHex", "color_hex", .optionalText),
        .init("colorName", "color_name", .optionalText), .createdAt, .init("fiberType", "fiber_type", .text), .id,
        .init("notes", "notes", .optionalText), .init("number", "number", .text), .init("quantity", "quantity", .int), .updatedAt,
        .init("weightOrLength", "weight_or_length", .optionalText),
    ]
}

extension CanvasModel {
    static let wire: [WireColumn] = [
        .init("acquiredAt", "acquired_at", .optionalInstant), .createdAt, .init("designName", "design_name", .text),
        .init("designer", "designer", .text), .id, .init("imageKey", "image_key", .optionalText),
        .init("meshCount", "mesh_count", .optionalInt), .init("notes", "notes", .optionalText), .init("size", "size", .optionalText),
        .updatedAt,
    ]
}

extension ProjectModel {
    static let wire: [WireColumn] = [
        .init("canvasId", "canvas_id", .id), .init("completedAt", "completed_at", .optionalInstant), .createdAt,
        .init("finishingAt", "finishing_at", .optionalInstant), .id, .init("notes", "notes", .optionalText),
        .init("startedAt", "started_at", .instant), .init("status", "status", .text), .updatedAt,
    ]
}

extension SectionModel {
    static let wire: [WireColumn] = [
        .createdAt, .id, .init("name", "name", .text), .init("notes", "notes", .optionalText), .init("projectId", "project_id", .id),
        .init("sortOrder", "sort_order", .int), .init("status", "status", .text), .updatedAt,
    ]
}

extension RequirementModel {
    static let wire: [WireColumn] = [
        .init("brand", "brand", .text), .init("colorName", "color_name", .optionalText), .createdAt, .id,
        .init("notes", "notes", .optionalText), .init("number", "number", .text), .init("projectId", "project_id", .id),
        .init("quantityNeeded", "quantity_needed", .int), .init("sectionId", "section_id", .optionalId),
        .init("threadId", "thread_id", .optionalId), .updatedAt,
    ]
}

extension JournalEntryModel {
    static let wire: [WireColumn] = [
        .createdAt, .id, .init("notes", "notes", .text), .init("projectId", "project_id", .id), .updatedAt,
    ]
}

extension JournalImageModel {
    static let wire: [WireColumn] = [
        .createdAt, .init("entryId", "entry_id", .id), .id, .init("imageKey", "image_key", .text),
        .init("sortOrder", "sort_order", .int), .updatedAt,
    ]
}
