import Fluent
import SQLKit

/// What Selene remembers from conversations. The session it came from may be deleted later;
/// the memory stays.
struct CreateMemories: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("memories")
            .field("id", .int, .identifier(auto: true))
            .field("content", .string, .required)
            .field("type", .string, .required)
            .field("confidence", .double, .required)
            .field("source_session_id", .uuid, .references("chat_sessions", "id", onDelete: .setNull))
            .field("embedding", .data)
            .field("created_at", .datetime, .required)
            .field("last_accessed_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "memories_rank").on("memories").column("confidence").column("last_accessed_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("memories").delete()
    }
}
