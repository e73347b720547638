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
        let others = try await ThreadStore(db: req.db).threads(status: nil, limit: 500).filter { $0.id != id }
        return Pages.ThreadPage(detail: detail, tasks: try await ThreadStore(db: req.db).tasks(threadId: Int(id)),
                                subprojects: SubprojectSuggester.suggest(thread: detail.thread, notes: detail.notes),
                                session: session, titles: try await titles(req, session), others: others)
    }

    @Sendable func thread(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.thread(try await Self.threadPage(req, id: try Self.intId(req)), context: Self.context(req)))
    }

    @Sendable func threadAsk(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        let question = try Self.question(req).question
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
        let question = try Self.question(req).question
        guard !question.isEmpty else { throw SeleneError(.badRequest, "Type a question first") }
        let (data, llm, now) = (Self.data(req), Self.llm(req), Self.clock(req))
        return Self.eventStream { emit in
            let outcome = await ChatRun.runInThread(data: data, llm: llm, now: now, threadId: id, question: question, emit: emit)
            await Self.finish(outcome, data: data, emit: emit, titles: { try await Self.titles(data: data, outcome.session) })
        }
    }

    // MARK: Corrections (`ThreadEditor`): rename, merge, split, move a note

    /// `path` with a message to show.
    static func flashed(_ path: String, _ message: String) -> String {
        var c = URLComponents()
        c.queryItems = Flash.query(message).sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return path + "?" + (c.percentEncodedQuery ?? "")
    }

    /// A correction's answer: back to the thread with what happened (or to where `work` answers a
    /// path to), or with what was wrong.
    static func corrected(_ back: String, _ work: () async throws -> String) async throws -> Response {
        do {
            let said = try await work()
            return redirect(said.hasPrefix("/") ? said : flashed(back, said))
        } catch let error as SeleneError where error.status == .badRequest || error.status == .conflict {
            return redirect(flashed(back, error.fields.map { $0.values.sorted().joined(separator: "; ") } ?? error.reason))
        }
    }

    /// A correction of the thread in the URL, from its form: back to the thread `work` answers
    /// with, saying `done`, or to this one with what was wrong.
    static func correctThread<Form: Decodable>(_ req: Request, _ form: Form.Type, done: @escaping (NoteThread) -> String,
                                               _ work: @escaping (ThreadEditor, Int, Form) async throws -> NoteThread) async throws -> Response {
        try await requireSignIn(req)
        let id = Int(try intId(req))
        let fields = try Self.form(req, Form.self)
        return try await corrected(SiteURL.thread(String(id)).path) {
            let thread = try await work(ThreadController.editor(req), id, fields)
            return Int(thread.id) == id ? done(thread) : flashed(SiteURL.thread(String(thread.id)).path, done(thread))
        }
    }

    @Sendable func renameThread(req: Request) async throws -> Response {
        struct Form: Decodable { var name: String? }
        return try await Self.correctThread(req, Form.self, done: { "Renamed “\($0.name)”: yours now, kept when its summary is written again." }) {
            try await $0.rename($1, to: $2.name ?? "")
        }
    }

    @Sendable func mergeThread(req: Request) async throws -> Response {
        struct Form: Decodable { var into: String? }
        return try await Self.correctThread(req, Form.self, done: { _ in "Merged into this thread." }) {
            try await $0.merge($1, into: Int($2.into ?? "") ?? 0)
        }
    }

    @Sendable func splitThread(req: Request) async throws -> Response {
        struct Form: Decodable { var name: String?; var notes: String? }
        return try await Self.correctThread(req, Form.self, done: { _ in "Split off as a thread of its own." }) {
            let notes = ($2.notes ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return try await $0.split($1, notes: notes, name: $2.name ?? "")
        }
    }

    @Sendable func moveNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var thread: String?; var back: String? }
        let form = try Self.form(req, Form.self)
        let target = form.thread.flatMap { Int($0) }
        // Back to the page it was moved from (a thread's or the note's own), nowhere else.
        let back = form.back.flatMap { $0.hasPrefix("/app/") && !$0.hasPrefix("//") ? $0 : nil } ?? SiteURL.note(String(id)).path
        return try await Self.corrected(back) {
            try await ThreadController.editor(req).move(note: Int(id), to: target)
            return target == nil ? "Moved out of every thread: it stays out." : "Moved: it stays there."
        }
    }
}
