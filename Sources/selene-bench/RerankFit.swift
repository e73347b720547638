import Foundation
import SeleneServer

/// Fits `Reranker`'s weights (#63, direction 2) on the first stage's candidates of the tuning
/// halves: a pairwise logistic loss (RankNet's) over every (answering note, other note) pair of a
/// question, each question weighing the same and each set half, with a little L2. The bias
/// doesn't change an order; it stays 0.
enum RerankFit {
    struct Question: Encodable {
        var set: String
        /// "tuning" or "held-out": only the first is fitted on.
        var half = "tuning"
        var id = ""
        var kind = ""
        /// How many notes answer it (found among the candidates or not).
        var relevant: Int
        var candidates: [Candidate]

        struct Candidate: Encodable {
            var relevance: Int
            var features: [Double]
            /// The set's document id, and whether the note was written in a time the question names.
            var document = ""
            var inRange = false
        }
    }

    static func fit(_ questions: [Question], iterations: Int = 4000, rate: Double = 4, l2: Double = 1e-4) -> Reranker {
        let questions = questions.filter { $0.half == "tuning" }
        let n = Reranker.Feature.allCases.count
        let perSet = Dictionary(grouping: questions, by: \.set).mapValues(\.count)
        // Each pair as the difference of its two feature vectors, with its weight.
        var differences: [([Double], Double)] = []
        for q in questions {
            var pairs: [[Double]] = []
            for better in q.candidates where better.relevance > 0 {
                for worse in q.candidates where worse.relevance < better.relevance {
                    pairs.append(zip(better.features, worse.features).map { $0 - $1 })
                }
            }
            guard !pairs.isEmpty else { continue }
            let weight = 1 / Double(pairs.count) / Double(perSet[q.set]!) / Double(perSet.count)
            differences += pairs.map { ($0, weight) }
        }
        var w = [Double](repeating: 0, count: n)
        for _ in 0..<iterations {
            var gradient = w.map { l2 * $0 }
            for (d, weight) in differences {
                let margin = zip(w, d).reduce(0) { $0 + $1.0 * $1.1 }
                // d/dw log(1 + e^-margin) = -d · σ(-margin)
                let g = -weight / (1 + exp(margin))
                for i in 0..<n { gradient[i] += g * d[i] }
            }
            for i in 0..<n { w[i] -= rate * gradient[i] }
        }
        return Reranker(weights: w + [0])
    }
}
