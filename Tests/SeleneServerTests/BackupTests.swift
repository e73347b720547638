import Foundation
import OllamaStub
@testable import SeleneServer
import SeleneShared
import ServerCommon
import TestDatabases
import Testing
import VaporTesting

/// `selene backup` / `restore`: the whole second brain, on the suite's database (SQLite, or
/// PostgreSQL with TEST_DATABASE_URL: pg_dump and pg_restore).
@Suite("Selene: backing up and restoring the whole second brain")
struct BackupTests {
    actor Acknowledged {
        var notes: [(id: Int64, content: String, at: Date)] = []
        func add(_ note: Note) { notes.append((note.id, note.content, Date())) }
        func before(_ moment: Date) -> [(id: Int64, content: String)] { notes.filter { $0.at < moment }.map { ($0.id, $0.content) } }
        var count: Int { notes.count }
    }

    @Test("A backup taken during 200 concurrent captures restores on a new machine with every capture acknowledged before it began")
    func duringCaptures() async throws {
        let backups = FileManager.default.temporaryDirectory.appendingPathComponent("selene-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let folder = (backups as NSString).appendingPathComponent("during")
        let acknowledged = Acknowledged()
        var taken: BackupManifest?
        try await withSelene(tokens: [testToken]) { app, _ in
            taken = try await withThrowingTaskGroup(of: BackupManifest?.self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let note = try await app.note("Capture \(i): the thought of the moment", token: testToken)
                        await acknowledged.add(note)
                        return nil
                    }
                }
                group.addTask {
                    while await acknowledged.count < 40 { try await Task.sleep(for: .milliseconds(2)) }
                    return try await SeleneBackup.take(app, to: folder)
                }
                var manifest: BackupManifest?
                for try await result in group { manifest = manifest ?? result }
                return manifest
            }
        }
        let manifest = try #require(taken)
        #expect(manifest.product == "selene" && manifest.version == SeleneVersion.current)
        let promised = await acknowledged.before(manifest.began)
        #expect(promised.count >= 40)
        try await withRestoredSelene(folder) { app in
            for note in promised {
                let back = try await app.send(.GET, "/api/notes/\(note.id)", token: testToken)
                #expect(back.status == .ok && (try? back.decode(Note.self).content) == note.content, "note \(note.id) acknowledged before the backup began is missing")
            }
        }
    }

    @Test("Everything comes back: every table's rows (notes, embeddings, threads, conversations, memories, tasks), the data folder's token, and the Status page says when the last scheduled backup ran")
    func everything() async throws {
        let backups = FileManager.default.temporaryDirectory.appendingPathComponent("selene-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: backups) }
        var before: [String: Int] = [:]
        var folder = ""
        try await withStub { stub in
            try await withSelene(tokens: [testToken], stub: stub, adjust: { $0.backups = BackupSettings(directory: backups, every: 3600, keep: 3) }) { app, clock in
                let first = try await app.note(ThreadsAndBriefingTests.garden[0], token: testToken)
                try await app.note(ThreadsAndBriefingTests.garden[1], token: testToken)
                try await app.process()
                clock.advance(by: 3600)
                try await app.note(ThreadsAndBriefingTests.garden[2], token: testToken)
                try await app.note("TODO: buy compost for the raised bed", token: testToken)
                try await app.process()
                _ = try await app.send(.PUT, "/api/notes/\(first.id)", token: testToken, json: NoteEdit(content: "Planted tomatoes, basil and chives in the raised bed"))
                _ = try await app.call(.POST, "/api/memories", json: NewMemory(content: "Gardens on weekends", type: .preference, confidence: 0.8), token: testToken, as: CreatedId.self)
                let session = ChatSession(title: "Garden", messages: [ChatMessage(role: .user, content: "What did I plant?", createdAt: clock.now)], createdAt: clock.now, updatedAt: clock.now)
                #expect(try await app.send(.PUT, "/api/sessions/\(session.id)", token: testToken, json: session).status == .created)
                try "a-token-of-this-machine\n".write(toFile: (app.selene.config.dataDirectory as NSString).appendingPathComponent("api-token"), atomically: true, encoding: .utf8)
                before = try await rowCounts(app)
                for table in ["notes", "note_embeddings", "threads", "thread_notes", "memories", "chat_sessions", "thread_tasks"] {
                    #expect(before[table, default: 0] > 0, "\(table) has no rows to check: \(before)")
                }
                // A scheduled round, as the server takes them; the Status page says when.
                let schedule = BackupSchedule(settings: try #require(app.selene.config.backups), product: SeleneBackup.product) { app, folder, _ in
                    try await SeleneBackup.take(app, to: folder)
                }
                folder = try #require(try await schedule.round(app))
                let (cookie, _) = try await SafeDefaultTests.browserCookies(app, token: testToken)
                let status = try await app.send(.GET, "/app/status", headers: ["Cookie": cookie]).text
                let last = try #require(SeleneBackup.lastScheduled(app.selene.config))
                #expect(status.contains("Last backup finished \(WireDate.string(from: last))"), "\(status)")
            }
        }
        try await withRestoredSelene(folder) { app in
            #expect(try await rowCounts(app) == before)
            let token = try String(contentsOfFile: (app.selene.config.dataDirectory as NSString).appendingPathComponent("api-token"), encoding: .utf8)
            #expect(token == "a-token-of-this-machine\n")
            let notes = try await app.call(.GET, "/api/notes", token: testToken, as: NoteList.self).notes
            #expect(notes.contains { $0.content == "Planted tomatoes, basil and chives in the raised bed" })
        }
    }

    @Test("Restore refuses a second brain that holds notes unless --replace, and a backup that isn't Selene's")
    func refuses() async throws {
        let backups = FileManager.default.temporaryDirectory.appendingPathComponent("selene-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let folder = (backups as NSString).appendingPathComponent("one")
        try await withSelene(tokens: [testToken]) { app, _ in
            try await app.note("The one from the backup", token: testToken)
            try await SeleneBackup.take(app, to: folder)
        }
        // A new machine brought back from it, where a note is then written: a second restore
        // without --replace is refused before anything is touched.
        try await withRestoredSelene(folder) { app in
            try await app.note("Written on the new machine", token: testToken)
            do {
                try await SeleneBackup.restore(from: folder, config: app.selene.config, replace: false)
                Issue.record("restored over notes without --replace")
            } catch let error as BackupError {
                #expect(error.description.contains("already holds data") && error.description.contains("--replace"), "\(error)")
            }
            #expect(try await app.noteCount() == 2)
        }
        var stitch = try BackupManifest.read(from: folder, product: "selene")
        stitch.product = "stitchuation"
        let other = (backups as NSString).appendingPathComponent("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try stitch.write(into: other)
        let config = SeleneConfig(database: .sqliteFile(path: backups + "/x/selene.sqlite"), dataDirectory: backups + "/x")
        await #expect(throws: BackupError.self) { try await SeleneBackup.restore(from: other, config: config, replace: true) }
    }

    /// Rows in every table of the application's database.
    private func rowCounts(_ app: Application) async throws -> [String: Int] {
        struct Name: Decodable { var name: String }
        struct Count: Decodable { var n: Int }
        let sql = app.db.sql
        let tables = TestDatabase.isPostgres
            ? try await sql.raw("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'").all(decoding: Name.self)
            : try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all(decoding: Name.self)
        var counts: [String: Int] = [:]
        for table in tables.map(\.name) {
            counts[table] = try await sql.raw("SELECT count(*) AS n FROM \(ident: table)").first(decoding: Count.self)?.n ?? 0
        }
        return counts
    }

    /// Restores `folder` into a new data folder (and, on PostgreSQL, a new database) and starts
    /// Selene on it, migrating as `serve` does.
    private func withRestoredSelene(_ folder: String, _ body: (Application) async throws -> Void) async throws {
        try await withTestApplication(prefix: "selene-restored", logLevel: .error, configure: { app, dataDir, postgresURL in
            let database: ServerDatabase = postgresURL.map { .postgres(url: $0) } ?? .sqliteFile(path: (dataDir as NSString).appendingPathComponent("selene.sqlite"))
            var config = SeleneConfig(database: database, dataDirectory: dataDir, apiTokens: [testToken])
            config.briefingHour = nil
            try await SeleneBackup.restore(from: folder, config: config, replace: false)
            try await configure(app, config: config)
        }, body)
    }
}
