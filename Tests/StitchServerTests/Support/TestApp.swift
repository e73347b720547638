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
    try await withTestApplication(prefix: "stitch-test", logLevel: .warning, configure: { app, dataDir, postgresURL in
        var config = AppConfig(database: postgresURL.map { .postgres(url: $0) } ?? .sqliteMemory, dataDirectory: dataDir, jwtSecret: testSecret)
        config.bcryptCost = 4  // keeps the suite fast; production's floor of 12 is tested separately
        adjust(&config)
        try await configure(app, config: config, clock: clock.clock)
    }) { app in try await body(app, clock) }
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

extension StoredModel {
    /// Rows of this kind, any owner's, deleted ones too unless `liveOnly`.
    static func count(on db: any Database, liveOnly: Bool = false) async throws -> Int {
        try await all(on: db, liveOnly: liveOnly).count
    }

    /// The row with this id, any owner's, live or deleted.
    static func find(_ id: UUID, on db: any Database) async throws -> StoredModel? {
        try await all(on: db, liveOnly: false).first { $0.record.id == id }
    }

    /// The oldest row of this kind, any owner's.
    static func first(on db: any Database) async throws -> StoredModel? {
        try await all(on: db, liveOnly: false).min { $0.record.createdAt < $1.record.createdAt }
    }

    private static func all(on db: any Database, liveOnly: Bool) async throws -> [StoredModel] {
        var query = select(on: db)
        if liveOnly { query = query.where("deleted_at", .is, SQLLiteral.null) }
        return try await db.selectRecords(StoredModel.self, query).map(StoredModel.init)
    }
}
