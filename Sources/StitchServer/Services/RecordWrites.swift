import Fluent
import Foundation
import StitchCore
import Vapor

/// The create / partial-update / soft-delete steps every resource shares. Each runs in one
/// transaction that first takes the user's next sync version, so REST writes are seen by `/sync`
/// pulls exactly like pushed changes.
enum RecordWrites<M: RecordModel> {
    typealias Record = M.Record

    /// Fields the server owns: a body can never set them.
    static var serverOwned: Set<String> { ["id", "createdAt", "updatedAt", "deletedAt"] }

    static func create(
        _ writer: Writer, _ body: RecordPatch, defaults: RecordPatch = [:], overrides: RecordPatch = [:],
        clientMayDate: Bool = false,
        transform: (Record, Date) throws -> Record = { record, _ in record },
        check: @escaping @Sendable (Record, any Database) async throws -> Void = { _, _ in }
    ) async throws -> Record {
        let (userId, now) = (writer.userId, writer.now)
        let id = try body.clientId() ?? UUID()
        var protected = overrides
        protected["id"] = .id(id)
        protected["updatedAt"] = .time(now)
        var base = defaults
        base["createdAt"] = .time(now)
        if !clientMayDate { protected["createdAt"] = .time(now) }
        var record: Record = try body.removing("deletedAt").created(defaults: base, protected: protected)
        record.deletedAt = nil
        record = try transform(record, now).normalized.validated()
        let final = record
        return try await writer.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            if try await Records.idExists(M.self, id, on: db) {
                throw APIError(.conflict, "A record with this id already exists", fields: ["id": "Already in use"])
            }
            try await check(final, db)
            try await Records.create(final, as: M.self, userId: userId, version: version, on: db)
            return final
        }
    }

    static func update(
        _ writer: Writer, id: UUID, _ body: RecordPatch, immutable: Set<String> = [], clientMayDate: Bool = false,
        transform: @escaping @Sendable (_ old: Record, _ new: Record, _ now: Date) throws -> Record = { _, new, _ in new },
        check: @escaping @Sendable (Record, any Database) async throws -> Void = { _, _ in }
    ) async throws -> Record {
        let (userId, now) = (writer.userId, writer.now)
        return try await writer.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let model = try await Records.require(M.self, id, userId: userId, on: db)
            let old = model.record
            // Ownership fields (the project of a section, the canvas of a project) stay as they are.
            // A journal entry's date is the stitcher's to set (an entry written up days later).
            let protected = serverOwned.union(immutable).subtracting(clientMayDate ? ["createdAt"] : [])
            var record = try body.applied(to: old, protected: protected)
            record = try transform(old, record, now)
            record.updatedAt = writeTimestamp(now: now, after: old.updatedAt)
            record = try record.normalized.validated()
            try await check(record, db)
            try await Records.update(model, to: record, version: version, on: db)
            return record
        }
    }

    static func delete(
        _ writer: Writer, id: UUID,
        guardDelete: @escaping @Sendable (Record, any Database) async throws -> Void = { _, _ in },
        cascade: @escaping @Sendable (Record, _ userId: UUID, _ version: Int64, _ now: Date, any Database) async throws -> Void = { _, _, _, _, _ in }
    ) async throws {
        let (userId, now) = (writer.userId, writer.now)
        try await writer.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let model = try await Records.require(M.self, id, userId: userId, on: db)
            var record = model.record
            try await guardDelete(record, db)
            let stamp = writeTimestamp(now: now, after: record.updatedAt)
            record.deletedAt = stamp
            record.updatedAt = stamp
            try await Records.update(model, to: record, version: version, on: db)
            try await cascade(record, userId, version, stamp, db)
        }
    }
}
