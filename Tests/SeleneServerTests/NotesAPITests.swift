import Foundation
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Selene notes API")
struct NotesAPITests {
    @Test("The Drafts webhook is idempotent: the same draft sent three times is one note")
    func draftsIdempotent() async throws {
        try await withSelene { app, clock in
            let draft = DraftsCapture(content: "Walk by the river at dawn", title: "Dawn", uuid: "6F9619FF-8B86-D011-B42D-00C04FC964FF",
                                      tags: ["#walks", "morning"], createdAt: clock.now.addingTimeInterval(-3600))
            let first = try await app.send(.POST, "/webhook/api/drafts", json: draft)
            #expect(first.status == .created)
            let note = try first.decode(Note.self)
            #expect(note.source == .drafts && note.title == "Dawn" && note.tags == ["walks", "morning"])
            #expect(note.sourceUuid == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
            #expect(note.createdAt == clock.now.addingTimeInterval(-3600) && note.status == .pending)
            for _ in 0..<2 {
                let again = try await app.send(.POST, "/webhook/api/drafts", json: draft)
                #expect(again.status == .ok)
                #expect(try again.decode(Note.self).id == note.id)
            }
            // The uuid however it is spelled, even with an edited body, is the same draft.
            var lower = draft
            lower.uuid = draft.uuid!.lowercased()
            #expect(try await app.send(.POST, "/webhook/api/drafts", json: lower).decode(Note.self).id == note.id)
            #expect(try await app.noteCount() == 1)
        }
    }

    @Test("Without a uuid the content hash names the note; typed notes may repeat")
    func hashIdempotency() async throws {
        try await withSelene { app, _ in
            let a = try await app.send(.POST, "/webhook/api/drafts", json: DraftsCapture(content: "Same words"))
            let b = try await app.send(.POST, "/webhook/api/drafts", json: DraftsCapture(content: "Same words"))
            #expect(a.status == .created && b.status == .ok)
            #expect(try a.decode(Note.self).id == b.decode(Note.self).id)
            #expect(try a.decode(Note.self).contentHash == NoteStore.hash("Same words"))
            try await app.note("Typed twice")
            try await app.note("Typed twice")
            #expect(try await app.noteCount() == 3)
        }
    }

    @Test("Concurrent resends of one draft make one note")
    func concurrentResends() async throws {
        try await withSelene { app, _ in
            let draft = DraftsCapture(content: "Race", uuid: "d1")
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for _ in 0..<8 { group.addTask { try await app.send(.POST, "/webhook/api/drafts", json: draft).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .ok }.count == 7)
            #expect(try await app.noteCount() == 1)
        }
    }

    @Test("Notes list newest first, limit default and bounds; a note by id; recent and since")
    func reads() async throws {
        try await withSelene { app, clock in
            var ids: [Int64] = []
            for i in 0..<5 {
                ids.append(try await app.note("Note number \(i)").id)
                clock.advance(by: 86_400)
            }
            let list: NoteList = try await app.call(.GET, "/api/notes")
            #expect(list.count == 5 && list.notes.map(\.id) == ids.reversed())
            let two: NoteList = try await app.call(.GET, "/api/notes?limit=2")
            #expect(two.notes.map(\.id) == Array(ids.reversed().prefix(2)))
            for bad in ["0", "501", "abc", "-3", "1.5"] {
                let res = try await app.send(.GET, "/api/notes?limit=\(bad)")
                #expect(res.status == .badRequest, "limit=\(bad)")
                #expect(res.error?.fields?["limit"] != nil)
            }
            let one: Note = try await app.call(.GET, "/api/notes/\(ids[2])")
            #expect(one.content == "Note number 2")
            #expect(try await app.send(.GET, "/api/notes/999").status == .notFound)
            for bad in ["abc", "-1", "0", "1e3"] {
                #expect(try await app.send(.GET, "/api/notes/\(bad)").status == .badRequest, "id \(bad)")
            }
            // Written at day 0…4; now is day 5.
            let recent: RecentNotes = try await app.call(.GET, "/api/notes/recent?days=2")
            #expect(recent.days == 2 && recent.notes.map(\.content) == ["Note number 4", "Note number 3"])
            #expect(try await app.call(.GET, "/api/notes/recent", as: RecentNotes.self).notes.count == 5)
            #expect(try await app.send(.GET, "/api/notes/recent?days=0").status == .badRequest)
            let day2 = WireDate.day(of: clock.now.addingTimeInterval(-3 * 86_400))
            let since: NotesSince = try await app.call(.GET, "/api/notes/since/\(day2)")
            #expect(since.notes.map(\.content) == ["Note number 4", "Note number 3", "Note number 2"])
            let exact = WireDate.string(from: clock.now.addingTimeInterval(-2 * 86_400))
            #expect(try await app.call(.GET, "/api/notes/since/\(exact)", as: NotesSince.self).notes.count == 2)
            for bad in ["yesterday", "2026-13-01", "2026-02-30T00:00:00Z"] {
                let res = try await app.send(.GET, "/api/notes/since/\(bad)")
                #expect(res.status == .badRequest, "\(bad)")
                #expect(res.error?.fields?["date"] != nil)
            }
        }
    }

    @Test("Keyword search ranks notes by the words they share with the query")
    func keywordSearch() async throws {
        try await withSelene { app, _ in
            try await app.note("Sourdough starter needs feeding", title: "Bread")
            try await app.note("The sourdough loaf came out dense; more starter next time")
            try await app.note("Tax papers are due in April")
            let res: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "sourdough starter"))
            #expect(res.query == "sourdough starter" && res.count == 2)
            #expect(Set(res.notes.map(\.content)) == ["Sourdough starter needs feeding", "The sourdough loaf came out dense; more starter next time"])
            let stemmed: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "feed"))
            #expect(stemmed.notes.map(\.content) == ["Sourdough starter needs feeding"])
            let none: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "the and of"))
            #expect(none.count == 0)
            let quoted: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "\"tax\" OR papers* NEAR("))
            #expect(quoted.notes.map(\.content) == ["Tax papers are due in April"])
            let limited: SearchResponse = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "sourdough", limit: 1))
            #expect(limited.count == 1)
            #expect(try await app.send(.POST, "/api/notes/search", json: SearchRequest(query: "  ")).status == .badRequest)
            #expect(try await app.send(.POST, "/api/notes/search", json: SearchRequest(query: "x", limit: 501)).status == .badRequest)
        }
    }

    @Test("Without an LLM, retrieve and related answer from keyword search and say so")
    func keywordFallback() async throws {
        try await withSelene { app, _ in
            let bread = try await app.note("Sourdough starter needs feeding")
            try await app.note("The sourdough loaf came out dense")
            try await app.note("Tax papers are due in April")
            let res: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "sourdough"))
            #expect(res.source == .keyword && res.count == 2)
            #expect(res.results.allSatisfy { $0.keywordRank != nil && $0.vectorRank == nil })
            let related: RelatedNotes = try await app.call(.GET, "/api/notes/\(bread.id)/related")
            #expect(related.source == .keyword && related.noteId == bread.id)
            #expect(related.results.map(\.note.content) == ["The sourdough loaf came out dense"])
            #expect(related.results.first?.relationshipType == .keyword)
            #expect(try await app.send(.GET, "/api/notes/999/related").status == .notFound)
            let llm = try await app.send(.POST, "/api/llm/generate", json: GenerateRequest(prompt: "hi"))
            #expect(llm.status == .serviceUnavailable && llm.error?.error.contains("SELENE_OLLAMA_URL") == true)
            #expect(try await app.send(.POST, "/api/llm/embed", json: EmbedRequest(text: "hi")).status == .serviceUnavailable)
            #expect(try await app.send(.POST, "/api/llm/chat", json: LLMChatRequest(messages: [LLMMessage(role: .user, content: "hi")])).status == .serviceUnavailable)
            let health: LLMHealth = try await app.call(.GET, "/api/llm/health")
            #expect(!health.available && health.reason != nil)
        }
    }

    @Test("Bad input: a clear error naming the field, and nothing stored")
    func badInput() async throws {
        try await withSelene { app, _ in
            let cases: [(String, String, String?)] = [
                ("{", "malformed", nil),
                ("[]", "not an object", nil),
                (#"{"title":"x"}"#, "no content", "content"),
                (#"{"content":"   \n "}"#, "blank content", "content"),
                (#"{"content":42}"#, "wrong type", "content"),
                (#"{"content":"ok","tags":"one"}"#, "tags not a list", "tags"),
                (#"{"content":"ok","tags":[""]}"#, "empty tag", "tags[0]"),
                (#"{"content":"ok","title":"two\nlines"}"#, "title with a line break", "title"),
                (#"{"content":"nul \u0000 inside"}"#, "NUL", "content"),
                (#"{"content":"ok","createdAt":"yesterday"}"#, "bad date", "createdAt"),
                (#"{"content":"ok","uuid":7}"#, "uuid a number", "uuid"),
            ]
            for (body, what, field) in cases {
                for path in ["/webhook/api/drafts", "/api/notes"] where !(path == "/api/notes" && ["createdAt", "uuid"].contains(field ?? "")) {
                    let res = try await app.send(.POST, path, raw: body)
                    #expect(res.status == .badRequest, "\(what) at \(path) → \(res.status)")
                    #expect(res.error != nil, "\(what): \(res.text)")
                    if let field { #expect(res.error?.fields?[field] != nil, "\(what): \(res.text)") }
                }
            }
            let unknownSource = try await app.send(.POST, "/api/notes", raw: #"{"content":"ok","source":"telegram"}"#)
            #expect(unknownSource.status == .badRequest && unknownSource.error?.fields?["source"] != nil)
            let importSource = try await app.send(.POST, "/api/notes", raw: #"{"content":"ok","source":"drafts"}"#)
            #expect(importSource.status == .badRequest && importSource.error?.fields?["source"] != nil)
            let xml = try await app.send(.POST, "/api/notes", raw: "<note/>", headers: ["Content-Type": "application/xml"])
            #expect(xml.status == .unsupportedMediaType)
            let empty = try await app.send(.POST, "/api/notes", raw: "")
            #expect(empty.status == .badRequest)
            // Over 1 MB: 413, whether the body fits the request limit or not.
            let big = String(repeating: "a", count: SeleneLimits.maxContentBytes + 1)
            let tooBig = try await app.send(.POST, "/api/notes", json: NewNote(content: big))
            #expect(tooBig.status == .payloadTooLarge && tooBig.error?.error.contains("1 MB") == true)
            let huge = try await app.send(.POST, "/webhook/api/drafts", json: DraftsCapture(content: String(repeating: "b", count: 5_000_000)))
            #expect(huge.status == .payloadTooLarge && huge.error != nil)
            // Exactly 1 MB is fine.
            let fits = try await app.send(.POST, "/api/notes", json: NewNote(content: String(repeating: "c", count: SeleneLimits.maxContentBytes)))
            #expect(fits.status == .created)
            #expect(try await app.noteCount() == 1)
            let method = try await app.send(.DELETE, "/api/notes")
            #expect(method.status == .methodNotAllowed && method.headers.first(name: "Allow") != nil && method.error != nil)
            #expect(try await app.send(.GET, "/api/nothing-here").error?.error == "Not found")
        }
    }

    @Test("Thread assignments name only notes that have a thread; bad ids are refused")
    func assignments() async throws {
        try await withSelene { app, _ in
            let a = try await app.note("one")
            let res: ThreadAssignments = try await app.call(.POST, "/api/notes/thread-assignments", json: ThreadAssignmentsRequest(noteIds: [a.id, 99]))
            #expect(res.count == 0)
            #expect(try await app.send(.POST, "/api/notes/thread-assignments", json: ThreadAssignmentsRequest(noteIds: [])).status == .badRequest)
            #expect(try await app.send(.POST, "/api/notes/thread-assignments", json: ThreadAssignmentsRequest(noteIds: [0])).status == .badRequest)
        }
    }
}
