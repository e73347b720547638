import AsyncHTTPClient
import Foundation
import ServerCommon
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOConcurrencyHelpers
import NIOCore
import StitchCore
@testable import StitchKit
@testable import StitchServer
import TestDatabases
import Testing
import Vapor

/// Jepsen-style fault injection at the process level: the real `stitchuation` binary, five
/// StitchKit devices of one user and one of another, each talking to the server through its own
/// faulty proxy. Responses are dropped after the server applied the push, requests are sent
/// twice, devices go offline, the server is restarted gracefully and killed with SIGKILL while a
/// push is in flight, and devices are restarted from their on-disk stores. In the end every
/// device equals the server, every write the server acknowledged is there unless a later write
/// (by last-write-wins) replaced it, and the second user's data is untouched and never seen.
///
/// Replay a failure with the printed seed: `STITCH_FAULT_SEEDS=7 swift test --filter FaultInjection`;
/// a long run: `STITCH_FAULT_STEPS=2000`.
@Suite("Fault injection: real server process, StitchKit clients, crashes and lost messages", .serialized)
struct FaultInjectionTests {
    static var seeds: [UInt64] {
        if let raw = ProcessInfo.processInfo.environment["STITCH_FAULT_SEEDS"] {
            return raw.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        }
        return [11, 12]
    }

    static var steps: Int { Int(ProcessInfo.processInfo.environment["STITCH_FAULT_STEPS"] ?? "") ?? 90 }

    @Test(arguments: seeds)
    func everyAcknowledgedWriteSurvives(seed: UInt64) async throws {
        print("fault injection seed \(seed), \(Self.steps) steps (replay: STITCH_FAULT_SEEDS=\(seed))")
        guard let binary = ServerProcess.binary() else {
            Issue.record("the stitchuation binary is not built (swift build --build-tests builds it)")
            return
        }
        var rng = SeededRandom(seed: seed)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-faults-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var pgName: String?
        var databaseURL: String?
        if TestDatabase.isPostgres {
            let created = try await TestDatabase.createPostgresDatabase()
            pgName = created.name
            databaseURL = created.url
        }
        let server = try ServerProcess(binary: binary, dataDir: root + "/server", databaseURL: databaseURL)
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        var proxies: [FaultProxy] = []
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: root)
        }
        do {
            try await server.start()
            func device(_ name: String) async throws -> FaultDevice {
                let proxy = try await FaultProxy.start(server: server, http: http)
                proxies.append(proxy)
                return try FaultDevice(name: name, directory: root + "/" + name, proxy: proxy)
            }
            var ann: [FaultDevice] = []
            for i in 0..<5 { ann.append(try await device("ann-\(i)")) }
            let bob = try await device("bob")
            _ = try await ann[0].api.register(email: "ann@example.com", password: "correct horse", displayName: "Ann")
            for d in ann.dropFirst() { _ = try await d.api.login(email: "ann@example.com", password: "correct horse") }
            _ = try await bob.api.register(email: "bob@example.com", password: "battery staple", displayName: "Bob")
            let png = Fixtures.png

            /// Every version a device had when a sync of it completed without error: the server
            /// acknowledged each (applied, or answered that it already had something newer).
            var acknowledged: [String: [SyncChange]] = [:]
            var canvasesWithProject = Set<UUID>()
            var faultsInjected: [String: Int] = [:]

            func sync(_ d: FaultDevice) async {
                let before = (try? d.store.pendingChanges()) ?? []
                let fault = FaultProxy.Fault.random(using: &rng)
                d.proxy.arm(fault, killDelay: .milliseconds(Int.random(in: 0...25, using: &rng)))
                faultsInjected[fault.name, default: 0] += 1
                do {
                    try await d.engine.sync()
                    for change in before where !change.isStagedPicture {
                        acknowledged["\(change.type.rawValue)/\(change.id)", default: []].append(change)
                    }
                } catch {
                    // A lost response, a refused connection or a dead server: the changes stay
                    // pending and go again with a later sync.
                }
                d.proxy.arm(.none, killDelay: .zero)
                if server.wasKilled {
                    try? await server.waitUntilDead()
                    try? await server.start()
                }
            }

            for _ in 0..<Self.steps {
                let roll = Int.random(in: 0..<100, using: &rng)
                let d = roll < 8 ? bob : ann[Int.random(in: 0..<ann.count, using: &rng)]
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<55:
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        try FaultEdits.random(d, rng: &rng, canvasesWithProject: &canvasesWithProject, png: png)
                    }
                case 55..<90:
                    await d.engine.setPageSize([3, 10, 1000].randomElement(using: &rng)!)
                    await sync(d)
                case 90..<94:
                    try d.restart()
                    faultsInjected["device restart", default: 0] += 1
                case 94..<97:
                    try await server.restartGracefully()
                    faultsInjected["graceful restart", default: 0] += 1
                default:
                    d.proxy.offline = !d.proxy.offline
                    faultsInjected["offline toggle", default: 0] += 1
                }
            }
            print("fault injection seed \(seed): \(faultsInjected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")

            // Quiesce: everyone online, no faults, sync until nothing is pending anywhere.
            for d in ann + [bob] { d.proxy.offline = false }
            for _ in 0..<4 {
                for d in ann + [bob] {
                    let before = try d.store.pendingChanges().filter { !$0.isStagedPicture }
                    try await d.engine.sync()
                    for change in before { acknowledged["\(change.type.rawValue)/\(change.id)", default: []].append(change) }
                }
            }
            for d in ann + [bob] { #expect(try d.store.pendingCount() == 0, "seed \(seed): \(d.name) still has changes pending") }

            let annServer = try await ServerSnapshot.pull(server: server.base, device: ann[0], http: http)
            let bobServer = try await ServerSnapshot.pull(server: server.base, device: bob, http: http)
            #expect(annServer.live.count >= 5, "seed \(seed): too little happened to be meaningful")
            // Every device equals the server.
            for d in ann { #expect(try d.liveState() == annServer.live, "seed \(seed): \(d.name) differs from the server") }
            #expect(try bob.liveState() == bobServer.live, "seed \(seed): bob differs from the server")
            // No acknowledged write is lost: the server's final version of each record is that
            // write or one that beats it by the shared last-write-wins rule.
            for (key, versions) in acknowledged {
                let isBobs = bobServer.all[key] != nil
                guard let final = (isBobs ? bobServer : annServer).all[key] else {
                    // A record made and deleted before it ever reached the server leaves nothing.
                    if versions.contains(where: { $0.action == .upsert && $0.deletedAt == nil }) {
                        Issue.record("seed \(seed): \(key) was acknowledged but the server has no trace of it: \(versions)")
                    }
                    continue
                }
                for version in versions {
                    #expect(ConflictRule.resolve(incoming: SimClient.stamp(version), current: SimClient.stamp(final)) != .incoming,
                            "seed \(seed): acknowledged \(key) at \(version.updatedAt) was replaced by an older version")
                }
            }
            // The users never see each other's records.
            #expect(Set(annServer.all.keys).isDisjoint(with: bobServer.all.keys))
            for d in ann { #expect(Set(try d.liveState().keys).isDisjoint(with: bobServer.all.keys)) }
            #expect(Set(try bob.liveState().keys).isDisjoint(with: annServer.all.keys))
            #expect(try bob.store.all(Canvas.self, includeDeleted: true).allSatisfy { annServer.all["canvas/\($0.id)"] == nil })
        } catch {
            for p in proxies { try? await p.stop() }
            try? await http.shutdown()
            if let pgName { try? await TestDatabase.dropPostgresDatabase(pgName) }
            print("fault injection seed \(seed) failed; server log:\n\(server.logTail())")
            throw error
        }
        for p in proxies { try? await p.stop() }
        try await http.shutdown()
        server.stop()
        if let pgName { try await TestDatabase.dropPostgresDatabase(pgName) }
    }
}

// MARK: - The server process

extension ServerProcess {
    /// The `stitchuation` binary on a free port, its data in `dataDir` (its log beside it), on
    /// `databaseURL` or the SQLite file in `dataDir`.
    convenience init(binary: String, dataDir: String, databaseURL: String?) throws {
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        var env = ["PORT": String(port), "HOST": "127.0.0.1", "DATA_DIR": dataDir, "JWT_SECRET": testSecret, "LOG_LEVEL": "warning"]
        if let databaseURL { env["DATABASE_URL"] = databaseURL }
        self.init(binary: binary, arguments: ["serve"], port: port, environment: env, unset: ["DATABASE_URL"], logPath: dataDir + ".log")
    }

    static func binary() -> String? { builtProduct("stitchuation") }
}

// MARK: - The faulty network

/// One device's network: a local HTTP proxy to the server that, when armed, fails the next push
/// or upload in one of the ways networks and servers fail.
final class FaultProxy: @unchecked Sendable {
    enum Fault: Equatable {
        case none
        /// The server applies the request; the response never arrives.
        case dropResponse
        /// The request arrives twice; the client sees the second answer.
        case duplicate
        /// The server process is SIGKILLed while the request is in flight.
        case kill
        /// The request never leaves the device.
        case refuse

        var name: String {
            switch self {
            case .none: "none"
            case .dropResponse: "dropped response"
            case .duplicate: "duplicated request"
            case .kill: "SIGKILL mid-push"
            case .refuse: "refused request"
            }
        }

        static func random(using rng: inout SeededRandom) -> Fault {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<15: .dropResponse
            case 15..<27: .duplicate
            case 27..<33: .kill
            case 33..<40: .refuse
            default: .none
            }
        }
    }

    struct Plan {
        var fault: Fault = .none
        var killDelay: Duration = .zero
        var offline = false
    }

    let app: Application
    let server: ServerProcess
    let http: HTTPClient
    private let plan = NIOLockedValueBox(Plan())
    var port: Int = 0

    var base: String { "http://127.0.0.1:\(port)" }

    var offline: Bool {
        get { plan.withLockedValue { $0.offline } }
        set { plan.withLockedValue { $0.offline = newValue } }
    }

    func arm(_ fault: Fault, killDelay: Duration) {
        plan.withLockedValue { $0.fault = fault; $0.killDelay = killDelay }
    }

    private init(app: Application, server: ServerProcess, http: HTTPClient) {
        self.app = app
        self.server = server
        self.http = http
    }

    static func start(server: ServerProcess, http: HTTPClient) async throws -> FaultProxy {
        var env = Environment.testing
        env.arguments = ["proxy"]
        let app = try await Application.make(env)
        app.logger.logLevel = .critical
        let proxy = FaultProxy(app: app, server: server, http: http)
        for method in [HTTPMethod.GET, .POST, .PUT, .DELETE] {
            app.on(method, "**", body: .collect(maxSize: "64mb")) { req in try await proxy.forward(req) }
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        proxy.port = app.http.server.shared.localAddress!.port!
        return proxy
    }

    func stop() async throws {
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    func forward(_ req: Request) async throws -> Response {
        let isWrite = req.method == .POST && (req.url.path == "/sync" || req.url.path == "/images")
        let current = plan.withLockedValue { plan -> Plan in
            let now = plan
            if isWrite { plan.fault = .none }  // one fault per arming
            return now
        }
        if current.offline { throw Abort(.serviceUnavailable, reason: "offline") }
        let fault = isWrite ? current.fault : .none
        switch fault {
        case .none:
            return try await send(req)
        case .refuse:
            throw Abort(.serviceUnavailable, reason: "refused")
        case .dropResponse:
            _ = try? await send(req)
            throw Abort(.badGateway, reason: "response lost")
        case .duplicate:
            _ = try? await send(req)
            return try await send(req)
        case .kill:
            let delay = current.killDelay
            let server = self.server
            let killer = Task {
                try? await Task.sleep(for: delay)
                server.kill()
            }
            _ = try? await send(req)
            await killer.value
            throw Abort(.badGateway, reason: "server killed")
        }
    }

    private func send(_ req: Request) async throws -> Response {
        var request = HTTPClientRequest(url: server.base + req.url.string)
        request.method = req.method
        for (name, value) in req.headers where !["host", "connection", "content-length", "transfer-encoding"].contains(name.lowercased()) {
            request.headers.add(name: name, value: value)
        }
        if let body = req.body.data { request.body = .bytes(body) }
        let response = try await http.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        var headers = HTTPHeaders()
        for (name, value) in response.headers where !["connection", "content-length", "transfer-encoding"].contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        return Response(status: response.status, headers: headers, body: .init(buffer: body))
    }
}

// MARK: - Devices

/// A StitchKit device with its store and session on disk, so it can be restarted like an app.
final class FaultDevice: @unchecked Sendable {
    let name: String
    let directory: String
    let proxy: FaultProxy
    let tokens: FileTokenStore
    private(set) var store: LocalStore
    private(set) var api: APIClient
    private(set) var engine: SyncEngine

    init(name: String, directory: String, proxy: FaultProxy) throws {
        self.name = name
        self.directory = directory
        self.proxy = proxy
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        tokens = FileTokenStore(path: directory + "/session.json")
        store = try LocalStore(path: directory + "/stitch.sqlite")
        api = APIClient(tokens: tokens, server: proxy.base, timeout: 60)
        engine = SyncEngine(store: store, api: api, sleep: { _ in })
    }

    /// Like quitting and relaunching the app: everything in memory is gone, the files remain.
    func restart() throws {
        store = try LocalStore(path: directory + "/stitch.sqlite")
        api = APIClient(tokens: tokens, server: proxy.base, timeout: 60)
        engine = SyncEngine(store: store, api: api, sleep: { _ in })
    }

    func liveState() throws -> [String: String] {
        var out: [String: String] = [:]
        func add<R: LocalRecord>(_ type: R.Type) throws {
            for r in try store.all(R.self) where r.deletedAt == nil { out["\(R.entityType.rawValue)/\(r.id)"] = ConflictRule.fingerprint(r) }
        }
        try add(InventoryThread.self); try add(Canvas.self); try add(Project.self); try add(ProjectSection.self)
        try add(ProjectThread.self); try add(JournalEntry.self); try add(JournalImage.self)
        return out
    }
}

/// Random edits through the store's public API, on every kind of record.
enum FaultEdits {
    static func random(_ d: FaultDevice, rng: inout SeededRandom, canvasesWithProject: inout Set<UUID>, png: Data) throws {
        let store = d.store
        func pick<R: LocalRecord>(_ type: R.Type) throws -> R? {
            let live = try store.all(R.self).filter { $0.deletedAt == nil }
            return live.isEmpty ? nil : live[Int.random(in: 0..<live.count, using: &rng)]
        }
        let now = Date()
        switch Int.random(in: 0..<16, using: &rng) {
        case 0, 1:
            try store.save(InventoryThread(brand: ["DMC", "Appleton", "Anchor"].randomElement(using: &rng)!,
                                           number: String(Int.random(in: 1...999, using: &rng)),
                                           quantity: Int.random(in: 0...5, using: &rng), createdAt: now, updatedAt: now))
        case 2, 3:
            if var t = try pick(InventoryThread.self) { t.quantity = Int.random(in: 0...9, using: &rng); try store.save(t) }
        case 4:
            if let t = try pick(InventoryThread.self) { try store.delete(InventoryThread.self, id: t.id) }
        case 5:
            try store.save(Canvas(designer: "Designer \(Int.random(in: 1...5, using: &rng))", designName: "Design \(Int.random(in: 1...99, using: &rng))",
                                  meshCount: [13, 18].randomElement(using: &rng), createdAt: now, updatedAt: now))
        case 6:
            if var c = try pick(Canvas.self) { c.notes = "note \(Int.random(in: 0...99, using: &rng))"; try store.save(c) }
        case 7:
            // Only a canvas's first project is started, so no push is refused for it.
            if let c = try pick(Canvas.self), !canvasesWithProject.contains(c.id) {
                canvasesWithProject.insert(c.id)
                try store.save(Project(canvasId: c.id, startedAt: now, createdAt: now, updatedAt: now))
            }
        case 8:
            if var p = try pick(Project.self) { p.setStatus(ProjectStatus.allCases.randomElement(using: &rng)!, at: now); try store.save(p) }
        case 9:
            if let p = try pick(Project.self) { try store.delete(Project.self, id: p.id) }
        case 10:
            if let p = try pick(Project.self) {
                try store.save(ProjectSection(projectId: p.id, name: ["Background", "Border", "Sky"].randomElement(using: &rng)!,
                                              sortOrder: Int.random(in: 0...3, using: &rng), createdAt: now, updatedAt: now))
            }
        case 11:
            if let p = try pick(Project.self) {
                let section = try store.all(ProjectSection.self).filter { $0.projectId == p.id && $0.deletedAt == nil }.randomElement(using: &rng)
                let thread = Bool.random(using: &rng) ? try pick(InventoryThread.self) : nil
                try store.save(ProjectThread(projectId: p.id, sectionId: section?.id, threadId: thread?.id, brand: thread?.brand ?? "DMC",
                                             number: thread?.number ?? "310", quantityNeeded: Int.random(in: 1...4, using: &rng),
                                             createdAt: now, updatedAt: now))
            }
        case 12:
            if var r = try pick(ProjectThread.self) { r.quantityNeeded = Int.random(in: 1...9, using: &rng); try store.save(r) }
        case 13:
            if let p = try pick(Project.self) {
                try store.save(JournalEntry(projectId: p.id, notes: "Stitched \(Int.random(in: 1...99, using: &rng)) rows", createdAt: now, updatedAt: now))
            }
        case 14:
            // A picture taken offline: staged, uploaded before the push that refers to it.
            if let e = try pick(JournalEntry.self) {
                let key = try store.stageImage(png)
                try store.save(JournalImage(entryId: e.id, imageKey: key, sortOrder: Int.random(in: 0...5, using: &rng), createdAt: now, updatedAt: now))
            }
        default:
            if let s = try pick(ProjectSection.self) { try store.delete(ProjectSection.self, id: s.id) }
            else if let e = try pick(JournalEntry.self) { try store.delete(JournalEntry.self, id: e.id) }
        }
    }
}

/// The server's view of one user, read over the sync protocol from the start: every record,
/// tombstones included.
struct ServerSnapshot {
    var all: [String: SyncChange] = [:]
    var live: [String: String] = [:]

    static func pull(server: String, device: FaultDevice, http: HTTPClient) async throws -> ServerSnapshot {
        let session = try #require(try device.tokens.load())
        let api = APIClient(tokens: MemoryTokenStore(session), server: server, timeout: 60)
        var snapshot = ServerSnapshot()
        var cursor: String?
        repeat {
            let page = try await api.sync(SyncRequest(cursor: cursor, clientId: UUID(), changes: [], limit: 5000))
            for change in page.changes { snapshot.all["\(change.type.rawValue)/\(change.id)"] = change }
            cursor = page.cursor
            if !page.hasMore { break }
        } while true
        for (key, change) in snapshot.all where change.action == .upsert && change.deletedAt == nil {
            func fp<R: SyncRecord>(_ type: R.Type) throws -> String { ConflictRule.fingerprint(try change.record(as: R.self)) }
            switch change.type {
            case .thread: snapshot.live[key] = try fp(InventoryThread.self)
            case .canvas: snapshot.live[key] = try fp(Canvas.self)
            case .project: snapshot.live[key] = try fp(Project.self)
            case .projectSection: snapshot.live[key] = try fp(ProjectSection.self)
            case .projectThread: snapshot.live[key] = try fp(ProjectThread.self)
            case .journalEntry: snapshot.live[key] = try fp(JournalEntry.self)
            case .journalImage: snapshot.live[key] = try fp(JournalImage.self)
            case .pattern: snapshot.live[key] = try fp(Pattern.self)
            case .shoppingLine: snapshot.live[key] = try fp(ShoppingLine.self)
            }
        }
        return snapshot
    }
}

extension SyncChange {
    /// A journal picture still pointing at its on-device stand-in: the sync uploads it and pushes
    /// the record again with the server's key, so this version is never the one acknowledged.
    var isStagedPicture: Bool {
        guard type == .journalImage, case .string(let key)? = data?["imageKey"] else { return false }
        return key.hasPrefix("local-")
    }
}
