import Fluent
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import SQLKit
import Vapor

/// The check behind every API request: the sign-in (refresh-token family) is live, and the
/// user's sync version as of now, which keys cached list pages. It runs on the request's event
/// loop with futures, without a Swift task.
///
/// On PostgreSQL the checks of one event loop's requests are made together: while one query is
/// out, the checks that arrive wait for it and then go as the next query, one row per sign-in
/// (`SessionCheckBatch`). Each check is still answered by a query that began after its request
/// arrived, so a sign-out or a detected token theft takes effect on the very next request, on
/// every server instance. Under load, PostgreSQL and this process handle one query for many
/// requests; with a single request in flight nothing waits.
enum SessionCheck {
    struct Key: Hashable, Sendable {
        let sessionId: UUID
        let userId: UUID
    }

    /// The user's sync version if the sign-in `sessionId` of `userId` is live; nil if it isn't.
    static func version(sessionId: UUID, userId: UUID, app: Application, on eventLoop: any EventLoop) -> EventLoopFuture<Int64?> {
        let loop = app.perLoop.state(for: eventLoop, of: app)
        let key = Key(sessionId: sessionId, userId: userId)
        if let batch = loop.sessionChecks { return batch.version(key) }
        let query: SQLQueryString = """
            SELECT u.sync_version FROM refresh_tokens t JOIN users u ON u.id = t.user_id \
            WHERE t.family_id = \(bind: sessionId) AND t.user_id = \(bind: userId) AND t.revoked_at IS NULL LIMIT 1
            """
        return loop.database.sql.raw(query).first().flatMapThrowing { row in try row?.decode(column: "sync_version", as: Int64.self) }
    }

    /// Many checks in one statement: the sign-ins in `$1` with their users in `$2`, a row for
    /// each that is live.
    static let batchSQL = """
        SELECT k.family_id, k.user_id, u.sync_version \
        FROM unnest($1::uuid[], $2::uuid[]) AS k(family_id, user_id) JOIN users u ON u.id = k.user_id \
        WHERE EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = k.family_id AND t.user_id = k.user_id AND t.revoked_at IS NULL)
        """

    /// The live sign-ins among `keys` and their users' sync versions, in one query.
    static func versions(of keys: [Key], on connection: PostgresConnection) -> EventLoopFuture<[Key: Int64]> {
        let binds = [
            PostgresData(array: keys.map { PostgresData(uuid: $0.sessionId) }, elementType: .uuid),
            PostgresData(array: keys.map { PostgresData(uuid: $0.userId) }, elementType: .uuid),
        ]
        return EventLoopStatements.shared.run(batchSQL, binds: binds, on: connection).flatMapThrowing { rows in
            var versions: [Key: Int64] = [:]
            for row in rows {
                // Rows always come in binary (PostgresNIO's Bind asks for it), but a future-based
                // prepared statement's description says text: read the values' bytes themselves.
                var cells = row.makeIterator()
                guard let sessionId = cells.next().flatMap(uuid), let userId = cells.next().flatMap(uuid),
                      let version = cells.next().flatMap(bigint)
                else { throw RowDecodingError(column: 0, expected: "a sign-in, its user and a bigint sync version") }
                versions[Key(sessionId: sessionId, userId: userId)] = version
            }
            return versions
        }
    }

    /// A binary `uuid` cell's value; nil for anything else.
    private static func uuid(_ cell: PostgresCell) -> UUID? {
        guard var bytes = cell.bytes, bytes.readableBytes == 16 else { return nil }
        return bytes.readUUIDBytes()
    }

    /// A binary `bigint` cell's value; nil for anything else.
    private static func bigint(_ cell: PostgresCell) -> Int64? {
        guard var bytes = cell.bytes, bytes.readableBytes == 8 else { return nil }
        return bytes.readInteger(as: Int64.self)
    }
}

/// The sign-in checks of one event loop (see `SessionCheck`): at most one query out at a time,
/// the checks that arrive meanwhile going together as the next, each sign-in once. Touched only
/// on its loop.
final class SessionCheckBatch: @unchecked Sendable {
    typealias Query = @Sendable ([SessionCheck.Key]) -> EventLoopFuture<[SessionCheck.Key: Int64]>

    private let loop: any EventLoop
    private let query: Query
    private var waiting: [(key: SessionCheck.Key, promise: EventLoopPromise<Int64?>)] = []
    private var querying = false
    /// Queries sent and checks made so far (read on the loop, or with `counts()`).
    private(set) var queries = 0, checks = 0

    init(loop: any EventLoop, query: @escaping Query) {
        self.loop = loop
        self.query = query
    }

    /// The user's sync version if the sign-in is live, nil if it isn't.
    func version(_ key: SessionCheck.Key) -> EventLoopFuture<Int64?> {
        // The HTTP server calls on the loop; anything else (Vapor's in-memory tester) hops to it.
        guard loop.inEventLoop else { return loop.flatSubmit { self.version(key) } }
        let promise = loop.makePromise(of: Int64?.self)
        waiting.append((key, promise))
        if !querying { send() }
        return promise.futureResult
    }

    /// `queries` and `checks`, read on the loop.
    func counts() -> EventLoopFuture<(queries: Int, checks: Int)> {
        loop.submit { (self.queries, self.checks) }
    }

    private func send() {
        let batch = waiting
        waiting = []
        querying = true
        queries += 1
        checks += batch.count
        var keys: [SessionCheck.Key] = [], seen = Set<SessionCheck.Key>()
        for (key, _) in batch where seen.insert(key).inserted { keys.append(key) }
        query(keys).hop(to: loop).whenComplete { result in
            self.querying = false
            switch result {
            case .success(let versions):
                for (key, promise) in batch { promise.succeed(versions[key]) }
            case .failure(let error):
                for (_, promise) in batch { promise.fail(error) }
            }
            if !self.waiting.isEmpty { self.send() }
        }
    }
}

/// What each event loop keeps for the application's life: a database handle (`req.db` builds a
/// new one on every call, and the PostgreSQL driver's costs a runtime lookup of an opaque type's
/// metadata, 2% of a cached list request; a handle is only a way to the loop's connection pool,
/// logging with the application's logger) and the loop's sign-in checks.
final class PerLoop: Sendable {
    struct State: Sendable {
        let database: any Database
        /// On PostgreSQL.
        let sessionChecks: SessionCheckBatch?
    }

    private let states = NIOLockedValueBox<[ObjectIdentifier: State]>([:])

    /// Every loop's state so far.
    var all: [State] { states.withLockedValue { Array($0.values) } }

    func state(for loop: any EventLoop, of app: Application) -> State {
        let key = ObjectIdentifier(loop)
        if let state = states.withLockedValue({ $0[key] }) { return state }
        let database = app.databases.database(logger: app.logger, on: loop)!
        let batch = (database as? any PostgresDatabase).map { postgres in
            SessionCheckBatch(loop: loop) { keys in postgres.withConnection { SessionCheck.versions(of: keys, on: $0) } }
        }
        let made = State(database: database, sessionChecks: batch)
        return states.withLockedValue { states in
            if let state = states[key] { return state }
            states[key] = made
            return made
        }
    }
}

extension Application {
    private struct PerLoopKey: StorageKey { typealias Value = PerLoop }

    var perLoop: PerLoop {
        get { storage[PerLoopKey.self] ?? PerLoop() }
        set { storage[PerLoopKey.self] = newValue }
    }
}
