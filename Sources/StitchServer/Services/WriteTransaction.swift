import Fluent
import SQLKit

extension Database {
    /// A transaction that writes: `transaction`, but on SQLite it holds the write lock from its
    /// first statement. Fluent begins SQLite transactions deferred, so one that reads before it
    /// writes (nearly every one: look the user or the record up, then change it) takes its
    /// snapshot first and asks for the write lock later; when another connection has written in
    /// between, SQLite can't let it write (its snapshot is out of date, or, without WAL, the two
    /// would wait for each other) and fails it at once with "database is locked", whatever the
    /// busy handler. Writing first — a statement that changes nothing — takes the lock at the
    /// start, where SQLite's busy handler waits for it like any other write. PostgreSQL's
    /// transactions are unchanged.
    func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await transaction { db in
            if db.sql.dialect.name == "sqlite" { try await db.sql.raw("DELETE FROM users WHERE 0").run() }
            return try await body(db)
        }
    }
}
