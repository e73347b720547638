import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// `POST /sync`: applies a client's changes in one transaction (last-write-wins per record) and
/// answers everything past its cursor, in pages, in the order the changes committed.
enum SyncService {
    static func sync(_ request: SyncRequest, userId: UUID, app: Application, db: any Database) async throws -> SyncResponse {
        let (cursor, pageSize) = try parse(request)
        // Before anything is applied: a change from a device that missed a removed tombstone
        // could bring back what was deleted.
        try await horizon(cursor, userId: userId, app: app, db: db)

        let push = request.changes.isEmpty ? PushOutcome() : try await self.push(request.changes, userId: userId, app: app, db: db)

        var page = try await pull(userId: userId, after: cursor, limit: pageSize, skipVersion: push.version, db: db, faults: app.syncFaults)
        // Tombstones removed while the page was read (housekeeping, at that moment): read again.
        page.cursor.horizon = try await self.horizon(cursor, userId: userId, app: app, db: db)
        // The server's copy goes back for every stale change and every change the server stored
        // differently from how it was sent (trimmed text, a clamped clock).
        let corrected = Set(push.serverCopies.map(\.key))
        // What the client just pushed and the server holds exactly as sent is not echoed back.
        let pulled = page.changes.filter { !corrected.contains($0.key) && !push.echoes.contains($0.key) }
        return SyncResponse(cursor: page.cursor.encoded, hasMore: page.hasMore, changes: push.serverCopies + pulled, results: push.results)
    }

    /// Applies pushed changes in one transaction (last write wins by each change's `updatedAt`).
    static func push(_ changes: [SyncChange], userId: UUID, app: Application, db: any Database) async throws -> PushOutcome {
        let push = try await db.writeTransaction { db in
            try await apply(changes, userId: userId, app: app, db: db)
        }
        app.tableStatistics.refresh(afterWriting: push.rowsWritten, on: app.db)
        return push
    }

    /// 409 for a cursor from before the account's last removed tombstone
    /// (`Deletions.removeTombstones`): the device may have missed a delete, so it must pull
    /// everything again, and push its own changes after (StitchKit does: `SyncEngine`). The start
    /// is never refused.
    /// Answers how far the tombstones are removed, for the cursor the answer carries
    /// (`SyncCursor.horizon`): a cursor issued since the last removal is never refused.
    @discardableResult
    static func horizon(_ cursor: SyncCursor, userId: UUID, app: Application, db: any Database) async throws -> Int64 {
        let row = try await db.sql.raw("SELECT tombstones_removed_through AS v FROM users WHERE id = \(bind: userId)").first()
        let through = try row?.decode(column: "v", as: Int64.self) ?? 0
        guard through > 0, cursor != .start, cursor.horizon != through,
              cursor < SyncCursor(version: through, rank: EntityType.lastRank, id: lastId) else { return through }
        let message = "This device last synced before deletes older than \(app.config.tombstoneDays) days were cleared: sync again from the start (changes not yet sent are kept and sent after)."
        throw APIError(.conflict, message, fields: ["cursor": message])
    }

    /// The request's cursor and page size, checked.
    static func parse(_ request: SyncRequest) throws -> (cursor: SyncCursor, pageSize: Int) {
        let limit = request.limit ?? SyncRequest.defaultLimit
        guard limit >= 1 else { throw APIError.validation(["limit": "limit must be at least 1"]) }
        var cursor = SyncCursor.start
        if let raw = request.cursor {
            // Not one this server issued: the client's sync state doesn't match the server's, so
            // it must start over (409, which StitchKit answers by pulling from the start).
            guard let parsed = SyncCursor(encoded: raw) else {
                throw APIError(.conflict, "Unknown cursor; sync again from the start", fields: ["cursor": "Unknown cursor; sync again from the start"])
            }
            cursor = parsed
        }
        guard request.changes.count <= SyncRequest.maxChanges else {
            throw APIError(.payloadTooLarge, "Send at most \(SyncRequest.maxChanges) changes per request")
        }
        return (cursor, min(limit, SyncRequest.maxLimit))
    }
}

/// A test's way into the middle of a sync: make a push fail part-way through its writes (the
/// all-or-nothing promise), commit another write between two of a pull's table reads (the
/// pull's consistency), or hold or fail a page whose headers went out first. Never set in production.
struct SyncFaults: Sendable {
    var afterWriting: @Sendable (EntityType) throws -> Void = { _ in }
    var afterReading: (@Sendable (EntityType) async throws -> Void)? = nil
    /// Runs when a page bounded first has sent its headers, before its rows are read.
    var beforeBoundedRows: (@Sendable () async throws -> Void)? = nil
}

extension Application {
    private struct SyncFaultsKey: StorageKey { typealias Value = SyncFaults }

    var syncFaults: SyncFaults? {
        get { storage[SyncFaultsKey.self] }
        set { storage[SyncFaultsKey.self] = newValue }
    }
}
