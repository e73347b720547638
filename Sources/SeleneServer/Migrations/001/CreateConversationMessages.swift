import Fluent
import SQLKit

/// The conversation log: one row per message, deleted with its session.
struct CreateConversationMessages: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("conversation_messages")
            .field("id", .int, .identifier(auto: true))
            .field("session_id", .uuid, .required, .references("chat_sessions", "id", onDelete: .cascade))
            .field("role", .string, .required)
            .field("content", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "conversation_messages_session").on("conversation_messages").column("session_id").column("id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("conversation_messages").delete()
    }
}
