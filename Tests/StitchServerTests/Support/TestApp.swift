import Foundation
import NIOCore
import NIOPosix
import FluentPostgresDriver
import PostgresNIO
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

let testSecret = "test-secret-0123456789-abcdefghijklmnopqrstuvwxyz"

/// A configured, migrated application on its own database, with a fixed clock.
func withTestApp(
    clock: TestClock = TestClock(),
    adjust: (inout AppConfig) -> Void = { _ in },
    _ body: (Application, TestClock) async throws -> Void
) async throws {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-test-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
    var pgName: String?
    let database: AppConfig.Database
    if TestDatabase.isPostgres {
        let created = try await TestDatabase.createPostgresDatabase()
        pgName = created.name
        database = .postgres(url: created.url)
    } else {
        database = .sqliteMemory
    }
    var config = AppConfig(database: database, dataDirectory: dataDir, jwtSecret: testSecret)
    config.bcryptCost = 4  // keeps the suite fast; production's floor of 12 is tested separately
    adjust(&config)

    let app = try await Application.make(.testing)
    app.logger.logLevel = .warning
    do {
        try await configure(app, config: config, clock: clock.clock)
        try await app.autoMigrate()
        try await body(app, clock)
    } catch {
        try? await app.asyncShutdown()
        if let pgName { try? await TestDatabase.dropPostgresDatabase(pgName) }
        try? FileManager.default.removeItem(atPath: dataDir)
        throw error
    }
    try await app.asyncShutdown()
    if let pgName { try await TestDatabase.dropPostgresDatabase(pgName) }
    try? FileManager.default.removeItem(atPath: dataDir)
}

extension Application {
    /// Sends a request through the in-memory tester.
    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
        rawBody: String? = nil, headers: HTTPHeaders = [:]
    ) async throws -> TestingHTTPResponse {
        var headers = headers
        if let token { headers.bearerAuthorization = BearerAuthorization(token: token) }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(data: try StitchJSON.makeEncoder().encode(json))
            headers.contentType = .json
        } else if let rawBody {
            body = ByteBuffer(string: rawBody)
            if headers.contentType == nil { headers.contentType = .json }
        }
        return try await testing().sendRequest(method, path, headers: headers, body: body)
    }
}

extension TestingHTTPResponse {
    func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try StitchJSON.makeDecoder().decode(T.self, from: Data(buffer: body))
    }

    var error: APIErrorBody? { try? decode(APIErrorBody.self) }
    var text: String { body.getString(at: body.readerIndex, length: body.readableBytes) ?? "" }
}
