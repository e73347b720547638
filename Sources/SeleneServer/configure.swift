import AsyncHTTPClient
import Fluent
import Metrics
import NIOCore
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Sets up a Selene application: database, migrations, middleware, the LLM client and routes.
/// The executable and every test call this same function.
public func configure(_ app: Application, config: SeleneConfig, clock: SeleneClock = .live) async throws {
    app.lifecycle.use(CloseDatabasesAtShutdown())  // first registered: the last to shut down
    try config.database.use(on: app)
    app.migrations.add(SeleneMigrations.all.eachInOneTransaction())

    // Every request sent off this machine is written here first (`Outbound`).
    let ledger = OutboundLedger(clock: clock, keptDays: config.outboundDays, localOnly: config.localOnly, logger: app.logger)
    if config.localOnly { try await requireLocalServers(config) }
    let clients = modelClients(app, config: config, ledger: ledger)
    app.selene = SeleneServices(config: config, clock: clock, llm: clients.llm, speech: clients.speech, outbound: ledger, hostedLLM: clients.hosted)
    app.browserSession = WebSession.design(apiTokens: config.apiTokens)
    if !config.database.isPostgres {
        var loops = app.eventLoopGroup.makeIterator()
        let writer = loops.next()
        app.selene.writerLoopBox.withLockedValue { $0 = writer }
    }
    ledger.attach(app.writeDB)
    try configurePush(app, config: config, clock: clock, ledger: ledger)
    useMiddleware(app, config: config)
    if case .sqliteFile = config.database {
        // Readers never wait for the writer, and the writer never waits for readers.
        try await (app.db as! any SQLDatabase).raw("PRAGMA journal_mode=WAL").run()
        try await SQLiteDurability.apply(app)
    }
    try routes(app)
}

/// With SELENE_LOCAL_ONLY, a clear error at start unless every server Selene would send notes to
/// is on this machine or the private network.
private func requireLocalServers(_ config: SeleneConfig) async throws {
    do {
        if let llm = config.llm {
            try await Outbound.requireLocal(llm.baseURL, what: "model server (SELENE_LLM_URL)")
            if let embed = llm.embedding { try await Outbound.requireLocal(embed.baseURL, what: "embedding server") }
        }
        if let speech = config.speech { try await Outbound.requireLocal(speech.url, what: "speech-to-text server (SELENE_STT_URL)") }
    } catch let error as LocalOnlyError {
        throw SeleneConfigError(error.description)
    }
}

/// The clients of the servers configured: the model, the hosted model the person allowed, speech
/// to text. Each writes what it sends to the ledger, and is shut down with the application.
private func modelClients(_ app: Application, config: SeleneConfig, ledger: OutboundLedger) -> (llm: LLMClient?, hosted: LLMClient?, speech: SpeechToText?) {
    var llm: LLMClient?
    if let settings = config.llm {
        let http = LLMClient.makeHTTPClient(settings: settings, eventLoopGroup: app.eventLoopGroup)
        app.lifecycle.use(HTTPClientShutdown(client: http))
        llm = LLMClient(settings: settings, http: http, ledger: ledger)
    }
    var hosted: LLMClient?
    if let settings = config.hosted {
        let model = SeleneConfig.LLM(provider: .openai, baseURL: settings.url, apiKey: settings.apiKey, chatModel: settings.model, embeddingModel: settings.model)
        let http = LLMClient.makeHTTPClient(settings: model, eventLoopGroup: app.eventLoopGroup)
        app.lifecycle.use(HTTPClientShutdown(client: http))
        hosted = LLMClient(settings: model, http: http, ledger: ledger)
    }
    var speech: SpeechToText?
    if let settings = config.speech {
        let http = Outbound.makeClient(eventLoopGroup: app.eventLoopGroup, configuration: .init(timeout: .init(connect: .seconds(5))))
        app.lifecycle.use(HTTPClientShutdown(client: http))
        speech = SpeechToText(settings: settings, http: http, ledger: ledger)
    }
    return (llm, hosted, speech)
}

/// APNs and Web Push when configured, and the service that sends the events pushed.
private func configurePush(_ app: Application, config: SeleneConfig, clock: SeleneClock, ledger: OutboundLedger) throws {
    var apnsClient: APNsClient?
    if let apns = config.apns {
        let client = try APNsClient(settings: apns, eventLoopGroup: app.eventLoopGroup, clock: clock, logger: app.logger, ledger: ledger)
        app.lifecycle.use(APNsShutdown(client: client))
        apnsClient = client
    }
    if let settings = config.webPush {
        let key = try WebPushClient.loadOrCreateKey(at: settings.keyFile)
        app.selene.webPushBox.withLockedValue {
            $0 = WebPushClient(key: key, subject: settings.subject, eventLoopGroup: app.eventLoopGroup, clock: clock, logger: app.logger,
                               allowHTTP: settings.allowHTTP, resolve: PushAddress.resolver(hosts: settings.hosts), ledger: ledger)
        }
    }
    if apnsClient != nil || app.selene.webPush != nil {
        let push = PushService(client: apnsClient, web: app.selene.webPush, app: app)
        app.selene.pushBox.withLockedValue { $0 = push }
        app.selene.events.listen { await push.handle($0) }
    }
}

/// Body limit, compression and the middleware every request passes, in order.
private func useMiddleware(_ app: Application, config: SeleneConfig) {
    app.routes.defaultMaxBodySize = ByteCount(value: config.maxBodySize)
    app.http.server.configuration.responseCompression = .text
    app.middleware = Middlewares()
    app.middleware.use(BrotliResponseMiddleware())
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(SeleneErrorMiddleware())
    app.middleware.use(RequestGuardMiddleware(hosts: config.allowedHosts))
    app.middleware.use(MethodNotAllowedMiddleware { method, allow in
        SeleneError(.methodNotAllowed, "\(method) is not supported here", headers: ["Allow": allow])
    })
}

/// A capture answered 2xx is on disk: Drafts may delete the draft once it has its answer, so
/// a power cut or an OS crash after it must not lose the note. `synchronous=FULL` makes every
/// commit wait for the WAL to reach the disk (NORMAL, SQLite's WAL default, syncs only at
/// checkpoints: a crash of Selene alone loses nothing, a power cut the last commits).
enum SQLiteDurability {
    static let level = "FULL"

    /// `synchronous` is a connection's setting: each event loop has one connection, so it is set
    /// through each loop's.
    static func apply(_ app: Application) async throws {
        for loop in app.eventLoopGroup.makeIterator() {
            guard let db = app.databases.database(logger: app.logger, on: loop) as? any SQLDatabase else { continue }
            try await db.raw("PRAGMA synchronous=\(unsafeRaw: level)").run()
        }
    }

    /// Each loop's connection's `synchronous` (0 off, 1 normal, 2 full, 3 extra).
    static func levels(_ app: Application) async throws -> [Int] {
        var out: [Int] = []
        for loop in app.eventLoopGroup.makeIterator() {
            guard let db = app.databases.database(logger: app.logger, on: loop) as? any SQLDatabase,
                  let row = try await db.raw("PRAGMA synchronous").first() else { continue }
            out.append(try row.decode(column: "synchronous", as: Int.self))
        }
        return out
    }
}

/// Closes the APNs client when the application stops.
struct APNsShutdown: LifecycleHandler {
    let client: APNsClient
    func shutdownAsync(_ application: Application) async { try? await client.shutdown() }
}

/// Closes an HTTP client when the application stops.
struct HTTPClientShutdown: LifecycleHandler {
    let client: HTTPClient
    func shutdownAsync(_ application: Application) async {
        try? await client.shutdown()
    }
}

func routes(_ app: Application) throws {
    try app.register(collection: HealthController())
    try app.register(collection: MetricsController(token: app.selene.config.metricsToken) { req in
        // The queue's depth by status, read when scraped.
        for (status, count) in try await ProcessingQueue.status(on: req.db) {
            Gauge(label: "selene_queue_notes", dimensions: [("status", status)]).record(count)
        }
    })
    let protected = app.grouped(TokenAuthMiddleware(tokens: app.selene.tokens))
    try app.register(collection: WebController())
    try protected.register(collection: WebhookController())
    let api = protected.grouped("api")
    try api.register(collection: NoteController())
    try api.register(collection: ThreadController())
    try api.register(collection: SessionController())
    try api.register(collection: MemoryController())
    try api.register(collection: BriefingController())
    try api.register(collection: LLMController())
    try api.register(collection: TranscriptionController())
    try api.register(collection: DeviceController())
    try api.register(collection: OutboundController())
    try api.register(collection: HostedConsentController())
}
