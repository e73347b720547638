import AsyncHTTPClient
import Foundation
import NIOCore
import ServerCommon
import StitchCore
import StitchKit
@_spi(Bench) import StitchServer
import Vapor

extension Bench {
    static func run(database: AppConfig.Database, label: String, dataDir: String, scale: Int, repeats: Int, only: Set<String>, stages: Bool) async throws -> [Figure] {
        var config = AppConfig(database: database, dataDirectory: dataDir + "/\(label)", jwtSecret: String(repeating: "b", count: 48))
        try FileManager.default.createDirectory(atPath: config.dataDirectory, withIntermediateDirectories: true)
        config.bcryptCost = 4  // sign-ups aren't measured; keeps bcrypt out of profiles
        var env = Environment.production
        env.arguments = ["stitch-bench"]
        let app = try await Application.make(env)
        app.logger.logLevel = .error
        try await configure(app, config: config)
        if case .postgres = database { try await app.autoRevert() }
        try await app.autoMigrate()
        // The "bare route" baseline: constant JSON, same server, same middleware (and the same
        // behind the sign-in, and a big constant body, for information).
        let constant = try StitchJSON.makeEncoder().encode([InventoryThread(brand: "DMC", number: "310", createdAt: Date(), updatedAt: Date())])
        BenchBaseline.registerRoutes(app, body: constant, bigBytes: Run.bigBytes)
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let bench = Run(app: app, http: http, base: "http://127.0.0.1:\(app.http.server.shared.localAddress!.port!)", label: label,
                        dataDir: dataDir, scale: scale, repeats: repeats, stages: stages, now: Date().roundedToMilliseconds)
        print("— \(label) —")
        var figures = [report(Figure(name: "resident memory, idle", database: label, value: rss(), unit: "MB", target: "≤ 80 MB"))]
        if only.contains("push") { figures += try await bench.push() }
        if only.contains("pull") { figures += try await bench.pull() }
        if only.contains("client") { figures += try await bench.client() }
        if only.contains("list") { figures += try await bench.list() }
        if only.contains("wire") { figures += try await bench.wire() }
        figures.append(report(Figure(name: "resident memory, after runs", database: label, value: rss(), unit: "MB")))
        try await http.shutdown()
        await app.server.shutdown()
        try await app.asyncShutdown()
        return figures
    }

    /// One database's server under measurement, the client that measures it, and the figures'
    /// parts: push, pull, a device's first sync and the list under load, each with an account and
    /// records of its own.
    struct Run: Sendable {
        static let bigBytes = 1_750_000
        let app: Application
        let http: HTTPClient
        let base: String
        let label: String
        let dataDir: String
        let scale: Int
        let repeats: Int
        let stages: Bool
        let now: Date
        /// Records per push and pull (10,000; a tenth with `--quick`).
        var n: Int { 10_000 / scale }

        func call(_ method: HTTPMethod, _ path: String, token: String? = nil, body: Data? = nil) async throws -> (HTTPResponseStatus, ByteBuffer) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: body))
            }
            let response = try await http.execute(request, timeout: .seconds(600))
            return (response.status, try await response.body.collect(upTo: 1 << 30))
        }

        func register(_ email: String) async throws -> AuthResponse {
            let (status, body) = try await call(.POST, "/auth/register", body: try StitchJSON.makeEncoder().encode(
                RegisterRequest(email: email, password: "correct horse", displayName: "Bench")))
            guard status == .created else { throw ConfigError("register failed: \(status)") }
            return try StitchJSON.makeDecoder().decode(AuthResponse.self, from: Data(buffer: body))
        }

        func sync(_ token: String, _ request: SyncRequest) async throws -> SyncResponse {
            let (status, body) = try await call(.POST, "/sync", token: token, body: try StitchJSON.encode(request))
            guard status == .ok else { throw ConfigError("sync failed: \(status) \(String(buffer: body))") }
            return try body.withUnsafeReadableBytes { try StitchJSON.decode(SyncResponse.self, from: $0) }
        }

        func threads(_ n: Int, prefix: String, at date: Date) -> [InventoryThread] {
            (0..<n).map { i in
                InventoryThread(brand: ["DMC", "Appleton", "Anchor", "Paternayan"][i % 4], number: "\(prefix)\(i)", colorName: "Colour \(i)",
                                colorHex: "#1A2B3C", fiberType: .cotton, quantity: i % 9, notes: "bench", createdAt: date, updatedAt: date)
            }
        }

        /// Push: new records, then updates of the same records. Each run pushes its own new
        /// records and updates them; the baseline writes the same rows for another user.
        func push() async throws -> [Figure] {
            var figures: [Figure] = []
            let ann = try await register("push-\(label)@example.com")
            let start = try await sync(ann.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: []))
            let rawUser = UUID()
            try await BenchBaseline.createUser(rawUser, email: "raw-\(label)@example.com", on: app.db)
            var pushed: [[InventoryThread]] = [], raws: [[InventoryThread]] = []
            let pushNew = try await medianSeconds(repeats) { run in
                let records = threads(n, prefix: "p\(run)-", at: now)
                pushed.append(records)
                let r = try await sync(ann.accessToken, SyncRequest(cursor: start.cursor, clientId: UUID(), changes: try records.map { try SyncChange(record: $0) }, limit: 1))
                guard r.results.allSatisfy({ $0.status == .applied }) else { throw ConfigError("push rejected") }
            }
            var rawVersion: Int64 = 0
            let rawNew = try await medianSeconds(repeats) { run in
                let records = threads(n, prefix: "r\(run)-", at: now)
                raws.append(records)
                rawVersion += 1
                try await BenchBaseline.upsertThreads(records, userId: rawUser, version: rawVersion, on: app.db)
            }
            figures.append(report(Figure(name: "sync push, \(n) new", database: label, value: Double(n) / pushNew, unit: "changes/s",
                                         baseline: Double(n) / rawNew, ratio: rawNew / pushNew, target: "≥ 0.50")))
            func updated(_ records: [InventoryThread]) -> [InventoryThread] {
                records.map { var r = $0; r.quantity += 1; r.updatedAt = now + 1; return r }
            }
            let pushUpdate = try await medianSeconds(repeats) { run in
                let records = updated(pushed[run])
                let r = try await sync(ann.accessToken, SyncRequest(cursor: start.cursor, clientId: UUID(), changes: try records.map { try SyncChange(record: $0) }, limit: 1))
                guard r.results.allSatisfy({ $0.status == .applied }) else { throw ConfigError("update rejected") }
            }
            let rawUpdate = try await medianSeconds(repeats) { run in
                rawVersion += 1
                try await BenchBaseline.upsertThreads(updated(raws[run]), userId: rawUser, version: rawVersion, on: app.db)
            }
            if stages { try await BenchBaseline.pushStages(ids: pushed[0].map(\.id), on: app.db) }
            figures.append(report(Figure(name: "sync push, \(n) updates", database: label, value: Double(n) / pushUpdate, unit: "changes/s",
                                         baseline: Double(n) / rawUpdate, ratio: rawUpdate / pushUpdate, target: "≥ 0.50")))
            return figures
        }

        // Pages of the size StitchKit asks for (what a fresh device does), and of the server's
        // default (what a client that names no size gets). Each page is asked for as soon as the
        // headers of the one before have arrived (they name its cursor; the server sends them
        // before it reads the page's rows when the page lies in one table), and that one is read
        // and decoded meanwhile; `ahead: false` asks once the page before is decoded.
        func pullAll(_ token: String, pageSize: Int?, ahead: Bool = true) async throws -> Int {
            func fetch(_ cursor: String?) -> (cursor: String?, page: Task<HTTPClientResponse, any Error>) {
                (cursor, Task {
                    var request = HTTPClientRequest(url: base + "/sync")
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer \(token)")
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(data: try StitchJSON.encode(SyncRequest(cursor: cursor, clientId: UUID(), changes: [], limit: pageSize))))
                    return try await http.execute(request, timeout: .seconds(600))
                })
            }
            var pulled = 0
            var next: (cursor: String?, page: Task<HTTPClientResponse, any Error>)? = fetch(nil)
            while let current = next {
                next = nil
                let page = try await current.page.value
                let headers = page.headers
                if ahead, page.status == .ok, headers.first(name: SyncPage.hasMoreHeader) == "true", let cursor = headers.first(name: SyncPage.cursorHeader) {
                    next = fetch(cursor)
                }
                let body = try await page.body.collect(upTo: 1 << 30)
                guard page.status == .ok else { throw ConfigError("sync failed: \(page.status) \(String(buffer: body))") }
                let response = try body.withUnsafeReadableBytes { try StitchJSON.decode(SyncResponse.self, from: $0) }
                pulled += response.changes.count
                if let early = next, early.cursor != response.cursor || !response.hasMore { throw ConfigError("headers and body disagree") }
                if next == nil, response.hasMore { next = fetch(response.cursor) }
            }
            return pulled
        }

        /// With `--stages`: where a pull's time goes — the server's stages, what a request costs
        /// before any records, a large constant body, pages decoded in this process.
        func pullStages(_ reader: AuthResponse) async throws {
            try await BenchBaseline.stages(userId: reader.user.id, on: app.db)
            // What a request costs before any records: the bare route, a signed-in read, an empty pull.
            // Each request timed alone: a stall (one slow request in twenty) shows as a slowest far
            // above the median. With this process's CPU time and thread switches per request
            // (client and server together).
            func each(_ label: String, _ body: () async throws -> Void) async throws {
                var times: [Double] = []
                let before = Usage.now
                for _ in 0..<20 { times.append(try await seconds(body)) }
                let used = Usage.now.minus(before)
                BenchBaseline.printStage("20 × \(label)", seconds: times.reduce(0, +),
                                         String(format: " (median %.2f ms, slowest %.2f ms; CPU %.2f ms and %.0f thread switches a request)",
                                                median(times) * 1000, times.max()! * 1000, used.cpu * 1000 / 20, used.switches / 20))
            }
            for (label, path, token) in [("GET bare route", "/bench/constant", nil), ("GET /auth/me", "/auth/me", reader.accessToken)] {
                try await each(label) { _ = try await call(.GET, path, token: token) }
            }
            var end: String?
            while true {
                let page = try await sync(reader.accessToken, SyncRequest(cursor: end, clientId: UUID(), changes: [], limit: SyncRequest.maxLimit))
                end = page.cursor
                if !page.hasMore { break }
            }
            try await each("empty pull") { _ = try await sync(reader.accessToken, SyncRequest(cursor: end, clientId: UUID(), changes: [])) }
            for _ in 0..<2 {
                let t = try await seconds {
                    let (status, body) = try await call(.GET, "/bench/big")
                    guard status == .ok, body.readableBytes == Self.bigBytes else { throw ConfigError("/bench/big: \(status), \(body.readableBytes) bytes") }
                }
                BenchBaseline.printStage("HTTP GET of 1.75 MB constant", seconds: t)
            }
            try await BenchBaseline.pagesInProcess(userId: reader.user.id, app: app)
            var cur: String? = nil
            for page in 0..<3 {
                let req = try StitchJSON.encode(SyncRequest(cursor: cur, clientId: UUID(), changes: [], limit: SyncRequest.maxLimit))
                var body: ByteBuffer!
                let t1 = try await seconds { body = try await call(.POST, "/sync", token: reader.accessToken, body: req).1 }
                var r: SyncResponse!
                let t2 = try await seconds { r = try body.withUnsafeReadableBytes { try StitchJSON.decode(SyncResponse.self, from: $0) } }
                BenchBaseline.printStage("HTTP page \(page + 1) of \(r.changes.count), \(body.readableBytes / 1000) kB", seconds: t1,
                                        String(format: ", then decoded in %.1f ms", t2 * 1000))
                cur = r.cursor
                if !r.hasMore { break }
            }
        }

        /// Pull: a fresh device pages through 10,000 records (a user of their own).
        func pull() async throws -> [Figure] {
            var figures: [Figure] = []
            let reader = try await register("pull-\(label)@example.com")
            let stock = try await sync(reader.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: try threads(n, prefix: "q", at: now).map { try SyncChange(record: $0) }, limit: 1))
            guard stock.results.allSatisfy({ $0.status == .applied }) else { throw ConfigError("pull stock rejected") }
            // The pushes' background work (PostgreSQL: fresh planner statistics) finishes first.
            await app.tableStatistics.settle()
            var pulled = 0
            // The pulls and the SELECT take turns, so a slow patch of the machine hits all three.
            var pulls: [Double] = [], pullsInTurn: [Double] = [], pullsDefault: [Double] = [], selects: [Double] = [], reads: [Double] = []
            var onConnection: [Double] = []
            for _ in 0..<repeats {
                pulls.append(try await seconds { pulled = try await pullAll(reader.accessToken, pageSize: SyncEngine.defaultPageSize) })
                pullsInTurn.append(try await seconds { _ = try await pullAll(reader.accessToken, pageSize: SyncEngine.defaultPageSize, ahead: false) })
                pullsDefault.append(try await seconds { _ = try await pullAll(reader.accessToken, pageSize: nil) })
                selects.append(try await seconds {
                    let count = try await BenchBaseline.selectThreads(userId: reader.user.id, on: app.db)
                    guard count == n else { throw ConfigError("select saw \(count)") }
                })
                reads.append(try await seconds {
                    let count = try await BenchBaseline.selectThreadsReadingValues(userId: reader.user.id, on: app.db)
                    guard count == n else { throw ConfigError("select saw \(count)") }
                })
                if label == "sqlite" {
                    onConnection.append(try await seconds {
                        let count = try await BenchBaseline.selectThreadsOnConnection(userId: reader.user.id, on: app.db)
                        guard count == n else { throw ConfigError("select saw \(count ?? -1)") }
                    })
                }
            }
            let pull = median(pulls), pullDefault = median(pullsDefault), select = median(selects), read = median(reads)
            if stages { try await pullStages(reader) }
            figures.append(report(Figure(name: "sync pull, \(pulled) records", database: label, value: Double(pulled) / pull, unit: "records/s",
                                         baseline: Double(n) / select, ratio: select / pull, target: "≥ 0.75 (#64.4)")))
            if !onConnection.isEmpty {
                // The server's SQLite reads skip the per-row hand-over `all()` still pays: the same
                // pull against a SELECT that skips it too (for information: the stricter floor).
                figures.append(report(Figure(name: "sync pull vs SELECT on the connection's thread", database: label, value: Double(pulled) / pull,
                                             unit: "records/s", baseline: Double(n) / median(onConnection), ratio: median(onConnection) / pull)))
            }
            figures.append(report(Figure(name: "sync pull, one page at a time", database: label, value: Double(pulled) / median(pullsInTurn),
                                         unit: "records/s", baseline: Double(n) / select, ratio: select / median(pullsInTurn))))
            figures.append(report(Figure(name: "sync pull, pages of \(SyncRequest.defaultLimit)", database: label, value: Double(pulled) / pullDefault,
                                         unit: "records/s", baseline: Double(n) / select, ratio: select / pullDefault)))
            if label == "postgres" {
                // PostgreSQL's bare SELECT never decodes a value (SQLite's does): the same pull against
                // a SELECT that reads every value.
                figures.append(report(Figure(name: "sync pull vs SELECT reading values", database: label, value: Double(pulled) / pull,
                                             unit: "records/s", baseline: Double(n) / read, ratio: read / pull)))
            }
            return figures
        }

        /// A StitchKit device's first sync of 50,000 records into its GRDB store (a fresh store each run).
        func client() async throws -> [Figure] {
            let m = 50_000 / scale
            let owner = try await register("client-\(label)@example.com")
            for batch in 0..<(m + 9_999) / 10_000 {
                let more = threads(min(10_000, m - batch * 10_000), prefix: "c\(batch)-", at: now)
                _ = try await sync(owner.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: try more.map { try SyncChange(record: $0) }, limit: 1))
            }
            var stored = 0
            var times: [Double] = []
            for run in 0..<repeats {
                let store = try LocalStore(path: dataDir + "/\(label)-client-\(run).sqlite")
                let tokens = MemoryTokenStore(Session(server: base, accessToken: owner.accessToken, refreshToken: owner.refreshToken, user: owner.user))
                let engine = SyncEngine(store: store, api: APIClient(tokens: tokens, server: base, timeout: 600))
                times.append(try await seconds { try await engine.sync() })
                stored = try store.all(InventoryThread.self).count
                guard stored == m else { throw ConfigError("the client stored \(stored) of \(m) records") }
            }
            let initial = median(times)
            return [report(Figure(name: "client initial sync, \(stored) rows", database: label, value: Double(stored) / initial, unit: "rows/s",
                                         target: "≥ 30000 rows/s"))]
        }

        /// A phone's first sync of 10,000 records on slow 4G (150 ms a round trip, 1.6 Mbit/s
        /// down): the bytes each page moves as the server sends them — uncompressed, and gzipped
        /// (what a client asking with `Accept-Encoding: gzip` gets) — and the seconds that link
        /// takes for them, a round trip per page (pages asked one after another) plus the bytes at
        /// its rate. Connection set-up and the upload of each request are left out (both the same
        /// either way). Measured once: the bytes don't vary.
        func wire() async throws -> [Figure] {
            let phone = try await register("wire-\(label)@example.com")
            for batch in 0..<(n + 4_999) / 5_000 {
                let more = threads(min(5_000, n - batch * 5_000), prefix: "w\(batch)-", at: now)
                _ = try await sync(phone.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: try more.map { try SyncChange(record: $0) }, limit: 1))
            }
            func firstSync(encoding: String) async throws -> (bytes: Int, pages: Int, records: Int) {
                var cursor: String?, bytes = 0, pages = 0, records = 0
                repeat {
                    var request = HTTPClientRequest(url: base + "/sync")
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer \(phone.accessToken)")
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "Accept-Encoding", value: encoding)
                    request.body = .bytes(ByteBuffer(data: try StitchJSON.encode(SyncRequest(cursor: cursor, clientId: UUID(), changes: [],
                                                                                            limit: SyncEngine.defaultPageSize))))
                    let response = try await http.execute(request, timeout: .seconds(600))
                    let body = try await response.body.collect(upTo: 1 << 30)
                    guard response.status == .ok else { throw ConfigError("sync failed: \(response.status)") }
                    let sent = response.headers.first(name: "Content-Encoding") ?? "identity"
                    guard sent == encoding else { throw ConfigError("asked for \(encoding), the server sent \(sent)") }
                    bytes += body.readableBytes
                    pages += 1
                    // The page read as the device reads it: decompressed first when it came gzipped.
                    var plain = body
                    if encoding == "gzip" {
                        guard let inflated = Compression.gunzip(Array(buffer: body)) else { throw ConfigError("a gzipped page that isn't gzip") }
                        plain = ByteBuffer(bytes: inflated)
                    }
                    let page = try plain.withUnsafeReadableBytes { try StitchJSON.decode(SyncResponse.self, from: $0) }
                    records += page.changes.count
                    cursor = page.hasMore ? page.cursor : nil
                } while cursor != nil
                return (bytes, pages, records)
            }
            func slow4G(_ pages: Int, _ bytes: Int) -> Double { Double(pages) * 0.150 + Double(bytes) * 8 / 1_600_000 }
            let plain = try await firstSync(encoding: "identity"), gzipped = try await firstSync(encoding: "gzip")
            guard plain.records == n, gzipped.records == n else { throw ConfigError("the first sync saw \(plain.records) and \(gzipped.records) of \(n)") }
            return [
                report(Figure(name: "first sync, \(n) records, gzip", database: label, value: Double(gzipped.bytes) / 1024, unit: "KiB",
                              baseline: Double(plain.bytes) / 1024, ratio: Double(gzipped.bytes) / Double(plain.bytes))),
                report(Figure(name: "first sync on slow 4G, gzip", database: label, value: slow4G(gzipped.pages, gzipped.bytes), unit: "s",
                              baseline: slow4G(plain.pages, plain.bytes), ratio: slow4G(gzipped.pages, gzipped.bytes) / slow4G(plain.pages, plain.bytes))),
            ]
        }

        /// GET /threads for a user with 1,000 threads under concurrent load, against a bare route.
        func list() async throws -> [Figure] {
            var figures: [Figure] = []
            let lister = try await register("list-\(label)@example.com")
            _ = try await sync(lister.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: try threads(1000 / scale, prefix: "l", at: now).map { try SyncChange(record: $0) }, limit: 1))
            let requests = 2000 / scale, concurrency = 16, quickLoad = scale > 1
            func load(_ path: String, token: String?) async throws -> Load {
                var latencies: [Double] = []
                let total = try await seconds {
                    latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                var mine: [Double] = []
                                for _ in stride(from: worker, to: requests, by: concurrency) {
                                    let t = try await seconds {
                                        let (status, _) = try await call(.GET, path, token: token)
                                        guard status == .ok else { throw ConfigError("\(path): \(status)") }
                                    }
                                    mine.append(t)
                                }
                                return mine
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                }
                latencies.sort()
                return (Double(requests) / total, latencies[latencies.count / 2] * 1000, latencies[min(latencies.count - 1, latencies.count * 99 / 100)] * 1000)
            }
            // The bare route and the list take turns, so a slow patch of the machine hits both: with
            // wrk (Debian's `wrk`, a load generator in a process of its own) when it is installed,
            // and with the in-process generator above, which also pays for receiving every 250 kB
            // list in this process's Swift HTTP client, on the server's two cores. Then the list with
            // its cache off (every request reads, sorts and encodes 1,000 rows), with the first.
            var generators: [(name: String, load: (String, String?) async throws -> Load)] = [("in-process", { try await load($0, token: $1) })]
            if let wrk = Wrk.find() {
                let duration = quickLoad ? 1 : 3
                generators.insert(("wrk", { try await wrk.run(url: base + $0, token: $1, connections: concurrency, seconds: duration) }), at: 0)
            } else {
                print("(wrk is not installed: `apt-get install wrk` measures the list with a load generator in a process of its own)")
            }
            for (index, generator) in generators.enumerated() {
                _ = try await generator.load("/bench/constant", nil)  // warm up
                var bares: [Load] = [], lists: [Load] = [], signedIn: [Load] = []
                for _ in 0..<repeats {
                    bares.append(try await generator.load("/bench/constant", nil))
                    lists.append(try await generator.load("/threads", lister.accessToken))
                    if index == 0 { signedIn.append(try await generator.load("/bench/signed-in", lister.accessToken)) }
                }
                let bare = median(bares), list = median(lists)
                let by = ", \(generator.name)"
                figures.append(report(Figure(name: "GET /threads (\(1000 / scale)), \(concurrency) conc." + by, database: label, value: list.rate,
                                             unit: "req/s", baseline: bare.rate, ratio: list.rate / bare.rate, target: index == 0 ? "≥ 0.25" : nil)))
                figures.append(report(Figure(name: "GET /threads p50" + by, database: label, value: list.p50, unit: "ms", baseline: bare.p50)))
                figures.append(report(Figure(name: "GET /threads p99" + by, database: label, value: list.p99, unit: "ms", baseline: bare.p99)))
                guard index == 0 else { continue }
                // The same constant body as the bare route, behind the sign-in check every API request
                // makes (token, and one query: the sign-in is live, the user's change counter): the
                // floor under any authenticated request, the list included.
                let floor = median(signedIn.map(\.rate))
                figures.append(report(Figure(name: "signed-in constant route" + by, database: label, value: floor, unit: "req/s",
                                             baseline: bare.rate, ratio: floor / bare.rate)))
                let cache = app.responseCache
                app.responseCache = ResponseCache(maxBytes: 0)
                let cold = try await generator.load("/threads", lister.accessToken)
                app.responseCache = cache
                figures.append(report(Figure(name: "GET /threads, cache off" + by, database: label, value: cold.rate, unit: "req/s",
                                             baseline: bare.rate, ratio: cold.rate / bare.rate)))
                figures.append(report(Figure(name: "GET /threads p50, cache off" + by, database: label, value: cold.p50, unit: "ms", baseline: bare.p50)))
            }
            return figures
        }
    }
}
