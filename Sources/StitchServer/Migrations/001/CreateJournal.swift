import Fluent
import SQLKit

struct CreateJournalEntries: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("journal_entries")
            .id()
            .field("project_id", .uuid, .required)
            .field("notes", .string, .required)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "journal_entries")
        try await database.sql.create(index: "journal_entries_project").on("journal_entries").column("project_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "journal_entries_project").run()
        try await database.dropSyncIndexes(on: "journal_entries")
        try await database.schema("journal_entries").delete()
    }
}
