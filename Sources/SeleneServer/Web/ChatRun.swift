import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The view models at work for one web request (they live on the main actor).
enum ChatRun {
    struct Outcome: Sendable {
        var session: ChatSession?
        var answered = false
        var unavailable: String?
        var foundNotes: [Note] = []
        var error: String?
    }

    static func event(_ name: String, _ payload: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(data)\n\n"
    }

    static func progressEvent(_ event: ChatEngine.Event) -> String {
        switch event {
        case .searching: "event: progress\ndata: \(ChatProgress.searching.label!)\n\n"
        case .thinking: "event: progress\ndata: \(ChatProgress.thinking.label!)\n\n"
        case .delta(let text): self.event("delta", ["text": text])
        }
    }

    @MainActor
    static func run(data: ServerDataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date, sessionId: UUID, question: String,
                    focus: [Int64] = [], emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let chat = ChatViewModel(data: data, llm: llm, now: now)
        await chat.loadSessions()
        if chat.sessions.contains(where: { $0.id == sessionId }) { await chat.openSession(sessionId) } else { chat.newSession(id: sessionId) }
        chat.focus = focus
        return await drive(chat, question: question, emit: emit)
    }

    @MainActor
    static func runInThread(data: ServerDataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date, threadId: Int64, question: String,
                            emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let workspace = ThreadWorkspaceChatViewModel(threadId: threadId, data: data, llm: llm, now: now)
        await workspace.load()
        guard let chat = workspace.chat else { return Outcome(error: workspace.errorMessage ?? "That thread is gone.") }
        return await drive(chat, question: question, emit: emit)
    }

    @MainActor
    static func drive(_ chat: ChatViewModel, question: String, emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let (events, continuation) = AsyncStream.makeStream(of: String.self)
        chat.onEvent = { continuation.yield(progressEvent($0)) }
        let forward = Task { for await event in events { await emit(event) } }
        await chat.ask(question)
        continuation.finish()
        await forward.value
        return Outcome(session: chat.session, answered: chat.lastAnswer != nil, unavailable: chat.unavailableMessage,
                       foundNotes: chat.foundNotes, error: chat.errorMessage)
    }

    @MainActor
    static func suggestions(data: ServerDataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date, threadId: Int64) async -> ([String], String?) {
        let workspace = ThreadWorkspaceChatViewModel(threadId: threadId, data: data, llm: llm, now: now)
        await workspace.load()
        await workspace.suggestTasks()
        return (workspace.suggestions, workspace.errorMessage)
    }

    struct BriefingResult: Sendable {
        var briefing: Briefing?
        var cards: [BriefingCard] = []
        var error: String?
    }

    @MainActor
    static func briefing(data: ServerDataProvider, now: @escaping @Sendable () -> Date, regenerate: Bool) async -> BriefingResult {
        let model = BriefingViewModel(data: data, now: now)
        if regenerate { await model.regenerate() } else { await model.load() }
        if case .failed(let why) = model.state { return BriefingResult(briefing: model.briefing, error: why) }
        return BriefingResult(briefing: model.briefing, cards: model.cards)
    }
}
