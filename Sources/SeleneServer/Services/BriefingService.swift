import Fluent
import Foundation
import Logging
import SeleneShared
import SQLKit

/// The morning briefing: new notes since the last one, top threads by momentum, links across
/// threads, open tasks. Written by the LLM, or extractively from the same data when no LLM
/// answers; stored (one per day) and announced (`SeleneEvent.briefingReady`).
struct BriefingService {
    let db: any Database
    let services: SeleneServices
    let logger: Logger

    /// The day `date` falls on in the configured time zone, `YYYY-MM-DD`.
    func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = services.config.timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// Today's briefing, written now if there is none yet.
    func today() async throws -> Briefing {
        let now = services.clock.now()
        if let stored = try await BriefingModel.query(on: db).filter(\.$date == day(of: now)).first() {
            return try await wire(stored)
        }
        return try await generate()
    }

    func latest() async throws -> Briefing? {
        guard let model = try await BriefingModel.query(on: db).sort(\.$createdAt, .descending).sort(\.$id, .descending).first() else { return nil }
        return try await wire(model)
    }

    /// The scheduled morning briefing: written and pushed by the one process that takes the
    /// day's lease; false when another has (it writes it, and pushes once). A process that fails
    /// to write it lets the others try again.
    func scheduled(owner: String) async throws -> Bool {
        let job = "briefing:" + day(of: services.clock.now())
        let lease = JobLease(db: db)
        guard try await lease.claimOnce(job, owner: owner, now: services.clock.now()) else { return false }
        do {
            try await generate()
        } catch {
            try? await lease.release(job, owner: owner)
            throw error
        }
        return true
    }

    /// Writes today's briefing (replacing one written earlier today) and announces it.
    @discardableResult
    func generate() async throws -> Briefing {
        // Its model requests are the briefing's in the outbound ledger.
        try await Outbound.marked("briefing") { try await write() }
    }

    private func write() async throws -> Briefing {
        let now = services.clock.now()
        let today = day(of: now)
        let previous = try await BriefingModel.query(on: db).filter(\.$date != today).sort(\.$createdAt, .descending).first()
        let since = previous?.createdAt ?? now.addingTimeInterval(-86_400)
        let context = BriefingContext(
            date: today,
            newNotes: try await NoteStore(db: db).captured(since: since, limit: 50),
            threads: try await ThreadStore(db: db).threads(status: .active, limit: 5),
            associations: try await associations(minSimilarity: 0.7, recentDays: 7, limit: 5),
            tasks: try await ThreadStore(db: db).openTasks(limit: 10))
        var text = BriefingContextBuilder.extractive(context)
        var author = BriefingAuthor.extractive
        if let llm = services.llm {
            do {
                let answer = try await llm.generate(BriefingContextBuilder.prompt(context, budget: await llm.contextTokens() / 2),
                                                    system: BriefingContextBuilder.system, temperature: 0.4)
                let trimmed = AnswerTidy.tidy(answer, instructions: BriefingContextBuilder.told).text
                if trimmed.isEmpty {
                    logger.notice("The model's briefing was empty; the briefing is written from the notes")
                } else if !BriefingContextBuilder.isGrounded(trimmed, in: context) {
                    logger.notice("The model's briefing speaks of none of the notes, threads or tasks it was given; the briefing is written from them instead")
                } else if let kept = BriefingContextBuilder.supported(trimmed, in: context) {
                    if !kept.removed.isEmpty {
                        logger.notice("\(kept.removed.count) sentence(s) of the model's briefing that no note supports were left out: \(kept.removed.joined(separator: " | "))")
                    }
                    text = kept.text
                    author = .llm
                } else {
                    logger.notice("Too little of the model's briefing is supported by the notes; the briefing is written from them instead")
                }
            } catch {
                logger.notice("Briefing written without the LLM: \(error)")
            }
        }
        let model = try await BriefingModel.query(on: db).filter(\.$date == today).first() ?? BriefingModel()
        model.date = today
        model.text = text
        model.author = author.rawValue
        model.noteIds = JSONColumn.write(context.newNotes.map(\.id))
        model.threadIds = JSONColumn.write(context.threads.map(\.id))
        model.associations = JSONColumn.write(context.associations.map { [Double($0.noteA.id), Double($0.noteB.id), $0.similarity] })
        model.taskIds = JSONColumn.write(context.tasks.map(\.id))
        model.createdAt = now
        try await model.save(on: db)
        let briefing = Briefing(id: Int64(model.id!), date: today, text: text, author: author, createdAt: now, notes: context.newNotes,
                                threads: context.threads, associations: context.associations, tasks: context.tasks)
        await services.events.announce(.briefingReady(briefing))
        return briefing
    }

    /// A stored briefing with what it drew on, read again (a note or thread gone since is left out).
    func wire(_ model: BriefingModel) async throws -> Briefing {
        let noteIds = (JSONColumn.read([Int].self, model.noteIds) ?? [])
        let threadIds = (JSONColumn.read([Int].self, model.threadIds) ?? [])
        let taskIds = (JSONColumn.read([Int].self, model.taskIds) ?? [])
        let pairs = (JSONColumn.read([[Double]].self, model.associations) ?? []).filter { $0.count == 3 }
        let store = NoteStore(db: db)
        let notes = try await store.notes(ids: noteIds)
        let threadModels = threadIds.isEmpty ? [] : try await ThreadModel.query(on: db).filter(\.$id ~~ threadIds).all()
        let threads = try await ThreadStore(db: db).wire(threadModels)
        let threadOrder = Dictionary(uniqueKeysWithValues: threadIds.enumerated().map { ($1, $0) })
        let tasks = taskIds.isEmpty ? [] : try await ThreadTaskModel.query(on: db).filter(\.$id ~~ taskIds).all().map(\.wire)
        let pairNotes = try await store.notes(ids: pairs.flatMap { [Int($0[0]), Int($0[1])] })
        let byId = Dictionary(pairNotes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let associations = pairs.compactMap { p -> Association? in
            guard let a = byId[Int64(p[0])], let b = byId[Int64(p[1])] else { return nil }
            return Association(noteA: a, noteB: b, similarity: p[2], threadA: a.threadId.map { ThreadRef(id: $0, name: a.threadName ?? "") },
                               threadB: b.threadId.map { ThreadRef(id: $0, name: b.threadName ?? "") })
        }
        return Briefing(id: Int64(model.id!), date: model.date, text: model.text, author: BriefingAuthor(rawValue: model.author) ?? .extractive,
                        createdAt: model.createdAt, notes: notes,
                        threads: threads.sorted { threadOrder[Int($0.id)] ?? 0 < threadOrder[Int($1.id)] ?? 0 },
                        associations: associations, tasks: tasks)
    }

    /// Distinct pairs of associated notes in different threads, at least `minSimilarity`
    /// similar, one of them written in the last `recentDays` days; most similar first.
    func associations(minSimilarity: Double, recentDays: Int, limit: Int) async throws -> [Association] {
        let recent = services.clock.now().addingTimeInterval(-Double(recentDays) * 86_400)
        let rows = try await db.sql.raw("""
            SELECT a.note_a_id, a.note_b_id, a.similarity FROM note_associations a
            JOIN thread_notes ta ON ta.note_id = a.note_a_id
            JOIN thread_notes tb ON tb.note_id = a.note_b_id
            JOIN notes na ON na.id = a.note_a_id
            JOIN notes nb ON nb.id = a.note_b_id
            WHERE a.similarity >= \(bind: minSimilarity) AND ta.thread_id <> tb.thread_id
              AND (na.created_at >= \(bind: recent) OR nb.created_at >= \(bind: recent))
            ORDER BY a.similarity DESC, a.id LIMIT \(bind: limit)
            """).all()
        let pairs = try rows.map { (try $0.decode(column: "note_a_id", as: Int.self), try $0.decode(column: "note_b_id", as: Int.self),
                                     try $0.decode(column: "similarity", as: Double.self)) }
        let notes = try await NoteStore(db: db).notes(ids: pairs.flatMap { [$0.0, $0.1] })
        let byId = Dictionary(notes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return pairs.compactMap { a, b, similarity in
            guard let na = byId[Int64(a)], let nb = byId[Int64(b)] else { return nil }
            return Association(noteA: na, noteB: nb, similarity: similarity,
                               threadA: na.threadId.map { ThreadRef(id: $0, name: na.threadName ?? "") },
                               threadB: nb.threadId.map { ThreadRef(id: $0, name: nb.threadName ?? "") })
        }
    }

    /// When the next scheduled briefing is due after `now` (the configured time of day, local time).
    func nextRun(after now: Date) -> Date? {
        guard let hour = services.config.briefingHour else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = services.config.timeZone
        var next = calendar.date(bySettingHour: hour, minute: services.config.briefingMinute, second: 0, of: now) ?? now
        if next <= now { next = calendar.date(byAdding: .day, value: 1, to: next) ?? now.addingTimeInterval(86_400) }
        return next
    }
}
