import Fluent
import Foundation
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Write transactions on SQLite's several connections")
struct WriteTransactionTests {
    @Test("Transactions that read and then write, on every connection at once, all commit: none fails as 'database is locked' while another connection writes",
          arguments: ["the test database", "a data directory's file, in WAL mode as the server runs it"])
    func concurrentReadThenWrite(database: String) async throws {
        try await withTestApp(adjust: { config in
            // What is checked is that no transaction fails on the lock, however long the machine
            // (the whole suite running beside this test) makes them wait for a connection.
            config.databasePoolTimeout = 300
            if database != "the test database", case .sqliteMemory = config.database {
                config.database = .sqliteFile(path: (config.dataDirectory as NSString).appendingPathComponent("stitchuation.sqlite"))
            }
        }) { app, clock in
            let loops = Array(app.eventLoopGroup.makeIterator())
            let count = 40
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<count {
                    let db = app.databases.database(logger: app.logger, on: loops[i % loops.count])!
                    group.addTask {
                        do {
                            try await db.writeTransaction { db in
                                // What a registration or a push does: look first, then write.
                                _ = try await LoginThrottleModel.query(on: db).filter(\.$email == "user\(i)@example.com").first()
                                try await LoginThrottleModel(email: "user\(i)@example.com", now: clock.now).create(on: db)
                            }
                            return nil
                        } catch { return "\(i): \(String(reflecting: error))" }
                    }
                    // And a writer outside any transaction, as the housekeeping schedule is.
                    if i % 5 == 0 {
                        group.addTask {
                            do { _ = try await Housekeeping.prune(now: clock.now, config: app.config, on: db); return nil }
                            catch { return "prune \(i): \(String(reflecting: error))" }
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
            #expect(try await LoginThrottleModel.query(on: app.db).count() == count)
        }
    }
}
