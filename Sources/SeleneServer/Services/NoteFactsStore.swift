import Fluent
import Foundation
import SeleneShared
import SQLKit

/// Keeps each note's `facts` column (`NoteFacts`: what processing understood, searched beside
/// its words) current: written when a note is processed and placed, when its thread is named
/// or renamed, when notes move between threads, and by `selene reindex`. A note not processed
/// (or edited since) has none.
public struct NoteFactsStore {
    let db: any Database

    public init(db: any Database) { self.db = db }

    /// Writes the facts of these notes from what is stored now.
    public func refresh(noteIds: [Int]) async throws {
        guard !noteIds.isEmpty else { return }
        let sql = db.sql
        for batch in stride(from: 0, to: noteIds.count, by: 200).map({ Array(noteIds[$0..<min(noteIds.count, $0 + 200)]) }) {
            let rows = try await sql.raw("""
                SELECT n.id, n.content, n.created_at, n.facts, p.concepts, p.people, p.places, p.primary_theme, p.secondary_themes,
                       t.name AS thread_name
                FROM notes n LEFT JOIN processed_notes p ON p.note_id = n.id
                LEFT JOIN thread_notes tn ON tn.note_id = n.id LEFT JOIN threads t ON t.id = tn.thread_id
                WHERE n.id IN (\(binds: batch))
                """).all()
            var facts: [Int: String?] = [:], stored: [Int: String?] = [:]
            for row in rows {
                let id = try row.decode(column: "id", as: Int.self)
                stored[id] = try row.decode(column: "facts", as: String?.self)
                guard let concepts = try row.decode(column: "concepts", as: String?.self) else { facts[id] = .some(nil); continue }
                let themes = [try row.decode(column: "primary_theme", as: String?.self)].compactMap { $0 }
                    + (JSONColumn.read([String].self, try row.decode(column: "secondary_themes", as: String?.self)) ?? [])
                func names(_ column: String) throws -> [String] { JSONColumn.read([String].self, try row.decode(column: column, as: String?.self)) ?? [] }
                facts[id] = NoteFacts.text(concepts: (JSONColumn.read([Concept].self, concepts) ?? []).map(\.name),
                                           people: try names("people"), places: try names("places"), themes: themes,
                                           threadName: try row.decode(column: "thread_name", as: String?.self),
                                           content: try row.decode(column: "content", as: String.self),
                                           writtenAt: try row.decode(column: "created_at", as: Date.self))
            }
            // Only what changed is written (each write updates the full-text index's row).
            for (id, text) in facts where stored[id] != text {
                try await sql.raw("UPDATE notes SET facts = \(bind: text) WHERE id = \(bind: id)").run()
            }
        }
    }

    /// The facts of every note in these threads (named again, or gaining and losing notes).
    func refresh(threadIds: [Int]) async throws {
        guard !threadIds.isEmpty else { return }
        let ids = try await db.sql.raw("SELECT note_id FROM thread_notes WHERE thread_id IN (\(binds: threadIds))").all()
            .map { try $0.decode(column: "note_id", as: Int.self) }
        try await refresh(noteIds: ids)
    }

    /// Every note's facts, `batch` at a time (`selene reindex`, and after an upgrade).
    func refreshAll(batch: Int = 500, progress: (Int, Int) -> Void = { _, _ in }) async throws {
        let ids = try await db.sql.raw("SELECT id FROM notes ORDER BY id").all().map { try $0.decode(column: "id", as: Int.self) }
        for start in stride(from: 0, to: ids.count, by: batch) {
            try await refresh(noteIds: Array(ids[start..<min(ids.count, start + batch)]))
            progress(min(ids.count, start + batch), ids.count)
        }
    }
}
