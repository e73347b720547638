import Fluent
import SQLKit

/// What processing learned about a note (one row per processed note).
struct CreateProcessedNotes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("processed_notes")
            .field("note_id", .int, .identifier(auto: false), .references("notes", "id", onDelete: .cascade))
            // JSON: [{"name": …, "confidence": …}]
            .field("concepts", .string, .required)
            .field("primary_theme", .string, .required)
            // JSON: ["…"]
            .field("secondary_themes", .string, .required)
            .field("sentiment", .string, .required)
            .field("sentiment_score", .double, .required)
            .field("emotional_tone", .string, .required)
            .field("energy_level", .string, .required)
            .field("note_type", .string, .required)
            .field("actionability", .string, .required)
            .field("processed_at", .datetime, .required)
            .field("model", .string, .required)
            .create()
        try await database.sql.create(index: "processed_notes_type").on("processed_notes").column("note_type").column("actionability").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("processed_notes").delete()
    }
}
