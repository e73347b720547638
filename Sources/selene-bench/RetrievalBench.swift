import Fluent
import Foundation
import ServerCommon
import SeleneServer
import SeleneShared
import SQLKit
import Vapor

/// Retrieval speed with many notes: the median time of `/api/notes/retrieve`'s work (full-text
/// ranking, vector search, fusion, reading the notes; the query's embedding excluded, it is given)
/// against a bare full-text query of the same words on the same data, the two taking turns.
enum RetrievalBench {
    static let topics = 400

    /// A vocabulary of made-up words: each topic has its own, and everyone shares a common one.
    static func word(_ n: Int) -> String {
        let syllables = ["ka", "lo", "mi", "ne", "su", "ra", "to", "vi", "pe", "du", "sha", "ber", "gon", "lin", "mar", "tes"]
        var x = n + 17, out = ""
        repeat { out += syllables[x % syllables.count]; x /= syllables.count } while x > 0
        return out
    }

    /// What the notes and questions are made of: topics with their own words and vectors, a
    /// common vocabulary, and eight people whose names start the notes.
    struct World {
        var rng = SeededRandom(seed: 42)
        let dimension: Int
        let topicVectors: [[Float]]
        // Every note starts with one of eight people's names, as a chat export's do: each name
        // is in about an eighth of the notes, so a question naming one has its share counted
        // (`KeywordSearch.share`) over some 12,500 notes at 100,000.
        let people = ["Maya", "Jonah", "Priya", "Omar", "Hana", "Marco", "Ade", "Lena"]

        init(dimension: Int) {
            self.dimension = dimension
            var rng = SeededRandom(seed: 42)
            topicVectors = (0..<RetrievalBench.topics).map { _ in VectorUtility.normalized((0..<dimension).map { _ in Float(Int(rng.next() % 2001) - 1000) / 1000 }) }
            self.rng = rng
        }
        mutating func noise() -> [Float] { (0..<dimension).map { _ in Float(Int(rng.next() % 2001) - 1000) / 1000 } }
        mutating func topicWord(_ topic: Int) -> String { word(10_000 + topic * 40 + Int(rng.next() % 40)) }
        mutating func commonWord() -> String { word(Int(rng.next() % 3000)) }
        mutating func person() -> String { people[Int(rng.next() % UInt64(people.count))] }
        mutating func topic() -> Int { Int(rng.next() % UInt64(RetrievalBench.topics)) }
    }

    static func run(database: String, options: SeleneBench.Options, report: inout Report) async throws {
        print("== Retrieval on \(database): \(options.notes) notes, \(options.queries) queries")
        try await SeleneBench.withApplication(database: database, configure: { $0.llm = SeleneConfig.LLM(embeddingModel: "bench-embed") }) { app in
            var world = World(dimension: options.dimension)
            let now = Date()
            try await load(options.notes, world: &world, now: now, database: database, app: app)
            let queries = questions(options.queries, world: &world)
            let timings = try await measure(queries, database: database, now: now, app: app)
            timings.report(database: database, notes: options.notes, dimension: options.dimension, into: &report)
        }
    }

    /// The notes, written straight into the tables in batches (as processing would leave them,
    /// what it understood included: three of the topic's words and a date, `NoteFacts`).
    static func load(_ total: Int, world: inout World, now: Date, database: String, app: Application) async throws {
        let sql = app.db as! any SQLDatabase
        let started = Date()
        let factsDate = DateMentions.words(in: "today", at: now).joined()
        var id = 0
        let batch = 500
        while id < total {
            let count = min(batch, total - id)
            var notes: [SQLQueryString] = [], processed: [SQLQueryString] = [], embeddings: [SQLQueryString] = []
            for n in 0..<count {
                let noteId = id + n + 1
                let topic = world.topic()
                let length = 20 + Int(world.rng.next() % 40)
                let text = world.person() + ": " + (0..<length).map { _ in world.rng.next() % 10 < 4 ? world.topicWord(topic) : world.commonWord() }.joined(separator: " ")
                // (Chosen by the note's number, not drawn: the notes and vectors are the same as before facts.)
                let facts = (0..<3).map { word(10_000 + topic * 40 + (noteId * 7 + $0 * 13) % 40) }.joined(separator: " · ") + " · " + factsDate
                let vector = VectorUtility.normalized(zip(world.topicVectors[topic], world.noise()).map { $0 * 0.8 + $1 * 0.25 })
                let type = NoteType.allCases[noteId % NoteType.allCases.count].rawValue
                let action = Actionability.allCases[noteId % Actionability.allCases.count].rawValue
                notes.append("(\(bind: noteId), \(bind: text), \(bind: now), \(bind: now), 'web', \(bind: String(noteId)), '[]', 'done', 1, \(bind: facts))")
                processed.append("(\(bind: noteId), '[]', 'bench', '[]', 'neutral', 0, 'calm', 'medium', \(bind: type), \(bind: action), \(bind: now), 'bench')")
                embeddings.append("(\(bind: noteId), \(bind: encode(vector)), 'bench-embed', \(bind: world.dimension), \(bind: now))")
            }
            let rows = (joined(notes), joined(processed), joined(embeddings))
            try await app.db.transaction { db in
                let sql = db as! any SQLDatabase
                try await sql.raw("INSERT INTO notes (id, content, created_at, captured_at, source, content_hash, tags, status, attempts, facts) VALUES " + rows.0).run()
                try await sql.raw("INSERT INTO processed_notes (note_id, concepts, primary_theme, secondary_themes, sentiment, sentiment_score, emotional_tone, energy_level, note_type, actionability, processed_at, model) VALUES " + rows.1).run()
                try await sql.raw("INSERT INTO note_embeddings (note_id, vector, model, dimension, embedded_at) VALUES " + rows.2).run()
            }
            id += count
        }
        if database == "postgres" {
            try await sql.raw("SELECT setval(pg_get_serial_sequence('notes', 'id'), \(unsafeRaw: String(total)))").run()
            try await sql.raw("ANALYZE").run()
        }
        print("   loaded in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        let loadStart = Date()
        try await app.selene.vectors.refresh(on: app.db, now: Date(), force: true)
        print("   vector index loaded in \(String(format: "%.1f", Date().timeIntervalSince(loadStart))) s (\(app.selene.vectors.count) vectors)")
    }

    /// Queries: two or three words of a topic, every other one asking what someone said (a name
    /// to weigh), and a vector near that topic's.
    static func questions(_ count: Int, world: inout World) -> [(String, [Float])] {
        (0..<count).map { n in
            let topic = world.topic()
            let words = (0..<(2 + Int(world.rng.next() % 2))).map { _ in world.topicWord(topic) }.joined(separator: " ")
            let text = n % 2 == 0 ? words : "What did \(world.person()) say about \(words)"
            return (text, VectorUtility.normalized(zip(world.topicVectors[topic], world.noise()).map { $0 * 0.8 + $1 * 0.3 }))
        }
    }

    /// Each measurement's times, in milliseconds.
    struct Timings {
        var hybrid: [Double] = [], fts: [Double] = [], ranked: [Double] = [], vectorOnly: [Double] = [], filtered: [Double] = []
        var named: [Double] = [], share: [Double] = [], nameList: [Double] = [], withoutReranker: [Double] = [], fullScan: [Double] = []
        var expanded: [Double] = [], shallow: [Double] = []

        func report(database: String, notes: Int, dimension: Int, into report: inout Report) {
            let h = SeleneBench.median(hybrid), f = SeleneBench.median(fts)
            report.add("retrieval median (hybrid, 10 results, query embedding given)", database: database, value: h, unit: "ms",
                       baseline: f, baselineName: "bare FTS query", target: "≤ 30 ms")
            report.add("retrieval p95", database: database, value: SeleneBench.percentile(hybrid, 0.95), unit: "ms",
                       baseline: SeleneBench.percentile(fts, 0.95), baselineName: "bare FTS p95")
            report.add("… the reranker over the first stage's 40 (before 2026-12-03)", database: database, value: SeleneBench.median(shallow), unit: "ms",
                       baseline: h, baselineName: "retrieval median (.default)")
            report.add("… without the reranker (the fused order)", database: database, value: SeleneBench.median(withoutReranker), unit: "ms",
                       baseline: f, baselineName: "bare FTS query")
            report.add("… with expansion from the best notes (5 notes, 10 words, 0.25; not in .default)", database: database,
                       value: SeleneBench.median(expanded), unit: "ms", baseline: h, baselineName: "retrieval median (.default)")
            report.add("… of questions naming someone", database: database, value: SeleneBench.median(named), unit: "ms", baseline: f, baselineName: "bare FTS query")
            report.add("… … the name's share of the notes", database: database, value: SeleneBench.median(share), unit: "ms", baseline: f, baselineName: "bare FTS query")
            report.add("… … the names list (name and another word, ranked)", database: database, value: SeleneBench.median(nameList), unit: "ms",
                       baseline: f, baselineName: "bare FTS query")
            report.add("… with a note-type filter", database: database, value: SeleneBench.median(filtered), unit: "ms", baseline: f, baselineName: "bare FTS query")
            report.add("… its full-text ranking (50, BM25/ts_rank)", database: database, value: SeleneBench.median(ranked), unit: "ms", baseline: f, baselineName: "bare FTS query")
            report.add("… its vector search (\(notes) × \(dimension))", database: database, value: SeleneBench.median(vectorOnly), unit: "ms",
                       baseline: SeleneBench.median(fullScan), baselineName: "every vector in full (no 8-bit pass)")
        }
    }

    /// Every question timed each way: the hybrid retrieval (with and without the reranker, with a
    /// filter, with expansion), its parts, and a bare full-text query as the baseline.
    static func measure(_ queries: [(String, [Float])], database: String, now: Date, app: Application) async throws -> Timings {
        let sql = app.db as! any SQLDatabase
        let retriever = Retriever(db: app.db, services: app.selene)
        var firstStageOnly = Retriever.Tuning.default
        firstStageOnly.reranker = nil
        let unranked = Retriever(db: app.db, services: app.selene, tuning: firstStageOnly)
        var forty = Retriever.Tuning.default
        forty.reranker?.depth = 40
        let shallow = Retriever(db: app.db, services: app.selene, tuning: forty)
        // Expansion from the best notes (#63, direction 3: measured, not in `.default`) at the
        // setting that won on both quality sets' tuning halves.
        var withExpansion = Retriever.Tuning.default
        withExpansion.expansion = .init(notes: 5, terms: 10, weight: 0.25)
        let expanding = Retriever(db: app.db, services: app.selene, tuning: withExpansion)
        let keyword = KeywordSearch(db: app.db)
        func bareFTS(_ text: String) async throws {
            let terms = TextTokens.searchTerms(text)
            if database == "postgres" {
                _ = try await sql.raw("SELECT id FROM notes WHERE search_vector @@ to_tsquery('english', \(bind: terms.joined(separator: " | "))) LIMIT 10").all()
            } else {
                _ = try await sql.raw("SELECT rowid FROM notes_fts WHERE notes_fts MATCH \(bind: terms.map { "\"\($0)\"" }.joined(separator: " OR ")) LIMIT 10").all()
            }
        }
        // Warm up caches and the planner.
        for (text, vector) in queries.prefix(20) {
            _ = try await retriever.retrieve(text, limit: 10, queryVector: vector)
            try await bareFTS(text)
        }
        var t = Timings()
        var sources: [RetrievalSource: Int] = [:]
        for (text, vector) in queries {
            // A question naming someone: the time of its name's share and of its names list apart.
            let analysis = QueryAnalyzer.analyze(text, now: now)
            let names = analysis.names.joined(separator: " ")
            if !names.isEmpty {
                let nameTerms = Set(TextTokens.searchTerms(names))
                let rest = analysis.keywords.filter { !nameTerms.contains($0) }
                t.share.append(try await SeleneBench.time { _ = try await keyword.share(ofNotesWithAll: names) })
                t.nameList.append(try await SeleneBench.time { _ = try await keyword.rank(names, limit: 50, all: true, andAnyOf: rest) })
            }
            t.ranked.append(try await SeleneBench.time { _ = try await keyword.rank(text, limit: 50) })
            t.fts.append(try await SeleneBench.time { try await bareFTS(text) })
            t.hybrid.append(try await SeleneBench.time {
                let (_, source) = try await retriever.retrieve(text, limit: 10, queryVector: vector)
                sources[source, default: 0] += 1
            })
            if !names.isEmpty { t.named.append(t.hybrid.last!) }
            t.withoutReranker.append(try await SeleneBench.time { _ = try await unranked.retrieve(text, limit: 10, queryVector: vector) })
            t.shallow.append(try await SeleneBench.time { _ = try await shallow.retrieve(text, limit: 10, queryVector: vector) })
            t.vectorOnly.append(await SeleneBench.time { _ = app.selene.vectors.search(vector, k: 50) })
            t.fullScan.append(await SeleneBench.time { _ = app.selene.vectors.search(vector, k: 50, exhaustive: true) })
            t.filtered.append(try await SeleneBench.time {
                _ = try await retriever.retrieve(text, limit: 10, filter: .init(noteType: .idea), queryVector: vector)
            })
        }
        // Apart, after: its long full-text queries between `.default`'s took the cache from them.
        for (text, vector) in queries {
            t.expanded.append(try await SeleneBench.time { _ = try await expanding.retrieve(text, limit: 10, queryVector: vector) })
        }
        precondition(sources[.hybrid] == queries.count, "every query must be answered by both lists: \(sources)")
        return t
    }

    static func joined(_ parts: [SQLQueryString]) -> SQLQueryString {
        var out: SQLQueryString = ""
        for (i, part) in parts.enumerated() {
            if i > 0 { out += ", " }
            out += part
        }
        return out
    }

    /// Float32 little-endian, as Selene stores embeddings.
    static func encode(_ vector: [Float]) -> Data {
        var data = Data(capacity: vector.count * 4)
        for v in vector { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }
}
