import Fluent
import SQLKit

/// A note's embedding: float32 little-endian, with the model that made it and its dimension.
struct CreateNoteEmbeddings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("note_embeddings")
            .field("note_id", .int, .identifier(auto: false), .references("notes", "id", onDelete: .cascade))
            .field("vector", .data, .required)
            .field("model", .string, .required)
            .field("dimension", .int, .required)
            .field("embedded_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "note_embeddings_time").on("note_embeddings").column("embedded_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("note_embeddings").delete()
    }
}
