import Fluent
import Foundation
import Metrics
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// The durable processing queue: notes wait in the `notes` table as `pending`, a worker claims
/// some (a lease: `processing`, its owner and an expiry), asks the LLM for the analysis and the
/// embedding, and stores analysis, embedding, associations and `done` in one transaction that
/// only commits while its lease is still held. A worker that dies leaves its notes claimable
/// once the lease runs out; PostgreSQL's `FOR UPDATE SKIP LOCKED` lets several processes share
/// the queue without two claiming one note.
public struct ProcessingQueue: Sendable {
    let db: any Database
    let services: SeleneServices
    /// This worker's name on its leases.
    let owner: String
    let logger: Logger

    public struct Summary: Sendable, Hashable {
        public var claimed = 0
        public var done = 0
        public var deferred = 0
        public var failed = 0
        /// The LLM is unavailable: the worker should wait before claiming more.
        public var outage: String?
        public init() {}
    }

    public init(db: any Database, services: SeleneServices, owner: String, logger: Logger) {
        self.db = db
        self.services = services
        self.owner = owner
        self.logger = logger
    }

    enum Outcome: Sendable {
        case done, deferred(String, transient: Bool), failed(String), lostLease

        /// The `outcome` label of `selene_notes_processed_total`.
        var name: String {
            switch self {
            case .done: "done"
            case .deferred: "deferred"
            case .failed: "failed"
            case .lostLease: "lost_lease"
            }
        }
    }

    private var settings: SeleneConfig.Processing { services.config.processing }

    /// Claims up to `limit` notes whose turn has come: pending ones due now, then any whose
    /// lease ran out (a worker stopped mid-way).
    func claim(limit: Int, now: Date) async throws -> [Int] {
        let leaseUntil = now.addingTimeInterval(settings.lease)
        let lock: SQLQueryString = db.isPostgres ? " FOR UPDATE SKIP LOCKED" : ""
        var claimed: [Int] = []
        let pending: SQLQueryString = """
            UPDATE notes SET status = 'processing', lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil), attempts = attempts + 1
            WHERE id IN (SELECT id FROM notes WHERE status = 'pending' AND next_attempt_at <= \(bind: now)
                         ORDER BY next_attempt_at, id LIMIT \(bind: limit)
            """ + lock + ") RETURNING id"
        claimed += try await db.sql.raw(pending).all().map { try $0.decode(column: "id", as: Int.self) }
        if claimed.count < limit {
            let expired: SQLQueryString = """
                UPDATE notes SET lease_owner = \(bind: owner), lease_until = \(bind: leaseUntil), attempts = attempts + 1
                WHERE id IN (SELECT id FROM notes WHERE status = 'processing' AND lease_until < \(bind: now)
                             ORDER BY lease_until, id LIMIT \(bind: limit - claimed.count)
                """ + lock + ") RETURNING id"
            claimed += try await db.sql.raw(expired).all().map { try $0.decode(column: "id", as: Int.self) }
        }
        return claimed.sorted()
    }

    /// Notes held by a worker of this machine whose process is gone (killed, crashed, the
    /// machine restarted): their lease would keep them for up to `lease`; instead their lease ends
    /// now and they are claimed again at once. Workers of other machines (PostgreSQL) and a
    /// reused process id still wait for the lease. Answers how many notes were freed.
    func reclaimOrphans(now: Date) async throws -> Int {
        let owners = try await db.sql.raw("SELECT DISTINCT lease_owner FROM notes WHERE status = 'processing' AND lease_owner IS NOT NULL").all()
            .map { try $0.decode(column: "lease_owner", as: String.self) }
            .filter(Self.ownerIsGone)
        var freed = 0
        for gone in owners {
            freed += try await db.sql.raw("""
                UPDATE notes SET lease_until = \(bind: now.addingTimeInterval(-1))
                WHERE status = 'processing' AND lease_owner = \(bind: gone) RETURNING id
                """).all().count
            logger.warning("Worker \(gone) stopped mid-way: its notes are due again now")
        }
        return freed
    }

    /// Whether a worker name (`host-pid-random`, `BackgroundWork.workerName`) is of this machine
    /// and its process no longer runs.
    static func ownerIsGone(_ owner: String) -> Bool {
        let parts = owner.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0 else { return false }
        guard parts.dropLast(2).joined(separator: "-") == ProcessInfo.processInfo.hostName, pid != getpid() else { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Works through the notes due now, at most `limit`, and reports what happened. When the
    /// model server can't serve it stops at once and hands the rest of its claim back untouched,
    /// due at once: the worker pauses and probes the server, and nothing waits longer than that.
    public func runOnce(limit: Int = 1_000) async throws -> Summary {
        var summary = Summary()
        while summary.claimed < limit {
            let batch = try await claim(limit: min(settings.batchSize, limit - summary.claimed), now: services.clock.now())
            guard !batch.isEmpty else { break }
            summary.claimed += batch.count
            for id in batch {
                if let outage = summary.outage {
                    try await release(id, reason: outage, countAttempt: false, delay: 0)
                    summary.deferred += 1
                    continue
                }
                let outcome = await Outbound.marked("analysis") { await process(id) }
                Counter(label: "selene_notes_processed_total", dimensions: [("outcome", outcome.name)]).increment()
                switch outcome {
                case .done: summary.done += 1
                case .failed: summary.failed += 1
                case .lostLease: break
                case .deferred(let reason, let transient):
                    summary.deferred += 1
                    if transient { summary.outage = reason }
                }
            }
            if summary.outage != nil { break }
        }
        return summary
    }

    /// Processes one claimed note.
    /// One note through the pipeline (`pipeline`); a failure goes to the retry policy
    /// (`afterModelFailure`, `afterFailure`).
    func process(_ id: Int) async -> Outcome {
        do {
            guard let llm = services.llm else {
                try await release(id, reason: LLMError.notConfigured.description, countAttempt: false, delay: 0)
                return .deferred(LLMError.notConfigured.description, transient: true)
            }
            return try await pipeline(id, llm: llm)
        } catch let error as LLMError {
            return await afterModelFailure(id, error)
        } catch {
            return await afterFailure(id, error)
        }
    }

    /// Analysed, embedded, linked to its neighbours and stored in one transaction, then indexed
    /// and placed in a thread (its tasks written when it has none).
    private func pipeline(_ id: Int, llm: LLMClient) async throws -> Outcome {
        guard let note = try await NoteModel.find(id, on: db) else { return .lostLease }
        let analysis = try await llm.analyse(title: note.title, content: note.content)
        let (vector, chunks) = try await embed(note, llm: llm)
        let neighbours = try await neighbours(of: vector, note: id)
        let now = services.clock.now()
        let stored = try await store(id, analysis: analysis, vector: vector, chunks: chunks, model: llm.settings.embeddingModel,
                                     chatModel: llm.settings.chatModel, neighbours: neighbours, now: now)
        guard stored else { return .lostLease }
        var placement = ThreadService.Placement.unplaced
        if let vector {
            index(id, vector: vector, chunks: chunks, analysis: analysis, now: now)
            placement = await place(id)
        }
        await writeFacts(id)
        // An actionable note in no thread still yields its tasks (a thread's notes yield
        // theirs as they join); they join the thread if the note does later.
        if case .unplaced = placement, analysis.actionability == .actionable { await addTasks(id, now: now) }
        return .done
    }

    /// The note's vector and its later parts' (none from a server that can't embed: the note is
    /// found by keyword, and `selene reindex` embeds it once embeddings are served).
    private func embed(_ note: NoteModel, llm: LLMClient) async throws -> (vector: [Float]?, chunks: [[Float]]) {
        let texts = [ProcessingPrompts.embeddingText(title: note.title, content: note.content)]
            + ProcessingPrompts.embeddingChunks(title: note.title, content: note.content)
        do {
            let vectors = try await llm.embed(texts)
            return (vectors.first, Array(vectors.dropFirst()))
        } catch LLMError.embeddingsUnsupported(let why, let server) {
            logger.warning("Note \(note.id ?? 0) is stored without an embedding: \(LLMError.embeddingsUnsupported(why, server: server))")
            return (nil, [])
        }
    }

    /// The notes nearest to `vector`, to link as related.
    private func neighbours(of vector: [Float]?, note id: Int) async throws -> [(id: Int, similarity: Double)] {
        guard let vector else { return [] }
        try await services.vectors.refresh(on: db, now: services.clock.now())
        return services.vectors.search(vector, k: settings.associationLimit, excluding: [id], minimumSimilarity: settings.associationThreshold)
    }

    /// The stored vectors in this process's indexes.
    private func index(_ id: Int, vector: [Float], chunks: [[Float]], analysis: NoteAnalysis, now: Date) {
        services.vectors.upsert(id: id, vector: vector, noteType: analysis.noteType, actionability: analysis.actionability, embeddedAt: now)
        services.chunkVectors.removeNote(id)
        for (index, chunk) in chunks.enumerated() {
            services.chunkVectors.upsert(id: services.chunkVectors.chunkId(note: id, chunk: index + 1), vector: chunk,
                                         noteType: analysis.noteType, actionability: analysis.actionability, embeddedAt: now)
        }
    }

    /// The note's thread; a failure leaves it for the next maintenance pass (the note is processed).
    private func place(_ id: Int) async -> ThreadService.Placement {
        do {
            return try await ThreadService(db: db, services: services, logger: logger).place(noteId: id)
        } catch {
            logger.warning("Note \(id) is processed but was not placed in a thread yet: \(error)")
            return .unplaced
        }
    }

    /// What the model understood, searched beside the note's words; a failure leaves the note
    /// found by its words until `selene reindex` (the note is processed).
    private func writeFacts(_ id: Int) async {
        do { try await NoteFactsStore(db: db).refresh(noteIds: [id]) } catch {
            logger.warning("Note \(id) is processed but what it is about is not searchable yet: \(error)")
        }
    }

    private func addTasks(_ id: Int, now: Date) async {
        do {
            if let note = try await NoteStore(db: db).note(id: id) {
                try await ThreadService(db: db, services: services, logger: logger).addTasks(for: [note], thread: nil, now: now)
            }
        } catch {
            logger.warning("Note \(id) is processed but its tasks were not written yet: \(error)")
        }
    }

    /// The model server failed: an outage costs the note no attempt; a refusal fails it; a slow,
    /// failing or cut-off answer on this note gets its own back-off, up to `maxAttempts`.
    private func afterModelFailure(_ id: Int, _ error: LLMError) async -> Outcome {
        do {
            if error.isOutage {
                try await release(id, reason: error.description, countAttempt: false, delay: 0)
                return .deferred(error.description, transient: true)
            }
            if !error.isTransient {
                try await fail(id, reason: error.description)
                return .failed(error.description)
            }
            if try await attempts(id) >= settings.maxAttempts {
                try await fail(id, reason: "gave up after \(settings.maxAttempts) attempts: \(error.description)")
                return .failed(error.description)
            }
            try await release(id, reason: error.description, countAttempt: true)
            return .deferred(error.description, transient: true)
        } catch {
            logger.error("Note \(id): could not record the LLM failure: \(error)")
            return .deferred("\(error)", transient: false)
        }
    }

    /// Anything else went wrong: tried again later, up to `maxAttempts`.
    private func afterFailure(_ id: Int, _ error: any Error) async -> Outcome {
        logger.error("Note \(id) could not be processed: \(String(reflecting: error))")
        do {
            let attempts = try await attempts(id)
            if attempts >= settings.maxAttempts {
                try await fail(id, reason: "gave up after \(attempts) attempts: \(error)")
                return .failed("\(error)")
            }
            try await release(id, reason: "\(error)", countAttempt: true)
        } catch {
            logger.error("Note \(id): could not record the failure: \(error)")
        }
        return .deferred("\(error)", transient: false)
    }

    private func attempts(_ id: Int) async throws -> Int { try await NoteModel.find(id, on: db)?.attempts ?? 0 }

    /// Stores a processed note in one transaction, if this worker still holds its lease.
    private func store(_ id: Int, analysis: NoteAnalysis, vector: [Float]?, chunks: [[Float]], model: String, chatModel: String,
                       neighbours: [(id: Int, similarity: Double)], now: Date) async throws -> Bool {
        struct LostLease: Error {}
        do {
            try await db.writeTransaction { db in
                let sql = db.sql
                let held = try await sql.raw("""
                    UPDATE notes SET status = 'done', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL, last_error = NULL
                    WHERE id = \(bind: id) AND lease_owner = \(bind: owner) AND status = 'processing' RETURNING id
                    """).all()
                guard !held.isEmpty else { throw LostLease() }
                try await AnalysisStore(db: db).save(noteId: id, analysis: analysis, model: chatModel, now: now)
                if let vector {
                    try await EmbeddingStore(db: db).save(noteId: id, vector: vector, chunks: chunks, model: model, now: now)
                    try await EmbeddingStore(db: db).replaceAssociations(of: id, with: neighbours, now: now)
                }
            }
            return true
        } catch is LostLease {
            logger.notice("Note \(id): its lease passed to another worker; this result is dropped")
            return false
        }
    }

    /// Hands a note back to the queue to be tried again after a back-off (doubling per attempt,
    /// or `delay` when given). Without `countAttempt` its claim doesn't count as an attempt.
    private func release(_ id: Int, reason: String, countAttempt: Bool, delay given: TimeInterval? = nil) async throws {
        guard let note = try await NoteModel.find(id, on: db), note.leaseOwner == owner else { return }
        let attempts = max(1, note.attempts)
        let delay = given ?? min(settings.baseBackoff * pow(2, Double(attempts - 1)), settings.maxBackoff)
        let now = services.clock.now()
        try await db.sql.raw("""
            UPDATE notes SET status = 'pending', lease_owner = NULL, lease_until = NULL, last_error = \(bind: reason),
              next_attempt_at = \(bind: now.addingTimeInterval(delay)),
              attempts = attempts - \(bind: countAttempt ? 0 : 1)
            WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
            """).run()
    }

    private func fail(_ id: Int, reason: String) async throws {
        try await db.sql.raw("""
            UPDATE notes SET status = 'failed', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL, last_error = \(bind: reason)
            WHERE id = \(bind: id) AND lease_owner = \(bind: owner)
            """).run()
    }

    /// How many notes are in each state, and the next attempt due.
    public static func status(on db: any Database) async throws -> [String: Int] {
        let rows = try await db.sql.raw("SELECT status, COUNT(*) AS n FROM notes GROUP BY status").all()
        var out = Dictionary(uniqueKeysWithValues: ProcessingStatus.allCases.map { ($0.rawValue, 0) })
        for row in rows { out[try row.decode(column: "status", as: String.self)] = try row.decode(column: "n", as: Int.self) }
        return out
    }

    /// Puts failed notes back in the queue (after a fix: a model pulled, a prompt changed).
    public static func retryFailed(on db: any Database, now: Date) async throws -> Int {
        let rows = try await db.sql.raw("""
            UPDATE notes SET status = 'pending', attempts = 0, next_attempt_at = \(bind: now) WHERE status = 'failed' RETURNING id
            """).all()
        return rows.count
    }
}

/// A note's analysis as stored (`processed_notes`): written by the queue, and by `selene
/// reprocess` in place of the one a note had.
struct AnalysisStore {
    let db: any Database

    func save(noteId id: Int, analysis: NoteAnalysis, model: String, now: Date) async throws {
        try await db.sql.raw("""
            INSERT INTO processed_notes (note_id, concepts, primary_theme, secondary_themes, sentiment, sentiment_score,
              emotional_tone, energy_level, note_type, actionability, processed_at, model, people, places)
            VALUES (\(bind: id), \(bind: JSONColumn.write(analysis.concepts)), \(bind: analysis.primaryTheme),
              \(bind: JSONColumn.write(analysis.secondaryThemes)), \(bind: analysis.sentiment.rawValue), \(bind: analysis.sentimentScore),
              \(bind: analysis.emotionalTone), \(bind: analysis.energyLevel.rawValue), \(bind: analysis.noteType.rawValue),
              \(bind: analysis.actionability.rawValue), \(bind: now), \(bind: model), \(bind: JSONColumn.write(analysis.people)),
              \(bind: JSONColumn.write(analysis.places)))
            ON CONFLICT (note_id) DO UPDATE SET concepts = excluded.concepts, primary_theme = excluded.primary_theme,
              secondary_themes = excluded.secondary_themes, sentiment = excluded.sentiment, sentiment_score = excluded.sentiment_score,
              emotional_tone = excluded.emotional_tone, energy_level = excluded.energy_level, note_type = excluded.note_type,
              actionability = excluded.actionability, processed_at = excluded.processed_at, model = excluded.model,
              people = excluded.people, places = excluded.places
            """).run()
    }
}

/// Embeddings and associations as stored.
struct EmbeddingStore {
    let db: any Database

    /// The note's vector, and its later parts' (`ProcessingPrompts.embeddingChunks`) in place of
    /// those it had.
    func save(noteId: Int, vector: [Float], chunks: [[Float]], model: String, now: Date) async throws {
        try await db.sql.raw("DELETE FROM note_chunk_embeddings WHERE note_id = \(bind: noteId)").run()
        for (index, chunk) in chunks.enumerated() {
            try await db.sql.raw("""
                INSERT INTO note_chunk_embeddings (note_id, chunk, vector, model, dimension, embedded_at)
                VALUES (\(bind: noteId), \(bind: index + 1), \(bind: VectorCoding.encode(chunk)), \(bind: model), \(bind: chunk.count), \(bind: now))
                """).run()
        }
        try await db.sql.raw("""
            INSERT INTO note_embeddings (note_id, vector, model, dimension, embedded_at)
            VALUES (\(bind: noteId), \(bind: VectorCoding.encode(vector)), \(bind: model), \(bind: vector.count), \(bind: now))
            ON CONFLICT (note_id) DO UPDATE SET vector = excluded.vector, model = excluded.model, dimension = excluded.dimension,
              embedded_at = excluded.embedded_at
            """).run()
    }

    /// The note's associations become `neighbours` (each pair stored once, smaller id first).
    func replaceAssociations(of noteId: Int, with neighbours: [(id: Int, similarity: Double)], now: Date) async throws {
        try await db.sql.raw("DELETE FROM note_associations WHERE note_a_id = \(bind: noteId) OR note_b_id = \(bind: noteId)").run()
        for neighbour in neighbours where neighbour.id != noteId {
            let (a, b) = noteId < neighbour.id ? (noteId, neighbour.id) : (neighbour.id, noteId)
            try await db.sql.raw("""
                INSERT INTO note_associations (note_a_id, note_b_id, similarity, created_at)
                VALUES (\(bind: a), \(bind: b), \(bind: min(1, max(0, neighbour.similarity))), \(bind: now))
                ON CONFLICT (note_a_id, note_b_id) DO UPDATE SET similarity = excluded.similarity
                """).run()
        }
    }
}
