import BuildStamp
import Foundation
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
