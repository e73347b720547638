import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import TestDatabases
import Testing
import VaporTesting

/// Correcting and deleting notes (API, Drafts resends): what was worked out from the old words
/// goes, the note is worked out again, and a deleted note leaves nothing behind.
@Suite("Selene: editing and deleting notes")
struct NoteEditingTests {
    static let garden = ThreadsAndBriefingTests.garden

    /// Rows anywhere that still name the note.
    static func traces(_ app: Application, _ id: Int64) async throws -> [String: Int] {
        let sql = app.db.sql
        var out: [String: Int] = [:]
        for (table, column) in [("notes", "id"), ("processed_notes", "note_id"), ("note_embeddings", "note_id"), ("note_chunk_embeddings", "note_id"), ("thread_notes", "note_id"),
                                ("note_associations", "note_a_id"), ("note_associations", "note_b_id"), ("thread_tasks", "source_note_id")] {
            let n = try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(ident: column) = \(bind: Int(id))").first()!
                .decode(column: "n", as: Int.self)
            if n > 0 { out["\(table).\(column)"] = n }
        }
        return out
    }

    @Test("An edit re-runs processing: old analysis, embedding, associations, thread place and open tasks go; new ones come")
    func editReprocesses() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                var notes: [Note] = []
                for text in Self.garden { notes.append(try await app.note(text)) }
                let task = try await app.note("I need to buy compost for the garden bed and tomatoes. Remember to water the garden.")
                try await app.process()
                let thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(thread.noteCount == 4)
                let tasks: TaskList = try await app.call(.GET, "/api/threads/\(thread.id)/tasks")
                #expect(tasks.tasks.count == 2)
                _ = try await app.call(.PATCH, "/api/tasks/\(tasks.tasks[0].id)", json: TaskUpdate(status: .done), as: ThreadTask.self)

                // New words about something else: the note leaves the thread and is worked out again.
                clock.advance(by: 60)
                let edited: Note = try await app.call(.PUT, "/api/notes/\(task.id)",
                                                      json: NoteEdit(content: "Quarterly tax forms and receipts for the accountant", title: "Taxes"))
                #expect(edited.id == task.id && edited.title == "Taxes" && edited.status == .pending && edited.analysis == nil && edited.threadId == nil)
                #expect(edited.tags.isEmpty && edited.source == task.source && edited.createdAt == task.createdAt)
                let after: ThreadDetail = try await app.call(.GET, "/api/threads/\(thread.id)")
                #expect(after.thread.noteCount == 3 && !after.notes.map(\.id).contains(task.id))
                #expect(after.thread.momentum < thread.momentum, "momentum \(after.thread.momentum) vs \(thread.momentum)")
                // The task already done stays; the open one made from the old words goes.
                let left: TaskList = try await app.call(.GET, "/api/threads/\(thread.id)/tasks")
                #expect(left.tasks.map(\.id) == [tasks.tasks[0].id] && left.tasks[0].status == .done)
                let search: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "compost water"))
                #expect(!search.notes.map(\.id).contains(task.id))
                #expect(app.selene.vectors.vector(for: Int(task.id)) == nil)

                try await app.process()
                let again: Note = try await app.call(.GET, "/api/notes/\(task.id)")
                #expect(again.status == .done && again.analysis != nil && again.threadId == nil)
                let found: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "accountant"))
                #expect(found.notes.map(\.id) == [task.id])

                // Only the tags: nothing to work out again.
                let tagged: Note = try await app.call(.PATCH, "/api/notes/\(task.id)", json: NoteEdit(tags: ["money", "#admin"]))
                #expect(tagged.tags == ["money", "admin"] && tagged.status == .done && tagged.analysis == again.analysis)
                // The same words again: unchanged.
                let same: Note = try await app.call(.PATCH, "/api/notes/\(task.id)", json: NoteEdit(title: "Taxes"))
                #expect(same == tagged)
                // "" clears the title.
                let untitled: Note = try await app.call(.PATCH, "/api/notes/\(task.id)", json: NoteEdit(title: ""))
                #expect(untitled.title == nil && untitled.status == .pending)
                _ = notes
            }
        }
    }

    @Test("Bad edits get a clear error and change nothing; unknown notes are 404")
    func badEdits() async throws {
        try await withSelene { app, _ in
            let note = try await app.note("Call the plumber about the sink", title: "Plumber", tags: ["home"])
            let empty = try await app.send(.PUT, "/api/notes/\(note.id)", json: NoteEdit(content: "  "))
            #expect(empty.status == .badRequest && empty.error?.fields?["content"] != nil)
            let noContent = try await app.send(.PUT, "/api/notes/\(note.id)", json: NoteEdit(title: "Only a title"))
            #expect(noContent.status == .badRequest && noContent.error?.fields?["content"] != nil)
            let nothing = try await app.send(.PATCH, "/api/notes/\(note.id)", raw: "{}")
            #expect(nothing.status == .badRequest && nothing.error?.fields?["content"]?.contains("nothing to change") == true)
            let longTitle = try await app.send(.PATCH, "/api/notes/\(note.id)", json: NoteEdit(title: String(repeating: "x", count: 501)))
            #expect(longTitle.status == .badRequest && longTitle.error?.fields?["title"] != nil)
            let badTags = try await app.send(.PATCH, "/api/notes/\(note.id)", raw: #"{"tags": "home"}"#)
            #expect(badTags.status == .badRequest)
            let nullTitle = try await app.send(.PATCH, "/api/notes/\(note.id)", raw: #"{"content": "New words", "title": null}"#)
            #expect(nullTitle.status == .badRequest && nullTitle.text.contains("title"), "\(nullTitle.text)")
            let huge = try await app.send(.PUT, "/api/notes/\(note.id)", json: NoteEdit(content: String(repeating: "a", count: SeleneLimits.maxContentBytes + 1)))
            #expect(huge.status == .payloadTooLarge)
            #expect(try await app.call(.GET, "/api/notes/\(note.id)", as: Note.self) == note)
            #expect(try await app.send(.PUT, "/api/notes/999", json: NoteEdit(content: "x")).status == .notFound)
            #expect(try await app.send(.PATCH, "/api/notes/999", json: NoteEdit(title: "x")).status == .notFound)
            #expect(try await app.send(.DELETE, "/api/notes/999").status == .notFound)
            #expect(try await app.send(.DELETE, "/api/notes/abc").status == .badRequest)
        }
    }

    @Test("A deleted note leaves no row, index entry, vector or vault file behind; its thread is recomputed")
    func deleteLeavesNothing() async throws {
        let vault = FileManager.default.temporaryDirectory.appendingPathComponent("selene-vault-\(UUID())").path
        try FileManager.default.createDirectory(atPath: vault, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: vault) }
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.obsidianVault = vault }) { app, clock in
                for text in Self.garden { try await app.note(text) }
                let doomed = try await app.note("I need to buy compost for the garden bed and tomatoes. Remember to water the garden.")
                try await app.process()
                let thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(thread.noteCount == 4)
                let tasks: TaskList = try await app.call(.GET, "/api/threads/\(thread.id)/tasks")
                #expect(tasks.tasks.contains { $0.sourceNoteId == doomed.id })
                _ = try await app.call(.POST, "/webhook/api/export-obsidian", as: ExportResult.self)
                let notesFolder = vault + "/Selene/Notes"
                #expect(try FileManager.default.contentsOfDirectory(atPath: notesFolder).contains { $0.hasSuffix(" (\(doomed.id)).md") })
                #expect(try await Self.traces(app, doomed.id).count >= 4)

                clock.advance(by: 60)
                let deleted = try await app.send(.DELETE, "/api/notes/\(doomed.id)")
                #expect(deleted.status == .noContent)
                let traces = try await Self.traces(app, doomed.id)
                #expect(traces == [:], "\(traces)")
                #expect(try await app.send(.GET, "/api/notes/\(doomed.id)").status == .notFound)
                let search: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "water"))
                #expect(search.notes.isEmpty)
                if !TestDatabase.isPostgres {
                    let fts = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM notes_fts WHERE notes_fts MATCH 'water'").first()!.decode(column: "n", as: Int.self)
                    #expect(fts == 0)
                }
                #expect(app.selene.vectors.vector(for: Int(doomed.id)) == nil)
                let retrieved: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "buy compost water the garden"))
                #expect(!retrieved.results.map(\.note.id).contains(doomed.id))
                #expect(try !FileManager.default.contentsOfDirectory(atPath: notesFolder).contains { $0.hasSuffix(" (\(doomed.id)).md") })
                let threadFile = try #require(try FileManager.default.contentsOfDirectory(atPath: vault + "/Selene/Threads").first)
                let listed = try String(contentsOfFile: vault + "/Selene/Threads/" + threadFile, encoding: .utf8)
                #expect(!listed.contains("(\(doomed.id))") && listed.contains("notes: 3"), "\(listed)")
                let after: ThreadDetail = try await app.call(.GET, "/api/threads/\(thread.id)")
                #expect(after.thread.noteCount == 3 && after.thread.momentum < thread.momentum)
                // Its tasks stay (they may be done or still to do), pointing at no note.
                let kept: TaskList = try await app.call(.GET, "/api/threads/\(thread.id)/tasks")
                #expect(kept.tasks.count == tasks.tasks.count && kept.tasks.allSatisfy { $0.sourceNoteId == nil })
                #expect(try await app.send(.DELETE, "/api/notes/\(doomed.id)").status == .notFound)
            }
        }
    }

    @Test("A Drafts draft edited and sent again updates its note (200) and is worked out again; SELENE_DRAFTS_RESEND=keep keeps the first")
    func draftsResend() async throws {
        try await withStub { stub in
            for resend in SeleneConfig.DraftsResend.allCases {
                try await withSelene(stub: stub, adjust: { $0.draftsResend = resend }) { app, _ in
                    let draft = DraftsCapture(content: "Call the plumber about the sink", uuid: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
                    let first = try await app.send(.POST, "/webhook/api/drafts", json: draft).decode(Note.self)
                    try await app.process()
                    var edited = draft
                    edited.content = "Call the plumber about the kitchen sink and the leaking tap"
                    edited.title = "Plumber"
                    let again = try await app.send(.POST, "/webhook/api/drafts", json: edited)
                    #expect(again.status == .ok)
                    let note = try again.decode(Note.self)
                    #expect(note.id == first.id)
                    switch resend {
                    case .update:
                        #expect(note.content == edited.content && note.title == "Plumber" && note.status == .pending)
                        try await app.process()
                        #expect(try await app.call(.GET, "/api/notes/\(first.id)", as: Note.self).status == .done)
                    case .keep:
                        #expect(note.content == draft.content && note.title == nil && note.status == .done)
                    }
                    // The same version again changes nothing.
                    let same = try await app.send(.POST, "/webhook/api/drafts", json: edited)
                    let unchanged = try same.decode(Note.self)
                    #expect(same.status == .ok && unchanged.status == .done)
                    #expect(try await app.noteCount() == 1)
                }
            }
        }
    }
}
