import AsyncHTTPClient
import Fluent
import Foundation
import NIOCore
import SQLKit
import StitchCore
import StitchKit
@_spi(Bench) import StitchServer
import Vapor

/// `swift run -c release stitch-bench [--quick] [--json FILE] [--only push,pull,client,list,catalog]
/// [--database sqlite|postgres] [--repeat N] [--stages]`: how close Stitchuation is to the fastest this machine allows.
/// Each figure is measured in the same run as its baseline, on SQLite and (with BENCH_DATABASE_URL,
/// an empty database it may wipe) on PostgreSQL, each database in a process of its own (so each
/// idle memory figure is a fresh server's). `--only` measures some figures (each has an account
/// and records of its own), e.g. to profile one of them; `--database` runs one
/// database. Every figure and its baseline are the medians of `--repeat` runs (3; 1 with `--quick`). `--stages` also times the pull's parts
/// (query, row reading, JSON writing, parsing, decoding) in-process on the same 10,000 rows.
/// `catalog` times the catalog search one keystroke at a time (no database; measured once).
@main
struct Bench {
    struct Figure: Codable {
        var name: String
        var database: String
        var value: Double
        var unit: String
        var baseline: Double?
        var ratio: Double?
        var target: String?

        /// Every figure has every key of `--json`'s schema; `baseline`, `ratio` and `target` are
        /// null where a figure has none (memory, the client's rows/s), rather than missing.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(database, forKey: .database)
            try c.encode(value, forKey: .value)
            try c.encode(unit, forKey: .unit)
            try c.encode(baseline, forKey: .baseline)
            try c.encode(ratio, forKey: .ratio)
            try c.encode(target, forKey: .target)
        }
    }

    static func main() async throws {
        let args = CommandLine.arguments
        let quick = args.contains("--quick")
        func option(_ name: String) -> String? {
            args.firstIndex(of: name).flatMap { args.indices.contains($0 + 1) ? args[$0 + 1] : nil }
        }
        let jsonPath = option("--json")
        let only = Set((option("--only") ?? "push,pull,client,list,catalog").split(separator: ",").map(String.init))
        let databases = option("--database").map { [$0] } ?? ["sqlite", "postgres"]
        let repeats = max(1, Int(option("--repeat") ?? "") ?? (quick ? 1 : 3))
        var figures: [Figure] = []
        let scale = quick ? 10 : 1
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        if only.contains("catalog"), ProcessInfo.processInfo.environment[childMarker] == nil {
            figures += try catalogSearch(repeats: repeats)
        }
        if only == ["catalog"] { databasesDone(figures, jsonPath: jsonPath); return }

        let postgresURL = ProcessInfo.processInfo.environment["BENCH_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let wanted = databases.filter { $0 != "postgres" || postgresURL != nil }
        if wanted.count > 1 {
            // One process per database: each server's idle memory is a fresh process's, not one
            // that already carries the other database's runs.
            for database in wanted { figures += try measureInChildProcess(database: database, dir: dir) }
        } else if wanted == ["sqlite"] {
            figures += try await run(database: .sqliteFile(path: dir + "/bench.sqlite"), label: "sqlite", dataDir: dir, scale: scale, repeats: repeats, only: only, stages: args.contains("--stages"))
        } else if wanted == ["postgres"], let postgresURL {
            figures += try await run(database: .postgres(url: postgresURL), label: "postgres", dataDir: dir, scale: scale, repeats: repeats, only: only, stages: args.contains("--stages"))
        } else {
            throw ConfigError("nothing to measure: --database is sqlite or postgres (which needs BENCH_DATABASE_URL)")
        }
        databasesDone(figures, jsonPath: jsonPath)
    }

    static func databasesDone(_ figures: [Figure], jsonPath: String?) {
        guard let jsonPath else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(["figures": figures]).write(to: URL(fileURLWithPath: jsonPath))
            if ProcessInfo.processInfo.environment[childMarker] == nil { print("wrote \(jsonPath)") }
        } catch {
            print("could not write \(jsonPath): \(error)")
        }
    }

    /// The catalog search, one keystroke at a time as a person types eight queries (typos
    /// included), against the plainest search there is in the same run: a case-folded substring
    /// scan of every entry's brand, number and name. Median and 90th percentile per keystroke, each
    /// the median of `repeats` passes; the target is well under 10 ms a keystroke.
    static func catalogSearch(repeats: Int) throws -> [Figure] {
        let catalog = try BenchAccess.catalog()
        var typed: [String] = []
        for word in ["310", "black", "royal blue", "dusty rose", "blakc", "3865", "ecru", "wintr white"] {
            for end in word.indices { typed.append(String(word[...end])) }
        }
        let folded = catalog.entries.map { "\($0.brand) \($0.number) \($0.name)".lowercased() }
        func perKeystroke(_ search: (String) -> Int) -> (p50: Double, p90: Double) {
            var p50s: [Double] = [], p90s: [Double] = []
            for _ in 0..<max(3, repeats) {
                var times: [Double] = []
                for query in typed {
                    let start = ContinuousClock.now
                    precondition(search(query) >= 0)
                    times.append(BenchBaseline.seconds(ContinuousClock.now - start) * 1000)
                }
                times.sort()
                p50s.append(times[times.count / 2])
                p90s.append(times[times.count * 9 / 10])
            }
            return (median(p50s), median(p90s))
        }
        let baseline = perKeystroke { query in
            let q = query.lowercased()
            return folded.reduce(0) { $0 + ($1.contains(q) ? 1 : 0) }
        }
        let search = perKeystroke { catalog.search($0).count }
        return [
            report(Figure(name: "catalog search per keystroke p50", database: "-", value: search.p50, unit: "ms",
                          baseline: baseline.p50, ratio: search.p50 / max(baseline.p50, 1e-9), target: "< 10 ms")),
            report(Figure(name: "catalog search per keystroke p90", database: "-", value: search.p90, unit: "ms",
                          baseline: baseline.p90, ratio: search.p90 / max(baseline.p90, 1e-9), target: "< 10 ms")),
        ]
    }

    /// Set in a child process's environment (it then leaves the "wrote FILE" line to its parent).
    static let childMarker = "STITCH_BENCH_CHILD"

    /// Runs this benchmark again for one database, in a child process that prints its own lines,
    /// and answers its figures.
    static func measureInChildProcess(database: String, dir: String) throws -> [Figure] {
        let json = dir + "/\(database).json"
        var arguments = Array(CommandLine.arguments.dropFirst())
        for option in ["--json", "--database"] {
            if let i = arguments.firstIndex(of: option) { arguments.removeSubrange(i..<min(i + 2, arguments.count)) }
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = arguments + ["--database", database, "--json", json]
        child.environment = ProcessInfo.processInfo.environment.merging([childMarker: "1"]) { $1 }
        try child.run()
        child.waitUntilExit()
        guard child.terminationReason == .exit, child.terminationStatus == 0 else {
            throw ConfigError("the \(database) run failed (status \(child.terminationStatus))")
        }
        return try JSONDecoder().decode([String: [Figure]].self, from: Data(contentsOf: URL(fileURLWithPath: json)))["figures"] ?? []
    }

    static func report(_ f: Figure) -> Figure {
        let ratio = f.ratio.map { String(format: "  ratio %.2f", $0) } ?? ""
        // Small figures (a catalog keystroke's milliseconds) keep three decimals.
        let baseline = f.baseline.map { String(format: $0 < 10 ? "  baseline %.3f" : "  baseline %.0f", $0) } ?? ""
        print(String(format: f.value < 10 ? "%-34@ %-9@ %12.3f %-10@" : "%-34@ %-9@ %12.1f %-10@", f.name as NSString, f.database as NSString, f.value, f.unit as NSString)
              + baseline + ratio + (f.target.map { "  (target \($0))" } ?? ""))
        return f
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        let d = ContinuousClock.now - start
        return BenchBaseline.seconds(d)
    }

    /// This process's CPU time (user and system) and voluntary thread switches so far.
    struct Usage {
        var cpu: Double
        var switches: Double

        static var now: Usage {
            var u = rusage()
            getrusage(RUSAGE_SELF.rawValue, &u)
            return Usage(cpu: Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6,
                         switches: Double(u.ru_nvcsw))
        }

        func minus(_ earlier: Usage) -> Usage { Usage(cpu: cpu - earlier.cpu, switches: switches - earlier.switches) }
    }

    static func rss() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb / 1024
    }

    /// A load run's requests per second and its median and 99th-percentile latency in milliseconds.
    typealias Load = (rate: Double, p50: Double, p99: Double)

    /// Each part of `loads` as its median.
    static func median(_ loads: [Load]) -> Load {
        (median(loads.map(\.rate)), median(loads.map(\.p50)), median(loads.map(\.p99)))
    }

    /// The median of `values` (the figures are medians of `--repeat` runs: this machine is noisy).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Times `body` `repeats` times (each run given its index) and answers the median.
    static func medianSeconds(_ repeats: Int, _ body: (Int) async throws -> Void) async rethrows -> Double {
        var times: [Double] = []
        for i in 0..<repeats { times.append(try await seconds { try await body(i) }) }
        return median(times)
    }

    static func run(database: AppConfig.Database, label: String, dataDir: String, scale: Int, repeats: Int, only: Set<String>, stages: Bool) async throws -> [Figure] {
        var figures: [Figure] = []
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
        let bigBytes = 1_750_000
        BenchBaseline.registerRoutes(app, body: constant, bigBytes: bigBytes)
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let base = "http://127.0.0.1:\(app.http.server.shared.localAddress!.port!)"
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http }
        print("— \(label) —")
        let idle = rss()
        figures.append(report(Figure(name: "resident memory, idle", database: label, value: idle, unit: "MB", target: "≤ 80 MB")))

        func call(_ method: HTTPMethod, _ path: String, token: String? = nil, body: Data? = nil) async throws -> (HTTPResponseStatus, ByteBuffer) {
            let (status, _, bytes) = try await exchange(method, path, token: token, body: body)
            return (status, bytes)
        }
        func exchange(_ method: HTTPMethod, _ path: String, token: String? = nil, body: Data? = nil) async throws -> (HTTPResponseStatus, HTTPHeaders, ByteBuffer) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: body))
            }
            let response = try await http.execute(request, timeout: .seconds(600))
            return (response.status, response.headers, try await response.body.collect(upTo: 1 << 30))
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

        // 1. Push: new records, then updates of the same records. Each run pushes its own new
        // records and updates them; the baseline writes the same rows for another user.
        let n = 10_000 / scale
        let now = Date().roundedToMilliseconds
        if only.contains("push") {
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
        }

        // 2. Pull: a fresh device pages through 10,000 records (a user of their own).
        if only.contains("pull") {
        let reader = try await register("pull-\(label)@example.com")
        let stock = try await sync(reader.accessToken, SyncRequest(cursor: nil, clientId: UUID(), changes: try threads(n, prefix: "q", at: now).map { try SyncChange(record: $0) }, limit: 1))
        guard stock.results.allSatisfy({ $0.status == .applied }) else { throw ConfigError("pull stock rejected") }
        // The pushes' background work (PostgreSQL: fresh planner statistics) finishes first.
        await app.tableStatistics.settle()
        // Pages of the size StitchKit asks for (what a fresh device does), and of the server's
        // default (what a client that names no size gets). Each page is asked for as soon as the
        // headers of the one before have arrived (they name its cursor; the server sends them
        // before it reads the page's rows when the page lies in one table), and that one is read
        // and decoded meanwhile; `ahead: false` asks once the page before is decoded.
        func pullAll(pageSize: Int?, ahead: Bool = true) async throws -> Int {
            func fetch(_ cursor: String?) -> (cursor: String?, page: Task<HTTPClientResponse, any Error>) {
                (cursor, Task {
                    var request = HTTPClientRequest(url: base + "/sync")
                    request.method = .POST
                    request.headers.add(name: "Authorization", value: "Bearer \(reader.accessToken)")
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
        var pulled = 0
        // The pulls and the SELECT take turns, so a slow patch of the machine hits all three.
        var pulls: [Double] = [], pullsInTurn: [Double] = [], pullsDefault: [Double] = [], selects: [Double] = [], reads: [Double] = []
        for _ in 0..<repeats {
            pulls.append(try await seconds { pulled = try await pullAll(pageSize: SyncEngine.defaultPageSize) })
            pullsInTurn.append(try await seconds { _ = try await pullAll(pageSize: SyncEngine.defaultPageSize, ahead: false) })
            pullsDefault.append(try await seconds { _ = try await pullAll(pageSize: nil) })
            selects.append(try await seconds {
                let count = try await BenchBaseline.selectThreads(userId: reader.user.id, on: app.db)
                guard count == n else { throw ConfigError("select saw \(count)") }
            })
            reads.append(try await seconds {
                let count = try await BenchBaseline.selectThreadsReadingValues(userId: reader.user.id, on: app.db)
                guard count == n else { throw ConfigError("select saw \(count)") }
            })
        }
        let pull = median(pulls), pullDefault = median(pullsDefault), select = median(selects), read = median(reads)
        if stages {
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
                    guard status == .ok, body.readableBytes == bigBytes else { throw ConfigError("/bench/big: \(status), \(body.readableBytes) bytes") }
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
        figures.append(report(Figure(name: "sync pull, \(pulled) records", database: label, value: Double(pulled) / pull, unit: "records/s",
                                     baseline: Double(n) / select, ratio: select / pull, target: "≥ 0.50 (pull ≤ 2× SELECT)")))
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
        }

        // 3. A StitchKit device's first sync of 50,000 records into its GRDB store (a fresh store each run).
        if only.contains("client") {
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
        figures.append(report(Figure(name: "client initial sync, \(stored) rows", database: label, value: Double(stored) / initial, unit: "rows/s",
                                     target: "≥ 30000 rows/s")))
        }

        // 4. GET /threads for a user with 1,000 threads under concurrent load, against a bare route.
        if only.contains("list") {
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
        }
        figures.append(report(Figure(name: "resident memory, after runs", database: label, value: rss(), unit: "MB")))

        try await http.shutdown()
        await app.server.shutdown()
        try await app.asyncShutdown()
        return figures
    }
}

/// Debian's `wrk` HTTP load generator, run as a child process: requests per second and latency
/// percentiles of a fixed-length run at a fixed number of connections.
struct Wrk {
    let path: String

    /// wrk on the PATH, if it is installed.
    static func find() -> Wrk? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return directories.map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }.map(Wrk.init)
    }

    /// Loads `url` for `seconds` over `connections` connections (two wrk threads); the rate in
    /// requests per second and the median and 99th-percentile latency in milliseconds. Any
    /// response other than 2xx/3xx, or a socket error, fails the run.
    func run(url: String, token: String?, connections: Int, seconds: Int) async throws -> Bench.Load {
        var arguments = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        let output = try await Self.output(of: path, arguments + [url])
        return try Self.parse(output)
    }

    /// The standard output of a finished child process. The blocking read and wait run on a
    /// thread of their own: on one of Swift's cooperative threads (two on this machine) they
    /// would hold it for the whole load, and the server's async routes (the list, the sign-in
    /// middleware) run on those threads while the bare route's closure runs on the event loop.
    static func output(of executable: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread.detachNewThread {
                // wrk's report is a few hundred bytes, written at its end: read it all, then wait.
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        guard process.terminationStatus == 0 else { throw ConfigError("\(executable) failed (\(process.terminationStatus)): \(text)") }
        return text
    }

    /// Reads wrk's report (`Requests/sec:`, the `--latency` distribution's 50% and 99% lines,
    /// and the error lines it prints only when there were errors).
    static func parse(_ report: String) throws -> Bench.Load {
        let lines = report.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        if let errors = lines.first(where: { $0.hasPrefix("Non-2xx or 3xx responses:") || $0.hasPrefix("Socket errors:") }) {
            throw ConfigError("wrk: \(errors)")
        }
        func value(_ prefix: String) throws -> Substring {
            guard let line = lines.first(where: { $0.hasPrefix(prefix) }),
                  let field = line.dropFirst(prefix.count).split(separator: " ").first
            else { throw ConfigError("wrk's report has no \(prefix) line:\n\(report)") }
            return field
        }
        func milliseconds(_ text: Substring) throws -> Double {
            for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("m", 60_000.0), ("s", 1000.0)] where text.hasSuffix(unit) {
                if let number = Double(text.dropLast(unit.count)) { return number * scale }
            }
            throw ConfigError("wrk latency \(text)?")
        }
        guard let rate = Double(try value("Requests/sec:")) else { throw ConfigError("wrk rate?\n\(report)") }
        return (rate, try milliseconds(try value("50%")), try milliseconds(try value("99%")))
    }
}
