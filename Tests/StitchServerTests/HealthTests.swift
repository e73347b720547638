import BuildStamp
import Fluent
import Foundation
import ServerCommon
import SQLKit
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

@Suite("Health and foundation")
struct HealthTests {
    @Test("GET /health answers ok after checking the database, with the version and the commit it was built from")
    func healthOK() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.GET, "/health")
            #expect(res.status == .ok)
            let health = try res.decode(HealthResponse.self)
            #expect(health == HealthResponse(status: "ok", version: StitchVersion.current, commit: BuildStamp.commit))
            #expect(res.headers.contentType?.subType == "json")
            // The stamp is the checkout's own commit, read by git here (a built tree has one).
            if let commit = checkoutCommit() {
                #expect(health.commit?.hasPrefix(commit) == true, "\(health.commit ?? "none") vs \(commit)")
            }
        }
    }

    @Test("An unknown route answers a JSON 404")
    func unknownRoute() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.GET, "/no-such-thing")
            #expect(res.status == .notFound)
            #expect(res.error?.error == "Not found")
        }
    }

    @Test("Migrations revert cleanly and apply again")
    func migrationsRevert() async throws {
        try await withTestApp { app, _ in
            try await app.autoRevert()
            try await app.autoMigrate()
            let res = try await app.send(.GET, "/health")
            #expect(res.status == .ok)
        }
    }

    @Test("A migration that fails part-way leaves the database as it was (each runs in one transaction), and runs again whole at the next start")
    func failingMigration() async throws {
        struct Failure: Error {}
        struct FailsPartWay: AsyncMigration {
            let fail: Bool
            var name: String { "FailsPartWay" }
            func prepare(on database: any Database) async throws {
                try await database.schema("half_made").id().field("x", .string).create()
                try await database.schema("threads").field("half_column", .string).update()
                try await database.sql.raw("INSERT INTO half_made (id, x) VALUES (\(bind: UUID()), 'x')").run()
                try await database.sql.raw("UPDATE users SET display_name = 'changed by a migration'").run()
                if fail { throw Failure() }
            }
            func revert(on database: any Database) async throws {
                try await database.schema("threads").deleteField("half_column").update()
                try await database.schema("half_made").delete()
            }
        }
        func tables(_ app: Application) async throws -> Set<String> {
            struct Name: Decodable { var name: String }
            let query = app.db.sql.dialect.name == "postgresql"
                ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'"
                : "SELECT name FROM sqlite_master WHERE type = 'table'"
            return Set(try await app.db.sql.raw(SQLQueryString(query)).all(decoding: Name.self).map(\.name))
        }
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            try await ann.thread()
            let before = try await tables(app)
            app.migrations.add(InOneTransaction(FailsPartWay(fail: true)))
            await #expect(throws: Failure.self) { try await app.autoMigrate() }
            #expect(try await tables(app) == before, "a table of the failed migration is left")
            // The column it added, the row it wrote and the change it made to a row: all undone.
            await #expect(throws: (any Error).self) { try await app.db.sql.raw("SELECT half_column FROM threads").run() }
            #expect(try await ann.get("/auth/me", as: UserProfile.self).displayName == "Ann")
            struct Name: Decodable { var name: String }
            let recorded = try await app.db.sql.raw("SELECT name FROM _fluent_migrations").all(decoding: Name.self).map(\.name)
            #expect(!recorded.contains("FailsPartWay"))
            #expect(try await app.send(.GET, "/health").status == .ok)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 1)
        }
        // Both products register their migrations so (Fluent keeps its list to itself: the source says it).
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        for (file, list) in [("StitchServer/configure.swift", "StitchMigrations"), ("SeleneServer/configure.swift", "SeleneMigrations")] {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains("app.migrations.add(\(list).all.eachInOneTransaction())"), "\(file)")
        }
    }

    @Test("Email is unique whatever its case, enforced by the database itself")
    func emailUniqueIndex() async throws {
        try await withTestApp { app, clock in
            let a = UserModel(email: "ann@example.com", displayName: "Ann", passwordHash: nil, now: clock.now)
            try await a.create(on: app.db)
            let b = UserModel(email: "ANN@example.com", displayName: "Ann 2", passwordHash: nil, now: clock.now)
            await #expect(throws: (any Error).self) { try await b.create(on: app.db) }
        }
    }

    @Test("The serve command is recognised, with or without flags")
    func serveCommand() {
        #expect(isServeCommand(["stitchuation"]))
        #expect(isServeCommand(["stitchuation", "serve"]))
        #expect(isServeCommand(["stitchuation", "--env", "production"]))
        #expect(!isServeCommand(["stitchuation", "migrate"]))
    }
}
