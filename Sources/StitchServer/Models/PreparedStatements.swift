import FluentKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import SQLKit
import StitchCore

// The statements of the busiest paths, prepared once per PostgreSQL connection: the sign-in check
// every authenticated request makes (`SessionCheck`), and the pull's probe. PostgreSQL otherwise
// parses and plans each of them on every request (the probe's seven subqueries took longer to
// plan than to run: about 1.5 ms of a 2.5 ms round trip here; the single sign-in check 0.07 ms
// to plan and 0.03 to run). Their plans don't depend on the values bound (primary-key and index
// lookups), so the prepared generic plan is the plan they would get anyway. SQLite runs the same
// SQL through SQLKit.

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

/// Statements prepared once per PostgreSQL connection and run from the connection's event loop
/// with futures, so a request that needs nothing else from the database (the sign-in check in
/// front of a cached list page) goes from its socket to PostgreSQL and back without a Swift task
/// or a thread switch. (PostgresNIO runs its `PostgresPreparedStatement`s only from async code:
/// a task per statement, and hops to and from the connection's event loop.) A connection's
/// statements are forgotten when it closes; connection ids are unique in the process.
final class EventLoopStatements: Sendable {
    static let shared = EventLoopStatements()

    private struct Key: Hashable {
        let connection: PostgresConnection.ID
        let sql: String
    }

    private let prepared = NIOLockedValueBox<[Key: PreparedQuery]>([:])

    /// The rows of `sql` with `binds`, preparing it first if `connection` hasn't yet.
    func run(_ sql: String, binds: [PostgresData], on connection: PostgresConnection) -> EventLoopFuture<[PostgresRow]> {
        let key = Key(connection: connection.id, sql: sql)
        if let query = prepared.withLockedValue({ $0[key] }) { return query.execute(binds) }
        return connection.prepare(query: sql).flatMap { query in
            let first = self.prepared.withLockedValue { prepared in
                let first = !prepared.keys.contains { $0.connection == key.connection }
                prepared[key] = query
                return first
            }
            if first {
                connection.closeFuture.whenComplete { _ in
                    self.prepared.withLockedValue { prepared in
                        prepared = prepared.filter { $0.key.connection != key.connection }
                    }
                }
            }
            return query.execute(binds)
        }
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
