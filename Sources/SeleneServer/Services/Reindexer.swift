import Fluent
import Foundation
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// `selene reindex`: after the embedding model changes, every processed note is embedded again
/// with the current model (the stored model name says which are stale), then associations and
/// thread centroids are rebuilt from the new vectors. Long notes embedded before chunks existed
/// (over 180 words, no chunk stored) are embedded again too; `--all` also writes every note's
/// facts (`NoteFacts`) again.
public struct Reindexer {
    let db: any Database
    let services: SeleneServices
    let logger: Logger

    public init(db: any Database, services: SeleneServices, logger: Logger) {
        self.db = db
        self.services = services
        self.logger = logger
    }

    public struct Report: Sendable {
        public var embedded = 0
        public var threads = 0
    }

    /// `all` re-embeds every note, not only those of another model.
    public func run(all: Bool, batchSize: Int = 32, progress: (Int, Int) -> Void) async throws -> Report {
        let llm = try services.requireLLM()
        let model = llm.settings.embeddingModel
        let staleQuery: SQLQueryString = all
            ? "SELECT n.id FROM notes n WHERE n.status = 'done' ORDER BY n.id"
            : "SELECT n.id FROM notes n LEFT JOIN note_embeddings e ON e.note_id = n.id WHERE n.status = 'done' AND (e.model IS NULL OR e.model <> \(bind: model)) ORDER BY n.id"
        var ids = try await db.sql.raw(staleQuery).all().map { try $0.decode(column: "id", as: Int.self) }
        if !all {
            // Long enough to have chunks (180 words is over 900 characters), and none stored.
            let unchunked = try await db.sql.raw("""
                SELECT n.id, n.content FROM notes n JOIN note_embeddings e ON e.note_id = n.id
                WHERE n.status = 'done' AND e.model = \(bind: model) AND length(n.content) > 900
                  AND NOT EXISTS (SELECT 1 FROM note_chunk_embeddings c WHERE c.note_id = n.id)
                """).all()
            for row in unchunked where !ProcessingPrompts.embeddingChunks(title: nil, content: try row.decode(column: "content", as: String.self)).isEmpty {
                ids.append(try row.decode(column: "id", as: Int.self))
            }
            ids.sort()
        }
        var report = Report()
        progress(0, ids.count)
        for start in stride(from: 0, to: ids.count, by: batchSize) {
            let chunk = Array(ids[start..<min(start + batchSize, ids.count)])
            let notes = try await NoteModel.query(on: db).filter(\.$id ~~ chunk).sort(\.$id).all()
            // Each note's text, then its later parts: one request for the batch.
            let texts = notes.map { [ProcessingPrompts.embeddingText(title: $0.title, content: $0.content)]
                + ProcessingPrompts.embeddingChunks(title: $0.title, content: $0.content) }
            let vectors = try await llm.embed(texts.flatMap { $0 })
            let now = services.clock.now()
            try await db.writeTransaction { db in
                var offset = 0
                for (note, parts) in zip(notes, texts) {
                    try await EmbeddingStore(db: db).save(noteId: note.id!, vector: vectors[offset], chunks: Array(vectors[offset + 1..<offset + parts.count]),
                                                          model: model, now: now)
                    offset += parts.count
                }
            }
            report.embedded += notes.count
            progress(report.embedded, ids.count)
        }
        // What processing understood, written again from what is stored (`NoteFacts`).
        if all { try await NoteFactsStore(db: db).refreshAll() }
        guard report.embedded > 0 else { return report }
        // Everything of the new model in memory, then associations and centroids from it.
        services.vectors.removeAll()
        services.chunkVectors.removeAll()
        try await services.vectors.refresh(on: db, now: services.clock.now(), force: true)
        try await services.chunkVectors.refresh(on: db, now: services.clock.now(), force: true)
        let settings = services.config.processing
        let now = services.clock.now()
        for id in try await db.sql.raw("SELECT note_id FROM note_embeddings WHERE model = \(bind: model)").all().map({ try $0.decode(column: "note_id", as: Int.self) }) {
            guard let vector = services.vectors.vector(for: id) else { continue }
            let neighbours = services.vectors.search(vector, k: settings.associationLimit, excluding: [id], minimumSimilarity: settings.associationThreshold)
            try await EmbeddingStore(db: db).replaceAssociations(of: id, with: neighbours, now: now)
        }
        for thread in try await ThreadModel.query(on: db).all() {
            let members = try await ThreadNoteModel.query(on: db).filter(\.$threadId == thread.id!).all().map(\.noteId)
            if let centroid = VectorUtility.centroid(members.compactMap { services.vectors.vector(for: $0) }) {
                thread.centroid = VectorCoding.encode(centroid)
                thread.centroidModel = model
                try await thread.save(on: db)
                report.threads += 1
            }
        }
        logger.info("Reindexed \(report.embedded) notes with \(model); \(report.threads) thread centroids rebuilt")
        return report
    }
}

extension APITokens {
    /// `selene token new`.
    public static func newToken() -> String { generate() }
}
