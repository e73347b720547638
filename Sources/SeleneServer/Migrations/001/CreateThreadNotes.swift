import Fluent
import SQLKit

/// Which thread a note belongs to (at most one).
struct CreateThreadNotes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("thread_notes")
            .field("id", .int, .identifier(auto: true))
            .field("thread_id", .int, .required, .references("threads", "id", onDelete: .cascade))
            .field("note_id", .int, .required, .references("notes", "id", onDelete: .cascade))
            .field("added_at", .datetime, .required)
            .unique(on: "note_id")
            .create()
        try await database.sql.create(index: "thread_notes_thread").on("thread_notes").column("thread_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("thread_notes").delete()
    }
}
