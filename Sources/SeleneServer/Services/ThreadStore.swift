import Fluent
import Foundation
import SeleneShared
import SQLKit

/// Threads as the API reads them: lists by momentum, one with its notes, tasks, assignments.
struct ThreadStore {
    let db: any Database

    /// Threads with their note counts, in the order given by `order`.
    func threads(status: ThreadStatus?, limit: Int) async throws -> [NoteThread] {
        var query = ThreadModel.query(on: db)
        if let status { query = query.filter(\.$status == status.rawValue) }
        let models = try await query.sort(\.$momentum, .descending).sort(\.$lastActivityAt, .descending).sort(\.$id, .descending)
            .limit(limit).all()
        return try await wire(models)
    }

    func thread(id: Int) async throws -> NoteThread? {
        guard let model = try await ThreadModel.find(id, on: db) else { return nil }
        return try await wire([model]).first
    }

    func detail(id: Int) async throws -> ThreadDetail? {
        guard let thread = try await thread(id: id) else { return nil }
        return ThreadDetail(thread: thread, notes: try await NoteStore(db: db).notes(inThread: id))
    }

    /// The best case-insensitive partial match for `name`: an exact name first, then a name that
    /// starts with it, then one that contains it; livelier threads win ties.
    func search(name: String) async throws -> ThreadDetail? {
        let needle = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !needle.isEmpty else { return nil }
        // A substring search by position, not LIKE: what the person typed is matched as it is,
        // with no character of it read as a pattern (no LIKE on user input anywhere).
        let contains: SQLQueryString = db.sql.dialect.name == "postgresql"
            ? "strpos(lower(name), \(bind: needle)) > 0" : "instr(lower(name), \(bind: needle)) > 0"
        let rows = try await db.sql.raw("""
            SELECT id, lower(name) AS lname FROM threads WHERE \(contains)
            ORDER BY momentum DESC, last_activity_at DESC, id DESC LIMIT 200
            """).all()
        let candidates = try rows.map { (try $0.decode(column: "id", as: Int.self), try $0.decode(column: "lname", as: String.self)) }
        func score(_ lname: String) -> Int { lname == needle ? 0 : lname.hasPrefix(needle) ? 1 : 2 }
        // A stable sort keeps the momentum order within each kind of match.
        let best = candidates.enumerated().min { a, b in (score(a.element.1), a.offset) < (score(b.element.1), b.offset) }
        guard let id = best?.element.0 else { return nil }
        return try await detail(id: id)
    }

    func tasks(threadId: Int) async throws -> [ThreadTask] {
        try await ThreadTaskModel.query(on: db).filter(\.$threadId == threadId)
            .sort(\.$status, .descending).sort(\.$createdAt, .ascending).sort(\.$id, .ascending).all().map(\.wire)
    }

    /// Every task, threaded or not: open first (newest first), then done (latest done first).
    func allTasks(status: TaskStatus?, limit: Int) async throws -> [ThreadTask] {
        var query = ThreadTaskModel.query(on: db)
        if let status { query = query.filter(\.$status == status.rawValue) }
        return try await query.sort(\.$status, .descending).sort(\.$completedAt, .descending).sort(\.$createdAt, .descending)
            .sort(\.$id, .descending).limit(limit).all().map(\.wire)
    }

    func openTasks(limit: Int) async throws -> [ThreadTask] {
        try await ThreadTaskModel.query(on: db).filter(\.$status == TaskStatus.open.rawValue)
            .sort(\.$createdAt, .descending).sort(\.$id, .descending).limit(limit).all().map(\.wire)
    }

    func addTask(threadId: Int, title: String, now: Date) async throws -> ThreadTask? {
        guard try await ThreadModel.find(threadId, on: db) != nil else { return nil }
        let task = ThreadTaskModel()
        task.threadId = threadId
        task.title = title
        task.status = TaskStatus.open.rawValue
        task.createdAt = now
        try await task.create(on: db)
        return task.wire
    }

    func setTask(id: Int, status: TaskStatus, now: Date) async throws -> ThreadTask? {
        guard let task = try await ThreadTaskModel.find(id, on: db) else { return nil }
        task.status = status.rawValue
        task.completedAt = status == .done ? (task.completedAt ?? now) : nil
        try await task.save(on: db)
        return task.wire
    }

    func assignments(noteIds: [Int]) async throws -> [ThreadAssignment] {
        let rows = try await db.sql.raw("""
            SELECT tn.note_id, tn.thread_id, t.name FROM thread_notes tn JOIN threads t ON t.id = tn.thread_id
            WHERE tn.note_id IN (\(binds: noteIds))
            """).all()
        var byNote: [Int: ThreadAssignment] = [:]
        for row in rows {
            let noteId = try row.decode(column: "note_id", as: Int.self)
            byNote[noteId] = ThreadAssignment(noteId: Int64(noteId), threadName: try row.decode(column: "name", as: String.self),
                                              threadId: Int64(try row.decode(column: "thread_id", as: Int.self)))
        }
        return noteIds.compactMap { byNote[$0] }
    }

    func noteCounts(_ ids: [Int]) async throws -> [Int: Int] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await db.sql.raw("""
            SELECT thread_id, COUNT(*) AS n FROM thread_notes WHERE thread_id IN (\(binds: ids)) GROUP BY thread_id
            """).all()
        var counts: [Int: Int] = [:]
        for row in rows { counts[try row.decode(column: "thread_id", as: Int.self)] = try row.decode(column: "n", as: Int.self) }
        return counts
    }

    func wire(_ models: [ThreadModel]) async throws -> [NoteThread] {
        let counts = try await noteCounts(models.compactMap(\.id))
        return models.map { $0.wire(noteCount: counts[$0.id!] ?? 0) }
    }
}
