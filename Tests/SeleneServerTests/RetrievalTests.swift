import Foundation
import ServerCommon
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import VaporTesting

@Suite("Hybrid retrieval: full text and vectors fused by reciprocal rank, with filters")
struct RetrievalTests {
    @Test("Reciprocal rank fusion: both lists beat one; ties keep first appearance; duplicates count once")
    func fusion() {
        let fused = RankFusion.reciprocal([["a", "b", "c"], ["c", "d", "a"]])
        #expect(fused.map(\.id) == ["a", "c", "b", "d"])
        #expect(fused[0].ranks == [1, 3] && fused[1].ranks == [3, 1] && fused[2].ranks == [2, nil])
        #expect(abs(fused[0].score - (1.0 / 61 + 1.0 / 63)) < 1e-12)
        #expect(RankFusion.reciprocal([["x", "x", "y"]]).map(\.ranks) == [[1], [3]])
        #expect(RankFusion.reciprocal([[String]]()).isEmpty)
        // Weighted: a list that counts twice wins a tie of places; a weight of 0 keeps ranks, scores nothing.
        let weighted = RankFusion.weighted([["a", "b"], ["b", "a"]], weights: [2, 1])
        #expect(weighted.map(\.id) == ["a", "b"] && abs(weighted[0].score - (2.0 / 61 + 1.0 / 62)) < 1e-12)
        #expect(RankFusion.weighted([["a", "b"], ["b", "a"]], weights: [1, 2], k: 10).map(\.id) == ["b", "a"])
        let off = RankFusion.weighted([["a"], ["b"]], weights: [0, 1])
        #expect(off.map(\.id) == ["b", "a"] && off[1].score == 0 && off[1].ranks == [1, nil])
    }

    @Test("A long note's later parts are embedded and stored as chunks, found by retrieval, replaced on an edit and gone with the note")
    func chunks() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let filler = (0..<30).map { _ in "Ordinary week at work with meetings and emails and a walk." }.joined(separator: " ")
                let ending = "The Velux window in the loft leaks when the wind is from the west; reseal the flashing kit."
                let long = try await app.note(filler + "\n\n" + ending, title: "Weekly review")
                let short = try await app.note("Velux catalogue arrived")
                try await app.process()
                let expected = ProcessingPrompts.embeddingChunks(title: "Weekly review", content: filler + "\n\n" + ending)
                func stored(_ id: Int64) async throws -> Int {
                    try await app.db.sql.raw("SELECT COUNT(*) AS n FROM note_chunk_embeddings WHERE note_id = \(bind: Int(id))").first()!.decode(column: "n", as: Int.self)
                }
                #expect(expected.count >= 2)
                let (longChunks, shortChunks) = (try await stored(long.id), try await stored(short.id))
                #expect(longChunks == expected.count && shortChunks == 0)
                // The last chunk's own words find the note through that chunk.
                let query = OllamaStub.embedding(expected.last!)
                let hit = try #require(app.selene.chunkVectors.search(query, k: 1).first)
                #expect(hit.id / (ProcessingPrompts.maxChunks + 1) == Int(long.id) && hit.similarity > 0.99)
                let retriever = Retriever(db: app.db, services: app.selene)
                #expect(retriever.nearest(query, k: 1) == [Int(long.id)])
                // After a restart the index loads them from the database.
                app.selene.chunkVectors.removeAll()
                try await app.selene.chunkVectors.refresh(on: app.db, now: Date(), force: true)
                #expect(app.selene.chunkVectors.count == expected.count)
                // A long note embedded before chunks existed gets them from `selene reindex`.
                try await app.db.sql.raw("DELETE FROM note_chunk_embeddings").run()
                let report = try await Reindexer(db: app.db, services: app.selene, logger: app.logger).run(all: false) { _, _ in }
                let restored = try await stored(long.id)
                #expect(report.embedded == 1 && restored == expected.count && app.selene.chunkVectors.count == expected.count)
                #expect(try await Reindexer(db: app.db, services: app.selene, logger: app.logger).run(all: false) { _, _ in }.embedded == 0)
                // Shortened: no chunks left, in the table or in memory.
                _ = try await app.call(.PATCH, "/api/notes/\(long.id)", json: NoteEdit(content: ending), as: Note.self)
                let afterEdit = try await stored(long.id)
                #expect(afterEdit == 0 && app.selene.chunkVectors.count == 0)
                try await app.process()
                let afterProcessing = try await stored(long.id)
                #expect(afterProcessing == 0 && app.selene.chunkVectors.search(query, k: 1).isEmpty)
                // Long again, then deleted: its chunks go with it.
                _ = try await app.call(.PATCH, "/api/notes/\(long.id)", json: NoteEdit(content: filler + " " + ending), as: Note.self)
                try await app.process()
                #expect(try await stored(long.id) == expected.count)
                #expect(try await app.send(.DELETE, "/api/notes/\(long.id)").status == .noContent)
                let afterDelete = try await stored(long.id)
                #expect(afterDelete == 0 && app.selene.chunkVectors.count == 0)
            }
        }
    }

    @Test("The question's structure: a month asked about puts that month's note first, a name the note about that person, 'when did I last' the newest")
    func questionStructure() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                clock.set(WireDate.date(from: "2026-11-20T09:00:00Z")!)
                func at(_ day: String, _ text: String) async throws -> Note {
                    let input = try CaptureInput(content: text, createdAt: WireDate.date(from: day + "T10:00:00Z")!, source: .import).validated()
                    return try await NoteStore(db: app.db).capture(input, idempotent: false, now: clock.now).note
                }
                func ids(_ query: String, tuning: Retriever.Tuning = .default) async throws -> [Int64] {
                    try await Retriever(db: app.db, services: app.selene, tuning: tuning).retrieve(query, limit: 10).results.map(\.note.id)
                }
                let february = try await at("2026-02-10", "Roof: decided to get three quotes for the roof")
                let march = try await at("2026-03-12", "Roof: decided on the mid-price quote")
                let june = try await at("2026-06-03", "Roof: decided to add gutter guards to the roof while the scaffolding is up")
                let priya = try await at("2026-05-01", "Priya has the platform team job")
                let abroad = try await at("2026-05-02", "Moving abroad plans: visas, shipping, the moving abroad checklist")
                var cuts: [Note] = []
                for (day, text) in [("2026-01-05", "Haircut at Marco's"), ("2026-04-05", "Haircut, same as last time"), ("2026-09-05", "Haircut and beard trim")] {
                    cuts.append(try await at(day, text))
                }
                try await app.process()
                #expect(try await ids("what did I decide about the roof in March").first == march.id)
                #expect(try await ids("what did I decide about the roof in February").first == february.id)
                #expect(try await ids("what did I decide about the roof in June").first == june.id)
                #expect(try await ids("what did I decide about the roof in March", tuning: .plain).first != march.id)
                // Nothing written in the month asked about: the best of the rest, as without a month.
                #expect(try await ids("what did I decide about the roof in August").prefix(3).sorted() == [february.id, march.id, june.id].sorted())
                // The names asked about are a list of their own, as strong as its weight says
                // (the default's half weight was measured on the development set).
                var names = Retriever.Tuning.default
                names.nameWeight = 2
                names.nameRarity = nil  // whole, however many of these eight notes have the name
                names.reranker = nil  // the fused order: what the names list's weight does there
                #expect(try await ids("Priya moving abroad plans", tuning: names).first == priya.id)
                // By rarity: whole up to 5% of the notes, nothing from 25%, falling with the logarithm between.
                let rarity = Retriever.Tuning.default
                #expect(rarity.nameWeight(share: 0.01) == rarity.nameWeight && rarity.nameWeight(share: 0.05) == rarity.nameWeight)
                #expect(rarity.nameWeight(share: 0.25) == 0 && rarity.nameWeight(share: 0.9) == 0)
                let between = rarity.nameWeight(share: 0.11)
                #expect(between > 0 && between < rarity.nameWeight && abs(between - rarity.nameWeight * log(0.25 / 0.11) / log(5)) < 1e-9)
                names.nameWeight = 0
                #expect(try await ids("Priya moving abroad plans", tuning: names).first == abroad.id)
                #expect(try await ids("Priya moving abroad plans", tuning: .plain).first == abroad.id)
                #expect(try await ids("when did I last get a haircut").first == cuts[2].id)
                // Words in quotes: the note with that phrase, on either database's full text.
                let sink = try await at("2026-07-01", "Kitchen sink: the trap is blocked")
                let words = try await at("2026-07-02", "Sink the old kitchen boat; kitchen tiles, kitchen floor and kitchen plans")
                let tea = try await at("2026-07-03", "A cup of tea at four")
                _ = try await at("2026-07-04", "The tea cup of the day")
                try await app.process()
                #expect(try await KeywordSearch(db: app.db).rank(phrases: ["kitchen sink"], limit: 10) == [Int(sink.id)])
                #expect(try await KeywordSearch(db: app.db).rank("kitchen sink", limit: 10).first == Int(words.id))
                #expect(try await KeywordSearch(db: app.db).rank(phrases: ["cup of tea"], limit: 10) == [Int(tea.id)])
                #expect(try await ids(#""kitchen sink""#).first == sink.id)
                #expect(try await ids("when did I last get a haircut", tuning: .plain).first != cuts[2].id)
            }
        }
    }

    @Test("A second stage (#63): features of each candidate, a chat turn's speaker read from its header, and the reranker's order with a time asked about kept ahead")
    func reranker() async throws {
        #expect(Reranker.speaker(of: "Maya (7:42 pm on 3 March, 2024): I finally adopted a dog!") == "Maya")
        #expect(Reranker.speaker(of: "[03/03/2024, 19:42] Priya: the interview went well") == "Priya")
        #expect(Reranker.speaker(of: "Bought the wrong size of picture hooks again") == nil)
        #expect(Reranker.speaker(of: "The roof: decided on the mid-price quote") == nil)
        // A study's setting: one weight changed, the rest and the depth held.
        let quiet = Reranker.fitted.with(.saidAgain, at: 0)
        #expect(quiet.weights[Reranker.Feature.allCases.firstIndex(of: .saidAgain)!] == 0 && quiet.depth == Reranker.fitted.depth)
        #expect(zip(quiet.weights, Reranker.fitted.weights).filter { $0 != $1 }.count == 1)
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                clock.set(WireDate.date(from: "2026-11-20T09:00:00Z")!)
                var turns: [Note] = []
                for text in ["Maya (7:40 pm on 3 March, 2024): I adopted a dog from the shelter today",
                             "Jonah (7:42 pm on 3 March, 2024): No way! I adopted a cat from the shelter last week",
                             "Maya (7:45 pm on 3 March, 2024): We should get them to meet",
                             "Shelter: adopted a dog, a cat next week maybe"] {
                    let input = try CaptureInput(content: text, createdAt: WireDate.date(from: "2026-11-19T10:00:00Z")!, source: .import).validated()
                    turns.append(try await NoteStore(db: app.db).capture(input, idempotent: false, now: clock.now).note)
                }
                try await app.process()
                let question = "What did Jonah adopt from the shelter?"
                let vector = try await app.selene.llm!.embed([question]).first!
                let candidates = try await Retriever(db: app.db, services: app.selene).candidates(question, queryVector: vector, now: clock.now)
                let features = Dictionary(uniqueKeysWithValues: candidates.map { ($0.note.note.id, $0.features) })
                let speaker = Reranker.Feature.allCases.firstIndex(of: .speaker)!, neighbour = Reranker.Feature.allCases.firstIndex(of: .neighbour)!
                #expect(features[turns[1].id]?[speaker] == 1 && features[turns[0].id]?[speaker] == 0)
                // Each turn has a neighbour written the same day; its vector is compared with the question's.
                #expect(turns.prefix(3).allSatisfy { features[$0.id]?[neighbour] ?? 0 != 0 })
                #expect(features.values.allSatisfy { $0.count == Reranker.Feature.allCases.count })
                // Said again: a chat export's turn's largest cosine with another candidate; 0 for a
                // note whose header has no moment ("Shelter: …" reads as a speaker, not as a turn).
                let saidAgain = Reranker.Feature.allCases.firstIndex(of: .saidAgain)!
                let unit = turns.map { VectorUtility.normalized(app.selene.vectors.vector(for: Int($0.id))!) }
                let expected = [1, 2, 3].map { Double(VectorUtility.dot(unit[0], unit[$0])) }.max()!
                #expect(abs((features[turns[0].id]?[saidAgain] ?? 0) - expected) < 1e-6)
                #expect(features[turns[3].id]?[saidAgain] == 0 && Reranker.speaker(of: turns[3].content) == "Shelter")
                #expect(Reranker.isExportTurn(turns[1].content) && !Reranker.isExportTurn(turns[3].content))
                #expect(Reranker.isExportTurn("[03/03/2024, 19:42] Priya: the interview went well"))
                #expect(!Reranker.isExportTurn("Retro (the long one): more time for testing"))
                // Weights on the speaker alone put Jonah's turn first, whatever the first stage said.
                var tuning = Retriever.Tuning.default
                tuning.reranker = Reranker(weights: Reranker.Feature.allCases.map { $0 == .speaker ? 1 : 0 } + [0])
                let ranked = try await Retriever(db: app.db, services: app.selene, tuning: tuning).retrieve(question, limit: 3, queryVector: vector, now: clock.now)
                #expect(ranked.results.first?.note.id == turns[1].id)
                // The notes of a time asked about stay ahead of the rest, each part in the reranker's order.
                let results = turns.prefix(3).map { ScoredNote(note: $0, score: 1) }
                let order = tuning.reranker!.reorder(results, features: [[0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1, 0, 0, 0]]) { $0.id == turns[0].id }
                #expect(order.map(\.note.id) == [turns[0].id, turns[1].id, turns[2].id])
            }
        }
    }

    @Test("The reranker reads the first stage to its depth (60 in `.default`): a note the fused order ranks 41st to 60th can come first")
    func rerankerDepth() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                clock.set(WireDate.date(from: "2026-11-20T09:00:00Z")!)
                // 80 turns, all about the shelter, so the first stage has more candidates than either depth.
                for n in 0..<80 {
                    let input = try CaptureInput(content: "Maya (7:\(10 + n % 50) pm on 3 March, 2024): the shelter dog, walk \(n) of the week, \(n % 3 == 0 ? "muddy" : "sunny")",
                                                 createdAt: WireDate.date(from: "2026-11-19T10:00:00Z")!, source: .import).validated()
                    _ = try await NoteStore(db: app.db).capture(input, idempotent: false, now: clock.now)
                }
                try await app.process()
                let question = "the shelter dog walk"
                let vector = try await app.selene.llm!.embed([question]).first!
                let retriever = Retriever(db: app.db, services: app.selene)
                #expect(Retriever.Tuning.default.reranker?.depth == 60 && Reranker.depth == 60)
                let fused = Reranker.Feature.allCases.firstIndex(of: .fused)!
                for depth in [40, 60] {
                    let candidates = try await retriever.candidates(question, queryVector: vector, now: clock.now, depth: depth)
                    #expect(candidates.count == depth, "the first stage fills the depth asked")
                    // A reranker that turns the fused order round puts the depth's last note first.
                    var tuning = Retriever.Tuning.default
                    tuning.reranker = Reranker(weights: Reranker.Feature.allCases.map { $0 == .fused ? -1 : 0 } + [0], depth: depth)
                    let lowest = candidates.map { $0.features[fused] }.min()!
                    let last = Set(candidates.filter { $0.features[fused] == lowest }.map(\.note.note.id))
                    let first = try await Retriever(db: app.db, services: app.selene, tuning: tuning)
                        .retrieve(question, limit: 3, queryVector: vector, now: clock.now).results.first?.note.id
                    #expect(first.map(last.contains) == true, "depth \(depth): the fused order's last of \(depth) first")
                }
            }
        }
    }

    @Test("Pseudo-relevance feedback (measured, off in `.default`): the best notes' words as a full-text list, the question's vector moved toward theirs as a vector list; both at once")
    func feedbackLists() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let walk = try await app.note("The shelter dog and I walked the canal path in the rain")
                let paws = try await app.note("Muddy paws all over the hallway rug again, the canal path is a swamp")
                let taxes = try await app.note("Tax return filed, the accountant wants the receipts by Friday")
                try await app.process()
                let question = "shelter dog"
                let vector = try await app.selene.llm!.embed([question]).first!
                let retriever = Retriever(db: app.db, services: app.selene)
                let best = [RankFusion.Fused(id: Int(walk.id), score: 1, ranks: [1, 1, nil, nil])]
                // Moved nearly all the way to the best note, the vector list starts with it.
                let moved = retriever.feedbackList(best, feedback: .init(notes: 1, mix: 1_000, weight: 1), vector: vector, depth: 3, filter: .init())
                #expect(moved?.first == Int(walk.id), "\(String(describing: moved))")
                #expect(retriever.feedbackList([], feedback: .init(notes: 1, mix: 1, weight: 1), vector: vector, depth: 3, filter: .init()) == nil)
                // The best note's words beyond the question's find the note that shares them, not the one that doesn't.
                let analysis = QueryAnalyzer.analyze(question, now: clock.now)
                let words = try await retriever.expansionList(best, expansion: .init(notes: 1, terms: 5, weight: 1), query: question,
                                                             textQuery: try await retriever.textQuery(question, analysis: analysis),
                                                             filter: .init(), depth: 10, words: Retriever.NoteWords(db: app.db))
                #expect(words?.contains(Int(paws.id)) == true && words?.contains(Int(taxes.id)) == false, "\(String(describing: words))")
                // Both on: one more list each, fused with the rest; the answer is still found first.
                var tuning = Retriever.Tuning.default
                tuning.expansion = .init(notes: 1, terms: 5, weight: 0.25)
                tuning.feedback = .init(notes: 1, mix: 0.5, weight: 0.5)
                let results = try await Retriever(db: app.db, services: app.selene, tuning: tuning).retrieve(question, limit: 3, queryVector: vector, now: clock.now).results
                #expect(results.first?.note.id == walk.id && results.contains { $0.note.id == paws.id }, "\(results.map(\.note.content))")
            }
        }
    }

    @Test("How common a name is: counted in a small collection; in a large one PostgreSQL reads it from its statistics, SQLite counts — both near the truth, capped")
    func nameShare() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let search = KeywordSearch(db: app.db)
                _ = try await NoteStore(db: app.db).capture(try CaptureInput(content: "Maya: the garden plan", source: .web).validated(),
                                                            idempotent: false, now: Date())
                #expect(try await search.share(ofNotesWithAll: "Maya") >= 0.25, "counted: in every note there is")
                // 24,000 notes, each starting with one of eight names, as a chat export's do.
                let sql = app.db as! any SQLDatabase
                let names = "CASE g % 8 WHEN 0 THEN 'Maya' WHEN 1 THEN 'Jonah' WHEN 2 THEN 'Priya' WHEN 3 THEN 'Omar' WHEN 4 THEN 'Hana' WHEN 5 THEN 'Marco' WHEN 6 THEN 'Ade' ELSE 'Lena' END"
                let rows = "SELECT \(names) || ': word' || (g % 500) || ' about ' || (CASE WHEN g % 2 = 0 THEN 'tea' ELSE 'coffee' END), \(app.db.isPostgres ? "now()" : "datetime('now')"), \(app.db.isPostgres ? "now()" : "datetime('now')"), 'web', 'h' || g, '[]', 'done', 1"
                if app.db.isPostgres {
                    try await sql.raw("INSERT INTO notes (content, created_at, captured_at, source, content_hash, tags, status, attempts) \(unsafeRaw: rows) FROM generate_series(1, 24000) AS s(g)").run()
                    try await sql.raw("ANALYZE notes").run()
                    // New notes go straight into the full-text index's tree, not a pending list
                    // every search would read through (FullTextWithoutPendingList).
                    let options = try await sql.raw("SELECT array_to_string(reloptions, ',') AS o FROM pg_class WHERE relname = 'notes_search'").first()?
                        .decode(column: "o", as: String?.self)
                    #expect(options?.contains("fastupdate=off") == true, "\(options ?? "none")")
                } else {
                    try await sql.raw("WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 24000) INSERT INTO notes (content, created_at, captured_at, source, content_hash, tags, status, attempts) \(unsafeRaw: rows) FROM s").run()
                }
                let maya = try await search.share(ofNotesWithAll: "Maya")
                #expect(abs(maya - 0.125) < 0.02, "\(maya)")
                let tea = try await search.share(ofNotesWithAll: "tea")
                #expect(abs(tea - 0.25) < 0.001, "in half the notes: a quarter, the cap (\(tea))")
                let rare = try await search.share(ofNotesWithAll: "word7"), none = try await search.share(ofNotesWithAll: "Zebedee")
                #expect(rare < 0.01 && none < 0.01, "\(rare) \(none)")
                #expect(try await search.share(ofNotesWithAll: "Maya word8") < 0.01, "every word: the rarer one's share at most")
            }
        }
    }

    @Test("The vector index: nearest first, filters, exclusions, replacement and removal")
    func vectorIndex() {
        let index = VectorIndex(model: "m")
        let t = Date()
        index.upsert(id: 1, vector: [1, 0, 0], noteType: .idea, actionability: Actionability.none, embeddedAt: t)
        index.upsert(id: 2, vector: [0.9, 0.1, 0], noteType: .task, actionability: .actionable, embeddedAt: t)
        index.upsert(id: 3, vector: [0, 1, 0], noteType: .idea, actionability: .someday, embeddedAt: t)
        #expect(index.search([1, 0, 0], k: 2).map(\.id) == [1, 2])
        #expect(abs(index.search([2, 0, 0], k: 1)[0].similarity - 1) < 1e-6)
        #expect(index.search([1, 0, 0], k: 5, filter: .init(noteType: .idea)).map(\.id) == [1, 3])
        #expect(index.search([1, 0, 0], k: 5, filter: .init(actionability: .actionable)).map(\.id) == [2])
        #expect(index.search([1, 0, 0], k: 5, excluding: [1]).map(\.id) == [2, 3])
        #expect(index.search([1, 0, 0], k: 5, minimumSimilarity: 0.5).map(\.id) == [1, 2])
        #expect(index.search([1, 0], k: 5).isEmpty)
        index.upsert(id: 1, vector: [0, 0, 1], noteType: .idea, actionability: Actionability.none, embeddedAt: t)
        #expect(index.search([1, 0, 0], k: 1).map(\.id) == [2])
        index.remove(id: 2)
        #expect(index.count == 2 && index.vector(for: 2) == nil && index.search([0, 0, 1], k: 1).map(\.id) == [1])
        #expect(index.vector(for: 3) == [0, 1, 0])
    }

    @Test("A large index is searched in parts, in its 8-bit codes first, and answers what a full scan of every vector would — after replacements and removals, with filters, exclusions and a floor")
    func largeIndex() {
        let index = VectorIndex(model: "m")
        #expect(VectorIndex.quantizedFrom <= 25_000)
        var generator = SeededRandom(seed: 7)
        func random() -> [Float] { (0..<32).map { _ in Float(generator.next() % 2000) / 1000 - 1 } }
        var vectors: [[Float]] = []
        for id in 0..<25_000 {
            let v = random()
            vectors.append(VectorUtility.normalized(v))
            index.upsert(id: id, vector: v, noteType: id % 3 == 0 ? .idea : nil, actionability: nil, embeddedAt: Date())
        }
        let query = vectors[1234]
        let expected = vectors.enumerated().map { ($0.offset, VectorUtility.dot($0.element, query)) }.sorted { $0.1 > $1.1 }.prefix(10).map(\.0)
        #expect(index.search(query, k: 10).map(\.id) == Array(expected))
        #expect(index.search(query, k: 10, exhaustive: true).map(\.id) == Array(expected))

        // An 8-bit score is within a hundredth of the full one.
        for pair in 0..<100 {
            let a = vectors[pair], b = vectors[pair + 100]
            let (ca, sa) = Quantized.encode(a), (cb, sb) = Quantized.encode(b)
            let rough = Float(ca.withUnsafeBufferPointer { pa in cb.withUnsafeBufferPointer { pb in
                Quantized.dot(pa.baseAddress!, pb.baseAddress!, count: a.count) } }) * sa * sb
            #expect(abs(rough - VectorUtility.dot(a, b)) < 0.01, "\(rough) \(VectorUtility.dot(a, b))")
        }
        // A vector too small to scale (its largest component under 127 of the smallest float) is
        // zero codes, not a trap; a search with it answers.
        #expect(Quantized.encode([1e-44, -1e-45, 0]) == ([0, 0, 0], 0))
        #expect(Quantized.encode([0, 0]) == ([0, 0], 0))
        #expect(index.search([Float](repeating: 1e-44, count: 32), k: 3).count == 3)
        // Codes kept in step with the vectors through replacements and removals.
        for id in stride(from: 0, to: 25_000, by: 97) { index.remove(id: id) }
        for id in stride(from: 1, to: 25_000, by: 89) {
            let v = random()
            vectors[id] = VectorUtility.normalized(v)
            index.upsert(id: id, vector: v, noteType: nil, actionability: nil, embeddedAt: Date())
        }
        for n in 0..<40 {
            let query = n % 2 == 0 ? vectors[n * 611 + 5] : VectorUtility.normalized(random())
            let filter: VectorIndex.Filter = n % 4 == 1 ? .init(noteType: .idea) : n % 4 == 3 ? .init(only: Set((0..<25_000).filter { $0 % 5 == n % 5 })) : .init()
            let excluding: Set<Int> = n % 2 == 0 ? [n * 611 + 5] : []
            let floor = n % 3 == 0 ? 0.4 : -1
            let fast = index.search(query, k: 10, filter: filter, excluding: excluding, minimumSimilarity: floor)
            let full = index.search(query, k: 10, filter: filter, excluding: excluding, minimumSimilarity: floor, exhaustive: true)
            #expect(fast.map(\.id) == full.map(\.id) && fast.map(\.similarity) == full.map(\.similarity), "query \(n)")
            #expect(!full.isEmpty && full.allSatisfy { $0.similarity >= floor && $0.id % 97 != 0 })
        }
    }

    @Test("Retrieve fuses keyword and vector ranks, filters by type and actionability, and says its source")
    func hybrid() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let plan = try await app.note("I need to plant the tomatoes in the garden bed this weekend")
                let soil = try await app.note("Garden soil: tomatoes like compost and sun in the garden")
                let poem = try await app.note("Reading poems about autumn light")
                let tax = try await app.note("Tax forms due, need to file them")
                try await app.process()
                let res: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "garden tomatoes"))
                #expect(res.source == .hybrid)
                #expect(Array(res.results.map(\.note.id).prefix(2)).sorted() == [plan.id, soil.id].sorted())
                #expect(res.results.first?.keywordRank != nil && res.results.first?.vectorRank != nil)
                #expect(!res.results.prefix(2).contains { $0.note.id == poem.id })
                #expect(res.results.map(\.score) == res.results.map(\.score).sorted(by: >))
                // The first stage reads only words and dates; what it answers is the whole note.
                #expect(res.results.allSatisfy { $0.note.analysis != nil && !$0.note.contentHash.isEmpty && $0.note.embeddingModel != nil })
                let tasks: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve",
                                                                 json: RetrieveRequest(query: "garden tomatoes", noteType: .task))
                #expect(tasks.results.map(\.note.id).contains(plan.id))
                #expect(tasks.results.allSatisfy { $0.note.analysis?.noteType == .task })
                let actionable: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve",
                                                                      json: RetrieveRequest(query: "need to", actionability: .actionable))
                #expect(Set(actionable.results.map(\.note.id)).isSubset(of: [plan.id, tax.id]) && !actionable.results.isEmpty)
                let limited: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "garden", limit: 1))
                #expect(limited.count == 1)
                // The query can't be embedded: keyword only, and it says so.
                stub.setFault(.serverError)
                let keyword: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "garden tomatoes"))
                #expect(keyword.source == .keyword && keyword.results.allSatisfy { $0.vectorRank == nil })
                #expect(Set(keyword.results.map(\.note.id)) == [plan.id, soil.id])
                stub.setFault(.none)
                #expect(try await app.send(.POST, "/api/notes/retrieve", raw: #"{"query":"x","noteType":"poem"}"#).error?.fields?["noteType"] != nil)
            }
        }
    }

    @Test("Related notes: stored associations and neighbours; a note without an embedding gets keyword matches")
    func related() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let a = try await app.note("Sourdough starter feeding schedule, sourdough hydration")
                let b = try await app.note("Sourdough loaf: starter was lively, hydration higher")
                try await app.note("Bicycle chain needs oil")
                try await app.process()
                let related: RelatedNotes = try await app.call(.GET, "/api/notes/\(a.id)/related")
                #expect(related.source == .hybrid && related.results.first?.note.id == b.id)
                #expect(related.results.first?.relationshipType == .association)
                #expect((related.results.first?.strength ?? 0) > 0.5 && related.results.allSatisfy { (0...1).contains($0.strength) })
                #expect(!related.results.contains { $0.note.id == a.id })
                let c = try await app.note("Sourdough pizza night")
                let keyword: RelatedNotes = try await app.call(.GET, "/api/notes/\(c.id)/related?limit=5")
                #expect(keyword.source == .keyword && Set(keyword.results.map(\.note.id)) == [a.id, b.id])
            }
        }
    }

    /// What the earlier macOS app decodes (its SeleneAPIService's types), with a plain decoder.
    struct OldSearch: Decodable {
        struct Result: Decodable {
            let id: Int, title: String, primaryTheme: String?, noteType: String?, distance: Double
            enum CodingKeys: String, CodingKey { case id, title, distance, primaryTheme = "primary_theme", noteType = "note_type" }
        }
        let query: String, count: Int, results: [Result]
    }
    struct OldRelated: Decodable {
        struct Result: Decodable {
            let id: Int, title: String, relationshipType: String, strength: Double?, source: String
            enum CodingKeys: String, CodingKey { case id, title, strength, source, relationshipType = "relationship_type" }
        }
        let noteId: Int, count: Int, results: [Result]
    }

    @Test("The earlier macOS app's paths: POST /api/search and /api/related-notes answer in its shape, from the same retrieval")
    func legacyPaths() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let a = try await app.note("Sourdough starter feeding schedule, sourdough hydration")
                let b = try await app.note("Sourdough loaf: starter was lively, hydration higher")
                let bike = try await app.note("Bicycle chain needs oil")
                try await app.process()
                func old<T: Decodable>(_ path: String, _ body: String, as: T.Type) async throws -> T {
                    let res = try await app.send(.POST, path, raw: body)
                    #expect(res.status == .ok, "\(path) \(res.body.string)")
                    return try JSONDecoder().decode(T.self, from: Data(buffer: res.body))
                }
                let search = try await old("/api/search", #"{"query": "sourdough hydration", "limit": 10}"#, as: OldSearch.self)
                let same: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "sourdough hydration", limit: 10))
                #expect(search.query == "sourdough hydration" && search.count == search.results.count)
                #expect(search.results.map { Int64($0.id) } == same.results.map(\.note.id))
                #expect(Set(search.results.prefix(2).map { Int64($0.id) }) == [a.id, b.id])
                #expect(search.results.first?.distance == 0 && search.results.map(\.distance) == search.results.map(\.distance).sorted())
                #expect(search.results.allSatisfy { !$0.title.isEmpty && $0.primaryTheme != nil && $0.noteType != nil })
                let tasks = try await old("/api/search", #"{"query": "sourdough", "noteType": "task"}"#, as: OldSearch.self)
                #expect(tasks.results.allSatisfy { $0.noteType == "task" })

                let related = try await old("/api/related-notes", #"{"noteId": \#(a.id)}"#, as: OldRelated.self)
                let direct: RelatedNotes = try await app.call(.GET, "/api/notes/\(a.id)/related")
                #expect(related.noteId == Int(a.id) && related.results.map { Int64($0.id) } == direct.results.map(\.note.id))
                #expect(related.results.first?.id == Int(b.id) && related.results.first?.relationshipType == "EMBEDDING")
                #expect(related.results.allSatisfy { ["EMBEDDING", "SAME_THREAD", "KEYWORD"].contains($0.relationshipType) })
                // Only what processing stored, when live matches aren't wanted.
                let stored = try await old("/api/related-notes", #"{"noteId": \#(a.id), "limit": 5, "includeLive": false}"#, as: OldRelated.self)
                #expect(stored.results.allSatisfy { $0.source == "precomputed" } && stored.results.count <= related.results.count)
                #expect(!stored.results.contains { $0.id == Int(bike.id) })

                // Bad input is refused as the other paths refuse it, naming the field.
                #expect(try await app.send(.POST, "/api/search", raw: #"{"limit": 3}"#).status == .badRequest)
                #expect(try await app.send(.POST, "/api/search", raw: #"{"query": "x", "limit": 0}"#).error?.fields?["limit"] != nil)
                #expect(try await app.send(.POST, "/api/related-notes", raw: #"{"noteId": 0}"#).error?.fields?["noteId"] != nil)
                #expect(try await app.send(.POST, "/api/related-notes", raw: #"{"noteId": 99999}"#).status == .notFound)
                // Selene's LLM down: the search still answers, from the words.
                stub.setFault(.serverError)
                let keyword = try await old("/api/search", #"{"query": "sourdough hydration"}"#, as: OldSearch.self)
                #expect(Set(keyword.results.map { Int64($0.id) }) == [a.id, b.id])
                stub.setFault(.none)
            }
        }
    }
}
