import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

/// Tasks from any actionable note: a note in no thread yields its tasks in the same processing
/// pass; they are listed, ticked off, in the briefing, not duplicated, and join the note's thread
/// when it gets one.
@Suite("Selene: tasks from any note")
struct TasksTests {
    @Test("A lone actionable note is a task after one processing pass; listed, de-duplicated, ticked off, in the briefing")
    func loneNote() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let note = try await app.note("TODO: call the plumber about the sink")
                try await app.process()
                #expect(try await app.call(.GET, "/api/notes/\(note.id)", as: Note.self).threadId == nil)
                var all: AllTasks = try await app.call(.GET, "/api/tasks")
                #expect(all.count == 1)
                let task = try #require(all.tasks.first)
                #expect(task.title == "Call the plumber about the sink" && task.threadId == nil && task.sourceNoteId == note.id && task.status == .open)
                // The same thing asked again in another note, or the step retried: still one task.
                clock.advance(by: 60)
                try await app.note("todo: Call the plumber about the sink")
                try await app.process()
                try await ThreadService(db: app.db, services: app.selene, logger: app.logger)
                    .addTasks(for: [try await app.call(.GET, "/api/notes/\(note.id)", as: Note.self)], thread: nil, now: clock.now)
                all = try await app.call(.GET, "/api/tasks")
                #expect(all.tasks.map(\.id) == [task.id], "\(all.tasks)")
                // In the briefing's open tasks.
                let briefing: Briefing = try await app.call(.GET, "/api/briefing")
                #expect(briefing.tasks.map(\.id).contains(task.id))
                // Ticked off.
                let done: ThreadTask = try await app.call(.PATCH, "/api/tasks/\(task.id)", json: TaskUpdate(status: .done))
                #expect(done.status == .done && done.completedAt == clock.now && done.threadId == nil)
                #expect(try await app.call(.GET, "/api/tasks?status=open", as: AllTasks.self).count == 0)
                #expect(try await app.call(.GET, "/api/tasks?status=done", as: AllTasks.self).tasks.map(\.id) == [task.id])
                let bad = try await app.send(.GET, "/api/tasks?status=someday")
                #expect(bad.status == .badRequest && bad.error?.fields?["status"] != nil)
                #expect(try await app.send(.GET, "/api/tasks?limit=0").status == .badRequest)
                // A note that asks nothing yields no task.
                try await app.note("Lovely evening light over the river")
                try await app.process()
                #expect(try await app.call(.GET, "/api/tasks", as: AllTasks.self).count == 1)
            }
        }
    }

    @Test("A task of a note in no thread joins the thread the note later joins, once")
    func joinsThreadLater() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let lone = try await app.note("I need to buy compost for the garden bed and tomatoes in the garden soil")
                try await app.process()
                var tasks: AllTasks = try await app.call(.GET, "/api/tasks")
                #expect(tasks.count == 1 && tasks.tasks[0].threadId == nil)
                clock.advance(by: 60)
                for text in ThreadsAndBriefingTests.garden { try await app.note(text) }
                try await app.process()
                let thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                let placed: Note = try await app.call(.GET, "/api/notes/\(lone.id)")
                #expect(placed.threadId == thread.id)
                tasks = try await app.call(.GET, "/api/tasks")
                #expect(tasks.count == 1 && tasks.tasks[0].threadId == thread.id && tasks.tasks[0].sourceNoteId == lone.id, "\(tasks.tasks)")
                #expect(try await app.call(.GET, "/api/threads/\(thread.id)/tasks", as: TaskList.self).tasks.map(\.id) == tasks.tasks.map(\.id))
            }
        }
    }

    @Test("Migration 003 keeps every task and lets a task have no thread; it reverts, dropping only thread-less tasks")
    func migration() async throws {
        try await withSelene { app, clock in
            let note = try await app.note("Anything")
            let sql = app.db.sql
            try await sql.raw("INSERT INTO threads (name, summary, status, momentum, last_activity_at, created_at) VALUES ('T', 's', 'active', 0, \(bind: clock.now), \(bind: clock.now))").run()
            let threadId = try await sql.raw("SELECT id FROM threads").first()!.decode(column: "id", as: Int.self)
            try await sql.raw("INSERT INTO thread_tasks (thread_id, title, status, source_note_id, created_at) VALUES (\(bind: threadId), 'Kept', 'open', \(bind: Int(note.id)), \(bind: clock.now))").run()
            try await sql.raw("INSERT INTO thread_tasks (thread_id, title, status, created_at) VALUES (NULL, 'Lone', 'open', \(bind: clock.now))").run()
            try await TasksFromAnyNote().revert(on: app.db)
            #expect(try await sql.raw("SELECT title FROM thread_tasks").all().map { try $0.decode(column: "title", as: String.self) } == ["Kept"])
            await #expect(throws: (any Error).self) {
                try await sql.raw("INSERT INTO thread_tasks (thread_id, title, status, created_at) VALUES (NULL, 'No', 'open', \(bind: clock.now))").run()
            }
            try await TasksFromAnyNote().prepare(on: app.db)
            try await sql.raw("INSERT INTO thread_tasks (thread_id, title, status, created_at) VALUES (NULL, 'Lone again', 'open', \(bind: clock.now))").run()
            let all: AllTasks = try await app.call(.GET, "/api/tasks")
            #expect(Set(all.tasks.map(\.title)) == ["Kept", "Lone again"])
            #expect(all.tasks.first { $0.title == "Kept" }?.threadId == Int64(threadId) && all.tasks.first { $0.title == "Kept" }?.sourceNoteId == note.id)
            // The note → task link still cascades as before (set to null when the note goes).
            #expect(try await app.send(.DELETE, "/api/notes/\(note.id)").status == .noContent)
            #expect(try await app.call(.GET, "/api/tasks", as: AllTasks.self).tasks.allSatisfy { $0.sourceNoteId == nil })
        }
    }
}
