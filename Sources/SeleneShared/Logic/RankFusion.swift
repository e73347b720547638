import Foundation

/// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): an item's score is Σ 1/(k + rank)
/// over the ranked lists it appears in (ranks from 1). It needs no calibration between the
/// lists' own scores (BM25 and cosine are on different scales), and an item ranked well by both
/// lists beats one ranked first by only one.
public enum RankFusion {
    public static let defaultK = 60.0

    public struct Fused<ID: Hashable>: Hashable {
        public var id: ID
        public var score: Double
        /// The item's rank in each list (1-based), nil where it didn't appear.
        public var ranks: [Int?]
    }

    public static func reciprocal<ID: Hashable>(_ lists: [[ID]], k: Double = defaultK) -> [Fused<ID>] {
        var scores: [ID: Double] = [:]
        var ranks: [ID: [Int?]] = [:]
        var firstSeen: [ID: Int] = [:]
        var order = 0
        for (listIndex, list) in lists.enumerated() {
            for (position, id) in list.enumerated() where ranks[id]?[listIndex] == nil {
                scores[id, default: 0] += 1 / (k + Double(position + 1))
                ranks[id, default: Array(repeating: nil, count: lists.count)][listIndex] = position + 1
                if firstSeen[id] == nil { firstSeen[id] = order; order += 1 }
            }
        }
        return scores.map { Fused(id: $0.key, score: $0.value, ranks: ranks[$0.key]!) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : firstSeen[$0.id]! < firstSeen[$1.id]! }
    }
}
