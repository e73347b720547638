import Foundation
import SeleneShared
import Vapor

struct ThreadController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let threads = routes.grouped("threads")
        threads.get(use: list)
        threads.get("search", ":name", use: search)
        threads.get(":id", use: show)
        threads.get(":id", "tasks", use: tasks)
        threads.post(":id", "tasks", use: addTask)
        threads.put(":id", use: rename)
        threads.post(":id", "merge", use: merge)
        threads.post(":id", "split", use: split)
        routes.put("notes", ":id", "thread", use: place)
        routes.get("tasks", use: allTasks)
        routes.patch("tasks", ":id", use: updateTask)
    }

    /// Active threads by momentum, then last activity (`status` asks for dormant or archived ones).
    @Sendable
    func list(req: Request) async throws -> Response {
        let limit = try req.intQuery("limit", default: 10)
        var status = ThreadStatus.active
        if let raw = req.url.query.flatMap({ Request.queryValue("status", in: $0) }) {
            guard let given = ThreadStatus(rawValue: raw) else {
                throw SeleneError(.badRequest, "status must be one of \(ThreadStatus.allowedValues.joined(separator: ", "))",
                                  fields: ["status": "must be one of \(ThreadStatus.allowedValues.joined(separator: ", "))"])
            }
            status = given
        }
        return try json(ThreadList(threads: try await ThreadStore(db: req.db).threads(status: status, limit: limit)))
    }

    // MARK: Corrections by the person (`ThreadEditor`)

    /// Corrections write, so on SQLite through the one writer connection (`writeDB`), in
    /// `writeTransaction`s (a read-then-write transaction beside a capture's commit failed as
    /// SQLITE_BUSY_SNAPSHOT, "database is locked": a 500 the API fuzzing met).
    static func editor(_ req: Request) -> ThreadEditor { ThreadEditor(db: req.writeDB, services: req.selene, logger: req.logger) }

    /// The person's name for a thread: kept when its summary is written again.
    @Sendable
    func rename(req: Request) async throws -> Response {
        let id = try req.id("id")
        return try json(try await Self.editor(req).rename(id, to: try req.decodeBody(ThreadRename.self).name))
    }

    /// The thread becomes part of another: its notes, tasks and conversations move; it is gone.
    @Sendable
    func merge(req: Request) async throws -> Response {
        let id = try req.id("id")
        let body = try req.decodeBody(ThreadMerge.self)
        return try json(try await Self.editor(req).merge(id, into: Int(body.into)))
    }

    /// Some of the thread's notes become a thread of their own, named by the person (201).
    @Sendable
    func split(req: Request) async throws -> Response {
        let id = try req.id("id")
        let body = try req.decodeBody(ThreadSplit.self)
        guard body.noteIds.count <= 500 else { throw SeleneError.badInput(["noteIds": "at most 500 notes at once"]) }
        return try json(try await Self.editor(req).split(id, notes: body.noteIds.map(Int.init), name: body.name), status: .created)
    }

    /// Puts a note in a thread, or in none: re-clustering leaves it there. Answers its assignment.
    @Sendable
    func place(req: Request) async throws -> Response {
        let id = try req.id("id")
        let body = try req.decodeBody(NotePlacement.self)
        try await Self.editor(req).move(note: id, to: body.threadId.map(Int.init))
        return try json(NotePlacement(threadId: body.threadId))
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let id = try req.id("id")
        guard let detail = try await ThreadStore(db: req.db).detail(id: id) else { throw SeleneError.notFound("Thread \(id)") }
        return try json(detail)
    }

    @Sendable
    func search(req: Request) async throws -> Response {
        // Path parameters arrive percent-encoded ("garden%20tomato").
        let raw = req.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard name.count <= 200 else { throw SeleneError.badInput(["name": "name must be at most 200 characters"]) }
        guard let detail = try await ThreadStore(db: req.db).search(name: name) else {
            throw SeleneError(.notFound, "No thread's name matches \"\(name)\"")
        }
        return try json(detail)
    }

    @Sendable
    func tasks(req: Request) async throws -> Response {
        let id = try req.id("id")
        let store = ThreadStore(db: req.db)
        guard try await store.thread(id: id) != nil else { throw SeleneError.notFound("Thread \(id)") }
        return try json(TaskList(threadId: Int64(id), tasks: try await store.tasks(threadId: id)))
    }

    /// A task the person adds to a thread (a suggestion from the thread's chat, or their own).
    @Sendable
    func addTask(req: Request) async throws -> Response {
        let id = try req.id("id")
        let task = try req.decodeBody(NewTask.self).validated()
        guard let created = try await ThreadStore(db: req.writeDB).addTask(threadId: id, title: task.title, now: req.now) else {
            throw SeleneError.notFound("Thread \(id)")
        }
        return try json(created, status: .created)
    }

    /// Every task, threaded or not: open first.
    @Sendable
    func allTasks(req: Request) async throws -> Response {
        let limit = try req.intQuery("limit", default: 100)
        var status: TaskStatus?
        if let raw = req.query[String.self, at: "status"] {
            guard let parsed = TaskStatus(rawValue: raw) else {
                throw SeleneError.badInput(["status": "status must be one of " + TaskStatus.allCases.map(\.rawValue).joined(separator: ", ")])
            }
            status = parsed
        }
        return try json(AllTasks(tasks: try await ThreadStore(db: req.db).allTasks(status: status, limit: limit)))
    }

    @Sendable
    func updateTask(req: Request) async throws -> Response {
        let id = try req.id("id")
        let update = try req.decodeBody(TaskUpdate.self)
        guard let task = try await ThreadStore(db: req.writeDB).setTask(id: id, status: update.status, now: req.now) else {
            throw SeleneError.notFound("Task \(id)")
        }
        return try json(task)
    }
}
