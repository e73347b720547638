import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// `POST /sync`: applies a client's changes in one transaction (last-write-wins per record) and
/// answers everything past its cursor, in pages, in the order the changes committed.
enum SyncService {
    static func sync(_ request: SyncRequest, userId: UUID, app: Application, db: any Database) async throws -> SyncResponse {
        let (cursor, pageSize) = try parse(request)

        let push = request.changes.isEmpty ? PushOutcome() : try await self.push(request.changes, userId: userId, app: app, db: db)

        let page = try await pull(userId: userId, after: cursor, limit: pageSize, skipVersion: push.version, db: db, faults: app.syncFaults)
        // The server's copy goes back for every stale change and every change the server stored
        // differently from how it was sent (trimmed text, a clamped clock).
        let corrected = Set(push.serverCopies.map(\.key))
        // What the client just pushed and the server holds exactly as sent is not echoed back.
        let pulled = page.changes.filter { !corrected.contains($0.key) && !push.echoes.contains($0.key) }
        return SyncResponse(cursor: page.cursor.encoded, hasMore: page.hasMore, changes: push.serverCopies + pulled, results: push.results)
    }

    /// Applies pushed changes in one transaction (last write wins by each change's `updatedAt`).
    static func push(_ changes: [SyncChange], userId: UUID, app: Application, db: any Database) async throws -> PushOutcome {
        let push = try await db.writeTransaction { db in
            try await apply(changes, userId: userId, app: app, db: db)
        }
        app.tableStatistics.refresh(afterWriting: push.rowsWritten, on: app.db)
        return push
    }

    /// The request's cursor and page size, checked.
    static func parse(_ request: SyncRequest) throws -> (cursor: SyncCursor, pageSize: Int) {
        let limit = request.limit ?? SyncRequest.defaultLimit
        guard limit >= 1 else { throw APIError.validation(["limit": "limit must be at least 1"]) }
        var cursor = SyncCursor.start
        if let raw = request.cursor {
            // Not one this server issued: the client's sync state doesn't match the server's, so
            // it must start over (409, which StitchKit answers by pulling from the start).
            guard let parsed = SyncCursor(encoded: raw) else {
                throw APIError(.conflict, "Unknown cursor; sync again from the start", fields: ["cursor": "Unknown cursor; sync again from the start"])
            }
            cursor = parsed
        }
        guard request.changes.count <= SyncRequest.maxChanges else {
            throw APIError(.payloadTooLarge, "Send at most \(SyncRequest.maxChanges) changes per request")
        }
        return (cursor, min(limit, SyncRequest.maxLimit))
    }

    // MARK: Push

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
                    let (field, message) = JSONErrorMiddleware.describe(error)
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

    // MARK: References

    struct ReferenceProblem {
        var message: String
        var fields: [String: String]
    }

    /// Checks a live record's references against the state after this push: the user's rows
    /// (deleted ones included: offline edits may refer to them) and what this push accepted.
    static func referenceProblem(_ record: any SyncRecord, state: PushState, db: any Database) async throws -> ReferenceProblem? {
        func owns(_ type: EntityType, _ id: UUID) async throws -> Bool {
            if state.accepted[type]?[id] != nil || state.owned[type]?.contains(id) == true { return true }
            let table = Self.table(type)
            let rows = try await db.sql.select().column("id").from(table)
                .where("id", .equal, SQLUUID(id)).where("user_id", .equal, SQLUUID(state.userId)).all()
            if !rows.isEmpty { state.owned[type, default: []].insert(id) }
            return !rows.isEmpty
        }
        switch record {
        case let project as Project:
            // A project from a chart, or from nothing yet, has no canvas to check.
            guard let canvasId = project.canvasId else { break }
            guard try await owns(.canvas, canvasId) else { return .init(message: "No such canvas", fields: ["canvasId": "No such canvas"]) }
            // One live project per canvas, counting what this push changes.
            let pushed = (state.accepted[.project] ?? [:]).values.compactMap { $0 as? Project }
            if pushed.contains(where: { $0.id != project.id && $0.canvasId == project.canvasId && $0.deletedAt == nil }) {
                return .init(message: "This canvas already has a project", fields: ["canvasId": "Already has a project"])
            }
            let rows = try await Records.matching(ProjectModel.self, on: db) {
                $0.where("canvas_id", .equal, SQLUUID(canvasId)).where("id", .notEqual, SQLUUID(project.id))
            }
            let stillLive = rows.filter { row in
                guard let replaced = state.accepted[.project]?[row.id!] as? Project else { return true }
                return replaced.deletedAt == nil && replaced.canvasId == project.canvasId
            }
            if !stillLive.isEmpty {
                return .init(message: "This canvas already has a project", fields: ["canvasId": "Already has a project"])
            }
        case let section as ProjectSection:
            if !(try await owns(.project, section.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
        case let requirement as ProjectThread:
            if !(try await owns(.project, requirement.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
            if let threadId = requirement.threadId, !(try await owns(.thread, threadId)) {
                return .init(message: "No such thread", fields: ["threadId": "No such thread in your inventory"])
            }
            if let sectionId = requirement.sectionId {
                var sectionProject = (state.accepted[.projectSection]?[sectionId] as? ProjectSection)?.projectId
                if sectionProject == nil {
                    let sections = try await Records.matching(SectionModel.self, userId: state.userId, includingDeleted: true, on: db) {
                        $0.where("id", .equal, SQLUUID(sectionId))
                    }
                    sectionProject = sections.first?.projectId
                }
                if sectionProject != requirement.projectId {
                    return .init(message: "No such section in this project", fields: ["sectionId": "No such section in this project"])
                }
            }
        case let entry as JournalEntry:
            if !(try await owns(.project, entry.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
        case let image as JournalImage:
            if !(try await owns(.journalEntry, image.entryId)) { return .init(message: "No such journal entry", fields: ["entryId": "No such journal entry"]) }
            if try await Images.owned(image.imageKey, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the picture first", fields: ["imageKey": "No such image"])
            }
        case let pattern as Pattern:
            if !(try await owns(.project, pattern.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
            if try await Images.owned(pattern.fileKey, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the pattern's file first", fields: ["fileKey": "No such file"])
            }
        case let canvas as Canvas:
            if let key = canvas.imageKey, try await Images.owned(key, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the picture first", fields: ["imageKey": "No such image"])
            }
        default:
            break
        }
        return nil
    }

    static func table(_ type: EntityType) -> String {
        switch type {
        case .thread: ThreadModel.schema
        case .canvas: CanvasModel.schema
        case .project: ProjectModel.schema
        case .projectSection: SectionModel.schema
        case .projectThread: RequirementModel.schema
        case .journalEntry: JournalEntryModel.schema
        case .journalImage: JournalImageModel.schema
        case .pattern: PatternModel.schema
        case .shoppingLine: ShoppingLineModel.schema
        }
    }

    // MARK: Pull

    struct Page {
        var changes: [SyncChange]
        var cursor: SyncCursor
        var hasMore: Bool
    }

    /// Up to `limit` changes after `cursor`, in (version, entity, id) order.
    static func pull(userId: UUID, after cursor: SyncCursor, limit: Int, skipVersion: Int64?, db: any Database, faults: SyncFaults? = nil,
                     probed: Probe? = nil) async throws -> Page {
        // Part-way through the rows of one version (a big push: thousands of records at one
        // version), the page starts with more of them: the cursor's own table's next rows at the
        // cursor's version sort before anything else still to come (other tables' rows at this
        // version sort wholly before or after the table's, and every other version before or
        // after this one), and the version is committed (an earlier page was bounded by a
        // high-water mark at or above it). If they fill the page, that page is one indexed read;
        // if not, the rest of the page comes after them.
        var first: [(SyncCursor, SyncChange)] = []
        var from = cursor
        // (A cursor past a version's last possible id, where every complete pull ends, has none.)
        if let id = cursor.id, id != lastId, cursor.version != skipVersion, let type = EntityType.allCases.first(where: { $0.dependencyRank == cursor.rank }) {
            first = try await withModel(type) { model in
                try await fetchWithinVersion(model, userId: userId, version: cursor.version, after: id, limit: limit, db: db)
            }
            if first.count > limit {
                let page = first.prefix(limit)
                return Page(changes: page.map(\.1), cursor: page.last!.0, hasMore: true)
            }
            from = first.last?.0 ?? cursor
        }
        let wanted = limit - first.count
        // Read the high-water mark first: every row at or below it has committed (versions are
        // handed out under the user's row lock, in commit order). Rows above it are left for the
        // next pull: the tables are read one after another, so a write committing in between
        // could show in a later table but not an earlier one, and a cursor past it would skip
        // the earlier table's rows for good. The same statement says which tables have anything
        // past the cursor, so a page reads only those (usually one).
        // (A probe already made from the cursor's version stands: `from` is at that version too.)
        var probed = from.version == cursor.version ? probed : nil
        if probed == nil { probed = try await probe(userId: userId, from: from.version, db: db) }
        let (highWater, pending) = probed!
        var rows: [(SyncCursor, SyncChange)] = []
        var tablesRead = 0
        func read<M: RecordModel>(_ type: M.Type) async throws {
            guard pending.contains(M.Record.entityType) else { return }
            let more = try await fetch(M.self, userId: userId, after: from, limit: wanted, highWater: highWater, skip: skipVersion, db: db)
            if !more.isEmpty { tablesRead += 1 }
            rows += more
            try await faults?.afterReading?(M.Record.entityType)
        }
        try await read(ThreadModel.self)
        try await read(CanvasModel.self)
        try await read(ProjectModel.self)
        try await read(SectionModel.self)
        try await read(RequirementModel.self)
        try await read(JournalEntryModel.self)
        try await read(JournalImageModel.self)
        try await read(PatternModel.self)
        try await read(ShoppingLineModel.self)
        // Each table's rows come in order; only rows from several tables need sorting together.
        if tablesRead > 1 { rows.sort { $0.0 < $1.0 } }
        let hasMore = rows.count > wanted
        let page = first + rows.prefix(wanted)
        var next = page.last?.0 ?? from
        if !hasMore {
            let end = SyncCursor(version: highWater, rank: EntityType.lastRank, id: lastId)
            if next < end { next = end }
        }
        return Page(changes: page.map(\.1), cursor: next, hasMore: hasMore)
    }

    /// The greatest id: a cursor there is past every row of its version and kind.
    static let lastId = UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))

    /// Runs `body` with the model that stores `type`.
    static func withModel<T>(_ type: EntityType, _ body: (any RecordModel.Type) async throws -> T) async rethrows -> T {
        switch type {
        case .thread: try await body(ThreadModel.self)
        case .canvas: try await body(CanvasModel.self)
        case .project: try await body(ProjectModel.self)
        case .projectSection: try await body(SectionModel.self)
        case .projectThread: try await body(RequirementModel.self)
        case .journalEntry: try await body(JournalEntryModel.self)
        case .journalImage: try await body(JournalImageModel.self)
        case .pattern: try await body(PatternModel.self)
        case .shoppingLine: try await body(ShoppingLineModel.self)
        }
    }

    /// Up to `limit + 1` of the user's rows of one kind at exactly `version`, after `id`, in id order.
    static func fetchWithinVersion<M: RecordModel>(
        _ type: M.Type, userId: UUID, version: Int64, after id: UUID, limit: Int, db: any Database
    ) async throws -> [(SyncCursor, SyncChange)] {
        let query = M.selectWire(on: db)
            .where("user_id", .equal, SQLUUID(userId))
            .where("version", .equal, SQLBind(version))
            .where("id", .greaterThan, SQLUUID(id))
            .orderBy("version", .ascending).orderBy("id", .ascending)
            .limit(limit + 1)
        return try await changes(M.self, query, db: db)
    }

    /// A user's high-water mark and the kinds of record with rows from a version up to it.
    typealias Probe = (highWater: Int64, pending: Set<EntityType>)

    /// The user's sync version and the kinds of record with rows at versions from `version` up to
    /// it, read in one statement (one snapshot).
    static func probe(userId: UUID, from version: Int64, db: any Database) async throws -> Probe {
        if let rows = try await db.prepared(PullProbe(userId: userId, version: version)) { return rows.first ?? (0, []) }
        var query = SQLQueryString("SELECT u.sync_version AS high_water")
        for type in EntityType.allCases {
            query.appendLiteral(", EXISTS (SELECT 1 FROM \(table(type)) r WHERE r.user_id = u.id AND r.version >= ")
            query.appendInterpolation(bind: version)
            query.appendLiteral(" AND r.version <= u.sync_version) AS has_\(type.dependencyRank)")
        }
        query.appendLiteral(" FROM \(UserModel.schema) u WHERE u.id = ")
        query.appendInterpolation(SQLUUID(userId))
        guard let row = try await db.sql.raw(query).first() else { return (0, []) }
        let highWater = try row.decode(column: "high_water", as: Int64.self)
        let pending = try EntityType.allCases.filter { try row.decode(column: "has_\($0.dependencyRank)", as: Bool.self) }
        return (highWater, Set(pending))
    }

    static func fetch<M: RecordModel>(
        _ type: M.Type, userId: UUID, after cursor: SyncCursor, limit: Int, highWater: Int64, skip: Int64?, db: any Database
    ) async throws -> [(SyncCursor, SyncChange)] {
        let query = fetchQuery(M.self, userId: userId, after: cursor, limit: limit, highWater: highWater, skip: skip, db: db)
        return try await changes(M.self, query, db: db)
    }

    /// The rows `query` selects (a `M.selectWire` query), each as its cursor position and its change.
    static func changes<M: RecordModel>(_ type: M.Type, _ query: SQLSelectBuilder, db: any Database) async throws -> [(SyncCursor, SyncChange)] {
        var reader = WireChangeReader<M>()
        try await db.select(query, columns: M.wireColumns, into: &reader)
        var changes = reader.changes
        // A page's cursor is its last row's place, so the rows must be in (version, id) order;
        // the queries ask for it, and a pass over them makes sure.
        if zip(changes, changes.dropFirst()).contains(where: { !($0.0 < $1.0) }) { changes.sort { $0.0 < $1.0 } }
        return changes
    }

    /// The SELECT of `fetch`: up to `limit + 1` of the user's rows of one kind past `cursor`, up
    /// to `highWater`, in (version, id) order: a range of the (user_id, version, id) index.
    static func fetchQuery<M: RecordModel>(
        _ type: M.Type, userId: UUID, after cursor: SyncCursor, limit: Int, highWater: Int64, skip: Int64?, db: any Database
    ) -> SQLSelectBuilder {
        var query = range(M.selectWire(on: db), rank: M.Record.entityType.dependencyRank, userId: userId, after: cursor)
            .where("version", .lessThanOrEqual, SQLBind(highWater))
        if let skip { query = query.where("version", .notEqual, SQLBind(skip)) }
        return query.orderBy("version", .ascending).orderBy("id", .ascending).limit(limit + 1)
    }

    /// `query` narrowed to the user's rows of the kind ranked `rank` that lie past `cursor`.
    static func range(_ query: SQLSelectBuilder, rank: Int, userId: UUID, after cursor: SyncCursor) -> SQLSelectBuilder {
        let query = query.where("user_id", .equal, SQLUUID(userId))
        if rank < cursor.rank {
            return query.where("version", .greaterThan, SQLBind(cursor.version))
        } else if rank > cursor.rank || cursor.id == nil {
            return query.where("version", .greaterThanOrEqual, SQLBind(cursor.version))
        } else {
            // `(version, id) > (v, id)`: a range scan of the (user_id, version, id) index.
            return query.where(place(.greaterThan, version: cursor.version, id: cursor.id!))
        }
    }

    /// `(version, id) <op> (version, id)`: a row's place against a given one.
    static func place(_ op: SQLBinaryOperator, version: Int64, id: UUID) -> SQLBinaryExpression {
        SQLBinaryExpression(SQLGroupExpression([SQLColumn("version"), SQLColumn("id")]), op,
                            SQLGroupExpression([SQLBind(version), SQLUUID(id)]))
    }

    // MARK: Pages bounded before they are read

    /// A pull page (nothing pushed) whose rows all lie in one table, its bounds read from the
    /// (user_id, version, id) index before any of its rows: the response's headers (its cursor,
    /// whether more follow) go out first, so a client asks for the next page while this one's
    /// rows are still being read, and the two are read side by side (`SyncController`).
    struct PagePlan: Sendable {
        var type: EntityType
        /// The page is the table's rows past `after`…
        var after: SyncCursor
        /// …up to and including `through` (its last row) when more follow, else up to `highWater`.
        var through: SyncCursor?
        var highWater: Int64
        /// The next page's cursor.
        var cursor: SyncCursor
        var hasMore: Bool
    }

    enum PlanOutcome {
        case planned(PagePlan)
        /// The page spans tables: read it whole, with the probe already made.
        case unplanned(probed: Probe)
    }

    /// A pull-only request's page: its plan when it can be bounded first, else the page itself.
    enum PullOnly {
        case planned(PagePlan)
        case page(SyncResponse)
    }

    static func pullOnly(_ request: SyncRequest, userId: UUID, app: Application, db: any Database) async throws -> PullOnly {
        precondition(request.changes.isEmpty)
        let (cursor, pageSize) = try parse(request)
        switch try await plan(userId: userId, after: cursor, limit: pageSize, db: db) {
        case .planned(let plan):
            return .planned(plan)
        case .unplanned(let probed):
            let page = try await pull(userId: userId, after: cursor, limit: pageSize, skipVersion: nil, db: db, faults: app.syncFaults, probed: probed)
            return .page(SyncResponse(cursor: page.cursor.encoded, hasMore: page.hasMore, changes: page.changes, results: []))
        }
    }

    /// The bounds of the page of up to `limit` changes after `cursor`, when they lie in one table.
    static func plan(userId: UUID, after cursor: SyncCursor, limit: Int, db: any Database) async throws -> PlanOutcome {
        // Part-way through a version (see `pull`): the page lies within it when more than
        // `limit` of its rows are still to come.
        if let id = cursor.id, id != lastId, let type = EntityType.allCases.first(where: { $0.dependencyRank == cursor.rank }) {
            let ends = try await withModel(type) { try await pageEnd($0, userId: userId, after: cursor, highWater: cursor.version, limit: limit, db: db) }
            if ends.count > 1 {
                return .planned(PagePlan(type: type, after: cursor, through: ends[0], highWater: cursor.version, cursor: ends[0], hasMore: true))
            }
        }
        // Otherwise the page lies in one table when only one has rows from the cursor's version
        // up to the high-water mark: every row past the cursor is one of them.
        let probed = try await probe(userId: userId, from: cursor.version, db: db)
        guard probed.pending.count == 1, let type = probed.pending.first else { return .unplanned(probed: probed) }
        let ends = try await withModel(type) { try await pageEnd($0, userId: userId, after: cursor, highWater: probed.highWater, limit: limit, db: db) }
        if ends.count > 1 {
            return .planned(PagePlan(type: type, after: cursor, through: ends[0], highWater: probed.highWater, cursor: ends[0], hasMore: true))
        }
        // The rest of the table: the page ends where a whole pull does (as `pull`'s does).
        let end = SyncCursor(version: probed.highWater, rank: EntityType.lastRank, id: lastId)
        return .planned(PagePlan(type: type, after: cursor, through: nil, highWater: probed.highWater, cursor: max(cursor, end), hasMore: false))
    }

    /// The places of the `limit`-th and the next row of the user's rows of one kind past `cursor`
    /// up to `highWater` (fewer when there are fewer): read from the index alone.
    static func pageEnd<M: RecordModel>(
        _ type: M.Type, userId: UUID, after cursor: SyncCursor, highWater: Int64, limit: Int, db: any Database
    ) async throws -> [SyncCursor] {
        let query = range(db.sql.select().column("version").column("id").from(M.schema), rank: M.Record.entityType.dependencyRank, userId: userId, after: cursor)
            .where("version", .lessThanOrEqual, SQLBind(highWater))
            .orderBy("version", .ascending).orderBy("id", .ascending)
            .offset(limit - 1).limit(2)
        var reader = PlaceReader(rank: M.Record.entityType.dependencyRank)
        try await db.select(query, columns: ["version", "id"], into: &reader)
        return reader.places
    }

    /// A planned page's changes as the response's `changes` array: each written straight from
    /// its row (`WireChangeWriter`).
    static func encodedChanges(_ plan: PagePlan, userId: UUID, db: any Database) async throws -> [UInt8] {
        try await withModel(plan.type) { model in try await encodedChanges(model, plan, userId: userId, db: db) }
    }

    private static func encodedChanges<M: RecordModel>(_ type: M.Type, _ plan: PagePlan, userId: UUID, db: any Database) async throws -> [UInt8] {
        var writer = WireChangeWriter<M>()
        try await db.select(planned(M.self, plan, userId: userId, db: db), columns: M.wireColumns, into: &writer)
        if writer.ordered { return writer.close() }
        // Never seen (the query orders the rows): read them again as changes, which sorts them.
        var out: [UInt8] = []
        try await changes(M.self, planned(M.self, plan, userId: userId, db: db), db: db).map(\.1).writeJSON(into: &out)
        return out
    }

    /// The SELECT of a planned page's rows.
    static func planned<M: RecordModel>(_ type: M.Type, _ plan: PagePlan, userId: UUID, db: any Database) -> SQLSelectBuilder {
        var query = range(M.selectWire(on: db), rank: M.Record.entityType.dependencyRank, userId: userId, after: plan.after)
        if let through = plan.through, let id = through.id {
            query = query.where(place(.lessThanOrEqual, version: through.version, id: id))
        } else {
            query = query.where("version", .lessThanOrEqual, SQLBind(plan.highWater))
        }
        // No LIMIT: every row in the bounds belongs to the page. (Between the two reads a row can
        // only leave them, by an update that moves it past the high-water mark, to a later page;
        // none can enter: a version at or below the mark has committed.)
        return query.orderBy("version", .ascending).orderBy("id", .ascending)
    }
}

/// Rows' places (version, id) in a table of one rank.
struct PlaceReader: RowReader {
    let rank: Int
    var places: [SyncCursor] = []

    mutating func read<C: ColumnCursor>(_ c: inout C) throws {
        let version = try c.int64(), id = try c.uuid()
        places.append(SyncCursor(version: version, rank: rank, id: id))
    }
}

/// A test's way into the middle of a sync: make a push fail part-way through its writes (the
/// all-or-nothing promise), commit another write between two of a pull's table reads (the
/// pull's consistency), or hold or fail a page whose headers went out first. Never set in production.
struct SyncFaults: Sendable {
    var afterWriting: @Sendable (EntityType) throws -> Void = { _ in }
    var afterReading: (@Sendable (EntityType) async throws -> Void)? = nil
    /// Runs when a page bounded first has sent its headers, before its rows are read.
    var beforeBoundedRows: (@Sendable () async throws -> Void)? = nil
}

extension Application {
    private struct SyncFaultsKey: StorageKey { typealias Value = SyncFaults }

    var syncFaults: SyncFaults? {
        get { storage[SyncFaultsKey.self] }
        set { storage[SyncFaultsKey.self] = newValue }
    }
}
