import Foundation

// The two paths the earlier macOS app (SeleneChat) calls, in the shapes it decodes: snake_case
// keys inside `results`, a title always present, a distance where smaller is nearer. They answer
// from the same retrieval as `/api/notes/retrieve` and `/api/notes/{id}/related`.

/// `POST /api/search`'s answer: the notes a semantic search found, nearest first.
public struct LegacySearchResponse: Codable, Sendable, Hashable {
    public var query: String
    public var count: Int
    public var results: [LegacySearchResult]
    public init(query: String, results: [LegacySearchResult]) {
        self.query = query
        self.count = results.count
        self.results = results
    }

    /// The retrieval's results in the earlier shape: the best has distance 0, the others
    /// 1 − (score ÷ the best score), so the order is kept and a smaller distance is nearer.
    public init(query: String, scored: [ScoredNote]) {
        let best = scored.map(\.score).max() ?? 0
        self.init(query: query, results: scored.map { hit in
            LegacySearchResult(id: hit.note.id, title: hit.note.displayTitle, primaryTheme: hit.note.analysis?.primaryTheme,
                               noteType: hit.note.analysis?.noteType.rawValue,
                               distance: best > 0 ? max(0, 1 - hit.score / best) : 0)
        })
    }
}

/// One note of a legacy search.
public struct LegacySearchResult: Codable, Sendable, Hashable {
    public var id: Int64
    public var title: String
    public var primaryTheme: String?
    public var noteType: String?
    public var distance: Double
    public init(id: Int64, title: String, primaryTheme: String?, noteType: String?, distance: Double) {
        self.id = id
        self.title = title
        self.primaryTheme = primaryTheme
        self.noteType = noteType
        self.distance = distance
    }
    private enum CodingKeys: String, CodingKey {
        case id, title, distance
        case primaryTheme = "primary_theme"
        case noteType = "note_type"
    }
}

/// `POST /api/related-notes`: a note's id; `includeLive` false keeps only what was stored
/// (associations and the note's thread), true (the default) adds what is found now.
public struct LegacyRelatedRequest: Codable, Sendable, Hashable {
    public var noteId: Int64
    public var limit: Int?
    public var includeLive: Bool?
    public init(noteId: Int64, limit: Int? = nil, includeLive: Bool? = nil) {
        self.noteId = noteId
        self.limit = limit
        self.includeLive = includeLive
    }

    /// Checked as the other requests are: a positive id, a limit of 1–500.
    public func validated() throws -> LegacyRelatedRequest {
        var errors: [String: String] = [:]
        if noteId < 1 { errors["noteId"] = "noteId must be a note's id (a positive number)" }
        if let limit, !SeleneLimits.limitRange.contains(limit) { errors["limit"] = "limit must be between 1 and 500" }
        try SeleneValidation.check(errors)
        return self
    }
}

/// `POST /api/related-notes`' answer.
public struct LegacyRelatedResponse: Codable, Sendable, Hashable {
    public var noteId: Int64
    public var count: Int
    public var results: [LegacyRelatedResult]
    public init(noteId: Int64, results: [LegacyRelatedResult]) {
        self.noteId = noteId
        self.count = results.count
        self.results = results
    }

    /// A note's related notes in the earlier shape, only the stored ones unless `includeLive`;
    /// `stored` names the notes whose association processing stored.
    public init(_ related: RelatedNotes, stored: Set<Int64>, includeLive: Bool) {
        let results = related.results.map { LegacyRelatedResult($0, stored: stored.contains($0.note.id)) }
            .filter { includeLive || $0.source == LegacyRelatedResult.precomputed }
        self.init(noteId: related.noteId, results: results)
    }
}

/// One related note: `relationship_type` is `EMBEDDING` (similar meaning), `SAME_THREAD` or
/// `KEYWORD` (shared words); `source` is `precomputed` (stored by processing) or `live`.
public struct LegacyRelatedResult: Codable, Sendable, Hashable {
    public static let precomputed = "precomputed", live = "live"
    public var id: Int64
    public var title: String
    public var relationshipType: String
    public var strength: Double?
    public var source: String
    public init(id: Int64, title: String, relationshipType: String, strength: Double?, source: String) {
        self.id = id
        self.title = title
        self.relationshipType = relationshipType
        self.strength = strength
        self.source = source
    }

    /// The earlier names: an association is `EMBEDDING`, stored by processing or found now
    /// (`stored`); the same thread `SAME_THREAD` (stored); shared words `KEYWORD` (found now).
    public init(_ related: RelatedNote, stored: Bool) {
        let type: String, source: String
        switch related.relationshipType {
        case .association: (type, source) = ("EMBEDDING", stored ? Self.precomputed : Self.live)
        case .thread: (type, source) = ("SAME_THREAD", Self.precomputed)
        case .keyword: (type, source) = ("KEYWORD", Self.live)
        }
        self.init(id: related.note.id, title: related.note.displayTitle, relationshipType: type, strength: related.strength, source: source)
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, strength, source
        case relationshipType = "relationship_type"
    }
}
