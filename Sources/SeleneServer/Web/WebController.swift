import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The web app: the phone app's screens (Chat, Threads, Briefing, More, set-up) served by the
/// server, on SeleneShared's view models over the server's own providers. Every page works
/// without JavaScript; the script streams answers (server-sent events) and adds voice input.
/// Selene's signed page messages (`FlashSigner`): a link made elsewhere with words of its own
/// shows nothing here.
enum Flash {
    static let signer = FlashSigner()
    static func query(_ text: String) -> [String: String] { signer.query(text) }
    static func read(_ req: Request) -> String? { signer.read(req) }
}

struct WebController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get(use: home)
        routes.get("app", use: home)
        StaticAsset.serve(Assets.byName, under: ["app", "static"], on: routes)
        InstallableApp.routes(on: routes, icon: .init(SiteURL.icon.route, PWA.icon), manifest: .init(SiteURL.manifest.route, PWA.manifest),
                              worker: .init(SiteURL.worker.route, PWA.worker), offline: .init(SiteURL.offline.route, Pages.offline().render()))
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
        routes.get(SiteURL.about(":card").route, use: aboutCard)
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
        routes.post(SiteURL.renameThread(":id").route, use: renameThread)
        routes.post(SiteURL.mergeThread(":id").route, use: mergeThread)
        routes.post(SiteURL.splitThread(":id").route, use: splitThread)
        routes.post(SiteURL.moveNote(":id").route, use: moveNote)
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
        routes.post(SiteURL.memories.route, use: addMemory)
        routes.post(SiteURL.memory(":id").route, use: updateMemory)
        routes.post(SiteURL.deleteMemory(":id").route, use: deleteMemory)
        routes.get(SiteURL.devices.route, use: devices)
        routes.post(SiteURL.deleteDevice(":id").route, use: deleteDevice)
        routes.get(SiteURL.status.route, use: status)
        routes.get(SiteURL.outbound.route, use: outbound)
        routes.get(SiteURL.hosted.route, use: hosted)
        routes.post(SiteURL.hosted.route, use: answerHosted)
    }

    // MARK: Plumbing

    static func render(_ req: Request, _ node: Node, status: HTTPResponseStatus = .ok) -> Response {
        let response = Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: .init(string: node.render()))
        WebSession.attachCSRF(req, to: response)
        return response
    }

    /// Back to `url` with a message this server signed (`Flash`).
    static func redirect(_ url: SiteURL, flash: String) -> Response {
        redirect(url.path(query: Flash.query(flash)))
    }

    static func redirect(_ to: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: to)
        return response
    }

    static func context(_ req: Request, flash: String? = nil) -> PageContext {
        PageContext(csrf: WebSession.csrfToken(for: req), flash: flash ?? Flash.read(req), voice: VoiceMode.of(req))
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
    static func llm(_ req: Request) -> any LLMProvider { req.selene.chatLLM(db: req.writeDB) }
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
}
