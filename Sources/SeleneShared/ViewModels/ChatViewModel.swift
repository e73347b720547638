import Foundation
import Observation

/// Where an answer is: what the phone's live activity and the web app show while it is worked out.
public enum ChatProgress: Sendable, Hashable {
    case idle
    case searching
    case thinking
    case answering
    case failed(String)

    public var label: String? {
        switch self {
        case .idle: nil
        case .searching: "Searching notes…"
        case .thinking: "Thinking…"
        case .answering: "Writing…"
        case .failed(let why): why
        }
    }
}

/// The Chat tab: sessions (new, load, pin, delete) and the conversation, the answer streamed
/// with its progress and citations. With the LLM unreachable it says so plainly and shows the
/// notes that match; with the server unreachable the question stays in `draft`.
@MainActor
@Observable
public final class ChatViewModel {
    public private(set) var sessions: [ChatSession] = []
    public private(set) var session: ChatSession
    public var draft = ""
    public private(set) var progress: ChatProgress = .idle
    /// The answer as it is being written.
    public private(set) var streamingText = ""
    /// The last answer, its citations resolved.
    public private(set) var lastAnswer: ParsedAnswer?
    /// The notes the last question found (the context of the answer, or shown alone without one).
    public private(set) var foundNotes: [Note] = []
    /// Set when the LLM couldn't answer: the sentence to show above `foundNotes`.
    public private(set) var unavailableMessage: String?
    public private(set) var errorMessage: String?
    public var isBusy: Bool { if case .searching = progress { true } else if case .thinking = progress { true } else if case .answering = progress { true } else { false } }

    /// Each step as it happens (the web app streams them as server-sent events).
    @ObservationIgnored public var onEvent: (@MainActor (ChatEngine.Event) -> Void)?

    public let engine: ChatEngine
    let scope: ThreadDetail?
    /// Notes this conversation is about (a briefing card's), shown to the model first with every question.
    public var focus: [Int64] = []

    public init(data: any DataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date = { Date() }) {
        engine = ChatEngine(data: data, llm: llm, now: now)
        scope = nil
        session = ChatSession(title: ChatEngine.untitled, createdAt: now(), updatedAt: now())
    }

    init(engine: ChatEngine, scope: ThreadDetail?, session: ChatSession) {
        self.engine = engine
        self.scope = scope
        self.session = session
    }

    // MARK: Sessions

    public func loadSessions() async {
        do {
            sessions = try await engine.data.sessions()
            errorMessage = nil
        } catch {
            errorMessage = Self.describe(error)
        }
    }

    /// Pinned first, then by last update.
    public var orderedSessions: [ChatSession] { sessions.inListOrder }

    /// A new conversation, about nothing in particular (`focus` empty) until a card says otherwise.
    public func newSession(id: UUID = UUID()) {
        session = ChatSession(id: id, title: ChatEngine.untitled, threadId: scope?.thread.id, createdAt: engine.now(), updatedAt: engine.now())
        focus = []
        reset()
    }

    public func openSession(_ id: UUID) async {
        if sessions.first(where: { $0.id == id }) == nil { await loadSessions() }
        guard let found = sessions.first(where: { $0.id == id }) else {
            errorMessage = "That conversation is gone."
            return
        }
        session = found
        reset()
    }

    public func pin(_ id: UUID, _ pinned: Bool) async {
        do {
            try await engine.data.pinSession(id: id, pinned: pinned)
            if let i = sessions.firstIndex(where: { $0.id == id }) { sessions[i].isPinned = pinned }
            if session.id == id { session.isPinned = pinned }
        } catch {
            errorMessage = Self.describe(error)
        }
    }

    public func delete(_ id: UUID) async {
        do {
            try await engine.data.deleteSession(id: id)
            sessions.removeAll { $0.id == id }
            if session.id == id { newSession() }
        } catch {
            errorMessage = Self.describe(error)
        }
    }

    // MARK: Asking

    /// Sends `draft`.
    public func send() async {
        let question = draft.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !question.isEmpty, !isBusy else { return }
        await ask(question)
    }

    /// Asks a question. The draft is cleared only once the question is kept on the server.
    public func ask(_ question: String) async {
        reset()
        progress = .searching
        let before = session
        do {
            let turn = try await engine.answer(question, in: session, scope: scope, focus: focus) { event in
                await self.handle(event)
            }
            session = turn.session
            draft = ""
            foundNotes = turn.notes
            if let answer = turn.answer {
                lastAnswer = answer
                progress = .idle
            } else {
                unavailableMessage = turn.unavailableMessage
                progress = .failed(turn.unavailable ?? "The LLM is unavailable")
            }
            upsert(session)
        } catch {
            session = before
            draft = question
            errorMessage = Self.describe(error)
            progress = .failed(errorMessage!)
        }
        streamingText = ""
    }

    private func handle(_ event: ChatEngine.Event) {
        switch event {
        case .searching: progress = .searching
        case .thinking: progress = .thinking
        case .delta(let text):
            progress = .answering
            streamingText += text
        }
        onEvent?(event)
    }

    private func reset() {
        lastAnswer = nil
        foundNotes = []
        unavailableMessage = nil
        errorMessage = nil
        streamingText = ""
        progress = .idle
    }

    private func upsert(_ session: ChatSession) {
        if let i = sessions.firstIndex(where: { $0.id == session.id }) { sessions[i] = session } else { sessions.insert(session, at: 0) }
    }

    static func describe(_ error: any Error) -> String { ChatEngine.describe(error) }
}

/// A chat scoped to one thread (the thread workspace): its notes are the context, and it
/// suggests next tasks the person can add.
@MainActor
@Observable
public final class ThreadWorkspaceChatViewModel {
    public private(set) var thread: ThreadDetail?
    public private(set) var tasks: [ThreadTask] = []
    public private(set) var suggestions: [String] = []
    public private(set) var subprojects: [SubprojectSuggester.Suggestion] = []
    public private(set) var errorMessage: String?
    public private(set) var chat: ChatViewModel?
    public let threadId: Int64
    let engine: ChatEngine

    public init(threadId: Int64, data: any DataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date = { Date() }) {
        self.threadId = threadId
        engine = ChatEngine(data: data, llm: llm, now: now)
    }

    public func load() async {
        do {
            let detail = try await engine.data.thread(id: threadId)
            thread = detail
            tasks = try await engine.data.tasks(threadId: threadId)
            subprojects = SubprojectSuggester.suggest(thread: detail.thread, notes: detail.notes)
            chat = ChatViewModel(engine: engine, scope: detail, session: try await engine.threadSession(detail))
            errorMessage = nil
        } catch {
            errorMessage = ChatViewModel.describe(error)
        }
    }

    public func ask(_ question: String) async {
        if chat == nil { await load() }
        await chat?.ask(question)
    }

    /// Asks the LLM for next tasks from the thread's notes; those not already open.
    public func suggestTasks() async {
        guard let thread else { return }
        (suggestions, errorMessage) = await TaskSuggestions.suggest(thread: thread, tasks: tasks, llm: engine.llm)
    }

    public func accept(_ suggestion: String) async {
        do {
            let task = try await engine.data.addTask(threadId: threadId, title: suggestion)
            tasks.append(task)
            suggestions.removeAll { $0 == suggestion }
        } catch {
            errorMessage = ChatViewModel.describe(error)
        }
    }

    public func setTask(_ id: Int64, done: Bool) async {
        do {
            let task = try await engine.data.setTask(id: id, status: done ? .done : .open)
            if let i = tasks.firstIndex(where: { $0.id == id }) { tasks[i] = task }
        } catch {
            errorMessage = ChatViewModel.describe(error)
        }
    }
}
