import Fluent
import SQLKit

extension Database {
    /// A transaction that writes: `transaction`, but on SQLite it holds the write lock from its
    /// first statement. Both products use it for every transaction they run (none is read-only).
    ///
    /// Fluent begins SQLite transactions deferred, so one that reads before it writes (nearly
    /// every one: look the user, the note or the thread up, then change it) takes its snapshot
    /// first and asks for the write lock later; when another connection — another event loop's,
    /// or another process's, like `selene reindex` beside a running server — has written in
    /// between, SQLite can't let it write (its snapshot is out of date: SQLITE_BUSY_SNAPSHOT, or,
    /// without WAL, the two would wait for each other) and fails it at once with "database is
    /// locked", whatever the busy handler. Writing first — a statement that changes nothing, on
    /// the migrations table every Fluent database has — takes the lock at the start, where
    /// SQLite's busy handler waits for it like any other write. PostgreSQL's transactions are
    /// unchanged.
    public func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await transaction { db in
            if let sql = db as? any SQLDatabase, sql.dialect.name == "sqlite" {
                try await sql.raw("DELETE FROM _fluent_migrations WHERE 0").run()
            }
            return try await body(db)
        }
    }
}
