import Fluent
import SQLKit

struct CreateProjectThreads: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("project_threads")
            .id()
            .field("project_id", .uuid, .required)
            .field("section_id", .uuid)
            .field("thread_id", .uuid)
            .field("brand", .string, .required)
            .field("number", .string, .required)
            .field("color_name", .string)
            .field("quantity_needed", .int, .required)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "project_threads")
        try await database.sql.create(index: "project_threads_project").on("project_threads").column("project_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "project_threads_project").run()
        try await database.dropSyncIndexes(on: "project_threads")
        try await database.schema("project_threads").delete()
    }
}
