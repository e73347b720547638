import Fluent
import SQLKit

/// A task may belong to no thread: an actionable note that joins none ("call the plumber about
/// the sink") still yields its tasks, attached to a thread if the note joins one later.
/// PostgreSQL drops the NOT NULL; SQLite can't, so its table is rebuilt with the same columns,
/// constraints and rows (its own CREATE statement, minus that NOT NULL).
struct TasksFromAnyNote: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        if database.isPostgres {
            try await sql.raw("ALTER TABLE thread_tasks ALTER COLUMN thread_id DROP NOT NULL").run()
        } else {
            try await rebuildSQLite(sql, from: #""thread_id" INTEGER NOT NULL"#, to: #""thread_id" INTEGER"#)
        }
        try await sql.create(index: "thread_tasks_status").on("thread_tasks").column("status").column("created_at").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("DROP INDEX thread_tasks_status").run()
        // Tasks without a thread can't stay in a table that requires one.
        try await sql.raw("DELETE FROM thread_tasks WHERE thread_id IS NULL").run()
        if database.isPostgres {
            try await sql.raw("ALTER TABLE thread_tasks ALTER COLUMN thread_id SET NOT NULL").run()
        } else {
            try await rebuildSQLite(sql, from: #""thread_id" INTEGER"#, to: #""thread_id" INTEGER NOT NULL"#)
        }
    }

    private func rebuildSQLite(_ sql: any SQLDatabase, from: String, to: String) async throws {
        guard let create = try await sql.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'thread_tasks'").first()?
            .decode(column: "sql", as: String.self), create.contains(from) else {
            throw MigrationFailure("thread_tasks is not as migration 001 made it; expected \(from) in its CREATE statement")
        }
        let rebuilt = create.replacingOccurrences(of: from, with: to)
            .replacingOccurrences(of: #"CREATE TABLE "thread_tasks""#, with: #"CREATE TABLE "thread_tasks_new""#)
        guard rebuilt.contains("thread_tasks_new") else { throw MigrationFailure("could not name the rebuilt thread_tasks table") }
        try await sql.raw(SQLQueryString(rebuilt)).run()
        try await sql.raw("""
            INSERT INTO thread_tasks_new (id, thread_id, title, status, source_note_id, created_at, completed_at)
            SELECT id, thread_id, title, status, source_note_id, created_at, completed_at FROM thread_tasks
            """).run()
        try await sql.raw("DROP TABLE thread_tasks").run()
        try await sql.raw("ALTER TABLE thread_tasks_new RENAME TO thread_tasks").run()
        try await sql.create(index: "thread_tasks_thread").on("thread_tasks").column("thread_id").column("status").run()
    }

    struct MigrationFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
