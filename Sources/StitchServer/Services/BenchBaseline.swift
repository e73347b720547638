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
