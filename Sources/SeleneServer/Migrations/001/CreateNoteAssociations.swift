import Fluent
import SQLKit

/// Similar notes, stored once per pair (`note_a_id < note_b_id`) and read both ways.
struct CreateNoteAssociations: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("note_associations")
            .field("id", .int, .identifier(auto: true))
            .field("note_a_id", .int, .required, .references("notes", "id", onDelete: .cascade))
            .field("note_b_id", .int, .required, .references("notes", "id", onDelete: .cascade))
            .field("similarity", .double, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "note_a_id", "note_b_id")
            .create()
        try await database.sql.create(index: "note_associations_b").on("note_associations").column("note_b_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("note_associations").delete()
    }
}
