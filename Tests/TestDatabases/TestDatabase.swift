import FluentPostgresDriver
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import ServerCommon
import Fluent
import Vapor

/// Which database the suite runs on: in-memory SQLite, or PostgreSQL when TEST_DATABASE_URL is
/// set. Each test gets a database of its own (created fresh on PostgreSQL, dropped afterwards).
public enum TestDatabase {
    public static var postgresURL: String? {
        guard let url = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], !url.isEmpty else { return nil }
        return url
    }

    public static var isPostgres: Bool { postgresURL != nil }

    /// Tests may only ever touch a database on this machine.
    public static func checkLocal(_ url: URLComponents) throws {
        let host = url.host ?? ""
        guard ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) else {
            throw TestDatabaseError("TEST_DATABASE_URL must point at localhost, not \(host)")
        }
    }

    public static func withAdminConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard let url = postgresURL, let components = URLComponents(string: url) else { throw TestDatabaseError("no TEST_DATABASE_URL") }
        try checkLocal(components)
        let config = try SQLPostgresConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config.coreConfiguration, id: 1,
            logger: Logger(label: "test-admin"))
        return try await withClosing(connection, close: { try await $0.close() }, body)
    }

    /// A new, empty database; returns its URL.
    public static func createPostgresDatabase() async throws -> (name: String, url: String) {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await withAdminConnection { conn in
            _ = try await conn.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test-admin"))
        }
        var components = URLComponents(string: postgresURL!)!
        components.path = "/" + name
        return (name, components.string!)
    }

    public static func dropPostgresDatabase(_ name: String) async throws {
        try await withAdminConnection { conn in
            _ = try await conn.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Logger(label: "test-admin"))
        }
    }
}

public struct TestDatabaseError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A port nobody listens on right now (bound once by the kernel's choice, then released).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestDatabaseError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A test's application: a scratch data directory and, on PostgreSQL (`TEST_DATABASE_URL`), a
/// database of its own; `configure` sets the application up on them (its database URL, or nil
/// for in-memory SQLite), migrations run, then `body`; everything is removed afterwards, also
/// when the test fails.
public func withTestApplication(
    isolation: isolated (any Actor)? = #isolation,
    prefix: String,
    logLevel: Logger.Level,
    configure: (Application, _ dataDirectory: String, _ postgresURL: String?) async throws -> Void,
    _ body: (Application) async throws -> Void
) async throws {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
    var pgName: String?
    var pgURL: String?
    if TestDatabase.isPostgres {
        let created = try await TestDatabase.createPostgresDatabase()
        (pgName, pgURL) = (created.name, created.url)
    }
    let app = try await Application.make(.testing)
    app.logger.logLevel = logLevel
    do {
        try await configure(app, dataDir, pgURL)
        try await app.autoMigrate()
        try await body(app)
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

/// A TCP socket connected to 127.0.0.1:`port` (the caller closes it), or nil when nothing listens.
public func connectLoopback(_ port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard connected == 0 else { close(fd); return nil }
    return fd
}
