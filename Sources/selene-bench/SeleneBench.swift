import AsyncHTTPClient
import Fluent
import Foundation
import NIOCore
import NIOPosix
import SeleneServer
import SeleneShared
import ServerCommon
import SQLKit
import Vapor

/// Selene's benchmarks, run on purpose (never by the test suite):
///
///     swift run -c release selene-bench                       # speed on SQLite, capture, quality on the dev set
///     BENCH_DATABASE_URL=postgres://… swift run -c release selene-bench   # PostgreSQL too (an empty database it may wipe)
///     swift run -c release selene-bench --only quality --beir ~/beir/scifact
///     swift run -c release selene-bench --quick               # one tenth of the counts
///     SELENE_LLM_PROVIDER=openai SELENE_LLM_URL=… swift run -c release selene-bench --only llm   # the configured model server
///     swift run -c release selene-bench --only briefings       # the briefing's sentence check on a second set (no model)
///     SELENE_LLM_URL=… swift run -c release selene-bench --only quality --model-facts 500   # facts from a real model's reading (ModelFacts)
///
/// Every figure is printed beside a baseline measured in the same run, as a ratio.
@main
struct SeleneBench {
    struct Options {
        var notes = 100_000
        var queries = 200
        var captures = 10_000
        /// The retrieval benchmark's embedding size: 768 as nomic-embed-text's (Selene's default model)
        /// and all-mpnet-base-v2's; all-MiniLM-L6-v2's is 384 (`--dimension`).
        var dimension = 768
        var only: Set<String> = ["retrieval", "capture", "quality"]
        var databases: [String] = ["sqlite"]
        var beir: String?
        var embedURL: String?
        /// The embedding model the quality sets are embedded with (`--embed-model`): all-mpnet-base-v2,
        /// the one Selene's retrieval is tuned on (#63), served by `Benchmarks/embed-server.py` unless
        /// `--embed-url` is given; `--embed-model all-minilm` for all-MiniLM-L6-v2.
        var embedModel = "all-mpnet-base-v2"
        var json: String?
        /// Notes the llm benchmark processes.
        var llmNotes = 20
        /// Quality also searches 1,024 retrieval settings on each set's tuning half.
        var tune = false
        /// Answer steps (`AnswerPipeline`) switched off by name.
        var without: Set<String> = []
        /// Quality: each note also embedded with this many neighbours on each side (same
        /// conversation, same day), kept as one more of its chunk vectors (#63, direction 1).
        var context = 0
        /// With `--only rerank`: print the tuning half's questions whose answer the first stage missed.
        var misses = false
        /// `--expansion`: the quality tables with expansion from the best notes (RM3-style) at a few settings.
        var expansion = false
        /// With `--only rerank`: also write both halves' first-stage candidates (features, grades,
        /// documents) and the sets' vectors to this folder, for studying the second stage outside.
        var dump: String?
        /// Quality: this many more notes of each set read by the configured model first (`ModelFacts`, #85).
        var modelFacts = 0
        /// With `--model-facts`: this many notes asked at once (the model server's `--parallel` slots; 2 as the tier serves).
        var readers = 2
        /// Quality: the facts of the notes `ModelFacts` has cached for this model (no model server needed).
        var factsFrom: String?
        /// Quality: each note also embedded with its facts, as one more of its chunk vectors (#85's second vector).
        var factsVector = false
        /// Quality with a model's facts: only the conversations whose every note the model has read,
        /// and their questions, so "with" and "without" compare the model's reading alone.
        var wholeRead = false
        /// Quality: the reranker (`Reranker.fitted`) also at these depths of the first stage, as more methods.
        var depths: [Int] = []
        /// Quality: the tables without the ablations (a study's extra methods alone beside `.default`).
        var brief = false
        /// Quality: vector feedback (Rocchio: the question moved toward its best notes) at a few settings, as more methods.
        var feedback = false
    }

    /// A setting missing or a server not there is said in a line and the run ends with status 1 —
    /// not a crash's backtrace.
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("selene-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        var options = Options()
        if ProcessInfo.processInfo.environment["BENCH_DATABASE_URL"] != nil { options.databases = ["sqlite", "postgres"] }
        var args = CommandLine.arguments.dropFirst().makeIterator()
        while let arg = args.next() {
            switch arg {
            case "--quick": options.notes = 10_000; options.queries = 100; options.captures = 2_000
            case "--notes": options.notes = Int(args.next() ?? "") ?? options.notes
            case "--queries": options.queries = Int(args.next() ?? "") ?? options.queries
            case "--captures": options.captures = Int(args.next() ?? "") ?? options.captures
            case "--dimension": options.dimension = Int(args.next() ?? "") ?? options.dimension
            case "--only": options.only = Set((args.next() ?? "").split(separator: ",").map(String.init))
            case "--database": options.databases = (args.next() ?? "sqlite").split(separator: ",").map(String.init)
            case "--beir": options.beir = args.next()
            case "--embed-url": options.embedURL = args.next()
            case "--embed-model": options.embedModel = args.next() ?? options.embedModel
            case "--json": options.json = args.next()
            case "--llm-notes": options.llmNotes = Int(args.next() ?? "") ?? options.llmNotes
            case "--tune": options.tune = true
            case "--misses": options.misses = true
            case "--expansion": options.expansion = true
            case "--dump": options.dump = args.next()
            case "--model-facts": options.modelFacts = Int(args.next() ?? "") ?? 0
            case "--readers": options.readers = max(1, Int(args.next() ?? "") ?? 2)
            case "--facts-from": options.factsFrom = args.next()
            case "--facts-vector": options.factsVector = true
            case "--whole-read": options.wholeRead = true
            case "--context": options.context = Int(args.next() ?? "") ?? 0
            case "--depths": options.depths = (args.next() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--brief": options.brief = true
            case "--feedback": options.feedback = true
            case "--without": options.without = Set((args.next() ?? "").split(separator: ",").map(String.init))
            default:
                print("""
                    usage: selene-bench [--quick] [--notes N] [--queries N] [--captures N] [--dimension N] [--only retrieval,capture,quality,chunks,context,rerank,llm,answers,passages,thresholds,briefings]
                                        [--database sqlite,postgres] [--beir PATH] [--embed-url URL] [--embed-model NAME] [--json FILE] [--llm-notes N] [--tune] [--context N] [--misses] [--dump DIR]
                                        [--model-facts N] [--readers N] [--facts-from MODEL] [--whole-read] [--facts-vector] [--depths N,…] [--feedback] [--brief]
                                        [--without STEP,…]   (answer steps off: \(AnswerPipeline.standard.steps.map(\.name).joined(separator: ", ")))
                    """)
                exit(2)
            }
        }
        var report = Report()
        var env = Environment(name: "production", arguments: ["selene-bench"])
        try LoggingSystem.bootstrap(from: &env)
        for database in options.databases {
            if options.only.contains("retrieval") { try await RetrievalBench.run(database: database, options: options, report: &report) }
            if options.only.contains("capture") { try await CaptureBench.run(database: database, options: options, report: &report) }
        }
        if !options.only.isDisjoint(with: ["quality", "chunks", "context", "rerank"]) { try await QualityBench.run(options: options, report: &report) }
        if options.only.contains("llm") { try await LLMBench.run(options: options, report: &report) }
        if options.only.contains("answers") { try await AnswerBench.run(options: options, report: &report) }
        if options.only.contains("passages") { try await PassageBench.run(options: options, report: &report) }
        if options.only.contains("thresholds") { try await ThresholdBench.run(options: options, report: &report) }
        if options.only.contains("briefings") { try await BriefingBench.run(options: options, report: &report) }
        report.printTable()
        if let path = options.json { try report.write(to: path) }
    }

    /// `body` given a Selene application on a fresh database of the given kind (a file for SQLite, as
    /// in production; the emptied `BENCH_DATABASE_URL` for PostgreSQL), shut down and its directory
    /// removed however `body` ends: an error says its line (`main`) instead of Vapor's assertion that
    /// an application was freed running.
    static func withApplication<T>(database: String, configure adjust: (inout SeleneConfig) -> Void = { _ in },
                                   _ body: (Application) async throws -> T) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("selene-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db: SeleneConfig.Database
        if database == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["BENCH_DATABASE_URL"] else {
                throw SeleneConfigError("Set BENCH_DATABASE_URL to an empty PostgreSQL database the benchmark may wipe")
            }
            db = .postgres(url: url)
        } else {
            db = .sqliteFile(path: dir + "/selene.sqlite")
        }
        var config = SeleneConfig(database: db, dataDirectory: dir)
        config.processing.enabled = false
        config.briefingHour = nil
        adjust(&config)
        let app = try await Application.make(.production)
        app.logger.logLevel = .warning
        // Shut down however it ends, a configuration or migration that fails included.
        return try await withClosing(app, close: { try await $0.asyncShutdown() }) { app in
            try await SeleneServer.configure(app, config: config)
            if database == "postgres" {
                try await (app.db as! any SQLDatabase).raw("DROP SCHEMA public CASCADE").run()
                try await (app.db as! any SQLDatabase).raw("CREATE SCHEMA public").run()
            }
            try await app.autoMigrate()
            return try await body(app)
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    static func time(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }
}

/// The figures of a run.
struct Report {
    struct Figure: Encodable {
        var name: String
        var database: String?
        var value: Double
        var unit: String
        var baseline: Double?
        var baselineName: String?
        var ratio: Double?
        var target: String?
    }

    var figures: [Figure] = []

    mutating func add(_ name: String, database: String?, value: Double, unit: String, baseline: Double? = nil,
                      baselineName: String? = nil, ratio: Double? = nil, target: String? = nil) {
        figures.append(Figure(name: name, database: database, value: value, unit: unit, baseline: baseline,
                              baselineName: baselineName, ratio: ratio ?? baseline.map { value / $0 }, target: target))
    }

    func printTable() {
        print("\n== Selene benchmark figures")
        for f in figures {
            var line = "\(f.name)\(f.database.map { " [\($0)]" } ?? ""): \(Self.format(f.value)) \(f.unit)"
            if let b = f.baseline { line += " | baseline \(f.baselineName ?? "") \(Self.format(b)) \(f.unit)" }
            if let r = f.ratio { line += " | ratio \(String(format: "%.2f", r))" }
            if let t = f.target { line += " | target \(t)" }
            print(line)
        }
    }

    static func format(_ v: Double) -> String {
        v >= 100 ? String(format: "%.0f", v) : v >= 1 ? String(format: "%.2f", v) : String(format: "%.3f", v)
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(["figures": figures]).write(to: URL(fileURLWithPath: path))
    }
}
