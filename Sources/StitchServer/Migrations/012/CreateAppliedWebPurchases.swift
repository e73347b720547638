import Fluent

/// Purchases the web app made offline and sent later ("Bought" on the shopping list): each is
/// applied once, however often its answer is lost and it is sent again.
struct CreateAppliedWebPurchases: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("applied_web_purchases")
            .field("id", .uuid, .required)
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "user_id", "id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("applied_web_purchases").delete()
    }
}
