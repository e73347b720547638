import Fluent
import SQLKit

struct CreateProjectSections: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("project_sections")
            .id()
            .field("project_id", .uuid, .required)
            .field("name", .string, .required)
            .field("sort_order", .int, .required)
            .field("status", .string, .required)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "project_sections")
        try await database.sql.create(index: "project_sections_project").on("project_sections").column("project_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "project_sections_project").run()
        try await database.dropSyncIndexes(on: "project_sections")
        try await database.schema("project_sections").delete()
    }
}
