import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The web app: the phone app's screens (Chat, Threads, Briefing, More, set-up) served by the
/// server, on SeleneShared's view models over the server's own providers. Every page works
/// without JavaScript; the script streams answers (server-sent events) and adds voice input.
struct WebController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get(use: home)
        routes.get("app", use: home)
        routes.get(SiteURL.stylesheet.route) { _ in Self.asset(Assets.css, type: "text/css; charset=utf-8") }
        routes.get(SiteURL.script.route) { _ in Self.asset(Assets.js, type: "text/javascript; charset=utf-8") }
        routes.get(SiteURL.icon.route) { _ in Self.asset(PWA.icon, type: "image/svg+xml") }
        routes.get(SiteURL.manifest.route) { _ in Self.asset(PWA.manifest, type: "application/manifest+json") }
        routes.get(SiteURL.worker.route) { _ in
            // Always fresh, so a new worker is picked up at once; scoped to the web app.
            Response(status: .ok, headers: ["Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "Service-Worker-Allowed": "/app/"],
                     body: .init(string: PWA.worker))
        }
        routes.get(SiteURL.offline.route) { req in Self.render(req, Pages.offline()) }
        routes.get(SiteURL.pushKey.route, use: pushKey)
        routes.post(SiteURL.pushSubscribe.route, use: pushSubscribe)
        routes.post(SiteURL.pushTest.route, use: pushTest)
        routes.get(SiteURL.signIn.route, use: signInPage)
        routes.post(SiteURL.signIn.route, use: signIn)
        routes.get(SiteURL.setup.route, use: setupPage)
        routes.post(SiteURL.setup.route, use: setup)
        routes.post(SiteURL.signOut.route, use: signOut)

        routes.get(SiteURL.chat.route, use: chat)
        routes.post(SiteURL.newSession.route, use: newSession)
        routes.get(SiteURL.session(":id").route, use: session)
        routes.post(SiteURL.ask(":id").route, use: ask)
        routes.post(SiteURL.stream(":id").route, use: stream)
        routes.post(SiteURL.pin(":id").route, use: pin)
        routes.post(SiteURL.deleteSession(":id").route, use: deleteSession)

        routes.get(SiteURL.threads.route, use: threads)
        routes.get(SiteURL.thread(":id").route, use: thread)
        routes.post(SiteURL.threadAsk(":id").route, use: threadAsk)
        routes.post(SiteURL.threadStream(":id").route, use: threadStream)
        routes.post(SiteURL.suggestTasks(":id").route, use: suggestTasks)
        routes.post(SiteURL.addTask(":id").route, use: addTask)
        routes.get(SiteURL.tasks.route, use: tasks)
        routes.post(SiteURL.task(":id").route, use: setTask)

        routes.get(SiteURL.briefing.route, use: briefing)
        routes.post(SiteURL.briefing.route, use: regenerateBriefing)

        routes.get(SiteURL.more.route, use: more)
        routes.get(SiteURL.search.route, use: search)
        routes.get(SiteURL.voice.route, use: voicePage)
        routes.post(SiteURL.voice.route, use: setVoice)
        routes.on(.POST, SiteURL.transcribe.route, body: .collect(maxSize: ByteCount(value: SpeechToText.maxBytes)), use: transcribe)
        routes.get(SiteURL.notes.route, use: notes)
        routes.get(SiteURL.newNote.route, use: newNotePage)
        routes.post(SiteURL.newNote.route, use: createNote)
        routes.get(SiteURL.note(":id").route, use: note)
        routes.get(SiteURL.editNote(":id").route, use: editNotePage)
        routes.post(SiteURL.editNote(":id").route, use: editNote)
        routes.post(SiteURL.deleteNote(":id").route, use: deleteNote)
        routes.get(SiteURL.memories.route, use: memories)
        routes.post(SiteURL.memory(":id").route, use: updateMemory)
        routes.post(SiteURL.deleteMemory(":id").route, use: deleteMemory)
        routes.get(SiteURL.devices.route, use: devices)
        routes.post(SiteURL.deleteDevice(":id").route, use: deleteDevice)
        routes.get(SiteURL.status.route, use: status)
    }

    // MARK: Plumbing

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: ["Content-Type": type, "Cache-Control": "public, max-age=3600"], body: .init(string: text))
    }

    static func render(_ req: Request, _ node: Node, status: HTTPResponseStatus = .ok) -> Response {
        let response = Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: .init(string: node.render()))
        WebSession.attachCSRF(req, to: response)
        return response
    }

    static func redirect(_ to: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: to)
        return response
    }

    static func context(_ req: Request, flash: String? = nil) -> PageContext {
        PageContext(csrf: WebSession.csrfToken(for: req), flash: flash ?? req.query[String.self, at: "flash"], voice: VoiceMode.of(req))
    }

    static func requireSignIn(_ req: Request) async throws {
        guard try await WebSession.isSignedIn(req) else { throw WebError.signInRequired }
    }

    /// A form's fields, after the CSRF check.
    struct CSRFField: Decodable { var _csrf: String? }

    static func form<T: Decodable>(_ req: Request, _ type: T.Type) throws -> T {
        let token = try? req.content.decode(CSRFField.self)
        try WebSession.verifyCSRF(req, submitted: token?._csrf)
        do { return try req.content.decode(T.self) } catch {
            throw SeleneError(.badRequest, "The form was incomplete; please try again")
        }
    }

    struct Empty: Decodable {}
    static func verify(_ req: Request) throws { _ = try form(req, Empty.self) }

    static func data(_ req: Request) -> ServerDataProvider { ServerDataProvider(app: req.application) }
    static func llm(_ req: Request) -> any LLMProvider { req.selene.chatLLM() }
    static func clock(_ req: Request) -> @Sendable () -> Date { let services = req.selene; return { services.clock.now() } }

    static func uuid(_ req: Request) throws -> UUID {
        guard let raw = req.parameters.get("id"), let id = UUID(uuidString: raw) else { throw SeleneError.notFound("Conversation") }
        return id
    }

    static func intId(_ req: Request) throws -> Int64 {
        guard let raw = req.parameters.get("id"), let id = Int64(raw), id > 0 else { throw SeleneError.notFound("Page") }
        return id
    }

    /// Titles of the notes a conversation cites, for its links.
    static func titles(_ req: Request, _ session: ChatSession?) async throws -> [Int64: String] {
        let ids = Set((session?.messages ?? []).flatMap { $0.citedNoteIds ?? [] }).map { Int($0) }
        let notes = try await NoteStore(db: req.db).notes(ids: ids)
        return Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0.displayTitle) })
    }

    // MARK: Sign-in

    @Sendable func home(req: Request) async throws -> Response {
        try await WebSession.isSignedIn(req) ? Self.redirect(SiteURL.chat.path)
            : Self.redirect(req.selene.config.apiTokens.isEmpty ? SiteURL.setup.path : SiteURL.signIn.path)
    }

    @Sendable func signInPage(req: Request) async throws -> Response {
        if req.selene.config.apiTokens.isEmpty { return Self.redirect(SiteURL.setup.path) }
        return Self.render(req, Pages.signIn(context: Self.context(req), error: nil))
    }

    @Sendable func signIn(req: Request) async throws -> Response {
        struct Form: Decodable { var token: String? }
        let form = try Self.form(req, Form.self)
        let token = (form.token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.setup.path) }
        guard !token.isEmpty, req.selene.tokens.accepts(token) else {
            return Self.render(req, Pages.signIn(context: Self.context(req), error: "That isn't one of this server's API tokens."), status: .unauthorized)
        }
        let response = Self.redirect(SiteURL.chat.path)
        try await WebSession.start(tokenHash: WebSession.hash(token), req: req, response: response)
        return response
    }

    @Sendable func setupPage(req: Request) async throws -> Response {
        guard req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.signIn.path) }
        return Self.render(req, Pages.setup(context: Self.context(req), suggestedToken: APITokens.newToken()))
    }

    @Sendable func setup(req: Request) async throws -> Response {
        try Self.verify(req)
        guard req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.signIn.path) }
        let response = Self.redirect(SiteURL.chat.path)
        try await WebSession.start(tokenHash: WebSession.openMode, req: req, response: response)
        return response
    }

    @Sendable func signOut(req: Request) async throws -> Response {
        try Self.verify(req)
        let response = Self.redirect(SiteURL.home.path)
        try await WebSession.end(req: req, response: response)
        return response
    }

    // MARK: Chat

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
        let ordered = sessions.sorted { ($0.isPinned ? 1 : 0, $0.updatedAt) > ($1.isPinned ? 1 : 0, $1.updatedAt) }
        return Pages.ChatPage(sessions: ordered.filter { $0.threadId == nil }, session: session, titles: try await titles(req, session))
    }

    struct Ask: Decodable { var question: String? }

    /// Without JavaScript: the answer is worked out, then the page is shown with it.
    @Sendable func ask(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        let question = try Self.question(req)
        guard !question.isEmpty else { return Self.redirect(SiteURL.session(id.uuidString.lowercased()).path) }
        let outcome = await ChatRun.run(data: Self.data(req), llm: Self.llm(req), now: Self.clock(req), sessionId: id, question: question, emit: { _ in })
        var page = try await Self.chatPage(req, id: id)
        Self.show(outcome, question: question, in: &page.unavailable, &page.foundNotes, &page.error, &page.draft)
        return Self.render(req, Pages.chat(page, context: Self.context(req)))
    }

    /// The asked question, trimmed (after the CSRF check).
    static func question(_ req: Request) throws -> String {
        (try form(req, Ask.self).question ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
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
        let question = try Self.question(req)
        guard !question.isEmpty else { throw SeleneError(.badRequest, "Type a question first") }
        let (data, llm, now) = (Self.data(req), Self.llm(req), Self.clock(req))
        let csrf = WebSession.csrfToken(for: req)
        return Self.eventStream { emit in
            let outcome = await ChatRun.run(data: data, llm: llm, now: now, sessionId: id, question: question, emit: emit)
            await Self.finish(outcome, emit: emit, titles: { try await Self.titles(data: data, outcome.session) }, sessions: {
                // The list beside the conversation, with this one (new or moved to the top) in it.
                let sessions = try await data.sessions().filter { $0.threadId == nil }
                    .sorted { ($0.isPinned ? 1 : 0, $0.updatedAt) > ($1.isPinned ? 1 : 0, $1.updatedAt) }
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
    static func finish(_ outcome: ChatRun.Outcome, emit: @Sendable (String) async -> Void, titles: () async throws -> [Int64: String],
                       sessions: (() async throws -> String)? = nil) async {
        if outcome.answered, let message = outcome.session?.messages.last {
            var payload = ["html": Pages.answered(message, titles: (try? await titles()) ?? [:]).render(), "title": outcome.session?.title ?? ""]
            if let sessions, let list = try? await sessions() { payload["sessions"] = list }
            await emit(ChatRun.event("done", payload))
        } else if let unavailable = outcome.unavailable {
            var html = el("li", ["class": "message assistant"], Pages.unavailableBox(unavailable, notes: outcome.foundNotes)).render()
            // An answer the model broke off stays in view, marked, above the notes.
            if let cut = outcome.session?.messages.last, cut.role == .assistant, cut.isIncomplete {
                html = Pages.answered(cut, titles: (try? await titles()) ?? [:]).render() + html
            }
            await emit(ChatRun.event("unavailable", ["html": html]))
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
        _ = try await ConversationStore(db: req.db).pin(id, form.pinned == "true", now: req.now)
        return Self.redirect(SiteURL.session(id.uuidString.lowercased()).path)
    }

    @Sendable func deleteSession(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.uuid(req)
        try Self.verify(req)
        _ = try await ConversationStore(db: req.db).delete(id)
        return Self.redirect(SiteURL.chat.path)
    }

    // MARK: Threads

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

    @Sendable func suggestTasks(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        let (suggestions, note) = await ChatRun.suggestions(data: Self.data(req), llm: Self.llm(req), now: Self.clock(req), threadId: id)
        var page = try await Self.threadPage(req, id: id)
        page.suggestions = suggestions
        page.suggestionNote = note ?? (suggestions.isEmpty ? "No new tasks to suggest." : nil)
        return Self.render(req, Pages.thread(page, context: Self.context(req)))
    }

    @Sendable func addTask(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var title: String? }
        let title = try Self.form(req, Form.self).title ?? ""
        _ = try await Self.data(req).addTask(threadId: id, title: title)
        return Self.redirect(SiteURL.thread(String(id)).path)
    }

    @Sendable func setTask(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var status: String?; var back: String? }
        let form = try Self.form(req, Form.self)
        let task = try await Self.data(req).setTask(id: id, status: TaskStatus(rawValue: form.status ?? "") ?? .done)
        if form.back != "tasks", let thread = task.threadId { return Self.redirect(SiteURL.thread(String(thread)).path) }
        return Self.redirect(SiteURL.tasks.path)
    }

    @Sendable func tasks(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let store = ThreadStore(db: req.db)
        let open = try await store.allTasks(status: .open, limit: 500)
        let done = try await store.allTasks(status: .done, limit: 30)
        let tasks = open + done
        let threads = try await store.threads(status: nil, limit: 500)
        let notes = try await NoteStore(db: req.db).notes(ids: Array(Set(tasks.compactMap { $0.sourceNoteId.map(Int.init) })))
        return Self.render(req, Pages.tasks(tasks, threads: Dictionary(uniqueKeysWithValues: threads.map { ($0.id, $0.name) }),
                                            notes: Dictionary(uniqueKeysWithValues: notes.map { ($0.id, $0.displayTitle) }), context: Self.context(req)))
    }

    // MARK: Briefing

    @Sendable func briefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let result = await ChatRun.briefing(data: Self.data(req), now: Self.clock(req), regenerate: false)
        return Self.render(req, Pages.briefing(result.briefing, resurfaced: result.resurfaced, error: result.error, context: Self.context(req)))
    }

    @Sendable func regenerateBriefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        let result = await ChatRun.briefing(data: Self.data(req), now: Self.clock(req), regenerate: true)
        return Self.render(req, Pages.briefing(result.briefing, resurfaced: result.resurfaced, error: result.error, context: Self.context(req)))
    }

    // MARK: More

    @Sendable func more(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.more(context: Self.context(req)))
    }

    @Sendable func search(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let query = (req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var response: RetrieveResponse?
        var error: String?
        if !query.isEmpty {
            do {
                let checked = try RetrieveRequest(query: query, limit: 30).validated()
                response = try await Self.data(req).retrieveNotes(checked.query, limit: 30, noteType: nil, actionability: nil)
            } catch let e as FieldErrors {
                error = e.fields.values.sorted().joined(separator: "; ")
            }
        }
        return Self.render(req, Pages.search(query: query, response: response, error: error, context: Self.context(req)))
    }

    @Sendable func newNotePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.newNote(content: "", title: "", errors: [:], context: Self.context(req)))
    }

    @Sendable func createNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        struct Form: Decodable { var content: String?; var title: String? }
        let form = try Self.form(req, Form.self)
        do {
            let note = try await Self.data(req).createNote(NewNote(content: form.content ?? "", title: form.title, source: .web))
            return Self.redirect(SiteURL.note(String(note.id)).path(query: ["flash": "Saved. Selene will work out what it's about in a moment."]))
        } catch let e as FieldErrors {
            return Self.render(req, Pages.newNote(content: form.content ?? "", title: form.title ?? "", errors: e.fields, context: Self.context(req)), status: .badRequest)
        } catch let e as NoteTooLarge {
            return Self.render(req, Pages.newNote(content: "", title: form.title ?? "", errors: ["content": e.description], context: Self.context(req)), status: .payloadTooLarge)
        }
    }

    @Sendable func note(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        let related = try await Retriever(db: req.db, services: req.selene).related(to: Int(id), limit: 8)
        return Self.render(req, Pages.note(note, related: related, context: Self.context(req)))
    }

    // MARK: Web Push

    struct PushKey: Content { var publicKey: String }

    @Sendable func pushKey(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        guard let web = req.selene.webPush else { throw SeleneError(.serviceUnavailable, "Web Push is off on this server (SELENE_WEBPUSH=off)") }
        return try json(PushKey(publicKey: web.publicKey))
    }

    /// `PushSubscription.toJSON()` from the page (the CSRF token in `X-CSRF-Token`).
    @Sendable func pushSubscribe(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try WebSession.verifyCSRF(req, submitted: req.headers.first(name: "X-CSRF-Token"))
        guard let web = req.selene.webPush else { throw SeleneError(.serviceUnavailable, "Web Push is off on this server (SELENE_WEBPUSH=off)") }
        struct Body: Decodable { struct Keys: Decodable { var p256dh: String; var auth: String }; var endpoint: String; var keys: Keys }
        let body = try req.decodeBody(Body.self)
        let subscription = try WebPushClient.Subscription(endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth, allowHTTP: web.allowHTTP)
        let (device, created) = try await ConversationStore(db: req.db).register(web: subscription, now: req.now)
        return try json(device, status: created ? .created : .ok)
    }

    @Sendable func pushTest(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        guard let push = req.selene.push else { return Self.redirect(SiteURL.devices.path(query: ["flash": "Push is off on this server."])) }
        let results = await push.broadcast(PushNotification(title: "Selene", body: "Notifications reach this device.", link: SiteURL.devices.path, collapseId: "test"))
        let delivered = results.values.filter { $0 == .delivered }.count
        return Self.redirect(SiteURL.devices.path(query: ["flash": "Sent to \(delivered) of \(results.count) device\(results.count == 1 ? "" : "s")."]))
    }

    // MARK: Voice

    @Sendable func voicePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let speech = req.selene.config.speech.map { "\($0.model) at \($0.url)" }
        return Self.render(req, Pages.voice(current: VoiceMode.of(req), serverSpeech: speech, context: Self.context(req)))
    }

    @Sendable func setVoice(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        struct Form: Decodable { var mode: String? }
        let form = try Self.form(req, Form.self)
        guard let mode = form.mode.flatMap(VoiceMode.init(rawValue:)), mode != .server || req.selene.speech != nil else {
            throw SeleneError(.badRequest, "Choose off, the browser's recognition, or this server (when it has speech-to-text)")
        }
        let response = Self.redirect(SiteURL.voice.path(query: ["flash": mode == .off ? "Voice input is off." : "Saved."]))
        response.cookies[VoiceMode.cookie] = HTTPCookies.Value(string: mode.rawValue, maxAge: 400 * 86_400, path: "/", isSecure: req.url.scheme == "https",
                                                               isHTTPOnly: true, sameSite: .lax)
        return response
    }

    /// The web app's recorded audio to this server's speech-to-text (the CSRF token in
    /// `X-CSRF-Token`, the audio as the body).
    @Sendable func transcribe(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try WebSession.verifyCSRF(req, submitted: req.headers.first(name: "X-CSRF-Token"))
        return try await Transcription.answer(req)
    }

    // MARK: Notes

    /// Newest first, 30 a page, filtered by thread, kind and the days written.
    @Sendable func notes(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        var filter = NoteStore.Browse()
        var problems: [String] = []
        if let raw = req.query[String.self, at: "thread"], !raw.isEmpty {
            if let id = Int(raw), id > 0 { filter.threadId = id } else { problems.append("thread must be a thread's number") }
        }
        if let raw = req.query[String.self, at: "type"], !raw.isEmpty {
            if let type = NoteType(rawValue: raw) { filter.noteType = type } else { problems.append("type must be one of " + NoteType.allCases.map(\.rawValue).joined(separator: ", ")) }
        }
        func day(_ key: String) -> Date? {
            guard let raw = req.query[String.self, at: key], !raw.isEmpty else { return nil }
            guard let date = WireDate.date(from: raw + "T00:00:00Z") else { problems.append("\(key) must be a day such as 2026-11-01"); return nil }
            return date
        }
        filter.from = day("from")
        filter.until = day("to").map { $0.addingTimeInterval(86_400) }
        let page = max(0, min(req.query[Int.self, at: "page"] ?? 0, 10_000))
        let notes = problems.isEmpty ? try await NoteStore(db: req.db).browse(filter, limit: Pages.notesPerPage + 1, offset: page * Pages.notesPerPage) : []
        let threads = try await ThreadStore(db: req.db).threads(status: nil, limit: 500)
        let query = req.url.query ?? ""
        return Self.render(req, Pages.notes(Array(notes.prefix(Pages.notesPerPage)), more: notes.count > Pages.notesPerPage, page: page,
                                            filter: filter, threads: threads, query: query, problems: problems, context: Self.context(req)),
                           status: problems.isEmpty ? .ok : .badRequest)
    }

    @Sendable func editNotePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        return Self.render(req, Pages.editNote(note, content: note.content, title: note.title ?? "", tags: note.tags.joined(separator: ", "),
                                               errors: [:], context: Self.context(req)))
    }

    @Sendable func editNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var content: String?; var title: String?; var tags: String? }
        let form = try Self.form(req, Form.self)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        let tags = (form.tags ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        func again(_ errors: [String: String], _ status: HTTPResponseStatus) -> Response {
            Self.render(req, Pages.editNote(note, content: form.content ?? "", title: form.title ?? "", tags: form.tags ?? "", errors: errors,
                                            context: Self.context(req)), status: status)
        }
        do {
            let input = try NoteEdit(content: form.content ?? "", title: form.title ?? "", tags: tags).applied(to: note, whole: true)
            let outcome = try await NoteEditor(db: req.writeDB, services: req.selene)
                .update(id: Int(id), content: input.content, title: input.title, tags: input.tags, now: req.now)
            let flash: String
            switch outcome {
            case .updated? where input.content != note.content || input.title != note.title: flash = "Saved. Selene will work out what it's about again in a moment."
            case .updated?: flash = "Saved."
            case .unchanged?: flash = "Nothing changed."
            case nil: throw SeleneError.notFound("Note")
            }
            return Self.redirect(SiteURL.note(String(id)).path(query: ["flash": flash]))
        } catch let e as FieldErrors {
            return again(e.fields, .badRequest)
        } catch let e as NoteTooLarge {
            return again(["content": e.description], .payloadTooLarge)
        }
    }

    @Sendable func deleteNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        guard try await NoteEditor(db: req.writeDB, services: req.selene).delete(id: Int(id), now: req.now) else { throw SeleneError.notFound("Note") }
        return Self.redirect(SiteURL.notes.path(query: ["flash": "Note deleted."]))
    }

    @Sendable func memories(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let list = try await ConversationStore(db: req.db).memories(limit: 500, includeEmbeddings: false)
        return Self.render(req, Pages.memories(list, errors: [:], context: Self.context(req)))
    }

    @Sendable func updateMemory(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var content: String?; var type: String?; var confidence: String? }
        let form = try Self.form(req, Form.self)
        var errors: [String: String] = [:]
        let confidence = form.confidence.flatMap(Double.init)
        if form.confidence != nil, confidence == nil { errors["confidence"] = "confidence must be a number between 0 and 1" }
        if errors.isEmpty {
            do {
                let update = MemoryUpdate(content: form.content, type: form.type.flatMap(MemoryType.init(rawValue:)), confidence: confidence)
                _ = try await Self.data(req).updateMemory(id: id, update)
                return Self.redirect(SiteURL.memories.path(query: ["flash": "Memory saved."]))
            } catch let e as FieldErrors {
                errors = e.fields
            }
        }
        let list = try await ConversationStore(db: req.db).memories(limit: 500, includeEmbeddings: false)
        return Self.render(req, Pages.memories(list, errors: errors, context: Self.context(req)), status: .badRequest)
    }

    @Sendable func deleteMemory(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        try await Self.data(req).deleteMemory(id: id)
        return Self.redirect(SiteURL.memories.path(query: ["flash": "Forgotten."]))
    }

    @Sendable func devices(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let list = try await ConversationStore(db: req.db).devices()
        return Self.render(req, Pages.devices(list, push: req.selene.pushStatus, context: Self.context(req)))
    }

    @Sendable func deleteDevice(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        if let device = try await DeviceModel.find(Int(id), on: req.db) { try await device.delete(on: req.db) }
        return Self.redirect(SiteURL.devices.path)
    }

    @Sendable func status(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let health = await req.selene.llmHealth()
        let counts = try await ProcessingQueue.status(on: req.db)
        return Self.render(req, Pages.status(llm: health, counts: counts, push: req.selene.pushStatus, context: Self.context(req)))
    }
}

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
                    emit: @escaping @Sendable (String) async -> Void) async -> Outcome {
        let chat = ChatViewModel(data: data, llm: llm, now: now)
        await chat.loadSessions()
        if chat.sessions.contains(where: { $0.id == sessionId }) { await chat.openSession(sessionId) } else { chat.newSession(id: sessionId) }
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

    @MainActor
    static func briefing(data: ServerDataProvider, now: @escaping @Sendable () -> Date, regenerate: Bool) async -> (briefing: Briefing?, resurfaced: [Resurfacing.Suggestion], error: String?) {
        let model = BriefingViewModel(data: data, now: now)
        if regenerate { await model.regenerate() } else { await model.load() }
        if case .failed(let why) = model.state { return (model.briefing, [], why) }
        return (model.briefing, model.resurfaced, nil)
    }
}
