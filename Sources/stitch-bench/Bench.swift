import AsyncHTTPClient
import Fluent
import Foundation
import NIOCore
import SQLKit
import StitchCore
import StitchKit
@_spi(Bench) import StitchServer
import Vapor

/// `swift run -c release stitch-bench [--quick] [--json FILE] [--only push,pull,client,list,wire,catalog]
/// [--database sqlite|postgres] [--repeat N] [--stages]`: how close Stitchuation is to the fastest this machine allows.
/// Each figure is measured in the same run as its baseline, on SQLite and (with BENCH_DATABASE_URL,
/// an empty database it may wipe) on PostgreSQL, each database in a process of its own (so each
/// idle memory figure is a fresh server's). `--only` measures some figures (each has an account
/// and records of its own), e.g. to profile one of them; `--database` runs one
/// database. Every figure and its baseline are the medians of `--repeat` runs (3; 1 with `--quick`). `--stages` also times the pull's parts
/// (query, row reading, JSON writing, parsing, decoding) in-process on the same 10,000 rows.
/// `catalog` times the catalog search one keystroke at a time (no database; measured once).
/// `--only palette [--palette-set DIR]` scores canvas palettes on `Benchmarks/canvas-palette/make.py`'s canvases (`PaletteBench`).
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
        let only = Set((option("--only") ?? "push,pull,client,list,wire,catalog").split(separator: ",").map(String.init))
        let databases = option("--database").map { [$0] } ?? ["sqlite", "postgres"]
        let repeats = max(1, Int(option("--repeat") ?? "") ?? (quick ? 1 : 3))
        var figures: [Figure] = []
        let scale = quick ? 10 : 1
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        if only == ["palette"] {
            // Canvas palettes (#84): no database; the made canvases of Benchmarks/canvas-palette/make.py.
            databasesDone(try PaletteBench.run(set: option("--palette-set") ?? "/tmp/canvas-palette"), jsonPath: jsonPath)
            return
        }
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
