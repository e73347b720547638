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
            switch type {
            case .thread: try await process(ThreadModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .canvas: try await process(CanvasModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .project: try await process(ProjectModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .projectSection: try await process(SectionModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .projectThread: try await process(RequirementModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .journalEntry: try await process(JournalEntryModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .journalImage: try await process(JournalImageModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .pattern: try await process(PatternModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
            case .shoppingLine: try await process(ShoppingLineModel.self, group, state: state, now: now, db: db, app: app, outcome: &outcome, writes: &writes, results: &resultsByIndex)
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

    static func process<M: RecordModel>(
        _ type: M.Type, _ group: [(offset: Int, element: SyncChange)], state: PushState, now: Date, db: any Database,
        app: Application, outcome: inout PushOutcome, writes: inout Writes, results: inout [Int: SyncResult]
    ) async throws {
        let entity = M.Record.entityType
        var current: [UUID: (userId: UUID, record: M.Record)] = [:]
        let ids = Array(Set(group.map(\.element.id)))
        for stored in try await db.selectRecords(M.self, M.select(on: db).where(SQLUUIDIn("id", ids))) {
            current[stored.record.id] = (stored.userId, stored.record)
        }
        var winners: [UUID: M.Record] = [:]
        var order: [UUID] = []
        let limit = now.addingTimeInterval(ConflictRule.maxClockSkew)

        var copiedBack = Set<UUID>()
        for (index, change) in group {
            func reject(_ message: String, fields: [String: String]? = nil) {
                results[index] = SyncResult(id: change.id, type: entity, status: .rejected, error: APIErrorBody(error: message, fields: fields))
                // A refused change to a record this user holds here: the device gets the server's
                // copy back, as for a stale one, so it doesn't keep the refused version on its
                // own (it marks the change done). Never another user's copy.
                if winners[change.id] == nil, let stored = current[change.id], stored.userId == state.userId,
                   copiedBack.insert(change.id).inserted, let copy = try? SyncChange(record: stored.record) {
                    outcome.serverCopies.append(copy)
                }
            }
            if let existing = current[change.id], existing.userId != state.userId {
                reject("This id can't be used")
                continue
            }
            // A device whose clock runs ahead must not pin a record forever.
            var clamped = false
            var envelope = change
            if envelope.updatedAt > limit {
                envelope.updatedAt = now
                clamped = true
            }
            if let deletedAt = envelope.deletedAt, deletedAt > limit { envelope.deletedAt = now; clamped = true }

            let existing = winners[change.id] ?? current[change.id]?.record
            var incoming: M.Record
            var asSent: M.Record?
            switch envelope.action {
            case .upsert:
                do {
                    asSent = try envelope.record(as: M.Record.self)
                    incoming = asSent!.normalized
                } catch let error as DecodingError {
                    let (field, message) = DecodingFailure.describe(error)
                    reject("The change's data is not valid: \(message)", fields: field.map { [$0: message] })
                    continue
                } catch {
                    reject("The change's data is not valid")
                    continue
                }
                if incoming.deletedAt == nil {
                    let problems = incoming.validationErrors
                    if !problems.isEmpty {
                        reject("Some fields need attention", fields: problems)
                        continue
                    }
                }
            case .delete:
                if var record = existing {
                    record.deletedAt = envelope.deletedAt ?? envelope.updatedAt
                    record.updatedAt = envelope.updatedAt
                    incoming = record
                } else if envelope.hasData, let record = try? envelope.record(as: M.Record.self) {
                    incoming = record
                    incoming.deletedAt = envelope.deletedAt ?? envelope.updatedAt
                } else {
                    // Nothing here to delete: the record never reached the server.
                    results[index] = SyncResult(id: change.id, type: entity, status: .applied, clamped: clamped ? true : nil)
                    continue
                }
            }

            if let existing {
                switch ConflictRule.resolve(incoming: incoming, current: existing) {
                case .current:
                    results[index] = SyncResult(id: change.id, type: entity, status: .stale, clamped: clamped ? true : nil)
                    if winners[change.id] == nil { outcome.serverCopies.append(try SyncChange(record: existing)) }
                    continue
                case .same:
                    results[index] = SyncResult(id: change.id, type: entity, status: .applied, clamped: clamped ? true : nil)
                    outcome.echoes.insert(change.key)
                    continue
                case .incoming:
                    break
                }
                // The creation date is the server's to keep once it has one (a journal entry's
                // is its date, the stitcher's to change).
                if !M.Record.createdAtIsEditable { incoming.createdAt = existing.createdAt }
            }
            if incoming.deletedAt == nil, let problem = try await referenceProblem(incoming, state: state, db: db) {
                reject(problem.message, fields: problem.fields)
                continue
            }
            if winners[change.id] == nil { order.append(change.id) }
            winners[change.id] = incoming
            state.accepted[entity, default: [:]][change.id] = incoming
            results[index] = SyncResult(id: change.id, type: entity, status: .applied, clamped: clamped ? true : nil)
            // Stored differently from how it was sent: the client gets the server's copy.
            if let asSent, clamped || asSent != incoming {
                outcome.serverCopies.append(try SyncChange(record: incoming))
            } else {
                outcome.echoes.insert(change.key)
            }
        }
        for id in order { if let record = winners[id] { writes.add(record) } }
    }
}
