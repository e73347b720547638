import Fluent
import Foundation
import Logging
import SeleneShared
import SQLKit

/// `selene reindex`: after the embedding model changes, every processed note is embedded again
/// with the current model (the stored model name says which are stale), then associations and
/// thread centroids are rebuilt from the new vectors.
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
        let ids = try await db.sql.raw(staleQuery).all().map { try $0.decode(column: "id", as: Int.self) }
        var report = Report()
        progress(0, ids.count)
        for start in stride(from: 0, to: ids.count, by: batchSize) {
            let chunk = Array(ids[start..<min(start + batchSize, ids.count)])
            let notes = try await NoteModel.query(on: db).filter(\.$id ~~ chunk).sort(\.$id).all()
            let vectors = try await llm.embed(notes.map { ProcessingPrompts.embeddingText(title: $0.title, content: $0.content) })
            let now = services.clock.now()
            try await db.transaction { db in
                for (note, vector) in zip(notes, vectors) {
                    try await EmbeddingStore(db: db).save(noteId: note.id!, vector: vector, model: model, now: now)
                }
            }
            report.embedded += notes.count
            progress(report.embedded, ids.count)
        }
        guard report.embedded > 0 else { return report }
        // Everything of the new model in memory, then associations and centroids from it.
        services.vectors.removeAll()
        try await services.vectors.refresh(on: db, now: services.clock.now(), force: true)
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
