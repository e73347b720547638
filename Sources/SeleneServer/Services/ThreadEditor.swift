import Fluent
import Foundation
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// What the person corrects in their threads: a name, where a note belongs, two threads made one,
/// a sub-project split off. Each stays theirs: a name set here is never written over, and a note
/// put somewhere (a thread, or none) is where re-clustering leaves it (`note_placements`).
/// The same for the web app, the API and the terminal.
struct ThreadEditor {
    let db: any Database
    let services: SeleneServices
    let logger: Logger

    /// The longest name a thread takes (as the model's are).
    static let maxName = 60

    // MARK: Placements

    /// Where the person put a note: nil when they never did; `.some(nil)` out of every thread.
    static func placement(of noteId: Int, on db: any Database) async throws -> Int?? {
        guard let row = try await db.sql.raw("SELECT thread_id FROM note_placements WHERE note_id = \(bind: noteId)").first() else { return nil }
        return .some(try row.decode(column: "thread_id", as: Int?.self))
    }

    /// Those of `ids` the person placed, anywhere.
    static func placed(_ ids: [Int], on db: any Database) async throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        return Set(try await db.sql.raw("SELECT note_id FROM note_placements WHERE note_id IN (\(binds: ids))").all()
            .map { try $0.decode(column: "note_id", as: Int.self) })
    }

    private func remember(_ noteIds: [Int], in threadId: Int?, on db: any Database, now: Date) async throws {
        guard !noteIds.isEmpty else { return }
        try await db.sql.raw("DELETE FROM note_placements WHERE note_id IN (\(binds: noteIds))").run()
        for id in noteIds {
            try await db.sql.raw("INSERT INTO note_placements (note_id, thread_id, placed_at) VALUES (\(bind: id), \(bind: threadId), \(bind: now))").run()
        }
    }

    // MARK: Corrections

    /// A name of the person's: trimmed, one line of 1–60 characters.
    static func checkedName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxName, SeleneText.problem(trimmed, max: maxName, lineBreaks: false) == nil else {
            throw SeleneError.badInput(["name": "a thread's name is one line of 1–\(maxName) characters"])
        }
        return trimmed
    }

    private func thread(_ id: Int, on db: any Database) async throws -> ThreadModel {
        guard let thread = try await ThreadModel.find(id, on: db) else { throw SeleneError.notFound("Thread \(id)") }
        return thread
    }

    private var threads: ThreadService { ThreadService(db: db, services: services, logger: logger) }

    /// Names a thread; the name is the person's from then on (a summary written later keeps it).
    func rename(_ threadId: Int, to name: String) async throws -> NoteThread {
        let name = try Self.checkedName(name)
        let model = try await thread(threadId, on: db)
        model.name = name
        model.nameByPerson = true
        try await model.save(on: db)
        try await NoteFactsStore(db: db).refresh(threadIds: [threadId])
        return try await wire(threadId)
    }

    /// Moves a note to another thread, or out of every thread (`to` nil); its tasks go with it.
    func move(note noteId: Int, to threadId: Int?) async throws {
        guard try await NoteStore(db: db).note(id: noteId) != nil else { throw SeleneError.notFound("Note \(noteId)") }
        let now = services.clock.now()
        let left = try await db.writeTransaction { db -> [Int] in
            if let threadId, try await ThreadModel.find(threadId, on: db) == nil {
                throw SeleneError.missingReference(["threadId": "no thread has id \(threadId)"])
            }
            let left = try await db.sql.raw("SELECT thread_id FROM thread_notes WHERE note_id = \(bind: noteId)").all()
                .map { try $0.decode(column: "thread_id", as: Int.self) }
            try await db.sql.raw("DELETE FROM thread_notes WHERE note_id = \(bind: noteId)").run()
            if let threadId {
                try await db.sql.raw("INSERT INTO thread_notes (thread_id, note_id, added_at) VALUES (\(bind: threadId), \(bind: noteId), \(bind: now))").run()
            }
            try await db.sql.raw("UPDATE thread_tasks SET thread_id = \(bind: threadId) WHERE source_note_id = \(bind: noteId)").run()
            try await remember([noteId], in: threadId, on: db, now: now)
            return left
        }
        try await threads.membersChanged(threadIds: Array(Set(left + [threadId].compactMap { $0 })), now: now)
        try await NoteFactsStore(db: db).refresh(noteIds: [noteId])
        logger.info("Note \(noteId) moved by hand: \(left) → \(threadId.map(String.init) ?? "no thread")")
    }

    /// Makes `sourceId` part of `targetId`: its notes, tasks and conversations move; it is gone.
    func merge(_ sourceId: Int, into targetId: Int) async throws -> NoteThread {
        // Well formed, but at odds with what is stored: a conflict (409), as a missing target is.
        guard sourceId != targetId else { throw SeleneError(.conflict, "A thread can't be merged into itself", fields: ["into": "a thread can't be merged into itself"]) }
        let now = services.clock.now()
        try await db.writeTransaction { db in
            let source = try await thread(sourceId, on: db)
            guard try await ThreadModel.find(targetId, on: db) != nil else {
                throw SeleneError.missingReference(["into": "no thread has id \(targetId)"])
            }
            for table in ["thread_notes", "thread_tasks", "chat_sessions", "note_placements"] {
                try await db.sql.raw("UPDATE \(unsafeRaw: table) SET thread_id = \(bind: targetId) WHERE thread_id = \(bind: sourceId)").run()
            }
            try await source.delete(on: db)
        }
        try await threads.membersChanged(threadIds: [targetId], now: now)
        try await NoteFactsStore(db: db).refresh(threadIds: [targetId])
        logger.info("Thread \(sourceId) merged into \(targetId) by hand")
        return try await wire(targetId)
    }

    /// A new thread named `name` with `noteIds` (all in `threadId`, not all of it): a sub-project
    /// split off. The notes stay in it; its summary is written by the next maintenance pass.
    func split(_ threadId: Int, notes noteIds: [Int], name: String) async throws -> NoteThread {
        let name = try Self.checkedName(name)
        let ids = Array(Set(noteIds)).sorted()
        guard !ids.isEmpty else { throw SeleneError.badInput(["noteIds": "name at least one note to split off"]) }
        let now = services.clock.now()
        let newId = try await db.writeTransaction { db -> Int in
            let from = try await thread(threadId, on: db)
            let members = Set(try await db.sql.raw("SELECT note_id FROM thread_notes WHERE thread_id = \(bind: threadId)").all()
                .map { try $0.decode(column: "note_id", as: Int.self) })
            guard ids.allSatisfy(members.contains) else {
                throw SeleneError(.conflict, "Every note split off must be one of the thread's own", fields: ["noteIds": "every note split off must be one of the thread's own"])
            }
            guard ids.count < members.count else {
                throw SeleneError(.conflict, "A split leaves at least one note behind (rename the thread instead)",
                                  fields: ["noteIds": "a split leaves at least one note behind (rename the thread instead)"])
            }
            let split = ThreadModel()
            split.name = name
            split.nameByPerson = true
            split.summary = "Split from \(from.name)."
            split.summaryNoteCount = 0
            split.status = ThreadStatus.active.rawValue
            split.momentum = 0
            split.lastActivityAt = now
            split.createdAt = now
            split.centroidModel = from.centroidModel
            try await split.create(on: db)
            let newId = split.id!
            try await db.sql.raw("UPDATE thread_notes SET thread_id = \(bind: newId) WHERE note_id IN (\(binds: ids))").run()
            try await db.sql.raw("UPDATE thread_tasks SET thread_id = \(bind: newId) WHERE source_note_id IN (\(binds: ids))").run()
            try await remember(ids, in: newId, on: db, now: now)
            return newId
        }
        try await threads.membersChanged(threadIds: [threadId, newId], now: now)
        try await NoteFactsStore(db: db).refresh(noteIds: ids)
        logger.info("Thread \(newId) split from \(threadId) by hand with notes \(ids)")
        return try await wire(newId)
    }

    private func wire(_ id: Int) async throws -> NoteThread {
        guard let thread = try await ThreadStore(db: db).thread(id: id) else { throw SeleneError.notFound("Thread \(id)") }
        return thread
    }
}
