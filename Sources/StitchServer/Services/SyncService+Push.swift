import Fluent
import Foundation
import ServerCommon
import SQLKit
import StitchCore
import Vapor

/// The push: each change checked, the winners (last write by `updatedAt`) written in one transaction.
extension SyncService {
    struct PushOutcome {
        var results: [SyncResult] = []
        var serverCopies: [SyncChange] = []
        /// The version the push's writes took, if it wrote anything.
        var version: Int64?
        /// Records whose server copy is now exactly what the client sent.
        var echoes: Set<RecordKey> = []
        /// How many rows the push wrote, by table.
        var rowsWritten: [String: Int] = [:]
    }

    /// Everything the push decided so far, by entity: the post-push state references are checked against.
    final class PushState {
        let userId: UUID
        var accepted: [EntityType: [UUID: any SyncRecord]] = [:]
        var owned: [EntityType: Set<UUID>] = [:]
        var sectionProject: [UUID: UUID] = [:]
        init(userId: UUID) { self.userId = userId }
    }

    static func apply(_ changes: [SyncChange], userId: UUID, app: Application, db: any Database) async throws -> PushOutcome {
        // Lock the user's row first (no bump yet): pushes and REST writes of one user run one at a time.
        let base = try await lockUser(userId, db: db)
        let now = app.clock.now()
        var outcome = PushOutcome()
        var writes = Writes()
        let state = PushState(userId: userId)
        let byType = Dictionary(grouping: changes.enumerated(), by: { $0.element.type })
        var resultsByIndex: [Int: SyncResult] = [:]

        for type in EntityType.allCases.sorted(by: { $0.dependencyRank < $1.dependencyRank }) {
            guard let group = byType[type] else { continue }
            func run<M: RecordModel>(_ model: M.Type) async throws {
                let done = try await process(M.self, group, state: state, now: now, db: db)
                resultsByIndex.merge(done.results) { _, new in new }
                outcome.serverCopies += done.serverCopies
                outcome.echoes.formUnion(done.echoes)
                for record in done.winners { writes.add(record) }
            }
            switch type {
            case .thread: try await run(ThreadModel.self)
            case .canvas: try await run(CanvasModel.self)
            case .project: try await run(ProjectModel.self)
            case .projectSection: try await run(SectionModel.self)
            case .projectThread: try await run(RequirementModel.self)
            case .journalEntry: try await run(JournalEntryModel.self)
            case .journalImage: try await run(JournalImageModel.self)
            case .pattern: try await run(PatternModel.self)
            case .shoppingLine: try await run(ShoppingLineModel.self)
            }
        }
        outcome.results = changes.indices.compactMap { resultsByIndex[$0] }

        if !writes.isEmpty {
            let version = base + 1
            try await db.sql.update(UserModel.schema).set("sync_version", to: SQLBind(version))
                .where("id", .equal, SQLUUID(userId)).run()
            try await writes.run(userId: userId, version: version, db: db, faults: app.syncFaults)
            outcome.version = version
            outcome.rowsWritten = writes.counts
        }
        return outcome
    }

    static func lockUser(_ userId: UUID, db: any Database) async throws -> Int64 {
        let rows = try await db.sql.update(UserModel.schema)
            .set(SQLIdentifier("sync_version"), to: SQLIdentifier("sync_version"))
            .where("id", .equal, SQLUUID(userId))
            .returning("sync_version")
            .all()
        guard let row = rows.first else { throw APIError.unauthorized }
        return try row.decode(column: "sync_version", as: Int64.self)
    }

    /// Winning records waiting to be written, by model.
    struct Writes {
        var threads: [InventoryThread] = []
        var canvases: [Canvas] = []
        var projects: [Project] = []
        var sections: [ProjectSection] = []
        var requirements: [ProjectThread] = []
        var entries: [JournalEntry] = []
        var images: [JournalImage] = []
        var patterns: [Pattern] = []
        var shoppingLines: [ShoppingLine] = []

        var counts: [String: Int] {
            [ThreadModel.schema: threads.count, CanvasModel.schema: canvases.count, ProjectModel.schema: projects.count,
             SectionModel.schema: sections.count, RequirementModel.schema: requirements.count,
             JournalEntryModel.schema: entries.count, JournalImageModel.schema: images.count,
             PatternModel.schema: patterns.count, ShoppingLineModel.schema: shoppingLines.count]
        }

        var isEmpty: Bool {
            threads.isEmpty && canvases.isEmpty && projects.isEmpty && sections.isEmpty && requirements.isEmpty
                && entries.isEmpty && images.isEmpty && patterns.isEmpty && shoppingLines.isEmpty
        }

        mutating func add(_ record: any SyncRecord) {
            switch record {
            case let r as InventoryThread: threads.append(r)
            case let r as Canvas: canvases.append(r)
            case let r as Project: projects.append(r)
            case let r as ProjectSection: sections.append(r)
            case let r as ProjectThread: requirements.append(r)
            case let r as JournalEntry: entries.append(r)
            case let r as JournalImage: images.append(r)
            case let r as Pattern: patterns.append(r)
            case let r as ShoppingLine: shoppingLines.append(r)
            default: preconditionFailure("\(type(of: record)) has no place in a push's writes")
            }
        }

        func run(userId: UUID, version: Int64, db: any Database, faults: SyncFaults?) async throws {
            func write<M: RecordModel>(_ records: [M.Record], _ type: M.Type) async throws {
                try await BatchWriter.upsert(records, as: M.self, userId: userId, version: version, on: db)
            }
            // Projects first give up their canvas, then claim: a canvas changing hands within one
            // push never sees two live projects at once.
            try await write(threads, ThreadModel.self)
            try faults?.afterWriting(.thread)
            try await write(canvases, CanvasModel.self)
            try await write(projects.filter { $0.deletedAt != nil }, ProjectModel.self)
            try await write(projects.filter { $0.deletedAt == nil }, ProjectModel.self)
            try await write(sections, SectionModel.self)
            try await write(requirements, RequirementModel.self)
            try await write(entries, JournalEntryModel.self)
            try await write(images, JournalImageModel.self)
            try await write(patterns, PatternModel.self)
            try await write(shoppingLines, ShoppingLineModel.self)
        }
    }

    /// What one entity's changes came to: a result for each, the server's copies and echoes to
    /// send back, and the winners to write in the order they were first accepted.
    struct GroupOutcome<R: SyncRecord> {
        var results: [Int: SyncResult] = [:]
        var serverCopies: [SyncChange] = []
        var echoes: Set<RecordKey> = []
        var winners: [R] { order.compactMap { accepted[$0] } }
        fileprivate var accepted: [UUID: R] = [:]
        fileprivate var order: [UUID] = []
        fileprivate var copiedBack = Set<UUID>()
    }

    /// What happens to one change.
    enum Verdict<R: SyncRecord> {
        case rejected(String, fields: [String: String]? = nil)
        /// A delete of a record that never reached the server.
        case nothingToDelete(clamped: Bool)
        /// The server's copy is newer (`ConflictRule`): it goes back to the device.
        case stale(current: R, clamped: Bool)
        /// The server holds exactly this already.
        case same(clamped: Bool)
        /// It wins; `copyBack` when it is stored otherwise than it was sent.
        case accepted(R, copyBack: Bool, clamped: Bool)
    }

    /// One entity's changes, in the order sent: each checked against what is stored and what this
    /// push accepted before it (`verdict`), then its outcome written down (`GroupOutcome.record`).
    static func process<M: RecordModel>(_ type: M.Type, _ group: [(offset: Int, element: SyncChange)], state: PushState, now: Date,
                                        db: any Database) async throws -> GroupOutcome<M.Record> {
        let stored = try await storedRecords(M.self, ids: Array(Set(group.map(\.element.id))), db: db)
        var outcome = GroupOutcome<M.Record>()
        for (index, change) in group {
            let verdict = try await verdict(M.self, change, stored: stored, accepted: outcome.accepted, state: state, now: now, db: db)
            if case .accepted(let record, _, _) = verdict { state.accepted[M.Record.entityType, default: [:]][change.id] = record }
            try outcome.record(verdict, for: change, at: index, stored: stored, userId: state.userId)
        }
        return outcome
    }

    /// The stored records of `ids`, with their owners (another user's id can't be taken).
    static func storedRecords<M: RecordModel>(_ type: M.Type, ids: [UUID], db: any Database) async throws -> [UUID: (userId: UUID, record: M.Record)] {
        var current: [UUID: (userId: UUID, record: M.Record)] = [:]
        for stored in try await db.selectRecords(M.self, M.select(on: db).where(SQLUUIDIn("id", ids))) {
            current[stored.record.id] = (stored.userId, stored.record)
        }
        return current
    }

    /// A change's verdict: owner, clock, its data, last write wins, then what it refers to.
    static func verdict<M: RecordModel>(_ type: M.Type, _ change: SyncChange, stored: [UUID: (userId: UUID, record: M.Record)],
                                        accepted: [UUID: M.Record], state: PushState, now: Date, db: any Database) async throws -> Verdict<M.Record> {
        if let owner = stored[change.id]?.userId, owner != state.userId { return .rejected("This id can't be used") }
        let (envelope, clamped) = clampedClock(change, now: now)
        let existing = accepted[change.id] ?? stored[change.id]?.record
        var incoming: M.Record, asSent: M.Record?
        switch incomingRecord(M.self, envelope, existing: existing) {
        case .failure(let rejection): return rejection.verdict
        case .success(nil): return .nothingToDelete(clamped: clamped)
        case .success(let found?): (incoming, asSent) = found
        }
        if let existing {
            switch ConflictRule.resolve(incoming: incoming, current: existing) {
            case .current: return .stale(current: existing, clamped: clamped)
            case .same: return .same(clamped: clamped)
            case .incoming: break
            }
            // The creation date is the server's to keep once it has one (a journal entry's
            // is its date, the stitcher's to change).
            if !M.Record.createdAtIsEditable { incoming.createdAt = existing.createdAt }
        }
        if incoming.deletedAt == nil, let problem = try await referenceProblem(incoming, state: state, db: db) {
            return .rejected(problem.message, fields: problem.fields)
        }
        // Stored differently from how it was sent: the client gets the server's copy.
        return .accepted(incoming, copyBack: asSent.map { clamped || $0 != incoming } ?? false, clamped: clamped)
    }

    /// A device whose clock runs ahead must not pin a record forever: its times past the allowed
    /// skew become now.
    static func clampedClock(_ change: SyncChange, now: Date) -> (SyncChange, clamped: Bool) {
        let limit = now.addingTimeInterval(ConflictRule.maxClockSkew)
        var envelope = change, clamped = false
        if envelope.updatedAt > limit { envelope.updatedAt = now; clamped = true }
        if let deletedAt = envelope.deletedAt, deletedAt > limit { envelope.deletedAt = now; clamped = true }
        return (envelope, clamped)
    }

    /// The record a change would make (and as it was sent, for an upsert), nil for a delete of
    /// nothing, or why its data is refused.
    static func incomingRecord<M: RecordModel>(_ type: M.Type, _ envelope: SyncChange, existing: M.Record?)
        -> Result<(record: M.Record, asSent: M.Record?)?, RejectedChange<M.Record>> {
        switch envelope.action {
        case .upsert:
            let sent: M.Record
            do { sent = try envelope.record(as: M.Record.self) } catch let error as DecodingError {
                let (field, message) = DecodingFailure.describe(error)
                return .failure(RejectedChange(.rejected("The change's data is not valid: \(message)", fields: field.map { [$0: message] })))
            } catch {
                return .failure(RejectedChange(.rejected("The change's data is not valid")))
            }
            let incoming = sent.normalized
            if incoming.deletedAt == nil, case let problems = incoming.validationErrors, !problems.isEmpty {
                return .failure(RejectedChange(.rejected("Some fields need attention", fields: problems)))
            }
            return .success((incoming, sent))
        case .delete:
            if var record = existing {
                record.deletedAt = envelope.deletedAt ?? envelope.updatedAt
                record.updatedAt = envelope.updatedAt
                return .success((record, nil))
            }
            if envelope.hasData, var record = try? envelope.record(as: M.Record.self) {
                record.deletedAt = envelope.deletedAt ?? envelope.updatedAt
                return .success((record, nil))
            }
            return .success(nil)
        }
    }

    /// A refusal carried through `Result`.
    struct RejectedChange<R: SyncRecord>: Error {
        let verdict: Verdict<R>
        init(_ verdict: Verdict<R>) { self.verdict = verdict }
    }
}

extension SyncService.GroupOutcome {
    /// Writes down a change's verdict: its result, and what goes back to the device.
    mutating func record(_ verdict: SyncService.Verdict<R>, for change: SyncChange, at index: Int,
                         stored: [UUID: (userId: UUID, record: R)], userId: UUID) throws {
        let entity = R.entityType
        func result(_ status: SyncStatus, clamped: Bool) -> SyncResult {
            SyncResult(id: change.id, type: entity, status: status, clamped: clamped ? true : nil)
        }
        switch verdict {
        case .rejected(let message, let fields):
            results[index] = SyncResult(id: change.id, type: entity, status: .rejected, error: APIErrorBody(error: message, fields: fields))
            // A refused change to a record this user holds here: the device gets the server's
            // copy back, as for a stale one, so it doesn't keep the refused version on its own
            // (it marks the change done). Never another user's copy.
            if accepted[change.id] == nil, let held = stored[change.id], held.userId == userId,
               copiedBack.insert(change.id).inserted, let copy = try? SyncChange(record: held.record) {
                serverCopies.append(copy)
            }
        case .nothingToDelete(let clamped):
            results[index] = result(.applied, clamped: clamped)
        case .stale(let current, let clamped):
            results[index] = result(.stale, clamped: clamped)
            if accepted[change.id] == nil { serverCopies.append(try SyncChange(record: current)) }
        case .same(let clamped):
            results[index] = result(.applied, clamped: clamped)
            echoes.insert(change.key)
        case .accepted(let record, let copyBack, let clamped):
            if accepted[change.id] == nil { order.append(change.id) }
            accepted[change.id] = record
            results[index] = result(.applied, clamped: clamped)
            if copyBack { serverCopies.append(try SyncChange(record: record)) } else { echoes.insert(change.key) }
        }
    }
}
