import Foundation

/// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): an item's score is Σ 1/(k + rank)
/// over the ranked lists it appears in (ranks from 1). It needs no calibration between the
/// lists' own scores (BM25 and cosine are on different scales), and an item ranked well by both
/// lists beats one ranked first by only one.
public enum RankFusion {
    public static let defaultK = 60.0

    /// One result of fused rankings: its id, fused score, and rank in each list.
    public struct Fused<ID: Hashable>: Hashable {
        public var id: ID
        public var score: Double
        /// The item's rank in each list (1-based), nil where it didn't appear.
        public var ranks: [Int?]
        public init(id: ID, score: Double, ranks: [Int?]) {
            self.id = id
            self.score = score
            self.ranks = ranks
        }
    }

    public static func reciprocal<ID: Hashable>(_ lists: [[ID]], k: Double = defaultK) -> [Fused<ID>] {
        weighted(lists, weights: Array(repeating: 1, count: lists.count), k: k)
    }

    /// Weighted RRF: Σ wᵢ/(k + rankᵢ). A list that is more often right on the questions people
    /// ask counts for more; a weight of 0 keeps a list's ranks in `ranks` without scoring them.
    public static func weighted<ID: Hashable>(_ lists: [[ID]], weights: [Double], k: Double = defaultK) -> [Fused<ID>] {
        precondition(weights.count == lists.count, "one weight per list")
        var scores: [ID: Double] = [:]
        var ranks: [ID: [Int?]] = [:]
        var firstSeen: [ID: Int] = [:]
        var order = 0
        for (listIndex, list) in lists.enumerated() {
            for (position, id) in list.enumerated() where ranks[id]?[listIndex] == nil {
                scores[id, default: 0] += weights[listIndex] / (k + Double(position + 1))
                ranks[id, default: Array(repeating: nil, count: lists.count)][listIndex] = position + 1
                if firstSeen[id] == nil { firstSeen[id] = order; order += 1 }
            }
        }
        return scores.map { Fused(id: $0.key, score: $0.value, ranks: ranks[$0.key]!) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : firstSeen[$0.id]! < firstSeen[$1.id]! }
    }
}
