import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import Vapor

/// #85 (1): what the model understood about a note — its concepts, people, places and themes, its thread's name,
/// the days it mentions as dates — is searched beside its words, and kept current when the note
/// is processed, edited, moved, or its thread renamed (SQLite and PostgreSQL alike).
@Suite("What the model understood is searchable")
struct NoteFactsTests {
    static func day(_ text: String) -> Date { QueryAnalyzer.utcCalendar.date(from: DateComponents(
        year: Int(text.prefix(4)), month: Int(text.dropFirst(5).prefix(2)), day: Int(text.suffix(2))))! }

    @Test("Days a note names, resolved at its moment: yesterday, last Friday, next Monday, 3 March, March 4th 2025, 3 days ago, an ISO date")
    func dates() {
        let written = Self.day("2026-11-24").addingTimeInterval(15 * 3600)  // a Tuesday afternoon
        let text = "Yesterday the boiler broke. Booked the plumber for next Monday; the quote from last Friday was too high. "
            + "Flights on 3 March, insurance renewed March 4th, 2025, paid 3 days ago, due 2026-12-25. Today I rested."
        let found = DateMentions.dates(in: text, at: written).map { Self.iso($0) }
        #expect(found == ["2026-11-23", "2026-11-30", "2026-11-20", "2026-03-03", "2025-03-04", "2026-11-21", "2026-12-25", "2026-11-24"], "\(found)")
        #expect(DateMentions.words(in: "see you tomorrow", at: written) == ["2026-11-25 Wednesday 25 November 2026"])
        #expect(DateMentions.dates(in: "On the 45th of Smarch, in 2026-13-40", at: written).isEmpty)
        let facts = NoteFacts.text(concepts: ["Sam", "moving abroad", "sam"], themes: ["relocation"], threadName: "Sam's move",
                                   content: "Signed for the flat today", writtenAt: written)
        #expect(facts == "Sam · moving abroad · relocation · Sam's move · 2026-11-24 Tuesday 24 November 2026", "\(facts)")
        #expect(NoteFacts.text(concepts: [String(repeating: "long ", count: 1_000)], themes: [], threadName: nil, content: "", writtenAt: written).count
                == NoteFacts.maxCharacters)
    }

    @Test("selene reprocess: notes read before people and places were asked for get them, their thread, links and embedding kept; one without a name isn't asked; an invalid reading keeps the old; a failing model server stops the run and the next goes on; a note deleted or edited meanwhile stays so, each said")
    func reprocess() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let walk = try await app.note("Long walk with Omar to Greenwich, then tea and a long talk about the garden.")
                let dinner = try await app.note("Dinner with Priya at Lucca, then a walk home through the garden.")
                let bread = try await app.note("bread rose well; the starter likes the warm shelf in the garden room.")
                try await app.process()
                let ids = [walk, dinner, bread].map { Int($0.id) }
                // As a version before #85 left them: read without people and places.
                try await app.db.sql.raw("UPDATE processed_notes SET people = NULL, places = NULL").run()
                try await NoteFactsStore(db: app.db).refresh(noteIds: ids)
                func snapshot() async throws -> [String] {
                    try await app.db.sql.raw("SELECT 't' || note_id || ':' || thread_id AS row FROM thread_notes").all()
                        .map { try $0.decode(column: "row", as: String.self) }
                        + app.db.sql.raw("SELECT 'a' || note_a_id || ':' || note_b_id AS row FROM note_associations").all()
                        .map { try $0.decode(column: "row", as: String.self) }
                        + app.db.sql.raw("SELECT 'e' || note_id || ':' || model || ':' || embedded_at AS row FROM note_embeddings").all()
                        .map { try $0.decode(column: "row", as: String.self) }
                }
                let before = try await snapshot().sorted()
                func facts(_ id: Int) async throws -> String {
                    try await app.db.sql.raw("SELECT facts FROM notes WHERE id = \(bind: id)").first()?.decode(column: "facts", as: String?.self) ?? ""
                }
                let oldFacts = try await facts(ids[0])
                #expect(!oldFacts.contains("Greenwich"), "\(oldFacts)")
                let reprocess = { try await Reanalyser(db: app.db, services: app.selene, logger: app.logger).run(all: false) { _, _ in } }

                // A model server that fails: the run stops with its error; nothing changed.
                stub.setFault(.serverError)
                await #expect(throws: (any Error).self) { try await reprocess() }
                stub.setFault(.none)
                // An answer that stays invalid: the note keeps its earlier reading, said by the report.
                stub.clearRequests()
                stub.setFault(.invalidJSON)
                let invalid = try await reprocess()
                stub.setFault(.none)
                #expect(invalid.read == 0 && invalid.kept.map(\.id) == [ids[0], ids[1]] && invalid.nameless == 1, "\(invalid)")
                #expect(!stub.requests.contains { $0.prompt.contains("bread rose well") })
                let kept: Note = try await app.call(.GET, "/api/notes/\(walk.id)")
                #expect(kept.analysis?.people == [] && kept.analysis?.primaryTheme.isEmpty == false)
                // The next run goes on with the notes still to read: not the nameless one, marked already.
                stub.clearRequests()
                let report = try await reprocess()
                #expect(report.read == 2 && report.nameless == 0 && report.kept.isEmpty, "\(report)")
                #expect(stub.requests.filter(\.hasFormat).count == 2)
                let read: Note = try await app.call(.GET, "/api/notes/\(walk.id)")
                #expect(read.analysis?.people == ["Omar"] && read.analysis?.places == ["Greenwich"], "\(String(describing: read.analysis))")
                let walkFacts = try await facts(ids[0])
                // Its facts written again from the new reading: the place as the model wrote it.
                #expect(walkFacts.contains("Greenwich"), "\(walkFacts)")
                let nameless: Note = try await app.call(.GET, "/api/notes/\(bread.id)")
                #expect(nameless.analysis?.people == [] && nameless.analysis?.places == [])
                // What else processing made of them stays as it was.
                #expect(try await snapshot().sorted() == before)
                // Nothing left to read.
                #expect(try await reprocess().read == 0)

                // Someone else at the note meanwhile (the web app, another device): while the model
                // reads every note again, one is deleted and one edited. Nothing is written for the
                // deleted one (it stays gone), the edit is kept, and the report tells the two apart.
                stub.clearRequests()
                stub.setFault(.slow, slowSeconds: 0.6)
                let run = Task { try await Reanalyser(db: app.db, services: app.selene, logger: app.logger).run(all: true) { _, _ in } }
                func whileReading(_ words: String) async throws {
                    while !stub.requests.contains(where: { $0.hasFormat && $0.prompt.contains(words) }) { try await Task.sleep(for: .milliseconds(20)) }
                }
                try await whileReading("Long walk with Omar")
                #expect(try await app.send(.DELETE, "/api/notes/\(walk.id)").status == .noContent)
                try await whileReading("Dinner with Priya")
                _ = try await app.send(.PUT, "/api/notes/\(dinner.id)", json: NoteEdit(content: "Dinner with Priya and Sam at Lucca, then home."))
                let during = try await run.value
                stub.setFault(.none)
                #expect(during.deleted == 1 && during.edited == 1 && during.read == 1, "\(during)")
                #expect(try await app.db.sql.raw("SELECT note_id FROM processed_notes WHERE note_id = \(bind: ids[0])").all().isEmpty)
                let edited: Note = try await app.call(.GET, "/api/notes/\(dinner.id)")
                #expect(edited.content.contains("Sam") && edited.status != .done, "\(edited.status)")
            }
        }
    }

    @Test("A chat export's turn is dated by its header: its days resolved at the day it was said, that day among its facts, not the import's")
    func chatTurnDays() {
        let imported = Self.day("2026-11-24")
        #expect(ChatTurn.day(of: "[03/03/2024, 19:42] Priya: I went to the dentist yesterday").map(Self.iso) == "2024-03-03")
        #expect(ChatTurn.day(of: "Maya (7:42 pm on 3 March, 2024): ran a half marathon last Sunday").map(Self.iso) == "2024-03-03")
        #expect(ChatTurn.day(of: "[12/25/2024, 08:00] Tom: merry Christmas").map(Self.iso) == "2024-12-25")
        #expect(ChatTurn.day(of: "[2024-03-03 19:42] Tom: hi").map(Self.iso) == "2024-03-03")
        #expect(ChatTurn.day(of: "[3.3.24, 19:42] Tom: hi").map(Self.iso) == "2024-03-03")
        for notATurn in ["[31/02/2024, 10:00] Tom: no such day", "Maya (7:42 pm): no day in it", "Boiler: broke again",
                         "Retro (the long one): more time for testing", "Yesterday 03/03/2024 was fine"] {
            #expect(ChatTurn.day(of: notATurn) == nil, "\(notATurn)")
        }
        #expect(NoteFacts.text(concepts: ["dentist"], themes: [], threadName: nil,
                               content: "[03/03/2024, 19:42] Priya: I went to the dentist yesterday", writtenAt: imported)
                == "dentist · 2024-03-03 Sunday 3 March 2024 · 2024-03-02 Saturday 2 March 2024")
        #expect(NoteFacts.text(concepts: [], themes: [], threadName: nil,
                               content: "Maya (7:42 pm on 3 March, 2024): ran a half marathon last Sunday", writtenAt: imported)
                == "2024-03-03 Sunday 3 March 2024 · 2024-02-25 Sunday 25 February 2024")
        // A note of one's own keeps its own moment.
        #expect(NoteFacts.text(concepts: [], themes: [], threadName: nil, content: "Boiler: broke yesterday", writtenAt: imported)
                == "2026-11-23 Monday 23 November 2026")
    }

    static func iso(_ date: Date) -> String {
        let c = QueryAnalyzer.utcCalendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    @Test("A note the model understood as Sam's move is found by it; not before it is processed, not after its words change until processed again; its thread's new name finds it too")
    func understoodIsSearched() async throws {
        try await withStub { stub in
            stub.understand(containing: "flat in Lisbon", as: NoteAnalysis(
                concepts: [Concept(name: "Sam", confidence: 0.9), Concept(name: "moving abroad", confidence: 0.8)],
                primaryTheme: "relocation", secondaryThemes: ["Portugal"], sentiment: .positive, sentimentScore: 0.6,
                emotionalTone: "hopeful", energyLevel: .high, noteType: .log, actionability: .none))
            try await withSelene(stub: stub) { app, clock in
                let search = KeywordSearch(db: app.db)
                let lisbon = try await app.note("Signed for the flat in Lisbon today! Keys on Friday.")
                let other = try await app.note("Bread rose well; the starter likes the warm shelf.")
                #expect(try await search.rank("Sam's move abroad", limit: 10).isEmpty, "only its words are searched before processing")
                try await app.process()
                #expect(try await search.rank("Sam's move abroad", limit: 10) == [Int(lisbon.id)])
                #expect(try await search.rank("relocation Portugal", limit: 10) == [Int(lisbon.id)])
                #expect(try await search.rank("Sam's move abroad", limit: 10, wordsOnly: true).isEmpty, "facts can be left out")
                // The hybrid retrieval a chat uses: the note is the first answer to the question.
                let retrieved = try await Retriever(db: app.db, services: app.selene, tuning: .default).retrieve("Sam's move abroad", limit: 5)
                #expect(retrieved.results.first?.note.id == lisbon.id, "\(retrieved.results.map(\.note.id))")
                // The day it was written (the test clock's), found by its date.
                let words = DateMentions.words(in: "today", at: lisbon.createdAt)[0].split(separator: " ").map(String.init)
                #expect(try await search.rank("\(words[2]) \(words[3])", limit: 10, all: true) == [Int(lisbon.id)], "\(words)")
                // A phrase is the note's own words in order, never two facts side by side.
                #expect(try await search.rank(phrases: ["Sam moving"], limit: 10).isEmpty)
                #expect(try await search.rank(phrases: ["flat in Lisbon"], limit: 10) == [Int(lisbon.id)])

                // Its thread, named by the person: found by that name.
                var home = try await Self.threadOf(lisbon, app)
                if home == nil { home = try await Self.newThread(app, notes: [lisbon, other]) }
                let thread = try await ThreadEditor(db: app.db, services: app.selene, logger: app.logger)
                    .split(home!, notes: [Int(lisbon.id)], name: "Expat paperwork")
                #expect(try await search.rank("expat paperwork", limit: 10) == [Int(lisbon.id)], "\(thread)")

                // Edited: what was understood of the old words is no longer searched, until processed again.
                clock.advance(by: 60)
                let edit = try await app.send(.PUT, "/api/notes/\(lisbon.id)", json: NewNote(content: "Signed for the flat in Porto after all."))
                #expect(edit.status == .ok, "\(edit.text)")
                #expect(try await search.rank("Sam's move abroad", limit: 10).isEmpty)
                try await app.process()
                #expect(try await search.rank("Porto", limit: 10) == [Int(lisbon.id)])
            }
        }
    }

    @Test("The people and places the model named are stored with the note, read back over the API and searched — those the note names, not those the model made up; the stand-in names them too")
    func peopleAndPlaces() async throws {
        try await withStub { stub in
            stub.understand(containing: "lasagne", as: NoteAnalysis(
                concepts: [Concept(name: "dinner", confidence: 0.9)], primaryTheme: "family dinner", secondaryThemes: [],
                sentiment: .positive, sentimentScore: 0.5, emotionalTone: "warm", energyLevel: .medium, noteType: .log,
                actionability: .none, people: ["Aunt Rosa", "Sylvia"], places: ["Trattoria Lucca", "New York"]))
            try await withSelene(stub: stub) { app, _ in
                let search = KeywordSearch(db: app.db)
                let dinner = try await app.note("Saturday dinner with aunt Rosa at trattoria Lucca: the lasagne was perfect, as ever.")
                let walk = try await app.note("Long walk with Omar to Greenwich, then tea.")
                let bread = try await app.note("bread rose well; the starter likes the warm shelf.")
                try await app.process()
                // A note without a name isn't asked for people and places; one with a name is.
                let asked = stub.requests.filter { $0.hasFormat }
                #expect(asked.contains { $0.prompt.contains("the lasagne") && $0.prompt.contains("people and places") })
                #expect(asked.contains { $0.prompt.contains("bread rose well") && !$0.prompt.contains("people and places") })
                // Asked among the note's own names: the schema's enum.
                let lasagne = asked.first { $0.prompt.contains("the lasagne") }?.schema
                #expect(lasagne?["properties"]?["whoItNames"]?["items"]?["enum"] == .array([.string("Rosa"), .string("Lucca")]), "\(String(describing: lasagne))")
                let plain: Note = try await app.call(.GET, "/api/notes/\(bread.id)")
                #expect(plain.analysis?.people == [] && plain.analysis?.places == [])
                // Whom and where the note names; not whom the model made up (the note names no Sylvia, no New York).
                #expect(try await search.rank("Sylvia", limit: 10).isEmpty)
                #expect(try await search.rank("New York", limit: 10, all: true).isEmpty)
                let read = try await app.send(.GET, "/api/notes/\(dinner.id)")
                let note: Note = try await app.call(.GET, "/api/notes/\(dinner.id)")
                #expect(note.analysis?.people == ["Aunt Rosa"] && note.analysis?.places == ["Trattoria Lucca"], "\(read.text)")
                let dinnerFacts = try await app.db.sql.raw("SELECT facts FROM notes WHERE id = \(bind: Int(dinner.id))").first()?.decode(column: "facts", as: String?.self)
                #expect(dinnerFacts?.hasPrefix("dinner · Aunt Rosa · Trattoria Lucca · family dinner") == true, "\(dinnerFacts ?? "none")")
                #expect(read.text.contains("\"people\":[\"Aunt Rosa\"]"), "\(read.text)")
                // The stand-in's own reading: a capitalised word after "to" is a place, another one a person.
                let other: Note = try await app.call(.GET, "/api/notes/\(walk.id)")
                #expect(other.analysis?.people == ["Omar"] && other.analysis?.places == ["Greenwich"], "\(String(describing: other.analysis))")
                let facts = try await app.db.sql.raw("SELECT facts FROM notes WHERE id = \(bind: Int(walk.id))").first()?.decode(column: "facts", as: String?.self)
                #expect(facts?.contains("Greenwich") == true, "\(facts ?? "none")")
            }
        }
    }

    static func threadOf(_ note: Note, _ app: Application) async throws -> Int? {
        try await app.db.sql.raw("SELECT thread_id FROM thread_notes WHERE note_id = \(bind: Int(note.id))").first()?.decode(column: "thread_id", as: Int.self)
    }

    /// A thread made by hand for notes the stand-in's vectors keep apart.
    static func newThread(_ app: Application, notes: [Note]) async throws -> Int {
        let id = try await app.db.sql.raw("""
            INSERT INTO threads (name, summary, status, momentum, last_activity_at, created_at, name_by_person, summary_note_count)
            VALUES ('Misc', '', 'active', 0, \(bind: Date()), \(bind: Date()), \(bind: true), 0) RETURNING id
            """).first()!.decode(column: "id", as: Int.self)
        for note in notes {
            try await app.db.sql.raw("INSERT INTO thread_notes (thread_id, note_id, added_at) VALUES (\(bind: id), \(bind: Int(note.id)), \(bind: Date()))").run()
        }
        return id
    }
}
