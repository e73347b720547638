import Fluent

/// A thread's colour name as its brand's catalog gives it (filled in from the catalog), beside
/// the stitcher's own `color_name`.
struct AddThreadCatalogColorName: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("threads").field("catalog_color_name", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("threads").deleteField("catalog_color_name").update()
    }
}
