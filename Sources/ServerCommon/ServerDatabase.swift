import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Vapor

/// Where a server keeps its data — the same choice for both products: an SQLite file (the
/// embedded default), a scratch SQLite file for tests, or PostgreSQL at a URL.
public enum ServerDatabase: Sendable, Equatable {
    case sqliteFile(path: String)
    case sqliteMemory
    case postgres(url: String)

    public var isPostgres: Bool { if case .postgres = self { true } else { false } }
    public var isSQLite: Bool { !isPostgres }

    /// From the environment: PostgreSQL when `urlVariable` holds a postgres:// URL, else the
    /// SQLite file `file` in `dataDirectory`. Anything else in the variable is refused by name.
    public static func from(_ url: String?, urlVariable: String, dataDirectory: String, file: String) throws -> ServerDatabase {
        guard let url, !url.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .sqliteFile(path: (dataDirectory as NSString).appendingPathComponent(file))
        }
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw ServerDatabaseError("\(urlVariable) must be a postgres:// URL (leave it unset to use SQLite in \(dataDirectory))")
        }
        return .postgres(url: url)
    }

    /// Sets the application's database. SQLite gets a thread pool of its own first and one
    /// connection per event loop (writes queue for the file's lock anyway); the scratch file is
    /// removed at shutdown. PostgreSQL gets 8 connections per loop, no search path, and
    /// `startupParameters`.
    public func use(on app: Application, poolTimeout: TimeAmount = .seconds(10), startupParameters: [(String, String)] = []) throws {
        switch self {
        case .sqliteFile(let path):
            app.giveSQLiteItsOwnThreads()
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            app.databases.use(.sqlite(.file(path), maxConnectionsPerEventLoop: 1, connectionPoolTimeout: poolTimeout), as: .sqlite)
        case .sqliteMemory:
            app.giveSQLiteItsOwnThreads()
            // SQLiteKit fakes a shared in-memory database with a file it never removes; our own
            // scratch file instead, removed when the application shuts down.
            let scratch = TemporaryDatabaseFile()
            app.databases.use(.sqlite(.file(scratch.path), maxConnectionsPerEventLoop: 1, connectionPoolTimeout: poolTimeout), as: .sqlite)
            app.lifecycle.use(scratch)
        case .postgres(let url):
            var postgres = try SQLPostgresConfiguration(url: url)
            postgres.searchPath = nil
            postgres.coreConfiguration.options.additionalStartupParameters.append(contentsOf: startupParameters)
            app.databases.use(.postgres(configuration: postgres, maxConnectionsPerEventLoop: 8, connectionPoolTimeout: poolTimeout), as: .psql)
        }
    }
}

/// A database setting that can't be used, said in a sentence.
public struct ServerDatabaseError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
