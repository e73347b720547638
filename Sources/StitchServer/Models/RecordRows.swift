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

/// Where one kind of record is stored: the table, columns and row reads of its description.
protocol RecordRows {
    associatedtype Record: DescribedRecord
}

extension RecordRows {
    static var schema: String { Record.described.table }

    /// Every column, `id` and `user_id` first, then the record's own fields, then the stamps.
    static var columns: [String] { ["id", "user_id"] + Record.described.fields.map(\.column) + stampColumns }

    static func values(_ r: Record, userId: UUID, version: Int64) -> [any SQLExpression] {
        var values: [any SQLExpression] = [SQLUUID(r.id), SQLUUID(userId)]
        values.reserveCapacity(Record.described.fields.count + 6)
        for field in Record.described.fields { values.append(bind(field.get(r))) }
        return values + stampValues(r, version: version)
    }

    /// A row's columns read back in `columns` order: the record, its owner and its version.
    static func stored<C: ColumnCursor>(_ c: inout C) throws -> StoredRecord<Record> {
        try stored(&c, Record.described)
    }

    /// `stored` with the description fetched once for many rows.
    static func stored<C: ColumnCursor>(_ c: inout C, _ description: RecordDescription<Record>) throws -> StoredRecord<Record> {
        let id = try c.uuid(), userId = try c.uuid()
        var record = description.blank(id: id, createdAt: .distantPast, updatedAt: .distantPast, deletedAt: nil)
        for field in description.fields {
            let value = try c.value(field.type, optional: field.isOptional)
            // A stored choice this build doesn't know reads as the field's default.
            if !field.set(&record, value) { _ = field.set(&record, field.defaultValue) }
        }
        let s = try Stamps(&c)
        record.createdAt = s.createdAt
        record.updatedAt = s.updatedAt
        record.deletedAt = s.deletedAt
        return StoredRecord(record: record, userId: userId, version: s.version)
    }
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

/// A described field's value to bind, or SQL NULL.
func bind(_ value: FieldValue) -> any SQLExpression {
    switch value {
    case .null: SQLLiteral.null
    case .text(let text): SQLBind(text)
    case .int(let number): SQLBind(number)
    case .id(let id): SQLUUID(id)
    case .instant(let date): SQLBind(date)
    }
}

extension ColumnCursor {
    /// The next column as a described field's value.
    mutating func value(_ type: FieldType, optional: Bool) throws -> FieldValue {
        switch (type, optional) {
        case (.text, false), (.choice, false): .text(try string())
        case (.text, true), (.choice, true): try optionalString().map(FieldValue.text) ?? .null
        case (.int, false): .int(try int())
        case (.int, true): try optionalInt().map(FieldValue.int) ?? .null
        case (.id, false): .id(try uuid())
        case (.id, true): try optionalUUID().map(FieldValue.id) ?? .null
        case (.instant, false): .instant(try date())
        case (.instant, true): try optionalDate().map(FieldValue.instant) ?? .null
        }
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
