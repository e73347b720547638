import Foundation
import SeleneShared

/// A second stage over the first stage's fused top notes (#63, direction 2): each (question, note)
/// pair described by a few features and scored by a linear model whose weights were fitted on the
/// tuning halves of both development sets (`selene-bench --only rerank` fits them and reports the
/// held-out halves). No model is downloaded or run: the features come from what retrieval already
/// has — the two lists' ranks, the note's vector, its words, its neighbours' vectors.
public struct Reranker: Sendable, Hashable {
    /// One weight per feature (`Feature.allCases`, in order), then the bias.
    public var weights: [Double]
    /// How many of the first stage's notes it scores again (`Reranker.depth` unless measured otherwise).
    public var depth: Int

    public init(weights: [Double], depth: Int = Reranker.depth) {
        precondition(weights.count == Feature.allCases.count + 1, "a weight per feature and a bias")
        precondition(depth > 0, "at least one note to score")
        self.weights = weights
        self.depth = depth
    }

    /// Fitted 2026-11-29 by `selene-bench --only rerank` on both sets' tuning halves, their notes
    /// embedded with all-mpnet-base-v2: the fused score, the vector rank, the cosine, the words
    /// covered and a named speaker carry it; a neighbour's words count slightly against a note
    /// (the neighbour is then the likelier answer). "Said again" (2026-11-30) is the weight among
    /// −4 … −20 that ranked selene-talk's tuning half best with the others held; it is 0 on every
    /// note that isn't a chat export's turn, so a person's notes rank as before. It holds where no
    /// turn repeats another (selene-chats, built later, tuned on by nothing: held-out recall@10
    /// 0.768 with it, 0.669 without). In `Retriever.Tuning.default`.
    public static let fitted = Reranker(weights: [4.000, -0.194, 1.205, 2.430, 3.427, 4.588, 0.964, -1.007, -16.000, 0.000])

    /// How many of the first stage's notes are scored again, unless a reranker says otherwise: 60
    /// since 2026-12-03 (#85; 40 before). Deeper, the answering turns the first stage ranks 41st to
    /// 60th can be brought up — on both conversation sets' tuning halves, with selene-life's tied;
    /// 70 and 80 found more on conversations and cost a person's notes' tuning half nDCG
    /// (docs/selene/selenes-performance.md, "How deep the reranker reads").
    public static let depth = 60

    public enum Feature: String, CaseIterable, Sendable {
        /// The first stage's fused score over the best one's (0–1).
        case fused = "fused score / best"
        /// 1 / rank in the full-text list (0 when not in it).
        case keywordRank = "1 / full-text rank"
        /// 1 / rank in the vector list (0 when not in it).
        case vectorRank = "1 / vector rank"
        /// The cosine of the question's and the note's own vectors.
        case cosine = "cosine"
        /// The share of the question's content words the note has (by stem).
        case coverage = "words covered"
        /// 1 when the note is a chat turn whose speaker the question names ("Maya (7:42 pm …): …",
        /// "[03/03/2024, 19:42] Priya: …" for "What did Maya …").
        case speaker = "speaker named"
        /// The best cosine of the question and a neighbour's vector: the note just before or after
        /// it, written the same day (a chat turn's context: "Yes! Saturday works" answers the one before).
        case neighbour = "neighbour cosine"
        /// The best share of the question's content words a neighbour has (the question may name
        /// what the turn before said: "What did Ade make in the guitar class?" — "Made my first song!").
        case neighbourCoverage = "neighbour words covered"
        /// For a chat export's turn (its header has the moment: "Maya (7:42 pm on 3 March, 2024): …",
        /// "[03/03/2024, 19:42] Priya: …"), the largest cosine of its vector and another candidate's;
        /// 0 for any other note. Near 1 means the same words said at another moment — "How did it
        /// go?", "Sending you a hug", "Oh nice" — which answer nothing by themselves; weighed against,
        /// such turns make room for the ones that say something (a question's answers in a
        /// conversation are spread over sessions). A person's own notes on one topic are near one
        /// another and each may answer ("every note about the boiler"), so they are left alone: the
        /// same feature over every note cost their ranking (selenes-performance.md, "Said again").
        case saidAgain = "said again (chat turns)"
    }

    /// The same reranker with one feature weighed at `weight` (a study's setting, the rest held).
    public func with(_ feature: Feature, at weight: Double) -> Reranker {
        var changed = self
        changed.weights[Feature.allCases.firstIndex(of: feature)!] = weight
        return changed
    }

    /// The score of one pair's features.
    public func score(_ features: [Double]) -> Double {
        zip(features, weights).reduce(weights.last ?? 0) { $0 + $1.0 * $1.1 }
    }

    /// What a candidate is described by, besides its note.
    public struct Context: Sendable {
        public var question: [Float]?
        public var names: [String]
        public var terms: [String]
        /// Each candidate's neighbours (their text and vector), by note id.
        public var neighbours: [Int: [(text: String, vector: [Float]?)]]
        public var vectors: VectorIndex
    }

    /// The features of `results` (first-stage order) for one question.
    public static func features(of results: [ScoredNote], in context: Context) -> [[Double]] {
        let best = results.first?.score ?? 1
        let question = context.question.map(VectorUtility.normalized)
        let names = Set(context.names.flatMap { $0.lowercased().split(separator: " ").map(String.init) })
        // A text's share is worked out once: a note is often a candidate and its neighbours' neighbour.
        var covered: [String: Double] = [:]
        func coverage(_ text: String) -> Double {
            if let known = covered[text] { return known }
            let share = context.terms.isEmpty ? 0 : Double(TextTokens.matched(context.terms, in: text)) / Double(context.terms.count)
            covered[text] = share
            return share
        }
        // Every candidate's own vector at unit length; each chat turn's nearest other candidate.
        let unit = results.compactMap { result in
            context.vectors.vector(for: Int(result.note.id)).map { (id: Int(result.note.id), vector: VectorUtility.normalized($0)) }
        }
        let turns = Set(results.filter { isExportTurn($0.note.content) }.map { Int($0.note.id) })
        var saidAgain: [Int: Double] = [:]
        for turn in unit where turns.contains(turn.id) {
            saidAgain[turn.id] = unit.filter { $0.id != turn.id && $0.vector.count == turn.vector.count }
                .map { Double(VectorUtility.dot(turn.vector, $0.vector)) }.max() ?? 0
        }
        return results.map { result in
            let id = Int(result.note.id)
            func cosine(_ v: [Float]?) -> Double {
                guard let question, let v, v.count == question.count else { return 0 }
                return Double(VectorUtility.dot(question, VectorUtility.normalized(v)))
            }
            let neighbours = context.neighbours[id] ?? []
            return Feature.allCases.map { feature in
                switch feature {
                case .fused: best > 0 ? result.score / best : 0
                case .keywordRank: result.keywordRank.map { 1 / Double($0) } ?? 0
                case .vectorRank: result.vectorRank.map { 1 / Double($0) } ?? 0
                case .cosine: cosine(context.vectors.vector(for: id))
                case .coverage: coverage((result.note.title ?? "") + " " + result.note.content)
                case .speaker: speaker(of: result.note.content).map { names.contains($0.lowercased()) ? 1 : 0 } ?? 0
                case .neighbour: neighbours.map { cosine($0.vector) }.max() ?? 0
                case .neighbourCoverage: neighbours.map { coverage($0.text) }.max() ?? 0
                case .saidAgain: saidAgain[id] ?? 0
                }
            }
        }
    }

    /// `results` in the order of their new scores; notes of a time asked about (`first`) stay ahead
    /// of the rest, as the first stage put them.
    public func reorder(_ results: [ScoredNote], features: [[Double]], first: (Note) -> Bool) -> [ScoredNote] {
        let scored = zip(results, features).enumerated().map { (index: $0.offset, result: $0.element.0, score: score($0.element.1)) }
        let ahead = scored.filter { first($0.result.note) }, rest = scored.filter { !first($0.result.note) }
        func ordered(_ list: [(index: Int, result: ScoredNote, score: Double)]) -> [ScoredNote] {
            list.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }.map(\.result)
        }
        return ordered(ahead) + ordered(rest)
    }

    /// A chat export's speaker at the start of a note: "Maya (7:42 pm on 3 March, 2024): …" or
    /// "[03/03/2024, 19:42] Priya: …". nil for a note that doesn't start so.
    static func speaker(of content: String) -> String? {
        ChatTurn.header(of: content)?.speaker
    }

    /// Whether a note starts with a chat export's header that has the moment in it (`ChatTurn`).
    static func isExportTurn(_ content: String) -> Bool { ChatTurn.isExportTurn(content) }
}
