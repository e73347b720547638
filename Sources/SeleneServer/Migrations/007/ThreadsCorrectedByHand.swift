import Fluent
import SQLKit

/// Threads the person corrects and that stay true as they grow: a name the person set is theirs
/// (`name_by_person`: never written over); how many notes the thread had when its name and summary
/// were last written (`summary_note_count`, `summary_at`: the rule for writing them again); and
/// where the person put a note (`note_placements`: a thread, or none), which re-clustering keeps.
struct ThreadsCorrectedByHand: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("threads")
            .field("name_by_person", .bool, .required, .sql(.default(false)))
            .update()
        try await database.schema("threads")
            .field("summary_note_count", .int, .required, .sql(.default(0)))
            .update()
        try await database.schema("threads")
            .field("summary_at", .datetime)
            .update()
        // The notes each thread has now count as the ones its summary was written from.
        try await database.sql.raw("""
            UPDATE threads SET summary_note_count = (SELECT COUNT(*) FROM thread_notes tn WHERE tn.thread_id = threads.id)
            """).run()
        try await database.schema("note_placements")
            .field("note_id", .int, .identifier(auto: false), .references("notes", "id", onDelete: .cascade))
            .field("thread_id", .int, .references("threads", "id", onDelete: .setNull))
            .field("placed_at", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("note_placements").delete()
        for column in ["summary_at", "summary_note_count", "name_by_person"] {
            try await database.schema("threads").deleteField(FieldKey(stringLiteral: column)).update()
        }
    }
}
