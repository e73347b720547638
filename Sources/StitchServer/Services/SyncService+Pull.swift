import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The pull: up to a page of changes past the cursor, in the order they committed.
extension SyncService {
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
}
