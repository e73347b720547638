import Fluent
import Foundation
import SeleneShared

/// Hybrid retrieval: full-text ranking and vector similarity fused by weighted reciprocal rank,
/// with the question's structure read first (`QueryAnalyzer`): a time it names ("in March",
/// "last week") narrows both lists to notes written then (the rest follow), names it mentions
/// ("Priya", "Dr. Okafor") rank the notes that have them as a third list, words in quotes the notes
/// with that phrase as a fourth, and "when did I last…" puts the newest of the close matches
/// first. Without a query embedding (no LLM, Ollama down, nothing embedded yet) it is full text
/// alone, and says so (`source: keyword`).
public struct Retriever: Sendable {
    let db: any Database
    let services: SeleneServices
    let tuning: Tuning

    public init(db: any Database, services: SeleneServices, tuning: Tuning = .default) {
        self.db = db
        self.services = services
        self.tuning = tuning
    }

    /// How the lists are weighed and which parts of the question are read. `default` was chosen
    /// on the tuning half of Benchmarks/selene-life and reported on the other (README, Retrieval
    /// quality); `plain` is what Selene did before: RRF with k = 60 over the words as typed.
    public struct Tuning: Sendable, Hashable {
        public var keywordWeight: Double
        public var vectorWeight: Double
        public var k: Double
        /// The weight of the list of notes that have every name in the question; 0: names aren't read.
        public var nameWeight: Double
        /// A time named in the question narrows both lists to it (the rest follow).
        public var timeFilter: Bool
        /// For "when did I last…": among results scoring at least this share of the best, the
        /// newest first; nil: order left alone.
        public var latestWithin: Double?
        /// A full-text match counts only when it has at least this share of the question's words
        /// (a note sharing one common word with a question that describes something else is noise).
        public var minimumCoverage: Double
        /// Full text searches the question's content words (`QueryAnalysis.keywords`), not the words as typed.
        public var contentWords: Bool
        /// Long notes' chunks count in the vector list (a note scored by its nearest vector).
        public var chunks: Bool
        /// The names list weighs as much as its names are rare, as full text weighs words: names
        /// in at most `rareNames` of the notes keep `nameWeight` whole, names in `commonNames` or
        /// more count for nothing (a chat export has its speakers' names in every note), and in
        /// between the weight falls with the logarithm of the share. nil: names always weigh whole.
        public var nameRarity: NameRarity?
        /// A second stage over the fused top `depth` (#63); nil: the fused order stands.
        public var reranker: Reranker?
        /// Words of the first stage's best notes as one more full-text list (#63, RM3-style); nil: none.
        public var expansion: Expansion?
        /// The question's vector moved toward the first stage's best notes' (Rocchio), its nearest
        /// notes as one more list (#85: a follow-up far from the question but near its answer); nil: none.
        public var feedback: Feedback?
        /// Full text also searches what processing understood of each note (`NoteFacts`: its
        /// concepts, themes, thread's name and the days it names, #85), and a note's facts count
        /// toward its coverage of the question; false: its title and words only.
        public var facts = true

        /// Expansion from the fused order's best `notes`: the `terms` words that weigh most in
        /// them (their share of each note's words, by the note's fused score) and least among all
        /// the candidates (a chat export's header words are in every one), the question's own
        /// words and names left out, ranked by full text as a list of `weight`.
        public struct Expansion: Sendable, Hashable {
            public var notes: Int
            public var terms: Int
            public var weight: Double
            public init(notes: Int, terms: Int, weight: Double) { self.notes = notes; self.terms = terms; self.weight = weight }
        }

        /// Vector feedback from the fused order's best `notes`: the question's unit vector plus `mix`
        /// times their mean's, whose nearest notes are a list of `weight`.
        public struct Feedback: Sendable, Hashable {
            public var notes: Int
            public var mix: Double
            public var weight: Double
            public init(notes: Int, mix: Double, weight: Double) { self.notes = notes; self.mix = mix; self.weight = weight }
        }

        /// Shares of the notes: at most `rare` a name weighs whole, from `common` on nothing.
        public struct NameRarity: Sendable, Hashable {
            public var rare: Double
            public var common: Double
            public init(rare: Double, common: Double) { self.rare = rare; self.common = common }
        }

        public init(keywordWeight: Double, vectorWeight: Double, k: Double, nameWeight: Double, timeFilter: Bool, latestWithin: Double?,
                    minimumCoverage: Double = 0, contentWords: Bool = true, chunks: Bool = true, nameRarity: NameRarity? = nil,
                    reranker: Reranker? = nil) {
            self.keywordWeight = keywordWeight
            self.vectorWeight = vectorWeight
            self.k = k
            self.nameWeight = nameWeight
            self.timeFilter = timeFilter
            self.latestWithin = latestWithin
            self.minimumCoverage = minimumCoverage
            self.contentWords = contentWords
            self.chunks = chunks
            self.nameRarity = nameRarity
            self.reranker = reranker
        }

        /// The weight of the names list for names in `share` of the notes.
        func nameWeight(share: Double) -> Double {
            guard let rare = nameRarity?.rare, let common = nameRarity?.common else { return nameWeight }
            if share <= rare { return nameWeight }
            if share >= common { return 0 }
            return nameWeight * log(common / share) / log(common / rare)
        }

        public static let plain: Tuning = {
            var plain = Tuning(keywordWeight: 1, vectorWeight: 1, k: RankFusion.defaultK, nameWeight: 0, timeFilter: false, latestWithin: nil,
                               contentWords: false, chunks: false)
            plain.facts = false
            return plain
        }()
        /// Chosen by nDCG@10 among 1,024 settings on the tuning half of Benchmarks/selene-life
        /// (`selene-bench --only quality`): k = 5 (the top of each list counts for far more than
        /// k = 60 lets it), full text at 0.8 of the vectors' weight over the question's content
        /// words, kept only where a note has two thirds of them; names as a list at half weight;
        /// a time named narrows; for "when did I last…" the newest of matches within 0.8 of the best.
        ///
        /// Held since 2026-11-26 against a second set of another shape, Benchmarks/selene-talk (chat
        /// conversations: the speakers' names in every note, dates in the text): names weigh by
        /// how rare they are (whole in at most 5% of the notes, nothing from 25%), and a full-text
        /// match needs half the question's content words, not two thirds (a chat turn is short;
        /// a question about it names more than it says). On both sets' held-out halves this is at
        /// least as good as `.plain` and better (README, Retrieval quality).
        ///
        /// Since 2026-11-29 (#63) the fused top 40 are ordered again by `Reranker.fitted`, which won
        /// on both sets' tuning halves on recall and nDCG with all-mpnet-base-v2's vectors
        /// (docs/selene/selenes-performance.md, "A stronger embedding"); since 2026-11-30 a chat
        /// export's turn that another candidate says again weighs against itself ("Said again"); since
        /// 2026-12-03 it reads the fused top 60 (`Reranker.depth`), chosen on the three sets' tuning halves.
        public static let `default` = Tuning(keywordWeight: 0.8, vectorWeight: 1, k: 5, nameWeight: 0.5, timeFilter: true, latestWithin: 0.8,
                                             minimumCoverage: 0.5, nameRarity: NameRarity(rare: 0.05, common: 0.25), reranker: .fitted)
    }

    /// How deep each list is read before fusing.
    static func depth(for limit: Int) -> Int { max(50, limit) }

    public func retrieve(_ query: String, limit: Int, filter: KeywordSearch.Filter = .init(),
                         queryVector: [Float]? = nil, now: Date? = nil) async throws -> (results: [ScoredNote], source: RetrievalSource) {
        let first = try await firstStage(query, limit: max(limit, tuning.reranker?.depth ?? 30), filter: filter, queryVector: queryVector, now: now)
        var results = first.results
        if let reranker = tuning.reranker, first.vector != nil {
            let features = Reranker.features(of: results, in: try await rerankContext(first))
            results = reranker.reorder(results, features: features) { note in first.range?.contains(note.createdAt) ?? false }
        }
        if first.analysis.wantsLatest, let within = tuning.latestWithin, let best = first.best {
            let scores = Dictionary(uniqueKeysWithValues: results.map { (Int($0.note.id), $0.score) })
            let byId = Dictionary(uniqueKeysWithValues: results.map { (Int($0.note.id), $0) })
            results = Self.newestFirst(results.map(\.note), scores: scores, within: within * best).compactMap { byId[Int($0.id)] }
        }
        // The first stage read only the candidates' words: the answer is read whole.
        let answer = Array(results.prefix(limit))
        let whole = Dictionary(try await NoteStore(db: db).notes(ids: answer.map { Int($0.note.id) }).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return (answer.compactMap { result in whole[result.note.id].map { ScoredNote(note: $0, score: result.score, keywordRank: result.keywordRank, vectorRank: result.vectorRank) } },
                first.source)
    }

    /// The first stage's `Reranker.depth` best notes for a question with the reranker's features
    /// of each, whatever the tuning's reranker (`selene-bench` fits one on them). The notes carry
    /// their words and date only (`NoteStore.words(ids:)`).
    public func candidates(_ query: String, queryVector: [Float], now: Date, depth: Int = Reranker.depth) async throws -> [(note: ScoredNote, features: [Double])] {
        let first = try await firstStage(query, limit: depth, filter: .init(), queryVector: queryVector, now: now)
        return Array(zip(first.results, Reranker.features(of: first.results, in: try await rerankContext(first))))
    }

    /// What the first stage found, and what it read to find it.
    struct FirstStage {
        var results: [ScoredNote]
        var source: RetrievalSource
        var analysis: QueryAnalysis
        var range: DateInterval?
        var vector: [Float]?
        var terms: [String]
        /// The best fused score, for "when did I last…".
        var best: Double?
    }

    /// The reranker's view of a first stage: its question's vector and words, and each candidate's
    /// neighbours' vectors (the notes just before and after it, written the same day).
    func rerankContext(_ first: FirstStage) async throws -> Reranker.Context {
        let ids = first.results.map { Int($0.note.id) }
        let around = try await NoteStore(db: db).words(ids: Array(Set(ids.flatMap { [$0 - 1, $0 + 1] })))
        let byId = Dictionary(around.map { (Int($0.id), $0) }, uniquingKeysWith: { first, _ in first })
        var neighbours: [Int: [(text: String, vector: [Float]?)]] = [:]
        let calendar = Calendar(identifier: .gregorian)
        for result in first.results {
            let id = Int(result.note.id)
            neighbours[id] = [id - 1, id + 1].compactMap { other in
                guard let note = byId[other], calendar.isDate(note.createdAt, inSameDayAs: result.note.createdAt) else { return nil }
                return ((note.title ?? "") + " " + note.content, services.vectors.vector(for: other))
            }
        }
        return Reranker.Context(question: first.vector, names: first.analysis.names, terms: first.terms, neighbours: neighbours, vectors: services.vectors)
    }

    /// The lists read and fused: the best `limit` notes, best first (those of a time asked about
    /// first), each note with its words and date only.
    /// The question as the full-text side asks it: its words, its names and how much they weigh,
    /// its quoted phrases.
    struct TextQuery {
        var text: String
        var names: [String]
        var nameWeight: Double
        /// A common name's list keeps only its notes that have one of these words too.
        var otherWords: [String]?
        var phrases: [String]
    }

    /// Each note's words read once: the coverage check, the expansion and the results share them.
    final class NoteWords {
        let db: any Database
        private var read: [Int: Note] = [:]
        init(db: any Database) { self.db = db }
        func notes(_ ids: [Int]) async throws -> [Note] {
            for note in try await NoteStore(db: db).words(ids: ids.filter { read[$0] == nil }) { read[Int(note.id)] = note }
            return ids.compactMap { read[$0] }
        }
    }

    /// Keyword, vector, name and phrase lists fused (`RankFusion.weighted`): the notes of a time
    /// the question names first, then the rest, widened by the words of the best
    /// (`tuning.expansion`).
    func firstStage(_ query: String, limit: Int, filter: KeywordSearch.Filter, queryVector: [Float]?, now: Date?) async throws -> FirstStage {
        let depth = Self.depth(for: limit)
        let analysis = QueryAnalyzer.analyze(query, now: now ?? services.clock.now())
        let range = tuning.timeFilter ? analysis.range : nil
        let vectorFilter = VectorIndex.Filter(noteType: filter.noteType, actionability: filter.actionability)
        // The vector side (the question's embedding when it isn't given, the scan) is the model's
        // and this process's work, the full-text lists the database's: it runs while they are read.
        async let vectorSide = vectorSide(query, given: queryVector, depth: depth, filter: vectorFilter)
        let textQuery = try await textQuery(query, analysis: analysis)
        let words = NoteWords(db: db)
        // Quoted words say exactly what is wanted: the notes having them count as much as both lists together.
        let weights = [tuning.keywordWeight, tuning.vectorWeight, textQuery.nameWeight, tuning.keywordWeight + tuning.vectorWeight]
        var fused: [RankFusion.Fused<Int>] = []
        if let range {
            let lists = try await textLists(textQuery, filter: filter, created: range, depth: depth, words: words)
            var within = vectorFilter
            within.only = try await NoteStore(db: db).ids(createdIn: range)
            let nearby = try await vectorSide.vector.map { nearest($0, k: depth, filter: within) } ?? []
            fused = RankFusion.weighted([lists.keyword, nearby, lists.names, lists.phrases], weights: weights, k: tuning.k)
        }
        let lists = try await textLists(textQuery, filter: filter, created: nil, depth: depth, words: words)
        let (vector, nearestEverywhere) = try await vectorSide
        let everywhere = [lists.keyword, nearestEverywhere, lists.names, lists.phrases]
        let seen = Set(fused.map(\.id))
        // Lists drawn from the fused order's best (pseudo-relevance feedback; off in `.default`).
        var fusedEverywhere = RankFusion.weighted(everywhere, weights: weights, k: tuning.k)
        var more: [(list: [Int], weight: Double)] = []
        if let expansion = tuning.expansion, let list = try await expansionList(fusedEverywhere, expansion: expansion, query: query, textQuery: textQuery,
                                                                                 filter: filter, depth: depth, words: words) {
            more.append((list, expansion.weight))
        }
        if let feedback = tuning.feedback, let vector, let list = feedbackList(fusedEverywhere, feedback: feedback, vector: vector, depth: depth, filter: vectorFilter) {
            more.append((list, feedback.weight))
        }
        if !more.isEmpty {
            fusedEverywhere = RankFusion.weighted(everywhere + more.map(\.list), weights: weights + more.map(\.weight), k: tuning.k)
        }
        let outside = fusedEverywhere.filter { !seen.contains($0.id) }
        // Notes of the time asked about come first, whatever their score against the rest.
        if let floor = fused.last?.score {
            fused += outside.map { RankFusion.Fused(id: $0.id, score: min($0.score, floor * 0.999), ranks: $0.ranks) }
        } else {
            fused = outside
        }
        fused = Array(fused.prefix(limit))
        let found = try await words.notes(fused.map(\.id))
        let byId = Dictionary(uniqueKeysWithValues: fused.map { ($0.id, $0) })
        let results = found.compactMap { note in
            byId[Int(note.id)].map { ScoredNote(note: note, score: $0.score, keywordRank: $0.ranks[0], vectorRank: $0.ranks[1]) }
        }
        return FirstStage(results: results, source: everywhere[1].isEmpty ? .keyword : .hybrid, analysis: analysis, range: range, vector: vector,
                          terms: TextTokens.searchTerms(textQuery.text), best: fused.first?.score)
    }

    /// The question's content words — not its words of time ("March", "last": the date's), of
    /// asking ("what do I know about") or of tasks; the words as typed when that leaves none — and
    /// its names, weighing as much as they are rare (a name in every note says nothing). A name
    /// in more than a few of the notes leaves the full-text list, as a common word weighs little
    /// there, and its own list keeps only its notes that have another word of the question:
    /// ranking every note of someone in a chat export (half of them) finds nothing and takes the
    /// time of all of them.
    func textQuery(_ query: String, analysis: QueryAnalysis) async throws -> TextQuery {
        var words = tuning.contentWords ? analysis.keywords : TextTokens.searchTerms(query)
        var weight = tuning.nameWeight
        var otherWords: [String]? = nil
        if weight > 0, !analysis.names.isEmpty, let rarity = tuning.nameRarity {
            let share = try await KeywordSearch(db: db).share(ofNotesWithAll: analysis.names.joined(separator: " "), cap: rarity.common)
            weight = tuning.nameWeight(share: share)
            let nameTerms = Set(TextTokens.searchTerms(analysis.names.joined(separator: " ")))
            let rest = words.filter { !nameTerms.contains($0) }
            if share > rarity.rare, !rest.isEmpty {
                words = rest
                otherWords = rest
            }
        }
        return TextQuery(text: words.isEmpty ? query : words.joined(separator: " "), names: analysis.names, nameWeight: weight,
                         otherWords: otherWords, phrases: analysis.phrases)
    }

    /// The full-text, name and phrase lists, within `created` when given (the three at once); the
    /// full-text list keeps the notes with enough of the question's words (`tuning.minimumCoverage`).
    func textLists(_ q: TextQuery, filter: KeywordSearch.Filter, created: DateInterval?, depth: Int,
                   words: NoteWords) async throws -> (keyword: [Int], names: [Int], phrases: [Int]) {
        let keyword = KeywordSearch(db: db)
        var within = filter
        within.created = created
        let narrowed = within
        let wordsOnly = !tuning.facts
        async let nameIds = q.nameWeight > 0 && !q.names.isEmpty
            ? keyword.rank(q.names.joined(separator: " "), limit: depth, filter: narrowed, all: true, andAnyOf: q.otherWords, wordsOnly: wordsOnly) : []
        async let phraseIds = q.phrases.isEmpty ? [] : keyword.rank(phrases: q.phrases, limit: depth, filter: narrowed)
        var keywordIds = try await keyword.rank(q.text, limit: depth, filter: narrowed, wordsOnly: wordsOnly)
        let terms = TextTokens.searchTerms(q.text)
        if tuning.minimumCoverage > 0, terms.count > 1, !keywordIds.isEmpty {
            let needed = Int((tuning.minimumCoverage * Double(terms.count)).rounded(.up))
            let facts = tuning.facts ? try await KeywordSearch(db: db).facts(of: keywordIds) : [:]
            let covered = Set(try await words.notes(keywordIds).filter {
                TextTokens.matched(terms, in: ($0.title ?? "") + " " + $0.content + " " + (facts[Int($0.id)] ?? "")) >= needed
            }.map { Int($0.id) })
            keywordIds = keywordIds.filter(covered.contains)
        }
        return (keywordIds, try await nameIds, try await phraseIds)
    }

    /// The words the best of `fused` share beyond the question's, ranked by full text
    /// (`tuning.expansion`: pseudo-relevance feedback); nil when there are none.
    func expansionList(_ fused: [RankFusion.Fused<Int>], expansion: Tuning.Expansion, query: String, textQuery: TextQuery,
                       filter: KeywordSearch.Filter, depth: Int, words: NoteWords) async throws -> [Int]? {
        guard let best = fused.first?.score else { return nil }
        let candidates = try await words.notes(fused.prefix(depth).map(\.id))
        let scores = Dictionary(uniqueKeysWithValues: fused.map { ($0.id, $0.score) })
        let excluded = TextTokens.searchTerms(textQuery.text + " " + textQuery.names.joined(separator: " ") + " " + query)
        let added = Self.expansionTerms(candidates.map { (words: ($0.title ?? "") + " " + $0.content, weight: (scores[Int($0.id)] ?? 0) / best) },
                                        feedback: expansion.notes, count: expansion.terms, excluding: excluded)
        guard !added.isEmpty else { return nil }
        return try await KeywordSearch(db: db).rank(added.joined(separator: " "), limit: depth, filter: filter, wordsOnly: !tuning.facts)
    }

    /// The notes nearest the question's vector moved toward the mean of the best of `fused`'s
    /// (`tuning.feedback`: Rocchio's pseudo-relevance feedback for vectors); nil when none has a vector.
    func feedbackList(_ fused: [RankFusion.Fused<Int>], feedback: Tuning.Feedback, vector: [Float], depth: Int, filter: VectorIndex.Filter) -> [Int]? {
        let best = fused.prefix(feedback.notes).compactMap { services.vectors.vector(for: $0.id) }.filter { $0.count == vector.count }
        guard !best.isEmpty else { return nil }
        var mean = [Float](repeating: 0, count: vector.count)
        for v in best { for i in mean.indices { mean[i] += v[i] } }
        let centre = VectorUtility.normalized(mean), question = VectorUtility.normalized(vector)
        return nearest(VectorUtility.normalized(zip(question, centre).map { $0 + Float(feedback.mix) * $1 }), k: depth, filter: filter)
    }

    /// The question's vector (given, or asked of the model; nil when there is none) and the notes
    /// nearest it, the indexes first brought up to date.
    private func vectorSide(_ query: String, given: [Float]?, depth: Int, filter: VectorIndex.Filter) async throws -> (vector: [Float]?, nearest: [Int]) {
        var vector = given
        if vector == nil { vector = await embed(query) }
        guard let vector else { return (nil, []) }
        try await services.vectors.refresh(on: db, now: services.clock.now())
        try await services.chunkVectors.refresh(on: db, now: services.clock.now())
        return (vector, nearest(vector, k: depth, filter: filter))
    }

    /// The notes nearest a vector, each by the nearest of its own vector and its chunks'.
    public func nearest(_ vector: [Float], k: Int, filter: VectorIndex.Filter = .init()) -> [Int] {
        var best: [Int: Double] = [:]
        for hit in services.vectors.search(vector, k: k, filter: filter) { best[hit.id] = hit.similarity }
        let chunks = services.chunkVectors
        for hit in tuning.chunks ? chunks.search(vector, k: k, filter: filter) : [] {
            let note = hit.id / chunks.idsPerNote
            best[note] = max(best[note] ?? -2, hit.similarity)
        }
        return best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key }.prefix(k).map(\.key)
    }

    /// RM3-style expansion terms: `candidates` in fused order with their weight (fused score over
    /// the best); the first `feedback` give each word the share of their words it is times their
    /// weight, and a word in many of all the candidates counts for less (log of candidates over
    /// those having it). Words of `excluding` (by stem), of two letters or fewer, or digits only are
    /// left out; the `count` best, best first.
    static func expansionTerms(_ candidates: [(words: String, weight: Double)], feedback: Int, count: Int, excluding: [String]) -> [String] {
        let excludedStems = Set(excluding.map(TextTokens.stem))
        let bags = candidates.map { candidate in
            TextTokens.words(candidate.words).filter { $0.count > 2 && !TextTokens.stopWords.contains($0) && !$0.allSatisfy(\.isNumber) }
        }
        var having: [String: Int] = [:]
        for bag in bags { for word in Set(bag) { having[word, default: 0] += 1 } }
        var weight: [String: Double] = [:]
        for (bag, candidate) in zip(bags, candidates).prefix(feedback) where !bag.isEmpty {
            var counts: [String: Int] = [:]
            for word in bag { counts[word, default: 0] += 1 }
            for (word, n) in counts { weight[word, default: 0] += candidate.weight * Double(n) / Double(bag.count) }
        }
        let total = Double(candidates.count)
        return weight.compactMap { word, w -> (String, Double)? in
            guard !excludedStems.contains(TextTokens.stem(word)) else { return nil }
            let rarity = log((total + 1) / (Double(having[word] ?? 0) + 0.5))
            return rarity > 0 ? (word, w * rarity) : nil
        }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(count).map(\.0)
    }

    /// The notes scoring at least `floor`, newest first, then the rest as they were.
    static func newestFirst(_ notes: [Note], scores: [Int: Double], within floor: Double) -> [Note] {
        let close = notes.filter { (scores[Int($0.id)] ?? 0) >= floor }
        let ids = Set(close.map(\.id))
        return close.sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id > $1.id } + notes.filter { !ids.contains($0.id) }
    }

    /// Notes related to one note: its nearest neighbours by embedding fused with full-text
    /// matches of its own words; keyword matches alone when it has no embedding.
    func related(to noteId: Int, limit: Int) async throws -> RelatedNotes? {
        let store = NoteStore(db: db)
        guard let note = try await store.note(id: noteId) else { return nil }
        try await services.vectors.refresh(on: db, now: services.clock.now())
        let depth = Self.depth(for: limit)
        let text = [note.title ?? "", note.content].joined(separator: " ")
        let terms = Self.distinctiveTerms(text)
        let keywordIds = try await KeywordSearch(db: db).rank(terms.joined(separator: " "), limit: depth + 1).filter { $0 != noteId }
        let associations = try await storedAssociations(of: noteId)
        var similarities: [Int: Double] = [:]
        var vectorIds: [Int] = []
        if let vector = services.vectors.vector(for: noteId) {
            for hit in services.vectors.search(vector, k: depth, excluding: [noteId]) {
                vectorIds.append(hit.id)
                similarities[hit.id] = hit.similarity
            }
        }
        let source: RetrievalSource = vectorIds.isEmpty ? .keyword : .hybrid
        let fused = Array(RankFusion.reciprocal(vectorIds.isEmpty ? [keywordIds] : [vectorIds, keywordIds]).prefix(limit))
        let notes = try await store.notes(ids: fused.map(\.id))
        let byId = Dictionary(uniqueKeysWithValues: notes.map { (Int($0.id), $0) })
        let results = fused.enumerated().compactMap { index, f -> RelatedNote? in
            guard let other = byId[f.id] else { return nil }
            if let similarity = associations[f.id] {
                return RelatedNote(note: other, relationshipType: .association, strength: Self.clamp(similarity))
            }
            if let thread = note.threadId, other.threadId == thread {
                return RelatedNote(note: other, relationshipType: .thread, strength: Self.clamp(similarities[f.id] ?? 1 / Double(index + 2)))
            }
            if let similarity = similarities[f.id] {
                return RelatedNote(note: other, relationshipType: .association, strength: Self.clamp(similarity))
            }
            return RelatedNote(note: other, relationshipType: .keyword, strength: Self.clamp(1 / Double(index + 2)))
        }
        return RelatedNotes(noteId: Int64(noteId), results: results, source: source)
    }

    /// The notes processing stored an association with, and its similarity.
    func storedAssociations(of noteId: Int) async throws -> [Int: Double] {
        let rows = try await db.sql.raw("""
            SELECT note_a_id, note_b_id, similarity FROM note_associations WHERE note_a_id = \(bind: noteId) OR note_b_id = \(bind: noteId)
            """).all()
        var out: [Int: Double] = [:]
        for row in rows {
            let a = try row.decode(column: "note_a_id", as: Int.self), b = try row.decode(column: "note_b_id", as: Int.self)
            out[a == noteId ? b : a] = try row.decode(column: "similarity", as: Double.self)
        }
        return out
    }

    /// The query's embedding, or nil when there is no LLM or it doesn't answer.
    func embed(_ query: String) async -> [Float]? {
        guard let llm = services.llm else { return nil }
        return try? await llm.embed([query]).first
    }

    /// A note's most frequent content words (at most 12), to find notes that share them.
    static func distinctiveTerms(_ text: String) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for word in TextTokens.words(text) where word.count > 2 && !TextTokens.stopWords.contains(word) {
            if counts[word] == nil { order.append(word) }
            counts[word, default: 0] += 1
        }
        return order.enumerated().sorted { (counts[$0.element]!, -$0.offset) > (counts[$1.element]!, -$1.offset) }.prefix(12).map(\.element)
    }

    static func clamp(_ x: Double) -> Double { min(1, max(0, x)) }
}

