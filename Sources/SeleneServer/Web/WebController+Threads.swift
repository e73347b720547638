import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Threads of thought and a thread's workspace chat.
extension WebController {
    @Sendable func threads(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let status = req.query[String.self, at: "status"].flatMap(ThreadStatus.init(rawValue:)) ?? .active
        let list = try await ThreadStore(db: req.db).threads(status: status, limit: 100)
        return Self.render(req, Pages.threads(list, status: status, context: Self.context(req)))
    }

    static func threadPage(_ req: Request, id: Int64) async throws -> Pages.ThreadPage {
        guard let detail = try await ThreadStore(db: req.db).detail(id: Int(id)) else { throw SeleneError.notFound("Thread") }
        let session = try await ConversationStore(db: req.db).sessions().filter { $0.threadId == id }.max { $0.updatedAt < $1.updatedAt }
        return Pages.ThreadPage(detail: detail, tasks: try await ThreadStore(db: req.db).tasks(threadId: Int(id)),
                                subprojects: SubprojectSuggester.suggest(thread: detail.thread, notes: detail.notes),
                                session: session, titles: try await titles(req, session))
    }

    @Sendable func thread(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.thread(try await Self.threadPage(req, id: try Self.intId(req)), context: Self.context(req)))
    }

    @Sendable func threadAsk(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        let question = try Self.question(req)
        var outcome = ChatRun.Outcome()
        if !question.isEmpty {
            outcome = await ChatRun.runInThread(data: Self.data(req), llm: Self.llm(req), now: Self.clock(req), threadId: id, question: question, emit: { _ in })
        }
        var page = try await Self.threadPage(req, id: id)
        Self.show(outcome, question: question, in: &page.unavailable, &page.foundNotes, &page.error, &page.draft)
        return Self.render(req, Pages.thread(page, context: Self.context(req)))
    }

    @Sendable func threadStream(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        let question = try Self.question(req)
        guard !question.isEmpty else { throw SeleneError(.badRequest, "Type a question first") }
        let (data, llm, now) = (Self.data(req), Self.llm(req), Self.clock(req))
        return Self.eventStream { emit in
            let outcome = await ChatRun.runInThread(data: data, llm: llm, now: now, threadId: id, question: question, emit: emit)
            await Self.finish(outcome, emit: emit, titles: { try await Self.titles(data: data, outcome.session) })
        }
    }
}
