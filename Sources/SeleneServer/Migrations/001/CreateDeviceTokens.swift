import Fluent

/// Phones that asked for pushes.
struct CreateDeviceTokens: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("device_tokens")
            .field("id", .int, .identifier(auto: true))
            .field("token", .string, .required)
            .field("platform", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_seen_at", .datetime, .required)
            .unique(on: "token")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("device_tokens").delete()
    }
}
