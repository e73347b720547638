import Fluent
import SQLKit

/// Lines of the shopping list the stitcher wrote: threads added by hand, computed lines set aside
/// (a synced record, `ShoppingLine`).
struct CreateShoppingLines: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("shopping_lines")
            .id()
            .field("kind", .string, .required)
            .field("brand", .string, .required)
            .field("number", .string, .required)
            .field("color_name", .string)
            .field("quantity", .int, .required)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.sql.create(index: "shopping_lines_user_version_id").on("shopping_lines").column("user_id").column("version").column("id").run()
        try await database.sql.create(index: "shopping_lines_user_updated").on("shopping_lines").column("user_id").column("updated_at").run()
    }

    func revert(on database: any Database) async throws {
        for index in ["shopping_lines_user_updated", "shopping_lines_user_version_id"] {
            try await database.sql.drop(index: index).run()
        }
        try await database.schema("shopping_lines").delete()
    }
}
