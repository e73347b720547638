import Fluent
import SQLKit

struct CreateRefreshTokens: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("refresh_tokens")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("family_id", .uuid, .required)
            .field("token_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("replaced_by", .uuid)
            .field("revoked_at", .datetime)
            .field("created_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        try await database.sql.create(index: "refresh_tokens_family").on("refresh_tokens").column("family_id").run()
        try await database.sql.create(index: "refresh_tokens_user").on("refresh_tokens").column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "refresh_tokens_family").run()
        try await database.sql.drop(index: "refresh_tokens_user").run()
        try await database.schema("refresh_tokens").delete()
    }
}
