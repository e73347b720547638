import Fluent
import SQLKit

/// Raw notes, with their place in the processing queue.
struct CreateNotes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("notes")
            .field("id", .int, .identifier(auto: true))
            .field("title", .string)
            .field("content", .string, .required)
            .field("created_at", .datetime, .required)
            // When the server received it; a Drafts note may say it was written earlier.
            .field("captured_at", .datetime, .required)
            .field("source", .string, .required)
            .field("source_uuid", .string)
            .field("content_hash", .string, .required)
            // What makes a resent webhook capture the same note: "uuid:…" or "sha256:…" (NULL for
            // notes that may repeat, such as two identical notes typed on purpose).
            .field("dedupe_key", .string)
            .field("tags", .string, .required)
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime)
            .field("last_error", .string)
            .field("lease_owner", .string)
            .field("lease_until", .datetime)
            .unique(on: "dedupe_key")
            .create()
        try await database.sql.create(index: "notes_created").on("notes").column("created_at").run()
        try await database.sql.create(index: "notes_captured").on("notes").column("captured_at").run()
        try await database.sql.create(index: "notes_queue").on("notes").column("status").column("next_attempt_at").run()
        try await database.sql.create(index: "notes_hash").on("notes").column("content_hash").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("notes").delete()
    }
}
