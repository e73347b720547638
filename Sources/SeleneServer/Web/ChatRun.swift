import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// One web request's chat: a question answered by `ChatEngine` (its progress sent as it goes), and
/// the task suggestions and briefing of the view models (on the main actor).
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

    /// A question in the conversation `sessionId` (a new one when there is none by that id).
    static func run(data: ServerDataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date, sessionId: UUID, question: String,
                    focus: [Int64] = [], emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let engine = ChatEngine(data: data, llm: llm, now: now)
        let session: ChatSession
        do {
            session = try await data.sessions().first { $0.id == sessionId }
                ?? ChatSession(id: sessionId, title: ChatEngine.untitled, createdAt: now(), updatedAt: now())
        } catch {
            return Outcome(error: ChatEngine.describe(error))
        }
        return await ask(engine, question, in: session, focus: focus, emit: emit)
    }

    /// A question in a thread's conversation, about its notes.
    static func runInThread(data: ServerDataProvider, llm: any LLMProvider, now: @escaping @Sendable () -> Date, threadId: Int64, question: String,
                            emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let engine = ChatEngine(data: data, llm: llm, now: now)
        let detail: ThreadDetail, session: ChatSession
        do {
            detail = try await data.thread(id: threadId)
            session = try await engine.threadSession(detail)
        } catch {
            return Outcome(error: ChatEngine.describe(error))
        }
        return await ask(engine, question, in: session, scope: detail, emit: emit)
    }

    /// `ChatEngine` answering, its progress sent as events as it goes.
    static func ask(_ engine: ChatEngine, _ question: String, in session: ChatSession, scope: ThreadDetail? = nil, focus: [Int64] = [],
                    emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        do {
            let turn = try await engine.answer(question, in: session, scope: scope, focus: focus) { await emit(progressEvent($0)) }
            return Outcome(session: turn.session, answered: turn.answer != nil, unavailable: turn.unavailableMessage, foundNotes: turn.notes)
        } catch {
            return Outcome(session: session, error: ChatEngine.describe(error))
        }
    }

    /// Task suggestions for a thread (`TaskSuggestions`), and what to say when the LLM couldn't help.
    static func suggestions(data: ServerDataProvider, llm: any LLMProvider, threadId: Int64) async -> ([String], String?) {
        do {
            let thread = try await data.thread(id: threadId)
            let tasks = try await data.tasks(threadId: threadId)
            let (suggestions, note) = await TaskSuggestions.suggest(thread: thread, tasks: tasks, llm: llm)
            return (suggestions, note)
        } catch {
            return ([], ChatEngine.describe(error))
        }
    }

    struct BriefingResult: Sendable {
        var briefing: Briefing?
        var cards: [BriefingCard] = []
        var error: String?
    }

    /// Today's briefing and its cards (`BriefingEngine`), or why not.
    static func briefing(data: ServerDataProvider, now: @escaping @Sendable () -> Date, regenerate: Bool) async -> BriefingResult {
        do {
            let result = try await BriefingEngine(data: data, now: now).load(regenerate: regenerate)
            return BriefingResult(briefing: result.briefing, cards: result.cards)
        } catch {
            return BriefingResult(error: ChatEngine.describe(error))
        }
    }
}
