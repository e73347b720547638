import Fluent
import FluentSQLiteDriver
import Foundation
import PostgresNIO
import SQLKit
import StitchCore
@_spi(Bench) import StitchServer
import Vapor

/// The database's own speed, for `stitch-bench` to compare the API against: the same rows written
/// with batched raw SQL (one multi-row upsert per chunk in one transaction) and read with a bare SELECT.
enum BenchBaseline {
    /// The benchmark's own routes, registered before the server starts (a route added later is
    /// never served): `/bench/constant`, `body` with no sign-in (the "bare route");
    /// `/bench/signed-in`, the same body behind the sign-in every API request passes (what any
    /// authenticated request costs before it does anything); `/bench/big`, `bigBytes` bytes.
    /// Only stitch-bench registers them; the app's own `routes` never does.
    static func registerRoutes(_ app: Application, body: Data, bigBytes: Int) {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        let constant = ByteBuffer(data: body), big = ByteBuffer(repeating: UInt8(ascii: "x"), count: bigBytes)
        app.get("bench", "constant") { _ in Response(status: .ok, headers: headers, body: .init(buffer: constant)) }
        app.grouped(BenchAccess.requireUser).get("bench", "signed-in") { _ in Response(status: .ok, headers: headers, body: .init(buffer: constant)) }
        app.get("bench", "big") { _ in Response(status: .ok, headers: headers, body: .init(buffer: big)) }
    }

    static func createUser(_ id: UUID, email: String, on db: any Database) async throws {
        try await BenchAccess.createUser(id, email: email, on: db)
    }

    static func upsertThreads(_ records: [InventoryThread], userId: UUID, version: Int64, on db: any Database) async throws {
        try await BenchAccess.upsertThreads(records, userId: userId, version: version, on: db)
    }

    /// Times a push's read of the current rows of the records it carries (`--stages`), for ids
    /// that are stored and for ids that aren't (a push of new records), each the fastest of five.
    static func pushStages(ids: [UUID], on db: any Database) async throws {
        func read(_ ids: [UUID]) async throws {
            _ = try await BenchAccess.readThreads(ids: ids, on: db)
        }
        try await stage("push: current rows of \(ids.count)") { try await read(ids) }
        let absent = ids.map { _ in UUID() }
        try await stage("push: \(ids.count) ids, none stored") { try await read(absent) }
    }

    /// Reads every column of the user's threads; answers how many rows came back.
    static func selectThreads(userId: UUID, on db: any Database) async throws -> Int {
        try await db.rawSQL.select().column("*").from(BenchAccess.threadTable).where("user_id", .equal, SQLBind(userId)).all().count
    }

    /// SQLite: the same SELECT with its rows taken on the thread that steps the statement (the
    /// connection's async query, as the server's own reads are since 2026-11-29) rather than each
    /// handed to the event loop as SQLKit's `all()` does: the floor under the server's reads. Nil
    /// on PostgreSQL.
    static func selectThreadsOnConnection(userId: UUID, on db: any Database) async throws -> Int? {
        guard let sqlite = db as? any SQLiteDatabase else { return nil }
        var serializer = SQLSerializer(database: db.rawSQL)
        db.rawSQL.select().column("*").from(BenchAccess.threadTable).where("user_id", .equal, SQLBind(userId)).select.serialize(to: &serializer)
        let encoder = SQLiteDataEncoder()
        let binds = try serializer.binds.map { try encoder.encode($0) }
        let sql = serializer.sql
        return try await sqlite.withConnection { connection in
            connection.eventLoop.makeFutureWithTask {
                nonisolated(unsafe) var rows: [SQLiteRow] = []
                try await connection.query(sql, binds) { rows.append($0) }
                return rows.count
            }
        }.get()
    }

    /// The same SELECT, with every value read into its Swift type. SQLite's driver does that for
    /// any SELECT (its rows hold values), PostgreSQL's keeps the bytes until asked, so on
    /// PostgreSQL the bare SELECT above never looks at a value; this is the fairer floor for
    /// anything that uses the rows.
    static func selectThreadsReadingValues(userId: UUID, on db: any Database) async throws -> Int {
        guard let postgres = db as? any PostgresDatabase else { return try await selectThreads(userId: userId, on: db) }
        var binds = PostgresBindings()
        binds.append(userId)
        let query = PostgresQuery(unsafeSQL: "SELECT * FROM \(BenchAccess.threadTable) WHERE user_id = $1", binds: binds)
        return try await postgres.withConnection { connection in
            connection.eventLoop.makeFutureWithTask {
                var count = 0
                for try await row in try await connection.query(query, logger: connection.logger) {
                    for cell in row where cell.bytes != nil {
                        switch cell.dataType {
                        case .uuid: _ = try cell.decode(UUID.self)
                        case .int8, .int4, .int2: _ = try cell.decode(Int64.self)
                        case .timestamptz, .timestamp: _ = try cell.decode(Date.self)
                        default: _ = try cell.decode(String.self)
                        }
                    }
                    count += 1
                }
                return count
            }
        }.get()
    }
}

extension BenchBaseline {
    /// A measured duration in seconds.
    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs `body` five times and prints the fastest as a stage (the machine's other tenants only
    /// ever add time).
    static func stage(_ label: String, _ body: () async throws -> Void) async rethrows {
        var fastest = Double.infinity
        for _ in 0..<5 {
            let start = ContinuousClock.now
            try await body()
            fastest = min(fastest, seconds(ContinuousClock.now - start))
        }
        printStage(label, seconds: fastest)
    }

    /// One line of `--stages`: what was timed and how long it took (and anything after that).
    static func printStage(_ label: String, seconds: Double, _ more: String = "") {
        print("  stage " + label.padding(toLength: 32, withPad: " ", startingAt: 0) + String(format: "%8.1f ms", seconds * 1000) + more)
    }

    /// Times each part of a pull of the user's threads in-process and prints it: where a pull's
    /// time goes, next to the bare SELECT, each part the fastest of five.
    static func stages(userId: UUID, on db: any Database) async throws {
        var page: (changes: [SyncChange], cursor: SyncCursor, hasMore: Bool)!
        try await stage("pull query + rows → changes") { page = try await BenchAccess.pull(userId: userId, after: .start, limit: SyncRequest.maxChanges, on: db) }
        try await stage("bare select") { _ = try await db.rawSQL.select().columns(BenchAccess.threadColumns.map { SQLColumn($0) }).from(BenchAccess.threadTable).where("user_id", .equal, SQLBind(userId)).all() }
        try await stage("select → records") { _ = try await BenchAccess.readThreads(userId: userId, on: db) }
        let response = SyncResponse(cursor: page.cursor.encoded, hasMore: false, changes: page.changes, results: [])
        var bytes: [UInt8] = []
        try await stage("encode") { bytes = try StitchJSON.encodeBytes(response) }
        var decoded: SyncResponse!
        try await stage("decode (wire reader)") { decoded = try bytes.withUnsafeBytes { try StitchJSON.decode(SyncResponse.self, from: $0) } }
        try await stage("record(as:)") { for c in decoded.changes { _ = try c.record(as: InventoryThread.self) } }
        try await stage("general parse + decode") { _ = try bytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncResponse.self, from: $0) } }
        try await stage("100 × SELECT 1") { for _ in 0..<100 { _ = try await db.rawSQL.raw("SELECT 1 AS one").all() } }
        try await stage("100 × probe") { for _ in 0..<100 { try await BenchAccess.probe(userId: userId, from: 1, on: db) } }
        var cursor = SyncCursor.start, pages = 0
        try await stage("pull in pages of \(SyncRequest.defaultLimit), no HTTP") {
            cursor = .start
            pages = 0
            while true {
                let page = try await BenchAccess.pull(userId: userId, after: cursor, limit: SyncRequest.defaultLimit, on: db)
                _ = try StitchJSON.encodeBytes(SyncResponse(cursor: page.cursor.encoded, hasMore: page.hasMore, changes: page.changes, results: []))
                cursor = page.cursor
                pages += 1
                if !page.hasMore { break }
            }
        }
        try await stage("  the same, \(pages) empty reads of all tables") {
            for _ in 0..<pages { _ = try await BenchAccess.pull(userId: userId, after: cursor, limit: SyncRequest.defaultLimit, on: db) }
        }
    }

    /// The pages of a fresh device's pull answered in-process: `SyncService.sync` and the
    /// response's bytes, without HTTP or sign-in (next to `stages`' HTTP pages).
    static func pagesInProcess(userId: UUID, app: Application) async throws {
        var cursor: String?
        for page in 1...3 {
            let start = ContinuousClock.now
            let response = try await BenchAccess.sync(SyncRequest(cursor: cursor, clientId: UUID(), changes: [], limit: SyncRequest.maxLimit),
                                                      userId: userId, app: app)
            let bytes = try StitchJSON.encodeBytes(response)
            printStage("in-process page \(page) of \(response.changes.count), \(bytes.count / 1000) kB", seconds: seconds(ContinuousClock.now - start))
            cursor = response.cursor
            if !response.hasMore { break }
        }
    }
}

extension Database {
    /// The database as SQLKit's (both drivers are SQL databases).
    fileprivate var rawSQL: any SQLDatabase { self as! any SQLDatabase }
}
