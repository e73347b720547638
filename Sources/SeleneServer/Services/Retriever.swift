import Fluent
import Foundation
import SeleneShared

/// Hybrid retrieval: full-text ranking and vector similarity fused by reciprocal rank (RRF).
/// Without a query embedding (no LLM, Ollama down, nothing embedded yet) it is full text alone,
/// and says so (`source: keyword`).
public struct Retriever: Sendable {
    let db: any Database
    let services: SeleneServices

    public init(db: any Database, services: SeleneServices) {
        self.db = db
        self.services = services
    }

    /// How deep each list is read before fusing.
    static func depth(for limit: Int) -> Int { max(50, limit) }

    public func retrieve(_ query: String, limit: Int, filter: KeywordSearch.Filter = .init(),
                         queryVector: [Float]? = nil) async throws -> (results: [ScoredNote], source: RetrievalSource) {
        let depth = Self.depth(for: limit)
        let keywordIds = try await KeywordSearch(db: db).rank(query, limit: depth, filter: filter)
        var vector = queryVector
        if vector == nil { vector = await embed(query) }
        var vectorIds: [Int] = []
        if let vector {
            try await services.vectors.refresh(on: db, now: services.clock.now())
            vectorIds = services.vectors.search(vector, k: depth, filter: VectorIndex.Filter(noteType: filter.noteType, actionability: filter.actionability)).map(\.id)
        }
        guard !vectorIds.isEmpty else {
            let notes = try await NoteStore(db: db).notes(ids: Array(keywordIds.prefix(limit)))
            return (notes.enumerated().map { ScoredNote(note: $0.element, score: 1 / (RankFusion.defaultK + Double($0.offset + 1)), keywordRank: $0.offset + 1) }, .keyword)
        }
        let fused = Array(RankFusion.reciprocal([keywordIds, vectorIds]).prefix(limit))
        let notes = try await NoteStore(db: db).notes(ids: fused.map(\.id))
        let byId = Dictionary(uniqueKeysWithValues: notes.map { (Int($0.id), $0) })
        let results = fused.compactMap { f in
            byId[f.id].map { ScoredNote(note: $0, score: f.score, keywordRank: f.ranks[0], vectorRank: f.ranks[1]) }
        }
        return (results, .hybrid)
    }

    /// Notes related to one note: its nearest neighbours by embedding fused with full-text
    /// matches of its own words; keyword matches alone when it has no embedding.
    func related(to noteId: Int, limit: Int) async throws -> RelatedNotes? {
        let store = NoteStore(db: db)
        guard let note = try await store.note(id: noteId) else { return nil }
        try await services.vectors.refresh(on: db, now: services.clock.now())
        let depth = Self.depth(for: limit)
        let text = [note.title ?? "", note.content].joined(separator: " ")
        let terms = Self.distinctiveTerms(text)
        let keywordIds = try await KeywordSearch(db: db).rank(terms.joined(separator: " "), limit: depth + 1).filter { $0 != noteId }
        let associations = try await storedAssociations(of: noteId)
        var similarities: [Int: Double] = [:]
        var vectorIds: [Int] = []
        if let vector = services.vectors.vector(for: noteId) {
            for hit in services.vectors.search(vector, k: depth, excluding: [noteId]) {
                vectorIds.append(hit.id)
                similarities[hit.id] = hit.similarity
            }
        }
        let source: RetrievalSource = vectorIds.isEmpty ? .keyword : .hybrid
        let fused = Array(RankFusion.reciprocal(vectorIds.isEmpty ? [keywordIds] : [vectorIds, keywordIds]).prefix(limit))
        let notes = try await store.notes(ids: fused.map(\.id))
        let byId = Dictionary(uniqueKeysWithValues: notes.map { (Int($0.id), $0) })
        let results = fused.enumerated().compactMap { index, f -> RelatedNote? in
            guard let other = byId[f.id] else { return nil }
            if let similarity = associations[f.id] {
                return RelatedNote(note: other, relationshipType: .association, strength: Self.clamp(similarity))
            }
            if let thread = note.threadId, other.threadId == thread {
                return RelatedNote(note: other, relationshipType: .thread, strength: Self.clamp(similarities[f.id] ?? 1 / Double(index + 2)))
            }
            if let similarity = similarities[f.id] {
                return RelatedNote(note: other, relationshipType: .association, strength: Self.clamp(similarity))
            }
            return RelatedNote(note: other, relationshipType: .keyword, strength: Self.clamp(1 / Double(index + 2)))
        }
        return RelatedNotes(noteId: Int64(noteId), results: results, source: source)
    }

    private func storedAssociations(of noteId: Int) async throws -> [Int: Double] {
        let rows = try await db.sql.raw("""
            SELECT note_a_id, note_b_id, similarity FROM note_associations WHERE note_a_id = \(bind: noteId) OR note_b_id = \(bind: noteId)
            """).all()
        var out: [Int: Double] = [:]
        for row in rows {
            let a = try row.decode(column: "note_a_id", as: Int.self), b = try row.decode(column: "note_b_id", as: Int.self)
            out[a == noteId ? b : a] = try row.decode(column: "similarity", as: Double.self)
        }
        return out
    }

    /// The query's embedding, or nil when there is no LLM or it doesn't answer.
    func embed(_ query: String) async -> [Float]? {
        guard let llm = services.llm else { return nil }
        return try? await llm.embed([query]).first
    }

    /// A note's most frequent content words (at most 12), to find notes that share them.
    static func distinctiveTerms(_ text: String) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for word in TextTokens.words(text) where word.count > 2 && !TextTokens.stopWords.contains(word) {
            if counts[word] == nil { order.append(word) }
            counts[word, default: 0] += 1
        }
        return order.enumerated().sorted { (counts[$0.element]!, -$0.offset) > (counts[$1.element]!, -$1.offset) }.prefix(12).map(\.element)
    }

    static func clamp(_ x: Double) -> Double { min(1, max(0, x)) }
}
