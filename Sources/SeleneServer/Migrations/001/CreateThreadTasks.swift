import Fluent
import SQLKit

/// Tasks that actionable notes of a thread produced. A note yields a task of a given title once.
struct CreateThreadTasks: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("thread_tasks")
            .field("id", .int, .identifier(auto: true))
            .field("thread_id", .int, .required, .references("threads", "id", onDelete: .cascade))
            .field("title", .string, .required)
            .field("status", .string, .required)
            .field("source_note_id", .int, .references("notes", "id", onDelete: .setNull))
            .field("created_at", .datetime, .required)
            .field("completed_at", .datetime)
            .unique(on: "source_note_id", "title")
            .create()
        try await database.sql.create(index: "thread_tasks_thread").on("thread_tasks").column("thread_id").column("status").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("thread_tasks").delete()
    }
}
