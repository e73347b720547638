import Fluent
import Foundation
import SQLKit
import StitchCore

/// The database's own speed, for `stitch-bench` to compare the API against: the same rows written
/// with batched raw SQL (one multi-row upsert per chunk in one transaction) and read with a bare SELECT.
public enum BenchBaseline {
    public static func createUser(_ id: UUID, email: String, on db: any Database) async throws {
        try await UserModel(id: id, email: email, displayName: "Baseline", passwordHash: nil, now: Date()).create(on: db)
    }

    public static func upsertThreads(_ records: [InventoryThread], userId: UUID, version: Int64, on db: any Database) async throws {
        try await db.transaction { db in
            try await BatchWriter.upsert(records, as: ThreadModel.self, userId: userId, version: version, on: db)
        }
    }

    /// Reads every column of the user's threads; answers how many rows came back.
    public static func selectThreads(userId: UUID, on db: any Database) async throws -> Int {
        try await db.sql.select().column("*").from(ThreadModel.schema).where("user_id", .equal, SQLBind(userId)).all().count
    }
}

extension BenchBaseline {
    /// Times each part of a pull of the user's threads in-process and prints it: where a pull's
    /// time goes, next to the bare SELECT.
    public static func stages(userId: UUID, on db: any Database) async throws {
        func t(_ label: String, _ body: () async throws -> Void) async rethrows {
            let s = ContinuousClock.now
            try await body()
            let elapsed = ContinuousClock.now - s
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            print("  stage " + label.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%8.1f ms", ms))
        }
        var page: SyncService.Page!
        try await t("pull query + rows → changes") { page = try await SyncService.pull(userId: userId, after: .start, limit: SyncRequest.maxChanges, skipVersion: nil, db: db) }
        var rows: [any SQLRow] = []
        try await t("bare select") { rows = try await db.sql.select().columns(ThreadModel.columns.map { SQLColumn($0) }).from(ThreadModel.schema).where("user_id", .equal, SQLBind(userId)).all() }
        try await t("rows → records") { for r in rows { _ = try ThreadModel.stored(r, idsAsText: db.idsAsText) } }
        let response = SyncResponse(cursor: page.cursor.encoded, hasMore: false, changes: page.changes, results: [])
        var bytes: [UInt8] = []
        try await t("encode") { bytes = try StitchJSON.encodeBytes(response) }
        var value: JSONValue!
        try await t("parse") { value = try bytes.withUnsafeBytes { try JSONValue.parse($0) } }
        var decoded: SyncResponse!
        try await t("unbox") { decoded = try JSONValueDecoder.decode(SyncResponse.self, from: value) }
        try await t("record(as:)") { for c in decoded.changes { _ = try c.record(as: InventoryThread.self) } }
    }
}
