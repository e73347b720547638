import FluentKit
import Foundation
import SQLKit
import StitchCore

// A pull page's records written from their rows straight to wire JSON. Reading each row into a
// record and then writing the record as JSON did the work twice (and on PostgreSQL decoded every
// text cell into a `String` only to copy it out again); a page of thousands of records is read
// here once, into one buffer, and the response copies each record's bytes as they are. Each
// record's description (StitchCore) gives its wire fields in the order `writeWire` puts them, with
// the column each is stored in; the bytes are exactly `SyncRecord.writeJSON`'s (tested).

/// What a pull page reads ahead of each record's fields: its place and its envelope.
let wireEnvelopeColumns = ["id", "version", "updated_at", "deleted_at"]

extension RecordRows {
    /// The columns `selectWire` reads: the envelope, then each stored wire field in key order.
    static var wireColumns: [String] {
        let fields = Record.described.fields
        return wireEnvelopeColumns + Record.described.wireOrder.compactMap { slot in
            switch slot {
            case .createdAt: "created_at"
            case .field(let index): fields[index].column
            case .id, .updatedAt, .deletedAt: nil
            }
        }
    }

    /// `SELECT` of `wireColumns` (what `WireChangeReader` reads).
    static func selectWire(on db: any Database) -> SQLSelectBuilder {
        db.sql.select().columns(wireColumns.map { SQLColumn($0) }).from(schema)
    }
}

/// One step of writing a row's wire object: a stamp the envelope gives, or a column read as its
/// field's type. Made once per page from the description, so the row loop touches no generic
/// metadata and no field's closures.
enum WireStep {
    case id, updatedAt, createdAt
    case text(StaticString, optional: Bool)
    case int(StaticString, optional: Bool)
    case uuid(StaticString, optional: Bool)
    case date(StaticString, optional: Bool)
}

extension RecordRows {
    /// The steps of `writeWireObject`, in wire key order (`deletedAt` is never in an upsert's data:
    /// a deleted record travels as a delete).
    static var wirePlan: [WireStep] {
        let fields = Record.described.fields
        return Record.described.wireOrder.compactMap { slot in
            switch slot {
            case .id: .id
            case .updatedAt: .updatedAt
            case .createdAt: .createdAt
            case .deletedAt: nil
            case .field(let index):
                switch fields[index].type {
                case .text, .choice: .text(fields[index].key, optional: fields[index].isOptional)
                case .int: .int(fields[index].key, optional: fields[index].isOptional)
                case .id: .uuid(fields[index].key, optional: fields[index].isOptional)
                case .instant: .date(fields[index].key, optional: fields[index].isOptional)
                }
            }
        }
    }
}

/// A live row's stored wire fields (the columns after the envelope) written as its record's JSON
/// object by `plan`, the record's id and last change given (the envelope carries them).
func writeWireObject<C: ColumnCursor>(_ plan: [WireStep], id: UUID, updatedAt: Date, from c: inout C, into out: inout [UInt8]) throws {
    try JSONObjectSink.object(&out) { o in
        for step in plan {
            switch step {
            case .id: o.put("id", id)
            case .updatedAt: o.put("updatedAt", updatedAt)
            case .createdAt: o.put("createdAt", try c.date())
            case .text(let key, let optional): try c.putText(key, optional: optional, into: &o)
            case .int(let key, false): o.put(key, try c.int())
            case .int(let key, true): o.put(key, try c.optionalInt())
            case .uuid(let key, false): o.put(key, try c.uuid())
            case .uuid(let key, true): o.put(key, try c.optionalUUID())
            case .date(let key, false): o.put(key, try c.date())
            case .date(let key, true): o.put(key, try c.optionalDate())
            }
        }
    }
}

/// Rows selected by `RecordRows.selectWire`, each written straight as its whole change (the
/// bytes `SyncChange.writeJSON` writes for it), as the elements of one JSON array: a page that
/// needs nothing else of its changes (nothing pushed to compare them with) skips making them.
struct WireChangeWriter<M: RecordRows>: RowReader {
    private let plan = M.wirePlan
    private(set) var out: [UInt8] = [UInt8(ascii: "[")]
    private(set) var count = 0
    /// The rows came in (version, id) order, as the query asks (checked: the caller falls back if not).
    private(set) var ordered = true
    private var last: SyncCursor?

    mutating func reserve(rows count: Int) {
        out.reserveCapacity(2 + count * (M.Record.described.fields.count * 32 + 128))
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
            try o.put("data") { try writeWireObject(plan, id: id, updatedAt: updatedAt, from: &c, into: &$0) }
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

    private let plan = M.wirePlan
    private var bytes: [UInt8] = []
    private var rows: [Row] = []

    mutating func reserve(rows count: Int) {
        rows.reserveCapacity(count)
        bytes.reserveCapacity(count * M.Record.described.fields.count * 32)
    }

    mutating func read<C: ColumnCursor>(_ c: inout C) throws {
        let id = try c.uuid(), version = try c.int64(), updatedAt = try c.date(), deletedAt = try c.optionalDate()
        var data: Range<Int>?
        if deletedAt == nil {
            let start = bytes.count
            try writeWireObject(plan, id: id, updatedAt: updatedAt, from: &c, into: &bytes)
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
