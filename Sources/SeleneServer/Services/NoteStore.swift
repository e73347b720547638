import Crypto
import Fluent
import Foundation
import SeleneShared
import SQLKit

/// Notes in and out of the database: capture (idempotent where asked), the reads every list
/// and search uses, each answering wire `Note`s with their processed fields and thread.
public struct NoteStore: Sendable {
    let db: any Database

    public init(db: any Database) { self.db = db }

    var sql: any SQLDatabase { db.sql }

    static func hash(_ content: String) -> String {
        SHA256.hash(data: Data(content.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Stores a capture. With `idempotent` (the Drafts webhook) the Drafts uuid, or without one
    /// the content hash, names the note: sending it again answers the note already there.
    /// Returns the note and whether it is new.
    public func capture(_ input: CaptureInput, idempotent: Bool, now: Date) async throws -> (note: Note, created: Bool) {
        let hash = Self.hash(input.content)
        let dedupeKey = idempotent ? (input.sourceUuid.map { "uuid:\($0)" } ?? "sha256:\(hash)") : nil
        let rows = try await sql.raw("""
            INSERT INTO notes (title, content, created_at, captured_at, source, source_uuid, content_hash, dedupe_key, tags,
                               status, attempts, next_attempt_at)
            VALUES (\(bind: input.title), \(bind: input.content), \(bind: input.createdAt ?? now), \(bind: now),
                    \(bind: input.source.rawValue), \(bind: input.sourceUuid), \(bind: hash), \(bind: dedupeKey),
                    \(bind: JSONColumn.write(input.tags)), \(bind: ProcessingStatus.pending.rawValue), \(bind: 0), \(bind: now))
            ON CONFLICT (dedupe_key) DO NOTHING
            RETURNING id
            """).all()
        if let row = rows.first {
            // A new note is exactly what was written: nothing to read back.
            let id = try row.decode(column: "id", as: Int.self)
            return (Note(id: Int64(id), title: input.title, content: input.content, createdAt: input.createdAt ?? now, source: input.source,
                         sourceUuid: input.sourceUuid, contentHash: hash, tags: input.tags, status: .pending, attempts: 0), true)
        }
        guard let dedupeKey, let existing = try await notes(where: "n.dedupe_key = \(bind: dedupeKey)", limit: 1).first else {
            throw SeleneError(.internalServerError, "The note could not be stored")
        }
        return (existing, false)
    }

    /// A person's capture, however it came (the API, the Drafts webhook, the web app, the
    /// terminal through the API): stored as `capture` stores it, and a new note wakes the
    /// processing queue at once (imports and benchmarks capture without waking it).
    func capture(_ input: CaptureInput, idempotent: Bool, now: Date, waking queue: QueueSignal) async throws -> (note: Note, created: Bool) {
        let captured = try await capture(input, idempotent: idempotent, now: now)
        if captured.created { queue.wake() }
        return captured
    }

    // MARK: Reads

    func note(id: Int) async throws -> Note? {
        try await notes(where: "n.id = \(bind: id)", limit: 1).first
    }

    /// Notes by id, in the order asked (unknown ids are left out).
    public func notes(ids: [Int]) async throws -> [Note] {
        guard !ids.isEmpty else { return [] }
        var found: [Int64: Note] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            for note in try await notes(where: "n.id IN (\(binds: chunk))", limit: chunk.count) {
                found[note.id] = note
            }
        }
        return ids.compactMap { found[Int64($0)] }
    }

    /// Just the words and the date of notes by id (any order; unknown ids are left out), as notes
    /// with nothing else filled in (no analysis, thread or tags; source `.web`): what retrieval's
    /// first stage and the reranker read of candidates, without `notes(ids:)`'s four joins and
    /// their JSON columns. Never answered as they are: `Retriever.retrieve` reads whole notes.
    func words(ids: [Int]) async throws -> [Note] {
        guard !ids.isEmpty else { return [] }
        var found: [Note] = []
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            for row in try await sql.raw("SELECT id, title, content, created_at FROM notes WHERE id IN (\(binds: chunk))").all() {
                found.append(Note(id: Int64(try row.decode(column: "id", as: Int.self)),
                                  title: try row.decodeNil(column: "title") ? nil : try row.decode(column: "title", as: String.self),
                                  content: try row.decode(column: "content", as: String.self),
                                  createdAt: try row.decode(column: "created_at", as: Date.self), source: .web, contentHash: ""))
            }
        }
        return found
    }

    /// What the Notes page filters by; every part optional.
    struct Browse: Sendable, Equatable {
        var threadId: Int?
        var noteType: NoteType?
        /// Written on or after this moment, and before `until`.
        var from: Date?
        var until: Date?
    }

    /// Notes newest first, filtered, a page at a time.
    func browse(_ filter: Browse, limit: Int, offset: Int) async throws -> [Note] {
        var parts: [SQLQueryString] = []
        if let thread = filter.threadId { parts.append("tn.thread_id = \(bind: thread)") }
        if let type = filter.noteType { parts.append("p.note_type = \(bind: type.rawValue)") }
        if let from = filter.from { parts.append("n.created_at >= \(bind: from)") }
        if let until = filter.until { parts.append("n.created_at < \(bind: until)") }
        var condition: SQLQueryString?
        for part in parts { condition = condition.map { $0 + " AND " + part } ?? part }
        return try await notes(where: condition, limit: limit, offset: offset)
    }

    func newest(limit: Int) async throws -> [Note] {
        try await notes(where: nil, limit: limit)
    }

    func created(since: Date, limit: Int) async throws -> [Note] {
        try await notes(where: "n.created_at >= \(bind: since)", limit: limit)
    }

    /// The ids of the notes written in an interval (its end included).
    func ids(createdIn interval: DateInterval) async throws -> Set<Int> {
        let rows = try await sql.raw("""
            SELECT id FROM notes WHERE created_at >= \(bind: interval.start) AND created_at <= \(bind: interval.end)
            """).all()
        return Set(try rows.map { try $0.decode(column: "id", as: Int.self) })
    }

    func captured(since: Date, limit: Int) async throws -> [Note] {
        try await notes(where: "n.captured_at > \(bind: since)", limit: limit)
    }

    func notes(inThread threadId: Int, limit: Int = 500) async throws -> [Note] {
        try await notes(where: "tn.thread_id = \(bind: threadId)", limit: limit)
    }

    public func count() async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM notes").first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Notes matching `condition`, newest first, with everything a wire `Note` carries.
    func notes(where condition: SQLQueryString?, limit: Int, offset: Int = 0) async throws -> [Note] {
        var query: SQLQueryString = """
            SELECT n.id, n.title, n.content, n.created_at, n.source, n.source_uuid, n.content_hash, n.tags, n.status,
                   n.attempts, n.last_error, p.concepts, p.primary_theme, p.secondary_themes, p.sentiment,
                   p.sentiment_score, p.emotional_tone, p.energy_level, p.note_type, p.actionability, p.processed_at, p.people, p.places,
                   p.model AS processed_by, e.model AS embedding_model, tn.thread_id, t.name AS thread_name
            FROM notes n
            LEFT JOIN processed_notes p ON p.note_id = n.id
            LEFT JOIN note_embeddings e ON e.note_id = n.id
            LEFT JOIN thread_notes tn ON tn.note_id = n.id
            LEFT JOIN threads t ON t.id = tn.thread_id
            """
        if let condition { query += " WHERE " + condition }
        query += " ORDER BY n.created_at DESC, n.id DESC LIMIT \(bind: limit)"
        if offset > 0 { query += " OFFSET \(bind: offset)" }
        return try await sql.raw(query).all().map(Self.note(from:))
    }

    static func note(from row: any SQLRow) throws -> Note {
        func text(_ column: String) throws -> String? { try row.decodeNil(column: column) ? nil : row.decode(column: column, as: String.self) }
        var analysis: NoteAnalysis?
        if let theme = try text("primary_theme") {
            analysis = NoteAnalysis(
                concepts: JSONColumn.read([Concept].self, try text("concepts")) ?? [],
                primaryTheme: theme,
                secondaryThemes: JSONColumn.read([String].self, try text("secondary_themes")) ?? [],
                sentiment: Sentiment(rawValue: try text("sentiment") ?? "") ?? .neutral,
                sentimentScore: try row.decode(column: "sentiment_score", as: Double.self),
                emotionalTone: try text("emotional_tone") ?? "",
                energyLevel: EnergyLevel(rawValue: try text("energy_level") ?? "") ?? .medium,
                noteType: NoteType(rawValue: try text("note_type") ?? "") ?? .reflection,
                actionability: Actionability(rawValue: try text("actionability") ?? "") ?? .none,
                people: JSONColumn.read([String].self, try text("people")) ?? [],
                places: JSONColumn.read([String].self, try text("places")) ?? [])
        }
        return Note(
            id: Int64(try row.decode(column: "id", as: Int.self)),
            title: try text("title"),
            content: try row.decode(column: "content", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Date.self),
            source: NoteSource(rawValue: try row.decode(column: "source", as: String.self)) ?? .web,
            sourceUuid: try text("source_uuid"),
            contentHash: try row.decode(column: "content_hash", as: String.self),
            tags: JSONColumn.read([String].self, try text("tags")) ?? [],
            status: ProcessingStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .pending,
            attempts: try row.decode(column: "attempts", as: Int.self),
            lastError: try text("last_error"),
            analysis: analysis,
            processedAt: try row.decode(column: "processed_at", as: Date?.self),
            processedBy: try text("processed_by"),
            embeddingModel: try text("embedding_model"),
            threadId: try row.decode(column: "thread_id", as: Int?.self).map(Int64.init),
            threadName: try text("thread_name"))
    }
}
