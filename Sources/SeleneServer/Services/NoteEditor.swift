import Fluent
import Foundation
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// Corrections and deletions. An edit that changes a note's words puts it back in the queue with
/// everything worked out from the old words gone (analysis, embedding, associations, thread
/// place, open tasks it yielded), so processing redoes it all; a delete leaves no row, index
/// entry or exported file behind. Threads a note leaves get their centroid and momentum again.
struct NoteEditor {
    let db: any Database
    let services: SeleneServices
    var logger = Logger(label: "selene.notes")

    enum Outcome: Sendable {
        case unchanged(Note)
        case updated(Note)
    }

    /// Applies an edit already checked (`CaptureInput.validated`). Nil when there is no such note.
    func update(id: Int, content: String, title: String?, tags: [String], now: Date) async throws -> Outcome? {
        guard let before = try await NoteStore(db: db).note(id: id) else { return nil }
        let wordsChanged = before.content != content || before.title != title
        guard wordsChanged || before.tags != tags else { return .unchanged(before) }
        var oldFiles: [String] = []
        let left = try await db.writeTransaction { db -> [Int] in
            let sql = db.sql
            guard wordsChanged else {
                try await sql.raw("UPDATE notes SET tags = \(bind: JSONColumn.write(tags)) WHERE id = \(bind: id)").run()
                return []
            }
            let left = try await Self.detach(id, on: sql)
            try await sql.raw("DELETE FROM thread_tasks WHERE source_note_id = \(bind: id) AND status = \(bind: TaskStatus.open.rawValue)").run()
            try await sql.raw("""
                UPDATE notes SET title = \(bind: title), content = \(bind: content), content_hash = \(bind: NoteStore.hash(content)),
                  tags = \(bind: JSONColumn.write(tags)), status = \(bind: ProcessingStatus.pending.rawValue), attempts = 0,
                  next_attempt_at = \(bind: now), last_error = NULL, lease_owner = NULL, lease_until = NULL, facts = NULL
                WHERE id = \(bind: id)
                """).run()
            return left
        }
        if wordsChanged {
            services.vectors.remove(id: id)
            services.chunkVectors.removeNote(id)
            try await ThreadService(db: db, services: services, logger: logger).membersChanged(threadIds: left, now: now)
            oldFiles = vault.map { $0.removeNoteFiles(id: id) } ?? []
            services.queueSignal.wake()
        }
        guard let after = try await NoteStore(db: db).note(id: id) else { return nil }
        // A note that was in the vault is there again under its new title (and its new words).
        if let vault, !oldFiles.isEmpty { _ = try? await vault.export(noteId: id) }
        return .updated(after)
    }

    /// Deletes a note and everything made from it. False when there was none.
    func delete(id: Int, now: Date) async throws -> Bool {
        guard let note = try await NoteStore(db: db).note(id: id) else { return false }
        let left = try await db.writeTransaction { db -> [Int] in
            let sql = db.sql
            let left = try await Self.detach(id, on: sql)
            // A task the note yielded stays (it may be done, or still to do); it just no longer
            // points at a note.
            try await sql.raw("UPDATE thread_tasks SET source_note_id = NULL WHERE source_note_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM note_placements WHERE note_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM notes WHERE id = \(bind: id)").run()
            return left
        }
        services.vectors.remove(id: id)
        services.chunkVectors.removeNote(id)
        try await ThreadService(db: db, services: services, logger: logger).membersChanged(threadIds: left, now: now)
        if let vault {
            let removed = vault.removeNoteFiles(id: id)
            // Thread files that listed it are written again without it.
            if !removed.isEmpty { for thread in left { _ = try? await vault.export(threadId: thread) } }
        }
        logger.info("Note \(id) deleted (\(note.content.count) characters, threads left: \(left))")
        return true
    }

    /// Removes what processing made of a note; answers the threads it was in.
    static func detach(_ id: Int, on sql: any SQLDatabase) async throws -> [Int] {
        let threads = try await sql.raw("SELECT thread_id FROM thread_notes WHERE note_id = \(bind: id)").all()
            .map { try $0.decode(column: "thread_id", as: Int.self) }
        try await sql.raw("DELETE FROM thread_notes WHERE note_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM note_associations WHERE note_a_id = \(bind: id) OR note_b_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM note_embeddings WHERE note_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM note_chunk_embeddings WHERE note_id = \(bind: id)").run()
        try await sql.raw("DELETE FROM processed_notes WHERE note_id = \(bind: id)").run()
        return threads
    }

    private var vault: ObsidianExporter? {
        services.config.obsidianVault.map { ObsidianExporter(db: db, vault: $0) }
    }
}
