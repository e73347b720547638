import FluentKit
import Foundation
import PostgresKit
import PostgresNIO
import SQLiteKit
import SQLiteNIO
import SQLKit
import StitchCore

// Rows read by position: SQLite's through its driver's own row type, PostgreSQL's from the bytes
// of one value holding every row, each row a composite value. Reading a column by name through
// SQLKit costs a dictionary lookup and a generic decoder per cell (SQLite's `SQLiteDataDecoder`,
// PostgreSQL's `PostgresDataTranslation`, which also formats a coding-path string per cell); a
// sync pull, a push's current-state read and a list read thousands of rows of known columns, so
// they read them in order with the same conversions the drivers use.

/// The columns of one row, read in order: each read takes the next column.
protocol ColumnCursor {
    mutating func string() throws -> String
    mutating func optionalString() throws -> String?
    mutating func int() throws -> Int
    mutating func optionalInt() throws -> Int?
    mutating func int64() throws -> Int64
    mutating func uuid() throws -> UUID
    mutating func optionalUUID() throws -> UUID?
    /// An instant, rounded to the millisecond as every stored instant is.
    mutating func date() throws -> Date
    mutating func optionalDate() throws -> Date?
    /// The next column, text, written as the wire field `key` (nothing for a null `optional` one).
    mutating func putText(_ key: StaticString, optional: Bool, into o: inout JSONObjectSink) throws
}

extension ColumnCursor {
    mutating func putText(_ key: StaticString, optional: Bool, into o: inout JSONObjectSink) throws {
        o.put(key, optional ? try optionalString() : try string())
    }

    /// A stored enum value; one this server no longer knows reads as `fallback`.
    mutating func raw<E: RawRepresentable>(_ fallback: E) throws -> E where E.RawValue == String {
        E(rawValue: try string()) ?? fallback
    }
}

struct RowDecodingError: Error, CustomStringConvertible {
    let column: Int
    let expected: String
    var description: String { "column \(column) is not \(expected)" }
}

/// SQLite: values as SQLiteNIO read them, converted as its `SQLiteDataConvertible` types do.
/// Ids are text (what Foundation's UUID encoding wrote), parsed by `UUID(text:)`.
struct SQLiteCursor: ColumnCursor {
    let columns: [SQLiteColumn]
    var index = 0

    init(_ row: SQLiteRow) { columns = row.columns }

    @inline(__always) private mutating func next() -> SQLiteData {
        defer { index += 1 }
        return index < columns.count ? columns[index].data : .null
    }
    private func fail(_ expected: String) -> RowDecodingError { RowDecodingError(column: index - 1, expected: expected) }

    mutating func string() throws -> String {
        guard case .text(let s) = next() else { throw fail("text") }
        return s
    }
    mutating func optionalString() throws -> String? {
        switch next() {
        case .null: return nil
        case .text(let s): return s
        default: throw fail("text or null")
        }
    }
    mutating func int() throws -> Int { Int(try int64()) }
    mutating func optionalInt() throws -> Int? {
        switch next() {
        case .null: return nil
        case .integer(let i): return Int(i)
        default: throw fail("an integer or null")
        }
    }
    mutating func int64() throws -> Int64 {
        guard case .integer(let i) = next() else { throw fail("an integer") }
        return Int64(i)
    }
    mutating func uuid() throws -> UUID {
        guard case .text(let s) = next(), let id = UUID(text: s) else { throw fail("an id") }
        return id
    }
    mutating func optionalUUID() throws -> UUID? {
        switch next() {
        case .null: return nil
        case .text(let s):
            guard let id = UUID(text: s) else { throw fail("an id") }
            return id
        default: throw fail("an id or null")
        }
    }
    mutating func date() throws -> Date {
        guard let date = Date(sqliteData: next()) else { throw fail("a date") }
        return date.roundedToMilliseconds
    }
    mutating func optionalDate() throws -> Date? {
        let value = next()
        if case .null = value { return nil }
        guard let date = Date(sqliteData: value) else { throw fail("a date") }
        return date.roundedToMilliseconds
    }
}

/// PostgreSQL, a row selected as one composite value (`ROW(a, b, …)`, see `Database.select`):
/// its fields read straight from the bytes in PostgreSQL's binary record format (`record_send`: a
/// field count, then per field its type, its length, -1 for null, and its bytes in the type's
/// binary format). PostgresNIO's per-row and per-cell work (a `DataRow` through its state machine
/// and row stream, a `PostgresCell` with its own `ByteBuffer`, checked integer reads) was most of
/// a pull's reading. The values are converted as PostgresNIO's `PostgresDecodable` conformances
/// convert them.
struct PostgresRecordCursor: ColumnCursor {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 4
    private var index = 0
    private let count: Int

    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= 4 else { throw RowDecodingError(column: 0, expected: "a record") }
        self.bytes = bytes
        count = Self.int32(bytes, at: 0)
    }

    /// The big-endian 32-bit integer at `offset` (its four bytes checked to be there by the caller).
    @inline(__always) private static func int32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
        Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
    }

    /// Each of the records that `bytes` holds one after another, given to `reader` in order.
    static func readAll<R: RowReader>(_ bytes: UnsafeRawBufferPointer, into reader: inout R) throws {
        var offset = 0
        while offset < bytes.count {
            let end = try end(of: bytes, from: offset)
            var columns = try PostgresRecordCursor(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            try reader.read(&columns)
            offset = end
        }
    }

    /// Where the record starting at `start` in `bytes` ends: past its field count and each
    /// field's type, length (-1 for null) and bytes.
    static func end(of bytes: UnsafeRawBufferPointer, from start: Int) throws -> Int {
        func int32(_ offset: Int) throws -> Int {
            guard offset + 4 <= bytes.count else { throw RowDecodingError(column: 0, expected: "a complete record") }
            return Self.int32(bytes, at: offset)
        }
        let count = try int32(start)
        guard count >= 0 else { throw RowDecodingError(column: 0, expected: "a record") }
        var offset = start + 4
        for _ in 0..<count {
            offset += 8 + max(0, try int32(offset + 4))
        }
        guard offset <= bytes.count else { throw RowDecodingError(column: 0, expected: "a complete record") }
        return offset
    }

    /// One field: its type and its bytes (nil for null).
    private typealias Field = (type: PostgresDataType, value: UnsafeRawBufferPointer?)

    /// The next field.
    @inline(__always) private mutating func next() throws -> Field {
        index += 1
        guard index <= count, offset + 8 <= bytes.count else { throw RowDecodingError(column: index - 1, expected: "present") }
        let type = PostgresDataType(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let length = Self.int32(bytes, at: offset + 4)
        offset += 8
        guard length >= 0 else { return (type, nil) }
        guard offset + length <= bytes.count else { throw RowDecodingError(column: index - 1, expected: "complete") }
        defer { offset += length }
        return (type, UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
    }
    private func fail(_ expected: String) -> RowDecodingError { RowDecodingError(column: index - 1, expected: expected) }

    private func isText(_ type: PostgresDataType) -> Bool {
        type == .text || type == .varchar || type == .bpchar || type == .name
    }
    private func string(_ field: Field) throws -> String? {
        guard let value = field.value else { return nil }
        guard isText(field.type) else { throw fail("text") }
        return String(decoding: value, as: UTF8.self)
    }
    private func integer(_ field: Field) throws -> Int64? {
        guard let value = field.value else { return nil }
        switch (field.type, value.count) {
        case (.int8, 8): return Int64(bigEndian: value.loadUnaligned(as: Int64.self))
        case (.int4, 4): return Int64(Int32(bigEndian: value.loadUnaligned(as: Int32.self)))
        case (.int2, 2): return Int64(Int16(bigEndian: value.loadUnaligned(as: Int16.self)))
        default: throw fail("an integer")
        }
    }
    private func uuid(_ field: Field) throws -> UUID? {
        guard let value = field.value else { return nil }
        guard field.type == .uuid, value.count == 16 else { throw fail("an id") }
        return UUID(uuid: value.loadUnaligned(as: uuid_t.self))
    }
    private func date(_ field: Field) throws -> Date? {
        guard let value = field.value else { return nil }
        guard field.type == .timestamptz || field.type == .timestamp, value.count == 8 else { throw fail("a date") }
        let microseconds = Int64(bigEndian: value.loadUnaligned(as: Int64.self))
        return Date(timeInterval: Double(microseconds) / 1_000_000, since: Self.epoch).roundedToMilliseconds
    }
    /// PostgreSQL's instants count from 2000-01-01 (as PostgresNIO's `Date` decoding does).
    private static let epoch = Date(timeIntervalSince1970: 946_684_800)

    mutating func string() throws -> String {
        guard let s = try string(next()) else { throw fail("text") }
        return s
    }
    mutating func optionalString() throws -> String? { try string(next()) }
    mutating func int() throws -> Int { Int(try int64()) }
    mutating func optionalInt() throws -> Int? { try integer(next()).map { Int($0) } }
    mutating func int64() throws -> Int64 {
        guard let i = try integer(next()) else { throw fail("an integer") }
        return i
    }
    mutating func uuid() throws -> UUID {
        guard let id = try uuid(next()) else { throw fail("an id") }
        return id
    }
    mutating func optionalUUID() throws -> UUID? { try uuid(next()) }
    mutating func date() throws -> Date {
        guard let date = try date(next()) else { throw fail("a date") }
        return date
    }
    mutating func optionalDate() throws -> Date? { try date(next()) }

    /// Text goes from the row's bytes to the JSON without becoming a `String` first.
    mutating func putText(_ key: StaticString, optional: Bool, into o: inout JSONObjectSink) throws {
        let field = try next()
        guard let value = field.value else {
            if optional { return }
            throw fail("text")
        }
        guard isText(field.type) else { throw fail("text") }
        o.put(key, utf8: value)
    }
}

/// Any other SQLKit row, by the column names the query selected.
struct NamedCursor: ColumnCursor {
    let row: any SQLRow
    let names: [String]
    var index = 0

    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        defer { index += 1 }
        return try row.decode(column: names[index], as: T.self)
    }

    mutating func string() throws -> String { try next(String.self) }
    mutating func optionalString() throws -> String? { try next(String?.self) }
    mutating func int() throws -> Int { try next(Int.self) }
    mutating func optionalInt() throws -> Int? { try next(Int?.self) }
    mutating func int64() throws -> Int64 { try next(Int64.self) }
    mutating func uuid() throws -> UUID { try next(UUID.self) }
    mutating func optionalUUID() throws -> UUID? { try next(UUID?.self) }
    mutating func date() throws -> Date { try next(Date.self).roundedToMilliseconds }
    mutating func optionalDate() throws -> Date? { try next(Date?.self)?.roundedToMilliseconds }
}

/// What reads the rows of a SELECT, one row's columns at a time, and keeps what it makes of them.
protocol RowReader: Sendable {
    /// Told how many rows are coming, before the first.
    mutating func reserve(rows count: Int)
    mutating func read<C: ColumnCursor>(_ columns: inout C) throws
}

extension RowReader {
    mutating func reserve(rows count: Int) {}
}

/// Each row as a stored record (a query that selects `M.columns`, see `RecordRows.select`).
struct RecordReader<M: RecordRows>: RowReader {
    var records: [StoredRecord<M.Record>] = []
    private let description = M.Record.described
    mutating func reserve(rows count: Int) { records.reserveCapacity(count) }
    mutating func read<C: ColumnCursor>(_ columns: inout C) throws { records.append(try M.stored(&columns, description)) }
}

extension Database {
    /// The records of a query that selects `M.columns` (see `RecordRows.select`).
    func selectRecords<M: RecordRows>(_ type: M.Type, _ query: SQLSelectBuilder) async throws -> [StoredRecord<M.Record>] {
        var reader = RecordReader<M>()
        try await select(query, columns: M.columns, into: &reader)
        return reader.records
    }

    /// Runs `query` (which selects `columns`, in order) and gives each row to `reader`, read
    /// positionally through the driver's own row type where it is SQLite or PostgreSQL.
    func select<R: RowReader>(_ query: SQLSelectBuilder, columns: [String], into reader: inout R) async throws {
        if let sqlite = self as? any SQLiteDatabase {
            var serializer = SQLSerializer(database: sql)
            query.select.serialize(to: &serializer)
            let encoder = SQLiteDataEncoder()
            let binds = try serializer.binds.map { try encoder.encode($0) }
            let sql = serializer.sql
            // The connection's own async query hands each row over on the thread pool that steps
            // the statement. (`SQLiteDatabase.query(_:_:)` goes through the callback form, which
            // submits every row to the event loop as a task of its own: a lock, a wake-up and a
            // future per row, about a tenth of a 10,000-record pull's CPU.)
            let rows = try await sqlite.withConnection { connection in
                connection.eventLoop.makeFutureWithTask { try await Self.sqliteRows(connection, sql, binds) }
            }.get()
            return try Self.read(rows, SQLiteCursor.init, into: &reader)
        }
        if let postgres = self as? any PostgresDatabase {
            // The rows come as one value: each row a composite value (`ROW(a, b, …)`) in its
            // binary form (`record_send`), all of them one after another (`string_agg`), with
            // their count. One message instead of one per row: PostgresNIO's per-row work (a
            // `DataRow` through its state machine and async row stream, a `PostgresCell` per
            // cell) cost more than reading the row; a 10,000-record pull took ~30% less of this
            // process's CPU. The aggregate reads the subquery in its order (PostgreSQL never
            // merges a subquery that has an ORDER BY into the outer query); the pull, whose
            // cursor depends on it, checks it anyway (`SyncService.changes`).
            var select = query.select
            select.columns = [SQLAlias(SQLFunction("ROW", args: select.columns), as: SQLIdentifier("r"))]
            var serializer = SQLSerializer(database: sql)
            select.serialize(to: &serializer)
            if let binds = Self.postgresBindings(serializer.binds) {
                let text = "SELECT count(*), string_agg(record_send(r), ''::bytea) FROM (\(serializer.sql)) AS selected"
                let result = try await postgres.withConnection { connection in
                    connection.query(PostgresQuery(unsafeSQL: text, binds: binds), logger: connection.logger)
                }.get()
                guard let row = result.rows.first else { return }
                let (count, records) = try row.decode((Int, ByteBuffer?).self)
                guard let records else { return }  // no rows: `string_agg` of nothing is null
                reader.reserve(rows: count)
                try records.withUnsafeReadableBytes { try PostgresRecordCursor.readAll($0, into: &reader) }
                return
            }
        }
        try Self.read(try await query.all(), { NamedCursor(row: $0, names: columns) }, into: &reader)
    }

    /// The rows of `sql`, stepped and collected on the connection's thread pool.
    private static func sqliteRows(_ connection: SQLiteConnection, _ sql: String, _ binds: [SQLiteData]) async throws -> [SQLiteRow] {
        nonisolated(unsafe) var rows: [SQLiteRow] = []
        try await connection.query(sql, binds) { rows.append($0) }
        return rows
    }

    /// Each of `rows` given to `reader` through the cursor `cursor` makes for it.
    private static func read<Row, Cursor: ColumnCursor, R: RowReader>(_ rows: [Row], _ cursor: (Row) -> Cursor, into reader: inout R) throws {
        reader.reserve(rows: rows.count)
        for row in rows {
            var columns = cursor(row)
            try reader.read(&columns)
        }
    }

    /// The binds as PostgresNIO's own encodings; nil if one of them has none (then SQLKit's path runs).
    private static func postgresBindings(_ values: [any Encodable & Sendable]) -> PostgresBindings? {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            guard let encodable = value as? any PostgresThrowingDynamicTypeEncodable else { return nil }
            do { try binds.append(encodable) } catch { return nil }
        }
        return binds
    }
}
