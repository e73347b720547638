import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The Chat tab: sessions, a question asked with or without JavaScript, the answer streamed as server-sent events.
extension WebController {
    @Sendable func chat(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let latest = try await ConversationStore(db: req.db).sessions(limit: 1).first
        return Self.redirect(SiteURL.session((latest?.id ?? UUID()).uuidString.lowercased()).path)
    }

    @Sendable func newSession(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        return Self.redirect(SiteURL.session(UUID().uuidString.lowercased()).path)
    }

    @Sendable func session(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        let page = try await Self.chatPage(req, id: id)
        return Self.render(req, Pages.chat(page, context: Self.context(req)))
    }

    static func chatPage(_ req: Request, id: UUID) async throws -> Pages.ChatPage {
        let store = ConversationStore(db: req.db)
        let sessions = try await store.sessions()
        let session = sessions.first { $0.id == id } ?? ChatSession(id: id, title: ChatEngine.untitled, createdAt: req.now, updatedAt: req.now)
        return Pages.ChatPage(sessions: sessions.inListOrder.filter { $0.threadId == nil }, session: session, titles: try await titles(req, session),
                              hostedWaiting: await hostedWaiting(req.db, req.selene))
    }

    /// Whether the hosted model waits for the person's yes (the chat shows where to give it).
    static func hostedWaiting(_ db: any Database, _ services: SeleneServices) async -> Bool {
        guard services.config.hosted?.personal == true else { return false }
        return (try? await HostedConsentStore(db: db, hosted: services.config.hosted).current().state) == .waiting
    }

    /// "Ask about this" on a briefing card: a new conversation that starts from the card's notes
    /// (shown above it, and given to the model first with every question), its first question
    /// in the box to change or send.
    @Sendable func aboutCard(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let number = req.parameters.get("card").flatMap(Int.init) ?? 0
        let data = Self.data(req)
        let briefing = await ChatRun.briefing(data: data, now: Self.clock(req), regenerate: false)
        guard let card = briefing.cards.first(where: { $0.number == number }) else {
            throw SeleneError.notFound("Card \(number) of today's briefing")
        }
        var page = try await Self.chatPage(req, id: UUID())
        page.draft = card.question
        page.about = card.title
        page.focus = try await Self.notes(req, in: try await BriefingCards.seed(card, data: data))
        return Self.render(req, Pages.chat(page, context: Self.context(req)))
    }

    /// The notes of `ids` that still exist, in that order.
    static func notes(_ req: Request, in ids: [Int64]) async throws -> [Note] {
        let found = try await NoteStore(db: req.db).notes(ids: ids.map(Int.init))
        return ids.compactMap { id in found.first { $0.id == id } }
    }

    struct Ask: Decodable { var question: String?; var context: String? }

    /// Without JavaScript: the answer is worked out, then the page is shown with it.
    @Sendable func ask(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        let (question, focus) = try Self.question(req)
        guard !question.isEmpty else { return Self.redirect(SiteURL.session(id.uuidString.lowercased()).path) }
        let outcome = await ChatRun.run(data: Self.data(req), llm: Self.llm(req), now: Self.clock(req), sessionId: id, question: question,
                                        focus: focus, emit: { _ in })
        var page = try await Self.chatPage(req, id: id)
        page.focus = try await Self.notes(req, in: focus)
        Self.show(outcome, question: question, in: &page.unavailable, &page.foundNotes, &page.error, &page.draft)
        return Self.render(req, Pages.chat(page, context: Self.context(req)))
    }

    /// The asked question, trimmed, and the notes the conversation is about (a briefing card's,
    /// at most `BriefingCards.seedLimit`), after the CSRF check.
    static func question(_ req: Request) throws -> (question: String, focus: [Int64]) {
        let form = try form(req, Ask.self)
        let focus = (form.context ?? "").split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        return ((form.question ?? "").trimmingCharacters(in: .whitespacesAndNewlines), Array(focus.prefix(BriefingCards.seedLimit)))
    }

    /// What a page shows of an answer worked out without JavaScript: the notes when the LLM
    /// couldn't answer, or the error with the question kept in the box.
    static func show(_ outcome: ChatRun.Outcome, question: String, in unavailable: inout String?, _ notes: inout [Note],
                     _ error: inout String?, _ draft: inout String) {
        unavailable = outcome.unavailable
        notes = outcome.foundNotes
        error = outcome.error
        draft = outcome.error == nil ? "" : question
    }

    /// With JavaScript: server-sent events while the answer is worked out and written.
    @Sendable func stream(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        let (question, focus) = try Self.question(req)
        guard !question.isEmpty else { throw SeleneError(.badRequest, "Type a question first") }
        let (data, llm, now) = (Self.data(req), Self.llm(req), Self.clock(req))
        let csrf = WebSession.csrfToken(for: req)
        return Self.eventStream { emit in
            let outcome = await ChatRun.run(data: data, llm: llm, now: now, sessionId: id, question: question, focus: focus, emit: emit)
            await Self.finish(outcome, data: data, emit: emit, titles: { try await Self.titles(data: data, outcome.session) }, sessions: {
                // The list beside the conversation, with this one (new or moved to the top) in it.
                let sessions = try await data.sessions().filter { $0.threadId == nil }.inListOrder
                return el("ul", ["class": "list"], children: sessions.map { Pages.sessionRow($0, current: $0.id == id, context: PageContext(csrf: csrf)) }).render()
            })
        }
    }

    static func titles(data: ServerDataProvider, _ session: ChatSession?) async throws -> [Int64: String] {
        let ids = Set((session?.messages ?? []).flatMap { $0.citedNoteIds ?? [] }).map { Int($0) }
        let notes = try await NoteStore(db: data.db).notes(ids: ids)
        return Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0.displayTitle) })
    }

    /// The last event of a streamed answer: the answer's HTML, the notes without one, or the error.
    static func finish(_ outcome: ChatRun.Outcome, data: ServerDataProvider, emit: @Sendable (String) async -> Void,
                       titles: () async throws -> [Int64: String], sessions: (() async throws -> String)? = nil) async {
        // Above the conversation, where to say yes when the hosted model was kept from the notes.
        let notice = await hostedWaiting(data.db, data.services) ? Pages.hostedNotice.render() : ""
        if outcome.answered, let message = outcome.session?.messages.last {
            var payload = ["html": Pages.answered(message, titles: (try? await titles()) ?? [:], session: outcome.session?.id).render(),
                           "title": outcome.session?.title ?? ""]
            if let sessions, let list = try? await sessions() { payload["sessions"] = list }
            if !notice.isEmpty { payload["notice"] = notice }
            await emit(ChatRun.event("done", payload))
        } else if let unavailable = outcome.unavailable {
            var html = el("li", ["class": "message assistant"], Pages.unavailableBox(unavailable, notes: outcome.foundNotes)).render()
            // An answer the model broke off stays in view, marked, above the notes.
            if let cut = outcome.session?.messages.last, cut.role == .assistant, cut.isIncomplete {
                html = Pages.answered(cut, titles: (try? await titles()) ?? [:], session: nil).render() + html
            }
            await emit(ChatRun.event("unavailable", notice.isEmpty ? ["html": html] : ["html": html, "notice": notice]))
        } else {
            await emit(ChatRun.event("error", ["message": outcome.error ?? "Something went wrong"]))
        }
    }

    static func eventStream(_ body: @escaping @Sendable (@escaping @Sendable (String) async -> Void) async -> Void) -> Response {
        let response = Response(status: .ok, headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        response.body = .init(asyncStream: { writer in
            let (events, continuation) = AsyncStream.makeStream(of: String.self)
            // The answer is worked out (and saved) even if the browser goes away meanwhile.
            let task = Task {
                await body { continuation.yield($0) }
                continuation.finish()
            }
            do {
                for await event in events { try await writer.write(.buffer(ByteBuffer(string: event))) }
                await task.value
                try await writer.write(.end)
            } catch {
                // Vapor needs the stream ended either way (it asserts otherwise).
                try? await writer.write(.error(error))
            }
        })
        return response
    }

    struct Pin: Decodable { var pinned: String? }

    @Sendable func pin(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        let form = try Self.form(req, Pin.self)
        _ = try await ConversationStore(db: req.writeDB).pin(id, form.pinned == "true", now: req.now)
        return Self.redirect(SiteURL.session(id.uuidString.lowercased()).path)
    }

    @Sendable func deleteSession(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        try Self.verify(req)
        _ = try await ConversationStore(db: req.writeDB).delete(id)
        return Self.redirect(SiteURL.chat.path)
    }
}
