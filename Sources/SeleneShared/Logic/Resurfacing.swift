import Foundation

/// Old notes brought back when a new one touches them: "You wrote about this in March".
public struct Resurfacing: Sendable {
    public let data: any DataProvider
    /// Only notes at least this old come back.
    public var minimumAge: TimeInterval = 30 * 86_400
    public var minimumStrength = 0.5

    public init(data: any DataProvider) { self.data = data }

    /// An older note worth seeing again, how strongly, and why.
    public struct Suggestion: Sendable, Hashable {
        public var note: Note
        public var strength: Double
        /// "You wrote about this 3 months ago".
        public var reason: String

        public init(note: Note, strength: Double, reason: String) {
            self.note = note
            self.strength = strength
            self.reason = reason
        }
    }

    public func suggestions(for note: Note, now: Date, limit: Int = 3) async throws -> [Suggestion] {
        let related = try await data.relatedNotes(to: note.id, limit: 20)
        return pick(related.results, now: now, limit: limit)
    }

    /// The old, strongly related notes among `related` (pure: tested alone).
    public func pick(_ related: [RelatedNote], now: Date, limit: Int) -> [Suggestion] {
        related.filter { now.timeIntervalSince($0.note.createdAt) >= minimumAge && $0.strength >= minimumStrength && $0.relationshipType != .keyword }
            .sorted { $0.strength > $1.strength }
            .prefix(limit)
            .map { Suggestion(note: $0.note, strength: $0.strength, reason: "You wrote about this \(Self.ago($0.note.createdAt, now: now))") }
    }

    static func ago(_ date: Date, now: Date) -> String {
        let days = Int(now.timeIntervalSince(date) / 86_400)
        switch days {
        case ..<60: return "\(max(1, days / 7)) weeks ago"
        case ..<365: return "\(days / 30) months ago"
        default: return days / 365 == 1 ? "a year ago" : "\(days / 365) years ago"
        }
    }
}

/// Sub-projects for a busy thread: groups of its notes that share a concept of their own.
public enum SubprojectSuggester {
    /// A group of a thread's notes that could be its own thread, and the name it would take.
    public struct Suggestion: Sendable, Hashable {
        public var name: String
        public var noteIds: [Int64]
    }

    /// For a thread of at least `minimumThreadSize` notes: each concept (or secondary theme) that
    /// at least `minimumGroup` of its notes share, that isn't the thread's own subject and doesn't
    /// cover most of it, biggest first.
    public static func suggest(thread: NoteThread, notes: [Note], minimumThreadSize: Int = 8, minimumGroup: Int = 3, limit: Int = 3) -> [Suggestion] {
        guard notes.count >= minimumThreadSize else { return [] }
        let own = Set(TextTokens.words(thread.name))
        var groups: [String: Set<Int64>] = [:]
        var order: [String] = []
        for note in notes {
            guard let analysis = note.analysis else { continue }
            let concepts = analysis.concepts.map { $0.name.lowercased() } + analysis.secondaryThemes.map { $0.lowercased() }
            for concept in Set(concepts) where !own.contains(concept) && !TextTokens.words(concept).allSatisfy(own.contains) {
                if groups[concept] == nil { order.append(concept) }
                groups[concept, default: []].insert(note.id)
            }
        }
        let most = Int(Double(notes.count) * 0.7)
        return order.compactMap { concept -> Suggestion? in
            let ids = groups[concept]!
            guard ids.count >= minimumGroup, ids.count <= most else { return nil }
            return Suggestion(name: concept.prefix(1).uppercased() + concept.dropFirst(), noteIds: ids.sorted())
        }.sorted { $0.noteIds.count > $1.noteIds.count }.prefix(limit).map { $0 }
    }
}
