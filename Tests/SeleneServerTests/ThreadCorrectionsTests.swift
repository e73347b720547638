import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

/// Threads the person corrects (rename, move a note, merge, split a sub-project off) and that stay
/// true as they grow (name and summary written again by a stated rule); on SQLite and PostgreSQL.
@Suite("Threads the person corrects, and that keep up as they grow")
struct ThreadCorrectionsTests {
    static let garden = ThreadsAndBriefingTests.garden
    static let bike = [
        "Bike chain needs oil and the bike gears skip on the hill",
        "Bike gears: the bike chain skips on the hill, oil the chain",
        "The bike chain and bike gears want a service before the hill ride",
    ]

    /// Every thread with the contents of its notes.
    static func threads(_ app: Application, token: String? = nil) async throws -> [(thread: NoteThread, notes: [String])] {
        var out: [(NoteThread, [String])] = []
        for status in ThreadStatus.allCases {
            for thread in (try await app.call(.GET, "/api/threads?status=\(status.rawValue)&limit=100", token: token, as: ThreadList.self)).threads {
                out.append((thread, try await app.call(.GET, "/api/threads/\(thread.id)", token: token, as: ThreadDetail.self).notes.map(\.content)))
            }
        }
        return out
    }

    /// A maintenance pass as the background runs it: unthreaded notes placed, momentum, summaries.
    static func maintain(_ app: Application) async throws {
        let service = ThreadService(db: app.db, services: app.selene, logger: app.logger)
        _ = try await service.placeUnthreaded()
        try await service.refresh(now: app.selene.clock.now())
        try await service.rewriteSummaries()
    }

    @Test("Rename, move a note (to a thread, out of any), split a sub-project off and merge it back — each survives the next maintenance pass and a note's edit")
    func corrections() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                var notes: [Note] = []
                for text in Self.garden + Self.bike { notes.append(try await app.note(text)) }
                try await app.process()
                var all = try await Self.threads(app)
                #expect(all.count == 2, "\(all.map(\.thread.name))")
                let garden = try #require(all.first { $0.notes.contains(Self.garden[0]) }?.thread)
                let bike = try #require(all.first { $0.notes.contains(Self.bike[0]) }?.thread)

                // Renamed: the person's name.
                let renamed = try await app.call(.PUT, "/api/threads/\(garden.id)", json: ThreadRename(name: "  Our vegetable garden "), as: NoteThread.self)
                #expect(renamed.name == "Our vegetable garden")
                // A bike note moved out of every thread, another into the garden.
                let out = notes[3], moved = notes[4]
                #expect(try await app.call(.PUT, "/api/notes/\(out.id)/thread", json: NotePlacement(threadId: nil), as: NotePlacement.self).threadId == nil)
                #expect(try await app.call(.PUT, "/api/notes/\(moved.id)/thread", json: NotePlacement(threadId: garden.id), as: NotePlacement.self).threadId == garden.id)
                clock.advance(by: 3600)
                try await Self.maintain(app)
                // Edited (worked out again: analysis, embedding, thread): it stays where it was put.
                #expect(try await app.send(.PATCH, "/api/notes/\(out.id)", json: NoteEdit(content: Self.bike[0] + " Again.")).status == .ok)
                try await app.process()
                try await Self.maintain(app)
                all = try await Self.threads(app)
                #expect(all.first { $0.thread.id == garden.id }?.notes.contains(moved.content) == true)
                #expect(all.first { $0.thread.id == bike.id }?.notes.contains(moved.content) == false)
                #expect(!all.contains { $0.notes.contains { $0.hasPrefix(Self.bike[0]) } }, "the note taken out stays out")
                #expect(all.first { $0.thread.id == garden.id }?.thread.name == "Our vegetable garden")

                // A sub-project split off: its own thread with those notes, kept after maintenance.
                let split = try await app.send(.POST, "/api/threads/\(garden.id)/split", json: ThreadSplit(noteIds: [notes[0].id, moved.id], name: "Beds"))
                #expect(split.status == .created, "\(split.text)")
                let beds = try split.decode(NoteThread.self)
                #expect(beds.name == "Beds" && beds.noteCount == 2)
                try await Self.maintain(app)
                all = try await Self.threads(app)
                #expect(Set(all.first { $0.thread.id == beds.id }?.notes ?? []) == [notes[0].content, moved.content])
                #expect(all.first { $0.thread.id == beds.id }?.thread.name == "Beds", "a split's name is the person's")
                // Merged back: gone, its notes in the garden again.
                let merged = try await app.call(.POST, "/api/threads/\(beds.id)/merge", json: ThreadMerge(into: garden.id), as: NoteThread.self)
                #expect(merged.id == garden.id && merged.noteCount == 4)
                #expect(try await app.send(.GET, "/api/threads/\(beds.id)").status == .notFound)
                try await Self.maintain(app)
                #expect(try await app.call(.GET, "/api/threads/\(garden.id)", as: ThreadDetail.self).notes.count == 4)

                // Bad requests change nothing.
                for (method, path, body, status) in [
                    (HTTPMethod.PUT, "/api/threads/\(garden.id)", #"{"name":"  "}"#, HTTPStatus.badRequest),
                    (.PUT, "/api/threads/\(garden.id)", #"{"name":"\#(String(repeating: "n", count: 61))"}"#, .badRequest),
                    (.PUT, "/api/threads/999999", #"{"name":"x"}"#, .notFound),
                    (.POST, "/api/threads/\(garden.id)/merge", #"{"into":\#(garden.id)}"#, .conflict),
                    (.POST, "/api/threads/\(garden.id)/merge", #"{"into":999999}"#, .conflict),
                    (.POST, "/api/threads/\(garden.id)/split", #"{"noteIds":[\#(notes[5].id)],"name":"Chains"}"#, .conflict),
                    (.POST, "/api/threads/\(garden.id)/split", #"{"noteIds":[],"name":"Nothing"}"#, .badRequest),
                    (.PUT, "/api/notes/\(notes[0].id)/thread", #"{}"#, .badRequest),
                    (.PUT, "/api/notes/\(notes[0].id)/thread", #"{"threadId":999999}"#, .conflict),
                    (.PUT, "/api/notes/999999/thread", #"{"threadId":null}"#, .notFound),
                ] {
                    let res = try await app.send(method, path, raw: body)
                    #expect(res.status == status, "\(method) \(path) \(body): \(res.status) \(res.text)")
                }
                #expect(try await app.call(.GET, "/api/threads/\(garden.id)", as: ThreadDetail.self).notes.count == 4)
                #expect(try await Self.threads(app).count == 2)
                _ = stub
            }
        }
    }

    @Test("Corrections and conversations changed on another connection — another process's, like `selene reindex` beside the server — while notes are captured: none fails as 'database is locked' (SQLite in WAL mode, as the server runs it)")
    func correctionsWhileCapturing() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { config in
                if case .sqliteMemory = config.database {
                    config.database = .sqliteFile(path: (config.dataDirectory as NSString).appendingPathComponent("selene.sqlite"))
                }
            }) { app, clock in
                var notes: [Note] = []
                for text in Self.garden { notes.append(try await app.note(text)) }
                try await app.process()
                let garden = try #require(try await Self.threads(app).first?.thread)
                let sessions = (0..<10).map { ChatSession(title: "Plans \($0)", createdAt: clock.now, updatedAt: clock.now) }
                for session in sessions { _ = try await ConversationStore(db: app.db).save(session) }
                // A connection that isn't the server's writer (on PostgreSQL any connection is one).
                let loops = Array(app.eventLoopGroup.makeIterator())
                let other = app.databases.database(logger: app.logger, on: loops.first { $0 !== app.selene.writerLoop } ?? loops[0])!
                let noteIds = notes.map { Int($0.id) }, gardenId = Int(garden.id), sessionIds = sessions.map(\.id)
                let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                    // Transactions that read, then write, one after another...
                    group.addTask {
                        var failed: [String] = []
                        let editor = ThreadEditor(db: other, services: app.selene, logger: app.logger)
                        for i in 0..<30 {
                            do {
                                try await editor.move(note: noteIds[i % noteIds.count], to: i % 2 == 0 ? nil : gardenId)
                                if i < sessionIds.count { _ = try await ConversationStore(db: other).delete(sessionIds[i]) }
                            } catch { failed.append("correction \(i): \(String(reflecting: error))") }
                        }
                        return failed
                    }
                    // ... while captures commit on the writer.
                    for i in 0..<30 {
                        group.addTask {
                            do { _ = try await app.note("Captured meanwhile \(i)"); return [] }
                            catch { return ["capture \(i): \(String(reflecting: error))"] }
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0 += $1 }
                }
                #expect(failures.isEmpty, "\(failures.prefix(3))")
                #expect(try await app.noteCount() == notes.count + 30)
                #expect(try await ConversationStore(db: app.db).sessions().isEmpty)
            }
        }
    }

    @Test("A thread's summary is written again once it has grown (3 notes, or half again), the person's name kept; the old one stays while the model is down or answers junk")
    func summariesKeepUp() async throws {
        #expect(ThreadService.needsRewrite(notes: 5, atSummary: 3) == false && ThreadService.needsRewrite(notes: 6, atSummary: 3))
        #expect(ThreadService.needsRewrite(notes: 14, atSummary: 10) == false && ThreadService.needsRewrite(notes: 15, atSummary: 10))
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                for text in Self.garden { try await app.note(text) }
                try await app.process()
                let garden = try #require(try await Self.threads(app).first?.thread)
                _ = try await app.call(.PUT, "/api/threads/\(garden.id)", json: ThreadRename(name: "My garden"), as: NoteThread.self)
                let service = ThreadService(db: app.db, services: app.selene, logger: app.logger)
                #expect(try await service.rewriteSummaries().isEmpty, "nothing new yet")
                for text in ["Compost for the garden bed: tomatoes want garden soil with compost", "The garden bed tomatoes: more compost in the soil",
                             "Garden soil, compost and tomatoes for the raised garden bed"] {
                    try await app.note(text)
                }
                try await app.process()
                #expect(try await Self.threads(app).first?.notes.count == 6)
                // The model down: the old summary stays, and the thread is tried again next pass.
                stub.setFault(.serverError)
                clock.advance(by: 60)
                #expect(try await service.rewriteSummaries().isEmpty)
                stub.setFault(.none)
                let namings = stub.requests.filter { $0.hasFormat }.count
                #expect(try await service.rewriteSummaries() == [Int(garden.id)])
                #expect(stub.requests.filter { $0.hasFormat }.count == namings + 1)
                let model = try #require(try await ThreadModel.find(Int(garden.id), on: app.db))
                #expect(model.name == "My garden" && model.summaryNoteCount == 6 && model.summaryAt == app.selene.clock.now())
                #expect(model.summary.hasPrefix("Notes about"), "\(model.summary)")
                // Junk: the old summary stays until the thread grows again.
                for text in ["Tomatoes in the garden bed, compost on top", "Garden bed compost: tomatoes again", "The raised garden bed tomatoes and compost"] {
                    try await app.note(text)
                }
                try await app.process()
                let before = try #require(try await ThreadModel.find(Int(garden.id), on: app.db)).summary
                stub.setFault(.invalidJSON)
                #expect(try await service.rewriteSummaries().isEmpty)
                stub.setFault(.none)
                #expect(try await service.rewriteSummaries().isEmpty, "not again until it grows")
                let after = try #require(try await ThreadModel.find(Int(garden.id), on: app.db))
                #expect(after.summary == before && after.summaryNoteCount == 9 && after.name == "My garden")
            }
        }
    }

    @Test("On the web: a thread's Rename and Merge, a note's Move and a sub-project's Split off, each with the form's token")
    func onTheWeb() async throws {
        try await withStub { stub in
            try await withSelene(tokens: [testToken], stub: stub) { app, _ in
                var notes: [Note] = []
                for text in Self.garden + Self.bike { notes.append(try await app.note(text, token: testToken)) }
                try await app.process()
                let all = try await Self.threads(app, token: testToken)
                let garden = try #require(all.first { $0.notes.contains(Self.garden[0]) }?.thread)
                let bike = try #require(all.first { $0.notes.contains(Self.bike[0]) }?.thread)
                let (cookie, csrf) = try await SafeDefaultTests.browserCookies(app, token: testToken)
                func post(_ path: String, _ body: String) async throws -> TestingHTTPResponse {
                    try await app.send(.POST, path, raw: body + "&_csrf=\(csrf)", headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
                }
                let page = try await app.send(.GET, "/app/threads/\(garden.id)", headers: ["Cookie": cookie]).text
                #expect(page.contains("Rename or merge") && page.contains("action=\"/app/threads/\(garden.id)/merge\""))
                for note in notes.prefix(3) { #expect(page.contains("action=\"/app/notes/\(note.id)/thread\"")) }

                let renamed = try await post("/app/threads/\(garden.id)/rename", "name=Vegetable+garden")
                #expect(renamed.status == .seeOther && renamed.headers.first(name: .location)?.hasPrefix("/app/threads/\(garden.id)?flash=Renamed") == true)
                let refused = try await post("/app/threads/\(garden.id)/rename", "name=+")
                #expect(refused.headers.first(name: .location)?.contains("flash=a%20thread") == true, "\(refused.headers)")
                let moved = try await post("/app/notes/\(notes[3].id)/thread", "thread=\(garden.id)&back=/app/threads/\(bike.id)")
                #expect(moved.status == .seeOther && moved.headers.first(name: .location)?.hasPrefix("/app/threads/\(bike.id)?flash=Moved") == true)
                let away = try await post("/app/notes/\(notes[4].id)/thread", "thread=&back=//evil.example/x")
                #expect(away.headers.first(name: .location)?.hasPrefix("/app/notes/\(notes[4].id)?") == true, "back only to a page of the app")
                let merged = try await post("/app/threads/\(bike.id)/merge", "into=\(garden.id)")
                #expect(merged.headers.first(name: .location)?.hasPrefix("/app/threads/\(garden.id)?flash=Merged") == true)
                let forged = try await app.send(.POST, "/app/threads/\(garden.id)/rename", raw: "name=x&_csrf=forged",
                                                headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
                #expect(forged.status == .forbidden)
                let detail = try await app.call(.GET, "/api/threads/\(garden.id)", token: testToken, as: ThreadDetail.self)
                #expect(detail.thread.name == "Vegetable garden" && detail.notes.count == 5 && !detail.notes.contains { $0.id == notes[4].id })
                #expect(try await app.send(.GET, "/api/threads/\(bike.id)", token: testToken).status == .notFound)
                // Split off from the web form: the named notes leave for a thread of their own.
                let split = try await post("/app/threads/\(garden.id)/split", "name=Bike+care&notes=\(notes[3].id),\(notes[5].id)")
                #expect(split.status == .seeOther && split.headers.first(name: .location)?.contains("flash=Split") == true, "\(split.headers)")
                #expect(try await app.call(.GET, "/api/threads/\(garden.id)", token: testToken, as: ThreadDetail.self).notes.count == 3)
                _ = stub
            }
        }
    }
}
