import Fluent
import SQLKit

/// Projects' patterns (a synced record; the file itself is kept in `images` like a picture) and
/// the state of rendering a PDF's pages, one row per file: what a viewer's progress shows and what
/// a restarted server resumes.
struct CreatePatterns: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("patterns")
            .id()
            .field("project_id", .uuid, .required)
            .field("title", .string, .required)
            .field("file_key", .string, .required)
            .field("last_page", .int, .required)
            .syncedRecordColumns()
            .create()
        try await database.sql.create(index: "patterns_user_version_id").on("patterns").column("user_id").column("version").column("id").run()
        try await database.sql.create(index: "patterns_user_updated").on("patterns").column("user_id").column("updated_at").run()
        try await database.sql.create(index: "patterns_project").on("patterns").column("project_id").run()
        try await database.sql.create(index: "patterns_file").on("patterns").column("file_key").run()

        try await database.schema("pattern_renders")
            .field("key", .string, .identifier(auto: false), .references("images", "key", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("page_count", .int, .required)
            .field("rendered", .int, .required)
            .field("message", .string)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "pattern_renders_status").on("pattern_renders").column("status").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "pattern_renders_status").run()
        try await database.schema("pattern_renders").delete()
        for index in ["patterns_file", "patterns_project", "patterns_user_updated", "patterns_user_version_id"] {
            try await database.sql.drop(index: index).run()
        }
        try await database.schema("patterns").delete()
    }
}
