import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import JWT
import ServerCommon
import StitchCore
import Vapor

/// Sets up an application: database, migrations, middleware, keys and routes. The executable
/// and every test call this same function.
public func configure(_ app: Application, config: AppConfig, clock: AppClock = .live) async throws {
    app.lifecycle.use(CloseDatabasesAtShutdown())  // first registered: the last to shut down
    app.config = config
    app.responseCache = ResponseCache(maxBytes: config.listCacheBytes)
    app.verifiedTokens = VerifiedTokens()
    app.perLoop = PerLoop()
    app.tableStatistics = TableStatistics(logger: app.logger)
    app.lifecycle.use(TableStatisticsLifecycle())
    app.clock = clock
    app.storage[Application.MailQueueKey.self] = MailQueue()
    app.lifecycle.use(MailQueueLifecycle())

    _ = installWireFormat

    app.storage[Application.PictureDerivationsKey.self] = PictureDerivations()
    app.storage[Application.ToolWorkKey.self] = ToolWork(threads: config.toolThreads, perAccount: config.toolJobsPerAccount)
    app.lifecycle.use(ToolWorkShutdown())
    // A pull pages through a user's rows in (version, id) order: an index scan of the
    // (user_id, version, id) index reads exactly one page. PostgreSQL's default cost of a random
    // read (4× a sequential one, a spinning disk's) makes the planner read and sort all of the
    // user's rows past the cursor instead once a page is a large share of them (4 times slower
    // for the first 5,000 of 10,000). Our connections price a random read as an SSD or a cached
    // table does.
    try config.database.use(on: app, poolTimeout: .milliseconds(Int64(config.databasePoolTimeout * 1000)),
                            startupParameters: [("random_page_cost", "1.1")])
    app.migrations.add(StitchMigrations.all.eachInOneTransaction())

    app.routes.defaultMaxBodySize = ByteCount(value: config.maxBodySize)
    // Only our own middleware: every failure answers the same JSON shape, and a known path asked
    // with the wrong method answers 405 with `Allow` rather than 404.
    app.http.server.configuration.responseCompression = .text
    app.middleware = Middlewares()
    app.middleware.use(BrotliResponseMiddleware())
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(JSONErrorMiddleware())
    app.middleware.use(MethodNotAllowedMiddleware { method, allow in
        APIError(.methodNotAllowed, "\(method) is not supported here", headers: ["Allow": allow])
    })

    await app.jwt.keys.add(hmac: HMACKey(from: config.jwtSecret), digestAlgorithm: .sha256, kid: TokenService.keyId)
    Flash.use(serverSecret: config.jwtSecret)
    app.browserSession = WebSession.design(serverSecret: config.jwtSecret)

    app.appleKeys = AppleKeyCache()
    // Drawing PDF patterns' pages in the background; stopped (to resume later) at shutdown.
    let renderer = PatternRenderer()
    app.patternRenderer = renderer
    app.lifecycle.use(renderer)
    app.asyncCommands.use(StorageCommand(), as: "storage")
    app.asyncCommands.use(BackupCommand(), as: "backup")
    if let s3 = config.objectStorage {
        // Checked before the server listens: a wrong key, a missing bucket or an endpoint out of
        // reach stops the start with a sentence saying which (and /health says it later).
        let client = S3Client(settings: s3, http: app.http.client.shared)
        app.imageStorage = S3ImageStorage(client: client)
        app.lifecycle.use(ObjectStorageCheck(client: client))
    } else {
        app.imageStorage = try FileImageStorage(
            directory: (config.dataDirectory as NSString).appendingPathComponent("images"), threadPool: app.threadPool)
    }
    if case .sqliteFile = config.database {
        // Readers never wait for the writer, and the writer never waits for readers.
        try await app.db.sql.raw("PRAGMA journal_mode=WAL").run()
    }
    app.dummyPasswordHash = try await app.passwords.hash([UInt8].random(count: 16).hex)

    try routes(app)
}

/// Whether a command line means "serve" (Vapor's default command when none is given).
public func isServeCommand(_ arguments: [String]) -> Bool {
    let rest = arguments.dropFirst()
    guard let first = rest.first else { return true }
    return first == "serve" || first.hasPrefix("-")
}

/// Vapor's content coders are process-wide; set them once (tests configure many apps in parallel).
private let installWireFormat: Void = {
    ContentConfiguration.global.use(encoder: StitchJSON.makeEncoder(), for: .json)
    ContentConfiguration.global.use(decoder: StitchJSON.makeDecoder(), for: .json)
}()
