import Fluent
import SQLKit

struct CreateJournalImages: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("journal_images")
            .id()
            .field("entry_id", .uuid, .required)
            .field("image_key", .string, .required)
            .field("sort_order", .int, .required)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "journal_images")
        try await database.sql.create(index: "journal_images_entry").on("journal_images").column("entry_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "journal_images_entry").run()
        try await database.dropSyncIndexes(on: "journal_images")
        try await database.schema("journal_images").delete()
    }
}
