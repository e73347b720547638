import Fluent
import SQLKit

/// The later parts of a long note, embedded on their own: the embedding model reads 256 tokens,
/// so a note's one vector (`note_embeddings`) sees only its beginning. Chunk 1 onwards; the note
/// is found by whichever of its vectors is nearest.
struct NoteChunkEmbeddings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("note_chunk_embeddings")
            .field("note_id", .int, .required, .references("notes", "id", onDelete: .cascade))
            .field("chunk", .int, .required)
            .field("vector", .data, .required)
            .field("model", .string, .required)
            .field("dimension", .int, .required)
            .field("embedded_at", .datetime, .required)
            .unique(on: "note_id", "chunk")
            .create()
        try await database.sql.create(index: "note_chunk_embeddings_time").on("note_chunk_embeddings").column("embedded_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("note_chunk_embeddings").delete()
    }
}
