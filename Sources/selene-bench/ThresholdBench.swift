import Fluent
import Foundation
import Logging
import OllamaStub
import SeleneServer
import SeleneShared
import SQLKit
import Vapor

/// The thread and association thresholds on real embeddings (all-MiniLM-L6-v2, as QualityBench
/// serves them) over labelled development notes (`Benchmarks/selene-threads`, written by its
/// `build.py`), whose ids carry their topic (`garden-07`, `physio-03`, …). Each threshold is chosen on one half of every topic's
/// notes and reported on the other half, through the server's own `ThreadService` (threads are
/// named by the Ollama-protocol stub; naming doesn't move the figures).
///
/// Figures per threshold: threads formed, notes left alone, and on labelled pairs (two notes of
/// one topic belong together, of two topics apart): pair precision (1 − the wrong joins' share),
/// pair recall, F1. Associations likewise, over the pairs at or above the threshold.
enum ThresholdBench {
    struct Outcome { var threads = 0; var alone = 0; var precision = 0.0; var recall = 0.0; var wrongPairs = 0; var pairs = 0
        var f1: Double { precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0 }
        /// What a threshold is chosen by: F0.5, precision weighed twice as much as recall — a
        /// wrong join puts a note where it misleads; a missed one only waits for the next.
        var fHalf: Double { precision + recall > 0 ? 1.25 * precision * recall / (0.25 * precision + recall) : 0 } }

    static let grid = stride(from: 0.25, through: 0.801, by: 0.05).map { ($0 * 100).rounded() / 100 }

    static func topic(_ id: String) -> String { String(id.prefix { $0.isLetter }) }

    /// The notes and what every run over them shares: their vectors, the stand-in that names
    /// threads, the settings of each server made.
    struct Setup {
        var options: SeleneBench.Options
        var vectors: [String: [Float]]
        var embedURL: String
        var stub: OllamaStub

        func settings(_ c: inout SeleneConfig) {
            c.llm = SeleneConfig.LLM(baseURL: stub.baseURL, chatModel: OllamaStub.chatModel, embeddingModel: options.embedModel,
                                     embedding: .init(provider: .ollama, baseURL: embedURL), requestTimeout: 600)
        }
    }

    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        let path = options.beir ?? "Benchmarks/selene-threads"
        let corpus = try QualityBench.lines(path + "/corpus.jsonl", as: QualityBench.Document.self)
        let (tune, held, topics) = halves(corpus)
        print("== Thresholds on \(path): \(corpus.count) notes in \(topics) topics; tuned on \(tune.count), reported on \(held.count)")

        let (url, helper) = try await QualityBench.embeddingServer(options.embedURL, model: options.embedModel)
        defer { helper?.terminate(); helper?.waitUntilExit() }
        let stub = try await OllamaStub.start()
        var setup = Setup(options: options, vectors: [:], embedURL: url, stub: stub)
        setup.vectors = try await embedAll(corpus, setup)
        try await chooseThreadThreshold(tune: tune, held: held, topics: topics, setup, report: &report)
        chooseAssociationThreshold(tune: tune, held: held, vectors: setup.vectors, report: &report)
        await stub.stop()
    }

    /// Halves within each topic: alternate notes, so both halves hold every topic.
    static func halves(_ corpus: [QualityBench.Document]) -> (tune: [QualityBench.Document], held: [QualityBench.Document], topics: Int) {
        var seen: [String: Int] = [:]
        var tune: [QualityBench.Document] = [], held: [QualityBench.Document] = []
        for doc in corpus {
            let n = seen[topic(doc._id), default: 0]
            seen[topic(doc._id)] = n + 1
            if n % 2 == 0 { tune.append(doc) } else { held.append(doc) }
        }
        return (tune, held, seen.count)
    }

    /// Every note embedded once, as the server embeds it.
    static func embedAll(_ corpus: [QualityBench.Document], _ setup: Setup) async throws -> [String: [Float]] {
        try await SeleneBench.withApplication(database: "sqlite", configure: setup.settings) { embedder in
            var vectors: [String: [Float]] = [:]
            let texts = corpus.map { ProcessingPrompts.embeddingText(title: $0.title, content: $0.text) }
            for start in stride(from: 0, to: corpus.count, by: 64) {
                let end = min(start + 64, corpus.count)
                for (doc, vector) in zip(corpus[start..<end], try await embedder.selene.llm!.embed(Array(texts[start..<end]))) { vectors[doc._id] = vector }
            }
            return vectors
        }
    }

    /// The notes placed one by one, six hours apart, by the server's own `ThreadService` with
    /// join = seed threshold `t`: which topics' notes ended up together.
    static func threads(_ docs: [QualityBench.Document], _ t: Double, _ setup: Setup) async throws -> Outcome {
        let members = try await SeleneBench.withApplication(database: "sqlite", configure: { c in
            setup.settings(&c)
            c.threads.joinThreshold = t
            c.threads.seedThreshold = t
        }) { app in
            let store = NoteStore(db: app.db), sql = app.db as! any SQLDatabase
            let service = ThreadService(db: app.db, services: app.selene, logger: Logger(label: "bench"))
            var docOf: [Int: String] = [:]
            let start = Date(timeIntervalSince1970: 1_780_000_000)
            for (i, doc) in docs.enumerated() {
                let at = start.addingTimeInterval(Double(i) * 6 * 3600)
                let input = try CaptureInput(content: doc.text, title: doc.title.flatMap { $0.isEmpty ? nil : $0 }, createdAt: at, source: .import).validated()
                let id = Int(try await store.capture(input, idempotent: false, now: at).note.id)
                docOf[id] = doc._id
                let vector = setup.vectors[doc._id]!
                try await sql.raw("""
                    INSERT INTO note_embeddings (note_id, vector, model, dimension, embedded_at)
                    VALUES (\(bind: id), \(bind: RetrievalBench.encode(vector)), \(bind: setup.options.embedModel), \(bind: vector.count), \(bind: at))
                    """).run()
                app.selene.vectors.upsert(id: id, vector: vector, noteType: nil, actionability: nil, embeddedAt: at)
                try await service.place(noteId: id)
            }
            var members: [Int: [String]] = [:]
            for row in try await sql.raw("SELECT thread_id, note_id FROM thread_notes").all() {
                members[try row.decode(column: "thread_id", as: Int.self), default: []].append(docOf[try row.decode(column: "note_id", as: Int.self)]!)
            }
            return members
        }
        return outcome(of: Array(members.values), among: docs)
    }

    /// Pair precision and recall of the groups formed.
    static func outcome(of groups: [[String]], among docs: [QualityBench.Document]) -> Outcome {
        var outcome = Outcome(threads: groups.count, alone: docs.count - groups.reduce(0) { $0 + $1.count })
        let together = groups.flatMap { ids in ids.indices.flatMap { i in ids[(i + 1)...].map { (ids[i], $0) } } }
        outcome.pairs = together.count
        outcome.wrongPairs = together.filter { topic($0.0) != topic($0.1) }.count
        let sameTopic = docs.indices.flatMap { i in docs[(i + 1)...].filter { topic($0._id) == topic(docs[i]._id) } }.count
        outcome.precision = together.isEmpty ? 0 : Double(together.count - outcome.wrongPairs) / Double(together.count)
        outcome.recall = sameTopic == 0 ? 0 : Double(together.count - outcome.wrongPairs) / Double(sameTopic)
        return outcome
    }

    /// Associations at `a`: every pair at or above it.
    static func associations(_ docs: [QualityBench.Document], _ a: Double, vectors: [String: [Float]]) -> Outcome {
        var found = 0, right = 0, sameTopic = 0
        for i in docs.indices {
            for j in docs.indices where j > i {
                let same = topic(docs[i]._id) == topic(docs[j]._id)
                if same { sameTopic += 1 }
                if Double(VectorUtility.cosine(vectors[docs[i]._id]!, vectors[docs[j]._id]!)) >= a {
                    found += 1
                    if same { right += 1 }
                }
            }
        }
        return Outcome(precision: found == 0 ? 0 : Double(right) / Double(found), recall: sameTopic == 0 ? 0 : Double(right) / Double(sameTopic),
                       wrongPairs: found - right, pairs: found)
    }

    static func line(_ t: Double, _ o: Outcome) -> String {
        String(format: "   %.2f  threads %2d  alone %2d  pairs %3d  wrong %3d  precision %.2f  recall %.2f  F1 %.2f  F0.5 %.2f",
               t, o.threads, o.alone, o.pairs, o.wrongPairs, o.precision, o.recall, o.f1, o.fHalf)
    }

    /// The thread threshold with the best F0.5 on the tuning half, reported on the held-out half
    /// beside the old 0.70 and today's default.
    static func chooseThreadThreshold(tune: [QualityBench.Document], held: [QualityBench.Document], topics: Int, _ setup: Setup,
                                      report: inout Report) async throws {
        print("-- threads (join = seed threshold), tuning half")
        var best = (t: 0.7, o: Outcome())
        for t in grid {
            let o = try await threads(tune, t, setup)
            print(line(t, o))
            if o.fHalf > best.o.fHalf { best = (t, o) }
        }
        let heldBest = try await threads(held, best.t, setup), heldOld = try await threads(held, 0.7, setup)
        let heldDefault = try await threads(held, SeleneConfig.Threads().joinThreshold, setup)
        print("   (the default now: \(SeleneConfig.Threads().joinThreshold), held-out F0.5 \(String(format: "%.2f", heldDefault.fHalf)))")
        print("-- held-out half: tuned \(best.t) vs the old 0.70")
        print(line(best.t, heldBest))
        print(line(0.7, heldOld))
        report.add("thread threshold chosen on the tuning half", database: nil, value: best.t, unit: "")
        report.add("threads formed, held-out (\(held.count) notes, \(topics) topics)", database: nil, value: Double(heldBest.threads), unit: "",
                   baseline: Double(heldOld.threads), baselineName: "at 0.70")
        report.add("notes left alone, held-out", database: nil, value: Double(heldBest.alone), unit: "", baseline: Double(heldOld.alone), baselineName: "at 0.70")
        report.add("wrong joins (pairs of two topics in one thread), held-out", database: nil, value: Double(heldBest.wrongPairs), unit: "",
                   baseline: Double(heldOld.wrongPairs), baselineName: "at 0.70")
        report.add("thread pair precision, held-out", database: nil, value: heldBest.precision, unit: "", baseline: heldOld.precision, baselineName: "at 0.70")
        report.add("thread pair recall, held-out", database: nil, value: heldBest.recall, unit: "", baseline: heldOld.recall, baselineName: "at 0.70")
        report.add("thread pair F0.5, held-out", database: nil, value: heldBest.fHalf, unit: "", baseline: heldOld.fHalf, baselineName: "at 0.70")
    }

    /// The association threshold likewise, over pairs of vectors (no server needed).
    static func chooseAssociationThreshold(tune: [QualityBench.Document], held: [QualityBench.Document], vectors: [String: [Float]],
                                           report: inout Report) {
        print("-- associations, tuning half")
        var bestA = (a: 0.6, o: Outcome())
        for a in grid {
            let o = associations(tune, a, vectors: vectors)
            print(line(a, o))
            if o.fHalf > bestA.o.fHalf { bestA = (a, o) }
        }
        let heldA = associations(held, bestA.a, vectors: vectors), oldA = associations(held, 0.6, vectors: vectors)
        print("-- held-out half: tuned \(bestA.a) vs the old 0.60")
        print(line(bestA.a, heldA))
        print(line(0.6, oldA))
        report.add("association threshold chosen on the tuning half", database: nil, value: bestA.a, unit: "")
        report.add("association precision, held-out", database: nil, value: heldA.precision, unit: "", baseline: oldA.precision, baselineName: "at 0.60")
        report.add("association recall, held-out", database: nil, value: heldA.recall, unit: "", baseline: oldA.recall, baselineName: "at 0.60")
    }
}
