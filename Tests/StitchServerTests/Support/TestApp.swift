import Foundation
import NIOCore
import NIOPosix
import FluentPostgresDriver
import PostgresNIO
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// Which database the suite runs on: in-memory SQLite, or PostgreSQL when TEST_DATABASE_URL is
/// set. Each test gets a database of its own (created fresh on PostgreSQL, dropped afterwards).
enum TestDatabase {
    static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], !url.isEmpty else { return nil }
        return url
    }

    static var isPostgres: Bool { postgresURL != nil }

    /// Tests may only ever touch a database on this machine.
    static func checkLocal(_ url: URLComponents) throws {
        let host = url.host ?? ""
        guard ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) else {
            throw ConfigError("TEST_DATABASE_URL must point at localhost, not \(host)")
        }
    }

    static func withAdminConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard let url = postgresURL, let components = URLComponents(string: url) else { throw ConfigError("no TEST_DATABASE_URL") }
        try checkLocal(components)
        let config = try SQLPostgresConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config.coreConfiguration, id: 1,
            logger: Logger(label: "test-admin"))
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A new, empty database; returns its URL.
    static func createPostgresDatabase() async throws -> (name: String, url: String) {
        let name = "stitch_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await withAdminConnection { conn in
            _ = try await conn.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test-admin"))
        }
        var components = URLComponents(string: postgresURL!)!
        components.path = "/" + name
        return (name, components.string!)
    }

    static func dropPostgresDatabase(_ name: String) async throws {
        try await withAdminConnection { conn in
            _ = try await conn.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Logger(label: "test-admin"))
        }
    }
}

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
