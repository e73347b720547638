import FluentKit
import Foundation
import PostgresNIO
import SQLKit
import StitchCore

// The two statements of the busiest paths, prepared once per PostgreSQL connection: the sign-in
// check every authenticated request makes, and the pull's probe. PostgreSQL otherwise parses and
// plans each of them on every request (the probe's seven subqueries took longer to plan than to
// run: about 1.5 ms of a 2.5 ms round trip here). Their plans don't depend on the values bound
// (primary-key and index lookups), so the prepared generic plan is the plan they would get anyway.
// SQLite runs the same SQL through SQLKit.

extension Database {
    /// Runs `statement` prepared on PostgreSQL (preparing it the first time a connection sees it);
    /// nil on other databases.
    func prepared<S: PostgresPreparedStatement>(_ statement: S) async throws -> [S.Row]? where S.Row: Sendable {
        guard let postgres = self as? any PostgresDatabase else { return nil }
        return try await postgres.withConnection { connection in
            connection.eventLoop.makeFutureWithTask {
                var rows: [S.Row] = []
                for try await row in try await connection.execute(statement, logger: connection.logger) { rows.append(row) }
                return rows
            }
        }.get()
    }
}

/// The sign-in is live (its refresh-token family not revoked), and the user's sync version.
struct SessionCheck: PostgresPreparedStatement {
    static let sql = """
        SELECT u.sync_version FROM refresh_tokens t JOIN users u ON u.id = t.user_id \
        WHERE t.family_id = $1 AND t.user_id = $2 AND t.revoked_at IS NULL LIMIT 1
        """
    typealias Row = Int64
    var sessionId: UUID
    var userId: UUID

    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(sessionId)
        binds.append(userId)
        return binds
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 {
        try row.decode(Int64.self)
    }
}

/// The user's sync version and, for each kind of record in rank order, whether it has rows at
/// versions from `$2` up to it (see `SyncService.probe`).
struct PullProbe: PostgresPreparedStatement {
    static let sql: String = {
        var sql = "SELECT u.sync_version"
        for type in EntityType.allCases.sorted(by: { $0.dependencyRank < $1.dependencyRank }) {
            sql += ", EXISTS (SELECT 1 FROM \(SyncService.table(type)) r WHERE r.user_id = u.id AND r.version >= $2 AND r.version <= u.sync_version)"
        }
        return sql + " FROM users u WHERE u.id = $1"
    }()
    typealias Row = SyncService.Probe
    var userId: UUID
    var version: Int64

    func makeBindings() throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 2)
        binds.append(userId)
        binds.append(version)
        return binds
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        var cells = row.makeIterator()
        guard let first = cells.next() else { throw RowDecodingError(column: 0, expected: "the sync version") }
        let highWater = try first.decode(Int64.self)
        var pending = Set<EntityType>()
        for type in EntityType.allCases.sorted(by: { $0.dependencyRank < $1.dependencyRank }) {
            guard let cell = cells.next() else { throw RowDecodingError(column: type.dependencyRank + 1, expected: "a flag") }
            if try cell.decode(Bool.self) { pending.insert(type) }
        }
        return (highWater, pending)
    }
}
