import Foundation
@testable import SeleneServer
import ServerCommon
import SQLKit
import Testing
import VaporTesting

@Suite("Durable acknowledgements: a capture answered 2xx is on disk")
struct DurabilityTests {
    @Test("The SQLite file runs in WAL with synchronous=FULL on every connection")
    func synchronousFull() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("selene-durable-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let app = try await Application.make(.testing)
        app.logger.logLevel = .error
        try await withClosing(app, close: { try await $0.asyncShutdown() }) { _ in
            let config = SeleneConfig(database: .sqliteFile(path: dir + "/selene.sqlite"), dataDirectory: dir)
            try await configure(app, config: config)
            try await app.autoMigrate()
            let levels = try await SQLiteDurability.levels(app)
            #expect(levels.count == app.eventLoopGroup.makeIterator().map { $0 }.count && !levels.isEmpty)
            #expect(levels.allSatisfy { $0 == 2 }, "synchronous per connection: \(levels)")
            let mode = try await (app.db as! any SQLDatabase).raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
            #expect(mode == "wal")
            // Writes go through the writer's connection, which is one of them.
            let writer = try await (app.writeDB as! any SQLDatabase).raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
            #expect(writer == 2)
        }
    }
}
