import Fluent
import SQLKit

struct CreateProjects: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("projects")
            .id()
            .field("canvas_id", .uuid, .required)
            .field("status", .string, .required)
            .field("started_at", .datetime, .required)
            .field("finishing_at", .datetime)
            .field("completed_at", .datetime)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "projects")
        // A canvas has at most one live project, whichever path (REST or sync) the write takes.
        try await database.sql.raw(
            "CREATE UNIQUE INDEX projects_live_canvas ON projects (canvas_id) WHERE deleted_at IS NULL"
        ).run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "projects_live_canvas").run()
        try await database.dropSyncIndexes(on: "projects")
        try await database.schema("projects").delete()
    }
}
