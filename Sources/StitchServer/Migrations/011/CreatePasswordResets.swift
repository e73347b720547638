import Fluent

/// "Forgot password": the links mailed (their tokens' hashes) and the requests counted per address.
struct CreatePasswordResets: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("password_resets")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .unique(on: "token_hash")
            .create()
        try await database.schema("reset_throttles")
            .id()
            .field("email", .string, .required)
            .field("requests", .int, .required)
            .field("window_start", .datetime, .required)
            .unique(on: "email")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("reset_throttles").delete()
        try await database.schema("password_resets").delete()
    }
}
