import Fluent
import Foundation
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// Thread detection, momentum and status (README "Threads").
///
/// - A processed note joins the thread whose centroid (the normalised mean of its notes'
///   embeddings) is most similar, if at least `joinThreshold`.
/// - Otherwise, when at least `minimumNotes − 1` notes that belong to no thread are at least
///   `seedThreshold` similar to it, they start a new thread with it, named and summarised by the
///   LLM (from their most common theme when the LLM's answer is unusable; while the LLM is
///   unreachable the notes wait for the next maintenance pass).
/// - Actionable notes in a thread yield its tasks (`ActionExtractor`, or the note's title).
public struct ThreadService: Sendable {
    let db: any Database
    let services: SeleneServices
    let logger: Logger

    public init(db: any Database, services: SeleneServices, logger: Logger) {
        self.db = db
        self.services = services
        self.logger = logger
    }

    public enum Placement: Sendable, Equatable {
        case joined(Int)
        case started(Int)
        case unplaced
    }

    private var settings: SeleneConfig.Threads { services.config.threads }

    @discardableResult
    public func place(noteId: Int) async throws -> Placement {
        if let existing = try await ThreadNoteModel.query(on: db).filter(\.$noteId == noteId).first() {
            return .joined(existing.threadId)
        }
        // Where the person put it stands: out of every thread, or back in theirs (after an edit).
        if let placed = try await ThreadEditor.placement(of: noteId, on: db) {
            guard let threadId = placed, let note = try await NoteStore(db: db).note(id: noteId) else { return .unplaced }
            let vector = services.vectors.vector(for: noteId) ?? []
            let joined = try await join(thread: threadId, notes: [(noteId, vector, note.createdAt)], now: services.clock.now())
            return joined ? .joined(threadId) : .unplaced
        }
        guard let model = services.vectors.model, let vector = services.vectors.vector(for: noteId),
              let note = try await NoteStore(db: db).note(id: noteId) else { return .unplaced }
        let now = services.clock.now()
        let threads = try await ThreadModel.query(on: db).filter(\.$centroidModel == model).all()
        let best = threads.compactMap { thread -> (ThreadModel, Double)? in
            guard let c = thread.centroid else { return nil }
            return (thread, VectorUtility.cosine(VectorCoding.decode(c), vector))
        }.max { $0.1 < $1.1 }
        if let (thread, similarity) = best, similarity >= settings.joinThreshold {
            let joined = try await join(thread: thread.id!, notes: [(noteId, vector, note.createdAt)], now: now)
            if joined { try await addTasks(for: [note], thread: thread.id!, now: now) }
            return joined ? .joined(thread.id!) : .unplaced
        }
        // Unthreaded notes close to this one may start a thread with it.
        let near = services.vectors.search(vector, k: 50, excluding: [noteId], minimumSimilarity: settings.seedThreshold)
        guard near.count + 1 >= settings.minimumNotes else { return .unplaced }
        let assigned = try await assignedNotes(near.map(\.id))
        let seeds = near.map(\.id).filter { !assigned.contains($0) }
        guard seeds.count + 1 >= settings.minimumNotes else { return .unplaced }
        let members = try await NoteStore(db: db).notes(ids: [noteId] + seeds)
        let naming: ThreadNaming
        do {
            guard let llm = services.llm else { throw LLMError.notConfigured }
            naming = try await llm.structured(ThreadNaming.self, system: ProcessingPrompts.threadSystem,
                                              prompt: ProcessingPrompts.threadNaming(notes: members, numCtx: await llm.contextTokens()))
        } catch let error as LLMError where !error.isTransient {
            logger.notice("Naming a new thread from its notes (the LLM's answer was unusable: \(error))")
            naming = Self.extractiveNaming(members)
        }
        guard let threadId = try await create(naming: naming, members: members, now: now) else { return .unplaced }
        try await addTasks(for: members, thread: threadId, now: now)
        if let thread = try await ThreadStore(db: db).thread(id: threadId) {
            await services.events.announce(.threadDetected(thread))
        }
        return .started(threadId)
    }

    /// Places every processed note that has no thread yet (after an outage, or for a new
    /// thread's seeds that arrived out of order). Returns how many found one.
    func placeUnthreaded(limit: Int = 500) async throws -> Int {
        let rows = try await db.sql.raw("""
            SELECT e.note_id FROM note_embeddings e LEFT JOIN thread_notes tn ON tn.note_id = e.note_id
            LEFT JOIN note_placements p ON p.note_id = e.note_id
            WHERE tn.note_id IS NULL AND (p.note_id IS NULL OR p.thread_id IS NOT NULL) ORDER BY e.note_id LIMIT \(bind: limit)
            """).all()
        var placed = 0
        for row in rows {
            let id = try row.decode(column: "note_id", as: Int.self)
            if case .unplaced = try await place(noteId: id) { continue }
            placed += 1
        }
        return placed
    }

    /// Those of `ids` in a thread, or placed by the person (a note they took out of every thread
    /// seeds no new one).
    private func assignedNotes(_ ids: [Int]) async throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        let threaded = try await ThreadNoteModel.query(on: db).filter(\.$noteId ~~ ids).all().map(\.noteId)
        return Set(threaded).union(try await ThreadEditor.placed(ids, on: db))
    }

    /// Adds notes to a thread, moving its centroid and activity. False if another worker
    /// placed the note meanwhile.
    private func join(thread threadId: Int, notes: [(Int, [Float], Date)], now: Date) async throws -> Bool {
        try await db.writeTransaction { db in
            guard let thread = try await ThreadModel.find(threadId, on: db) else { return false }
            var count = try await ThreadNoteModel.query(on: db).filter(\.$threadId == threadId).count()
            var centroid = thread.centroid.map(VectorCoding.decode) ?? []
            for (noteId, vector, createdAt) in notes {
                let inserted = try await db.sql.raw("""
                    INSERT INTO thread_notes (thread_id, note_id, added_at) VALUES (\(bind: threadId), \(bind: noteId), \(bind: now))
                    ON CONFLICT (note_id) DO NOTHING RETURNING id
                    """).all()
                guard !inserted.isEmpty else { return false }
                // A note without a vector yet (put back by the person before it is embedded) moves nothing.
                if !vector.isEmpty {
                    centroid = VectorUtility.adding(vector, to: centroid, count: count)
                    count += 1
                }
                thread.lastActivityAt = max(thread.lastActivityAt, min(createdAt, now))
            }
            thread.centroid = VectorCoding.encode(centroid)
            thread.centroidModel = services.vectors.model
            try await thread.save(on: db)
            try await refresh(threadIds: [threadId], on: db, now: now)
            return true
        }
    }

    private func create(naming: ThreadNaming, members: [Note], now: Date) async throws -> Int? {
        let vectors = members.compactMap { services.vectors.vector(for: Int($0.id)) }
        guard let centroid = VectorUtility.centroid(vectors) else { return nil }
        let created = try await db.writeTransaction { db -> Int? in
            let thread = ThreadModel()
            thread.name = naming.name
            thread.summary = naming.summary
            thread.status = ThreadStatus.active.rawValue
            thread.momentum = 0
            thread.lastActivityAt = members.map { min($0.createdAt, now) }.max() ?? now
            thread.createdAt = now
            thread.centroid = VectorCoding.encode(centroid)
            thread.centroidModel = services.vectors.model
            thread.nameByPerson = false
            thread.summaryNoteCount = members.count
            thread.summaryAt = now
            try await thread.create(on: db)
            var placed = 0
            for note in members {
                let inserted = try await db.sql.raw("""
                    INSERT INTO thread_notes (thread_id, note_id, added_at) VALUES (\(bind: thread.id!), \(bind: Int(note.id)), \(bind: now))
                    ON CONFLICT (note_id) DO NOTHING RETURNING id
                    """).all()
                placed += inserted.count
            }
            // Another worker took some of them meanwhile: no thread unless enough are left.
            guard placed >= settings.minimumNotes else {
                try await db.sql.raw("DELETE FROM thread_notes WHERE thread_id = \(bind: thread.id!)").run()
                try await thread.delete(on: db)
                return nil
            }
            try await refresh(threadIds: [thread.id!], on: db, now: now)
            return thread.id!
        }
        // Its notes are found by the thread's name too.
        if let created { try await NoteFactsStore(db: db).refresh(threadIds: [created]) }
        return created
    }

    /// Tasks for the actionable notes among `notes`, in `thread` or in none. A note yields a
    /// title once (a retried step adds nothing); a task it already yielded without a thread
    /// joins `thread`; a title already open from another note isn't added again.
    func addTasks(for notes: [Note], thread: Int?, now: Date) async throws {
        for note in notes where note.analysis?.actionability == .actionable {
            var titles = ActionExtractor.actions(in: note.content, limit: 5)
            if titles.isEmpty { titles = [note.displayTitle] }
            for title in titles {
                let id = Int(note.id)
                try await db.sql.raw("""
                    INSERT INTO thread_tasks (thread_id, title, status, source_note_id, created_at)
                    SELECT \(bind: thread), \(bind: title), \(bind: TaskStatus.open.rawValue), \(bind: id), \(bind: now)
                    WHERE NOT EXISTS (SELECT 1 FROM thread_tasks WHERE lower(title) = lower(\(bind: title)) AND status = \(bind: TaskStatus.open.rawValue)
                                        AND (source_note_id IS NULL OR source_note_id <> \(bind: id)))
                    ON CONFLICT (source_note_id, title) DO UPDATE SET thread_id = excluded.thread_id
                      WHERE thread_tasks.thread_id IS NULL AND excluded.thread_id IS NOT NULL
                    """).run()
            }
        }
    }

    static func extractiveNaming(_ notes: [Note]) -> ThreadNaming {
        var counts: [String: Int] = [:]
        for note in notes {
            if let theme = note.analysis?.primaryTheme { counts[theme.lowercased(), default: 0] += 2 }
            for concept in note.analysis?.concepts ?? [] { counts[concept.name.lowercased(), default: 0] += 1 }
        }
        let theme = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
            ?? Retriever.distinctiveTerms(notes.map(\.content).joined(separator: " ")).first ?? "Notes"
        let name = theme.prefix(1).uppercased() + theme.dropFirst()
        let titles = notes.prefix(3).map(\.displayTitle).joined(separator: "; ")
        return ThreadNaming(name: String(name.prefix(60)), summary: "Notes about \(theme): \(titles)")
    }

    /// After notes left these threads (edited or deleted): each one's centroid from the
    /// embeddings of the notes still in it (none: it can't be joined until it has one), its last
    /// activity from their dates, then its momentum and status.
    func membersChanged(threadIds: [Int], now: Date) async throws {
        guard !threadIds.isEmpty else { return }
        try await db.writeTransaction { db in
            for thread in try await ThreadModel.query(on: db).filter(\.$id ~~ threadIds).all() {
                let rows = try await db.sql.raw("""
                    SELECT e.vector, n.created_at FROM thread_notes tn JOIN notes n ON n.id = tn.note_id
                    LEFT JOIN note_embeddings e ON e.note_id = tn.note_id AND e.model = \(bind: thread.centroidModel ?? "")
                    WHERE tn.thread_id = \(bind: thread.id!)
                    """).all()
                let vectors = try rows.compactMap { try $0.decode(column: "vector", as: Data?.self).map(VectorCoding.decode) }
                let dates = try rows.map { try $0.decode(column: "created_at", as: Date.self) }
                thread.centroid = VectorUtility.centroid(vectors).map(VectorCoding.encode)
                thread.lastActivityAt = dates.map { min($0, now) }.max() ?? thread.createdAt
                try await thread.save(on: db)
            }
            try await refresh(threadIds: threadIds, on: db, now: now)
        }
    }

    // MARK: Names and summaries that keep up

    /// Whether a thread has grown enough since its name and summary were written to write them
    /// again: `rewriteAfter` notes since (3), or half as many again as it had then, whichever is more.
    static func needsRewrite(notes: Int, atSummary: Int, rewriteAfter: Int = 3) -> Bool {
        notes - atSummary >= max(rewriteAfter, atSummary / 2)
    }

    /// Writes again the name and summary of threads that have grown (`needsRewrite`), at most
    /// `limit` a pass, from their latest notes, in the background (thread maintenance). A name the
    /// person set stays (only the summary is written). When the model is down the old ones stay
    /// and the thread is tried again next pass; when it answers junk they stay until the thread
    /// grows again. Answers the threads written again.
    @discardableResult
    func rewriteSummaries(limit: Int = 3) async throws -> [Int] {
        guard let llm = services.llm else { return [] }
        let counts = try await db.sql.raw("SELECT thread_id, COUNT(*) AS n FROM thread_notes GROUP BY thread_id").all()
            .reduce(into: [Int: Int]()) { $0[try $1.decode(column: "thread_id", as: Int.self)] = try $1.decode(column: "n", as: Int.self) }
        let due = try await ThreadModel.query(on: db).sort(\.$momentum, .descending).all()
            .filter { Self.needsRewrite(notes: counts[$0.id!] ?? 0, atSummary: $0.summaryNoteCount) }.prefix(limit)
        var written: [Int] = []
        for thread in due {
            let count = counts[thread.id!] ?? 0
            let notes = try await NoteStore(db: db).notes(inThread: thread.id!).sorted { $0.createdAt > $1.createdAt }.prefix(20)
            let naming: ThreadNaming
            do {
                naming = try await llm.structured(ThreadNaming.self, system: ProcessingPrompts.threadSystem,
                                                  prompt: ProcessingPrompts.threadNaming(notes: Array(notes), numCtx: await llm.contextTokens()))
            } catch let error as LLMError where error.isTransient {
                logger.notice("Thread \(thread.id!)'s summary waits for the model (\(error)); the old one stays")
                continue
            } catch {
                logger.notice("Thread \(thread.id!)'s summary stays: the model's answer was unusable (\(error))")
                thread.summaryNoteCount = count
                try await thread.save(on: db)
                continue
            }
            let renamed = !thread.nameByPerson && thread.name != naming.name
            if !thread.nameByPerson { thread.name = naming.name }
            thread.summary = naming.summary
            thread.summaryNoteCount = count
            thread.summaryAt = services.clock.now()
            try await thread.save(on: db)
            if renamed { try await NoteFactsStore(db: db).refresh(threadIds: [thread.id!]) }
            written.append(thread.id!)
        }
        return written
    }

    // MARK: Momentum and status

    /// Recomputes momentum and status of the given threads (all when nil) at `now`.
    func refresh(threadIds: [Int]? = nil, now: Date) async throws {
        try await refresh(threadIds: threadIds, on: db, now: now)
    }

    private func refresh(threadIds: [Int]?, on db: any Database, now: Date) async throws {
        let threads: [ThreadModel]
        if let threadIds { threads = try await ThreadModel.query(on: db).filter(\.$id ~~ threadIds).all() }
        else { threads = try await ThreadModel.query(on: db).all() }
        guard !threads.isEmpty else { return }
        let rows = try await db.sql.raw("""
            SELECT tn.thread_id, n.created_at FROM thread_notes tn JOIN notes n ON n.id = tn.note_id
            WHERE tn.thread_id IN (\(binds: threads.map { $0.id! }))
            """).all()
        var dates: [Int: [Date]] = [:]
        for row in rows { dates[try row.decode(column: "thread_id", as: Int.self), default: []].append(try row.decode(column: "created_at", as: Date.self)) }
        for thread in threads {
            let noteDates = dates[thread.id!] ?? []
            if let latest = noteDates.map({ min($0, now) }).max() { thread.lastActivityAt = max(thread.lastActivityAt, latest) }
            thread.momentum = Momentum.score(noteDates: noteDates, now: now, halfLife: settings.halfLife)
            thread.status = Momentum.status(lastActivity: thread.lastActivityAt, now: now, dormantAfter: settings.dormantAfter,
                                            archiveAfter: settings.archiveAfter).rawValue
            if thread.hasChanges { try await thread.save(on: db) }
        }
    }
}
