import Foundation

/// One thing a briefing points at, as a card that leads somewhere: a thread moving, a link
/// across threads, a note worth another look, an open task. "Ask about this" opens a
/// conversation that starts from the card's notes, with a first question the person can change.
public struct BriefingCard: Codable, Sendable, Hashable, Identifiable {
    /// What a briefing card points at.
    public enum Kind: String, Codable, Sendable, CaseIterable { case thread, link, resurfaced, task }

    /// From 1, in the order every screen shows them (`BriefingCards.cards`).
    public var number: Int
    public var kind: Kind
    public var title: String
    /// A line under the title: a thread's momentum, how alike two notes are, when a note was written.
    public var detail: String?
    /// The first question the conversation suggests.
    public var question: String
    /// The notes the conversation starts from; a thread's card takes the thread's latest when it
    /// opens (`BriefingCards.seed`).
    public var noteIds: [Int64]
    public var threadId: Int64?
    public var taskId: Int64?

    public var id: Int { number }

    public init(number: Int, kind: Kind, title: String, detail: String? = nil, question: String, noteIds: [Int64],
                threadId: Int64? = nil, taskId: Int64? = nil) {
        self.number = number
        self.kind = kind
        self.title = title
        self.detail = detail
        self.question = question
        self.noteIds = noteIds
        self.threadId = threadId
        self.taskId = taskId
    }
}

/// A briefing's cards, numbered the same way on the web and in the terminal (`selene briefing`,
/// `selene chat --about N`).
public enum BriefingCards {
    /// The most notes a card's conversation starts from.
    public static let seedLimit = 5

    /// Threads moving, then links across threads, notes worth another look and open tasks.
    public static func cards(_ briefing: Briefing, resurfaced: [Resurfacing.Suggestion]) -> [BriefingCard] {
        var cards: [BriefingCard] = []
        func add(_ kind: BriefingCard.Kind, _ title: String, _ detail: String?, _ question: String, _ notes: [Int64],
                 thread: Int64? = nil, task: Int64? = nil) {
            cards.append(BriefingCard(number: cards.count + 1, kind: kind, title: title, detail: detail, question: question, noteIds: notes,
                                      threadId: thread, taskId: task))
        }
        for thread in briefing.threads {
            add(.thread, thread.name, "Momentum \(String(format: "%.2f", thread.momentum)) · \(thread.noteCount) notes",
                "What has been happening in my \(thread.name) thread, and what should I do next?", [], thread: thread.id)
        }
        for link in briefing.associations {
            add(.link, "\(link.noteA.displayTitle) ↔ \(link.noteB.displayTitle)", "\(Int((link.similarity * 100).rounded()))% alike",
                "How are “\(link.noteA.displayTitle)” and “\(link.noteB.displayTitle)” connected?", [link.noteA.id, link.noteB.id])
        }
        for suggestion in resurfaced {
            add(.resurfaced, suggestion.note.displayTitle, suggestion.reason,
                "What did I write in “\(suggestion.note.displayTitle)”, and does it still matter now?", [suggestion.note.id])
        }
        for task in briefing.tasks {
            add(.task, task.title, nil, "What do my notes say about “\(task.title)”?", task.sourceNoteId.map { [$0] } ?? [],
                thread: task.threadId, task: task.id)
        }
        return cards
    }

    /// The notes a card's conversation starts from: its own, with — for a thread, or a task in
    /// one — the thread's latest notes, at most `seedLimit`.
    public static func seed(_ card: BriefingCard, data: any DataProvider) async throws -> [Int64] {
        var ids = card.noteIds
        if let thread = card.threadId, card.kind == .thread || card.kind == .task, ids.count < seedLimit {
            let detail = try await data.thread(id: thread)
            for note in detail.notes.sorted(by: { $0.createdAt > $1.createdAt }) where !ids.contains(note.id) && ids.count < seedLimit {
                ids.append(note.id)
            }
        }
        return Array(ids.prefix(seedLimit))
    }
}
