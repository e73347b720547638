import Foundation

/// One chat turn, the same for every screen: keep the question, find the notes it is about
/// (`QueryAnalyzer`, `SearchService`), recall memories, build the context and prompt within the
/// budget, stream the answer, resolve its citations, save, learn memories, compress a long
/// session. The view models drive it and show its events.
public struct ChatEngine: Sendable {
    public let data: any DataProvider
    public let llm: any LLMProvider
    /// The most tokens of notes and memories a prompt carries; less when the model's window is
    /// small (half of it: the rest is the instructions, the conversation and the answer).
    public var contextBudget = 3000
    /// The most notes a prompt shows: the few that matter (a small model cites better from few).
    public var contextNotes = 5
    public var compression: CompressionService
    public var memory: MemoryService
    public var now: @Sendable () -> Date

    public init(data: any DataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.llm = llm
        self.now = now
        compression = CompressionService(llm: llm)
        memory = MemoryService(data: data, llm: llm)
    }

    /// What a chat turn reports while it runs: searching, thinking over so many notes, text as it streams.
    public enum Event: Sendable {
        case searching
        case thinking(notes: Int)
        case delta(String)
    }

    /// One finished chat turn: the answer, its citations, and the notes it was given.
    public struct Turn: Sendable {
        public var session: ChatSession
        /// The answer, or nil when the LLM couldn't give one.
        public var answer: ParsedAnswer?
        /// The notes found for the question (shown on their own when there is no answer).
        public var notes: [Note]
        public var context: ChatContext
        /// Why there is no answer: the LLM is unreachable or broke off.
        public var unavailable: String?

        /// What the person reads when there is no answer: whether what arrived is kept, and
        /// that the notes that match are shown instead.
        public var unavailableMessage: String? {
            guard answer == nil else { return nil }
            return session.messages.last?.isIncomplete == true
                ? "The LLM broke off in the middle of the answer: what arrived is kept, marked as cut off. Here are the notes that match; ask again later for a whole answer."
                : "Selene can't reach the LLM right now, so here are the notes that match instead. Your question is kept; ask again later."
        }
    }

    /// An error as the person reads it.
    public static func describe(_ error: any Error) -> String {
        (error as? SeleneClientError)?.description ?? error.localizedDescription
    }

    /// A thread's conversation: the one most lately used, or a new one about it.
    public func threadSession(_ detail: ThreadDetail) async throws -> ChatSession {
        try await data.sessions().filter { $0.threadId == detail.thread.id }.max { $0.updatedAt < $1.updatedAt }
            ?? ChatSession(title: "About \(detail.thread.name)", threadId: detail.thread.id, createdAt: now(), updatedAt: now())
    }

    public static let untitled = "New chat"

    /// Answers `question` in `session` (scoped to a thread when `scope` is given; `focus`: notes
    /// the conversation is about, shown first whatever the search finds — a briefing card's).
    /// Throws only when the question itself can't be kept (the server is unreachable or refuses it).
    public func answer(_ question: String, in session: ChatSession, scope: ThreadDetail? = nil, focus: [Int64] = [],
                       emit: @Sendable (Event) async -> Void = { _ in }) async throws -> Turn {
        var session = session
        let asked = ChatMessage(role: .user, content: question, createdAt: now())
        session.messages.append(asked)
        session.updatedAt = asked.createdAt
        if session.title == Self.untitled || session.title.isEmpty { session.title = Self.title(for: question) }
        try await data.saveSession(session)
        try await data.saveMessage(NewMessage(role: .user, content: question), sessionId: session.id)

        await emit(.searching)
        let (found, context, messages) = try await prompt(question, in: session, scope: scope, focus: focus)
        await emit(.thinking(notes: context.notes.count))

        // The answer is kept marked incomplete once, before its first piece is shown, then
        // whole when it ends — or as far as it got when it fails or is cut off (the person left,
        // the model stopped). A server killed mid-answer (nothing runs then) leaves the first
        // piece, marked as cut off: never lost, never taken for a whole answer.
        var text = ""
        var partial = ChatMessage(role: .assistant, content: "", createdAt: now(), incomplete: true)
        var started = false
        let base = session
        func keep(_ text: String) async throws -> ChatSession {
            let parsed = CitationParser.parse(text.trimmingCharacters(in: .whitespacesAndNewlines), context: context.notes)
            partial.content = parsed.text
            partial.citedNoteIds = parsed.citedNoteIds
            var kept = base
            kept.messages.append(partial)
            try await data.saveSession(kept)
            return kept
        }
        do {
            for try await piece in try await llm.chat(messages) {
                text += piece
                if !started && !text.allSatisfy(\.isWhitespace) {
                    started = true
                    session = try await keep(text)
                }
                await emit(.delta(piece))
            }
        } catch {
            let why = (error as? SeleneClientError)?.description ?? "\(error)"
            // What had arrived stays, marked as cut off.
            if !text.allSatisfy(\.isWhitespace), let kept = try? await keep(text) { session = kept }
            return Turn(session: session, answer: nil, notes: found.notes, context: context, unavailable: why)
        }
        let parsed = Self.resolve(text, context: context, question: question, earlier: PromptBuilder.earlierWords(in: messages), now: now())
        let reply = ChatMessage(id: partial.id, role: .assistant, content: parsed.text, createdAt: now(), citedNoteIds: parsed.citedNoteIds,
                                seleneCitedNoteIds: parsed.seleneCitedNoteIds.isEmpty ? nil : parsed.seleneCitedNoteIds)
        session = base
        session.messages.append(reply)
        session.updatedAt = reply.createdAt
        try await data.saveSession(session)
        try await data.saveMessage(NewMessage(role: .assistant, content: parsed.text), sessionId: session.id)
        // What the exchange taught, and a shorter conversation: neither may fail the answer.
        _ = try? await memory.learn(from: [asked, reply], sessionId: session.id)
        if let compressed = try? await compression.compressIfNeeded(session, now: now()), compressed != session {
            session = compressed
            try? await data.saveSession(session)
        }
        return Turn(session: session, answer: parsed, notes: found.notes, context: context, unavailable: nil)
    }

    /// What a question is asked with: the notes found, the context built from them within the
    /// model's window (at most `contextNotes` notes — the `focus` notes first —, memories
    /// recalled), and the messages.
    public func prompt(_ question: String, in session: ChatSession, scope: ThreadDetail? = nil, focus: [Int64] = [])
        async throws -> (found: SearchService.Result, context: ChatContext, messages: [LLMMessage]) {
        let analysis = QueryAnalyzer.analyze(question, now: now())
        let found = try await SearchService(data: data).find(question, analysis: analysis, scope: scope)
        let memories = (try? await memory.recall(for: question, now: now())) ?? []
        let window = await llm.contextWindow()
        let budget = window.map { min(contextBudget, max(500, $0 / 2)) } ?? contextBudget
        var shown = Array(found.notes.prefix(contextNotes))
        if !focus.isEmpty {
            // A note deleted since the card was made is left out, not an error.
            var pinned: [Note] = []
            for id in focus.prefix(contextNotes) where !pinned.contains(where: { $0.id == id }) {
                if let note = try? await data.note(id: id) { pinned.append(note) }
            }
            let ids = Set(pinned.map(\.id))
            shown = pinned + found.notes.filter { !ids.contains($0.id) }.prefix(max(0, contextNotes - pinned.count))
        }
        let context = ContextBuilder(budget: budget).build(notes: shown, memories: memories, extra: Self.extra(found))
        let history = compression.promptHistory(session)
        let messages = PromptBuilder.chat(question: question, context: context, summary: history.summary,
                                          history: Array(history.messages.dropLast()), mode: analysis.mode, thread: scope?.thread ?? found.thread)
        return (found, context, messages)
    }

    /// A whole answer as it is kept: `AnswerPipeline.standard` run on it with the facts of this
    /// answer (what the model was shown, the question, the person's earlier words, `now`), then its
    /// citations resolved. `passage` nil leaves the quote out.
    public static func resolve(_ text: String, context: ChatContext, question: String? = nil, earlier: String = "", now: Date = Date(),
                               attribution: CitationAttribution.Settings = .default,
                               passage: AnswerPassage.Settings? = .default, pipeline: AnswerPipeline = .standard) -> ParsedAnswer {
        pipeline.run(text, facts: AnswerFacts(context: context, question: question, earlier: earlier, now: now,
                                              attribution: attribution, passage: passage)).answer
    }

    /// What else the context says: the thread the question is about, and open tasks.
    static func extra(_ found: SearchService.Result) -> String? {
        var lines: [String] = []
        if let thread = found.thread { lines.append("The thread \"\(thread.name)\": \(thread.summary) (\(thread.noteCount) notes).") }
        if !found.tasks.isEmpty { lines.append("Open tasks: " + found.tasks.prefix(10).map(\.title).joined(separator: "; ") + ".") }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    static func title(for question: String) -> String {
        let line = question.split(whereSeparator: \.isNewline).first.map(String.init) ?? question
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count > 60 ? String(trimmed.prefix(59)) + "…" : (trimmed.isEmpty ? untitled : trimmed)
    }
}
