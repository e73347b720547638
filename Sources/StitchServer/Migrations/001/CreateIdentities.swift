import Fluent
import SQLKit

struct CreateIdentities: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("identities")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("provider", .string, .required)
            .field("provider_user_id", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "provider", "provider_user_id")
            .create()
        try await database.sql.create(index: "identities_user").on("identities").column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "identities_user").run()
        try await database.schema("identities").delete()
    }
}
