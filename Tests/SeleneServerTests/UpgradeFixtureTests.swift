import Foundation
@testable import SeleneServer
import SeleneShared
import ServerCommon
import TestDatabases
import Testing
import VaporTesting

/// A second brain made by an earlier version (`Tests/Fixtures/upgrade/selene-*`, made by that
/// version's own binaries with scripts/make-upgrade-fixtures: notes processed by the stand-in
/// model — embeddings, a thread, a task —, one edited and one deleted, a memory, a conversation)
/// opens with today's code, migrates, and answers as it did, on the suite's database.
@Suite("Upgrades keep everything (Selene)")
struct UpgradeFixtureTests {
    static let fixtures = UpgradeFixtures.folders("selene")

    @Test("There is a fixture of an earlier version for each database")
    func present() {
        #expect(!Self.fixtures.isEmpty)
        for folder in Self.fixtures {
            for part in ["sqlite/database.sqlite", "sqlite/expected.json", "postgres/database.pgdump", "postgres/expected.json"] {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(part).path), "\(folder.lastPathComponent) lacks \(part)")
            }
        }
    }

    @Test("An earlier version's second brain migrates and answers every note, thread, conversation, memory and task as it did; the deleted note stays deleted; search finds by the words", arguments: fixtures)
    func secondBrain(_ folder: URL) async throws {
        let source = folder.appendingPathComponent(TestDatabase.isPostgres ? "postgres" : "sqlite")
        let expected = try #require(try UpgradeFixtures.json(source.appendingPathComponent("expected.json")) as? [String: Any])
        let token = try #require(expected["token"] as? String)
        // The fixture restored as an operator restores a backup, then today's migrations.
        try await withTestApplication(prefix: "selene-upgrade", logLevel: .error, configure: { app, dataDir, postgresURL in
            let database: ServerDatabase = postgresURL.map { .postgres(url: $0) } ?? .sqliteFile(path: dataDir + "/selene.sqlite")
            try await DatabaseBackup.restore(from: source.path, into: database, occupiedBy: "notes", replace: false)
            var config = SeleneConfig(database: database, dataDirectory: dataDir, apiTokens: [token])
            config.briefingHour = nil
            try await configure(app, config: config)
        }) { app in
            for (name, path) in [("notes", "/api/notes?limit=100"), ("threads", "/api/threads"), ("sessions", "/api/sessions"),
                                 ("memories", "/api/memories"), ("tasks", "/api/tasks")] {
                let answer = try await app.send(.GET, path, token: token)
                #expect(answer.status == .ok, "\(path): \(answer.status)")
                let today = try JSONSerialization.jsonObject(with: Data(buffer: answer.body))
                let differences = UpgradeFixtures.differences(old: expected[name] as Any, new: today)
                #expect(differences.isEmpty, "\(name): \(differences.prefix(20).joined(separator: "\n"))")
            }
            let deleted = try #require(expected["deleted"] as? Int)
            #expect(try await app.send(.GET, "/api/notes/\(deleted)", token: token).status == .notFound)
            // The full-text index came along: the edited note is found by its new words.
            let found = try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "pension letter"), token: token, as: SearchResponse.self)
            #expect(found.notes.contains { $0.title == "Taxes" })
        }
    }
}
