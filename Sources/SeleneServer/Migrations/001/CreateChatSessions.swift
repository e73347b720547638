import Fluent
import SQLKit

/// Chat sessions as the client sends them: messages kept as the client's JSON array.
struct CreateChatSessions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("chat_sessions")
            .id()
            .field("title", .string, .required)
            .field("messages", .string, .required)
            .field("is_pinned", .bool, .required)
            .field("compression_state", .string, .required)
            .field("compressed_at", .datetime)
            .field("summary", .string)
            .field("thread_id", .int, .references("threads", "id", onDelete: .setNull))
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "chat_sessions_updated").on("chat_sessions").column("updated_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("chat_sessions").delete()
    }
}
