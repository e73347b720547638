import Fluent
import SQLKit

struct CreateImages: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("images")
            .field("key", .string, .identifier(auto: false))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("content_type", .string, .required)
            .field("byte_size", .int, .required)
            .field("sha256", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "images_user").on("images").column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "images_user").run()
        try await database.schema("images").delete()
    }
}
