import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Tasks: suggested from a thread's notes, added, ticked, listed.
extension WebController {
    @Sendable func suggestTasks(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        let (suggestions, note) = await ChatRun.suggestions(data: Self.data(req), llm: Self.llm(req), threadId: id)
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
        if form.back == "briefing" { return Self.redirect(SiteURL.briefing.path) }
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
}
