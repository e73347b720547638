import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Health and foundation")
struct HealthTests {
    @Test("GET /health answers ok after checking the database")
    func healthOK() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.GET, "/health")
            #expect(res.status == .ok)
            #expect(try res.decode(HealthResponse.self) == HealthResponse(status: "ok"))
            #expect(res.headers.contentType?.subType == "json")
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
