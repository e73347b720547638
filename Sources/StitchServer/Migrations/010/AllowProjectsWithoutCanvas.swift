import Fluent
import SQLKit

/// A project needs no canvas (one stitched from a chart, or not chosen yet): `canvas_id` may be
/// null, and such a project has a `name` of its own. PostgreSQL drops the constraint in place;
/// SQLite cannot, so the table is rebuilt with the same columns, key, owner reference and indexes
/// (no other table refers to `projects`, so nothing follows it). Rows keep every value.
struct AllowProjectsWithoutCanvas: AsyncMigration {
    static let columns = ["id", "canvas_id", "status", "started_at", "finishing_at", "completed_at", "notes",
                          "user_id", "version", "created_at", "updated_at", "deleted_at"]

    func prepare(on database: any Database) async throws {
        let sql = database.sql
        if sql.dialect.name == "sqlite" {
            try await Self.rebuild(on: sql, canvas: #""canvas_id" UUID, "name" TEXT"#)
        } else {
            try await sql.raw("ALTER TABLE projects ALTER COLUMN canvas_id DROP NOT NULL").run()
            try await sql.raw("ALTER TABLE projects ADD COLUMN name TEXT").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        // Only a database whose projects all have a canvas can go back.
        try await sql.raw("DELETE FROM projects WHERE canvas_id IS NULL").run()
        if sql.dialect.name == "sqlite" {
            try await Self.rebuild(on: sql, canvas: #""canvas_id" UUID NOT NULL"#)
        } else {
            try await sql.raw("ALTER TABLE projects DROP COLUMN name").run()
            try await sql.raw("ALTER TABLE projects ALTER COLUMN canvas_id SET NOT NULL").run()
        }
    }

    /// SQLite's way to change a column's constraint: a new table with the columns `canvas`
    /// describes in place of the canvas's, every row copied, the old one dropped, the new one
    /// renamed, and the indexes `projects` has had since migrations 001 and 003 made again.
    static func rebuild(on sql: any SQLDatabase, canvas: String) async throws {
        try await sql.raw(SQLQueryString("""
            CREATE TABLE "projects_rebuilt" ("id" UUID PRIMARY KEY, \(unsafeRaw: canvas), "status" TEXT NOT NULL,
            "started_at" REAL NOT NULL, "finishing_at" REAL, "completed_at" REAL, "notes" TEXT,
            "user_id" UUID NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
            "version" INTEGER NOT NULL, "created_at" REAL NOT NULL, "updated_at" REAL NOT NULL, "deleted_at" REAL)
            """)).run()
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        try await sql.raw(SQLQueryString("INSERT INTO \"projects_rebuilt\" (\(unsafeRaw: list)) SELECT \(unsafeRaw: list) FROM \"projects\"")).run()
        try await sql.raw("DROP TABLE \"projects\"").run()
        try await sql.raw("ALTER TABLE \"projects_rebuilt\" RENAME TO \"projects\"").run()
        try await sql.create(index: "projects_user_updated").on("projects").column("user_id").column("updated_at").run()
        try await sql.create(index: "projects_user_version_id").on("projects").column("user_id").column("version").column("id").run()
        try await sql.raw("CREATE UNIQUE INDEX projects_live_canvas ON projects (canvas_id) WHERE deleted_at IS NULL").run()
    }
}
