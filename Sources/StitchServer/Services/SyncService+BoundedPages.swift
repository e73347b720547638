import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// Pull pages bounded before they are read: the headers go out while the rows are read.
extension SyncService {
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
        let horizon = try await self.horizon(cursor, userId: userId, app: app, db: db)
        switch try await plan(userId: userId, after: cursor, limit: pageSize, db: db) {
        case .planned(var plan):
            plan.cursor.horizon = horizon
            return .planned(plan)
        case .unplanned(let probed):
            var page = try await pull(userId: userId, after: cursor, limit: pageSize, skipVersion: nil, db: db, faults: app.syncFaults, probed: probed)
            page.cursor.horizon = try await self.horizon(cursor, userId: userId, app: app, db: db)
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
