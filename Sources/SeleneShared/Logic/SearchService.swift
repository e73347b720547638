import Foundation

/// Finds the notes a question is about, the way its analysis says: hybrid retrieval for a
/// search, the named thread's notes, the notes of a time range, the open tasks; nothing for
/// open conversation. Within a thread workspace, only that thread's notes.
public struct SearchService: Sendable {
    public let data: any DataProvider

    public init(data: any DataProvider) { self.data = data }

    /// What a search found: notes, the thread named (if any) with its tasks, and how they were found.
    public struct Result: Sendable, Hashable {
        public var notes: [Note]
        public var thread: NoteThread?
        public var tasks: [ThreadTask]
        /// How the notes were found (`keyword` when the server couldn't use vectors).
        public var source: RetrievalSource?
        public init(notes: [Note], thread: NoteThread? = nil, tasks: [ThreadTask] = [], source: RetrievalSource? = nil) {
            self.notes = notes
            self.thread = thread
            self.tasks = tasks
            self.source = source
        }
    }

    public func find(_ question: String, analysis: QueryAnalysis, limit: Int = 12, scope: ThreadDetail? = nil) async throws -> Result {
        if let scope { return try await withinThread(scope, question: question, analysis: analysis, limit: limit) }
        switch analysis.kind {
        case .openChat:
            return Result(notes: [])
        case .search:
            let retrieved = try await data.retrieveNotes(question, limit: limit, noteType: nil, actionability: nil)
            return Result(notes: retrieved.results.map(\.note), source: retrieved.source)
        case .thread(let name):
            guard let detail = try await data.thread(named: name) else {
                let retrieved = try await data.retrieveNotes(question, limit: limit, noteType: nil, actionability: nil)
                return Result(notes: retrieved.results.map(\.note), source: retrieved.source)
            }
            let tasks = (try? await data.tasks(threadId: detail.thread.id)) ?? []
            return Result(notes: Self.rank(detail.notes, by: analysis.keywords, limit: limit), thread: detail.thread, tasks: tasks.filter { $0.status == .open })
        case .timeRange where !analysis.keywords.isEmpty:
            // "What did I decide about the roof in March": the retriever reads the month and
            // looks within it first (a year of notes is far more than a window of the newest).
            let retrieved = try await data.retrieveNotes(question, limit: limit, noteType: nil, actionability: nil)
            return Result(notes: retrieved.results.map(\.note), source: retrieved.source)
        case .timeRange:
            let range = analysis.range ?? DateInterval(start: Date().addingTimeInterval(-7 * 86_400), end: Date())
            let notes = try await data.notes(since: range.start, limit: 200).filter { $0.createdAt < range.end || $0.createdAt == range.end }
            return Result(notes: Self.rank(notes, by: analysis.keywords, limit: limit))
        case .tasks:
            var tasks: [ThreadTask] = []
            for thread in try await data.activeThreads(limit: 5) {
                tasks += try await data.tasks(threadId: thread.id).filter { $0.status == .open }
            }
            let actionable = try await data.retrieveNotes(question, limit: limit, noteType: nil, actionability: .actionable)
            return Result(notes: actionable.results.map(\.note), tasks: tasks, source: actionable.source)
        }
    }

    private func withinThread(_ scope: ThreadDetail, question: String, analysis: QueryAnalysis, limit: Int) async throws -> Result {
        let inThread = Set(scope.notes.map(\.id))
        let retrieved = (try? await data.retrieveNotes(question, limit: 50, noteType: nil, actionability: nil))?.results.map(\.note) ?? []
        var ordered = retrieved.filter { inThread.contains($0.id) }
        let seen = Set(ordered.map(\.id))
        ordered += Self.rank(scope.notes.filter { !seen.contains($0.id) }, by: analysis.keywords, limit: scope.notes.count)
        let tasks = (try? await data.tasks(threadId: scope.thread.id)) ?? []
        return Result(notes: Array(ordered.prefix(limit)), thread: scope.thread, tasks: tasks.filter { $0.status == .open })
    }

    /// Notes ordered by how many of the words they contain (newest first among equals).
    static func rank(_ notes: [Note], by keywords: [String], limit: Int) -> [Note] {
        guard !keywords.isEmpty else { return Array(notes.sorted { $0.createdAt > $1.createdAt }.prefix(limit)) }
        let wanted = Set(keywords)
        let scored = notes.map { note -> (Note, Int) in
            let words = Set(TextTokens.words((note.title ?? "") + " " + note.content))
            return (note, wanted.filter { w in words.contains { $0.hasPrefix(w) || w.hasPrefix($0) && $0.count > 3 } }.count)
        }
        return Array(scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.createdAt > $1.0.createdAt }.prefix(limit).map(\.0))
    }
}
