import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// One kind of synced record as the server stores it (`StoredModel`).
protocol RecordModel: RecordRows, AnyObject, Sendable {
    var record: Record { get }
    var userId: UUID { get }
    var version: Int64 { get set }
    var id: UUID? { get }
    func apply(_ record: Record)
    init(_ stored: StoredRecord<Record>)
}

extension StoredModel: RecordRows, RecordModel {
    typealias Record = R
}

/// The per-user change counter (see `UserModel.syncVersion`).
enum SyncVersion {
    /// Takes the user's next version. Run it first in a write transaction: on PostgreSQL it locks
    /// the user's row until commit, so versions are handed out in commit order; on SQLite the
    /// write lock is taken at once, which avoids lock upgrades between concurrent transactions.
    static func next(for userId: UUID, on db: any Database) async throws -> Int64 {
        let rows = try await db.sql.update(UserModel.schema)
            .set(SQLIdentifier("sync_version"), to: SQLBinaryExpression(SQLIdentifier("sync_version"), .add, SQLLiteral.numeric("1")))
            .where("id", .equal, SQLUUID(userId))
            .returning("sync_version")
            .all()
        guard let row = rows.first else { throw APIError.unauthorized }
        return try row.decode(column: "sync_version", as: Int64.self)
    }

    static func current(for userId: UUID, on db: any Database) async throws -> Int64 {
        let rows = try await db.sql.select().column("sync_version").from(UserModel.schema)
            .where("id", .equal, SQLUUID(userId)).all()
        return try rows.first?.decode(column: "sync_version", as: Int64.self) ?? 0
    }
}

enum Records {
    /// The user's live (not deleted) record, or nil. Another user's id looks exactly like a
    /// missing one.
    /// The user's record; a tombstone too when `includeDeleted`.
    static func find<M: RecordModel>(_ type: M.Type, _ id: UUID, userId: UUID, includeDeleted: Bool = false, on db: any Database) async throws -> M? {
        var query = M.select(on: db)
            .where("id", .equal, SQLUUID(id))
            .where("user_id", .equal, SQLUUID(userId))
        if !includeDeleted { query = query.where("deleted_at", .is, SQLLiteral.null) }
        return try await db.selectRecords(M.self, query).first.map(M.init)
    }

    static func require<M: RecordModel>(_ type: M.Type, _ id: UUID, userId: UUID, on db: any Database) async throws -> M {
        guard let model = try await find(type, id, userId: userId, on: db) else { throw APIError.notFound }
        return model
    }

    /// Whether any user holds a row with this id (live or deleted): a client-chosen id must be new.
    static func idExists<M: RecordModel>(_ type: M.Type, _ id: UUID, on db: any Database) async throws -> Bool {
        try await db.sql.select().column(SQLLiteral.numeric("1")).from(M.schema).where("id", .equal, SQLUUID(id)).limit(1).first() != nil
    }

    /// The user's live records of a kind, optionally narrowed by one column.
    static func all<M: RecordModel>(
        _ type: M.Type, userId: UUID, where column: String? = nil, equals value: UUID? = nil, on db: any Database
    ) async throws -> [M] {
        try await stored(type, userId: userId, where: column, equals: value, on: db).map(M.init)
    }

    /// The user's live records of a kind as records, read straight from SQL rows (no model
    /// hydration), optionally narrowed by one column.
    static func list<M: RecordModel>(
        _ type: M.Type, userId: UUID, where column: String? = nil, equals value: UUID? = nil, on db: any Database
    ) async throws -> [M.Record] {
        try await stored(type, userId: userId, where: column, equals: value, on: db).map(\.record)
    }

    private static func stored<M: RecordModel>(
        _ type: M.Type, userId: UUID, where column: String?, equals value: UUID?, on db: any Database
    ) async throws -> [StoredRecord<M.Record>] {
        var query = M.select(on: db)
            .where("user_id", .equal, SQLUUID(userId))
            .where("deleted_at", .is, SQLLiteral.null)
        if let column, let value { query = query.where(SQLIdentifier(column), .equal, SQLUUID(value)) }
        return try await db.selectRecords(M.self, query)
    }

    /// The live records of a kind (any owner's unless `userId` is given; deleted ones too when
    /// `includingDeleted`) that the query narrowed by `narrow` selects.
    static func matching<M: RecordModel>(
        _ type: M.Type, userId: UUID? = nil, includingDeleted: Bool = false, on db: any Database,
        _ narrow: (SQLSelectBuilder) -> SQLSelectBuilder
    ) async throws -> [M] {
        var query = M.select(on: db)
        if !includingDeleted { query = query.where("deleted_at", .is, SQLLiteral.null) }
        if let userId { query = query.where("user_id", .equal, SQLUUID(userId)) }
        return try await db.selectRecords(M.self, narrow(query)).map(M.init)
    }

    /// How many rows of a kind, live or deleted, have `value` in `column`.
    static func countAll<M: RecordModel>(_ type: M.Type, where column: String, equals value: FieldValue, on db: any Database) async throws -> Int {
        try await db.sql.select().column(SQLFunction("count", args: SQLLiteral.all), as: "n").from(M.schema)
            .where(SQLIdentifier(column), .equal, bind(value)).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Inserts a new record for the user at the given version.
    @discardableResult
    static func create<M: RecordModel>(_ record: M.Record, as type: M.Type, userId: UUID, version: Int64, on db: any Database) async throws -> M {
        try await db.sql.insert(into: M.schema).columns(M.columns).values(M.values(record, userId: userId, version: version)).run()
        return M(StoredRecord(record: record, userId: userId, version: version))
    }

    /// Writes a changed record over its model at the given version.
    static func update<M: RecordModel>(_ model: M, to record: M.Record, version: Int64, on db: any Database) async throws {
        var update = db.sql.update(M.schema)
        for (column, value) in zip(M.columns, M.values(record, userId: model.userId, version: version)).dropFirst(2) {
            update = update.set(SQLIdentifier(column), to: value)
        }
        try await update.where("id", .equal, SQLUUID(model.record.id)).where("user_id", .equal, SQLUUID(model.userId)).run()
        model.apply(record)
        model.version = version
    }

    /// Soft-deletes every live record of a kind whose `column` is one of `ids`.
    static func softDelete<M: RecordModel>(
        _ type: M.Type, where column: String, in ids: [UUID], userId: UUID, at now: Date, version: Int64, on db: any Database
    ) async throws {
        guard !ids.isEmpty else { return }
        try await db.sql.update(M.schema)
            .set("deleted_at", to: SQLBind(now))
            .set("updated_at", to: SQLBind(now))
            .set("version", to: SQLBind(version))
            .where("user_id", .equal, SQLUUID(userId))
            .where(SQLUUIDIn(column, ids))
            .where("deleted_at", .is, SQLLiteral.null)
            .run()
    }
}

func ts(_ date: Date) -> String { Timestamp.string(from: date) }
