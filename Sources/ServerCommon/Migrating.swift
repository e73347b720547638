import Fluent
import SQLKit
import Vapor

extension Application {
    /// Runs the pending migrations, one instance at a time among all that share a PostgreSQL
    /// database: instances started together (a deployment of several behind a load balancer)
    /// would otherwise each try to create the same tables, and all but one would fail to start.
    /// The first takes a session-level advisory lock (`lockKey`, one per product) for as long as it
    /// migrates; the others wait for it and then find nothing left to do. SQLite is one process's.
    public func migrateOneAtATime(lockKey: Int64) async throws {
        guard let sql = db as? any SQLDatabase, sql.dialect.name == "postgresql" else {
            try await autoMigrate()
            return
        }
        try await sql.withSession { session in
            try await session.raw("SELECT pg_advisory_lock(\(literal: lockKey))").run()
            do {
                try await self.autoMigrate()
            } catch {
                try? await session.raw("SELECT pg_advisory_unlock(\(literal: lockKey))").run()
                throw error
            }
            try await session.raw("SELECT pg_advisory_unlock(\(literal: lockKey))").run()
        }
    }
}

/// A migration run in one transaction, so that one failing part-way leaves the database as it
/// was (PostgreSQL and SQLite both undo schema changes with the rest): the next start tries it
/// again from the beginning, and the previous binary still finds the database it knew. Keeps the
/// wrapped migration's name, which is what `_fluent_migrations` records.
public struct InOneTransaction: AsyncMigration {
    let migration: any Migration

    public init(_ migration: any Migration) { self.migration = migration }

    public var name: String { migration.name }

    public func prepare(on database: any Database) async throws {
        try await database.transaction { try await migration.prepare(on: $0).get() }
    }

    public func revert(on database: any Database) async throws {
        try await database.transaction { try await migration.revert(on: $0).get() }
    }
}

extension Array where Element == any Migration {
    /// Each migration in a transaction of its own (`InOneTransaction`).
    public func eachInOneTransaction() -> [any Migration] { map { InOneTransaction($0) } }
}
