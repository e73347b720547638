import Foundation
import GRDB
import ServerCommon
import StitchCore
@testable import StitchKit
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

/// A database made by an earlier version (`Tests/Fixtures/upgrade/stitchuation-*`, made by that
/// version's own binaries with scripts/make-upgrade-fixtures) opens with today's code, migrates,
/// and answers every record as that version did — on the suite's database (the SQLite file, or the
/// PostgreSQL dump restored). Likewise the `stitch` CLI's store, StitchKit's, as a phone keeps it.
@Suite("Upgrades keep everything (Stitchuation)")
struct UpgradeFixtureTests {
    static let fixtures = UpgradeFixtures.folders("stitchuation")

    @Test("There is a fixture of an earlier version for each database and for the device's store")
    func present() {
        #expect(!Self.fixtures.isEmpty)
        for folder in Self.fixtures {
            for part in ["sqlite/database.sqlite", "sqlite/expected.json", "postgres/database.pgdump", "postgres/expected.json", "device/stitch.sqlite"] {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(part).path), "\(folder.lastPathComponent) lacks \(part)")
            }
        }
    }

    @Test("The server's database of an earlier version migrates and answers every record, picture, pattern and tombstone as it did", arguments: fixtures)
    func server(_ folder: URL) async throws {
        let source = folder.appendingPathComponent(TestDatabase.isPostgres ? "postgres" : "sqlite")
        let expected = try #require(try UpgradeFixtures.json(source.appendingPathComponent("expected.json")) as? [String: Any])
        // The fixture restored as an operator restores a backup (it is laid out as one), then today's migrations.
        try await withTestApplication(prefix: "stitch-upgrade", logLevel: .warning, configure: { app, dataDir, postgresURL in
            let database: ServerDatabase = postgresURL.map { .postgres(url: $0) } ?? .sqliteFile(path: dataDir + "/stitchuation.sqlite")
            try await DatabaseBackup.restore(from: source.path, into: database, occupiedBy: "users", replace: false)
            _ = try BackupFolders.copyFiles(from: source.appendingPathComponent("images").path, to: dataDir + "/images")
            var config = AppConfig(database: database, dataDirectory: dataDir, jwtSecret: testSecret)
            config.bcryptCost = 4
            try await configure(app, config: config)
        }) { app in
            let login = try await app.send(.POST, "/auth/login", json: LoginRequest(email: try #require(expected["email"] as? String), password: try #require(expected["password"] as? String)))
            try #require(login.status == .ok, "the earlier version's password no longer signs in: \(login.text)")
            let token = try login.decode(AuthResponse.self).accessToken
            // The whole account as the export has it (every record kind; every picture's bytes).
            let export = try await app.send(.GET, "/account/export", token: token)
            let exported = try JSONSerialization.jsonObject(with: Data(buffer: export.body))
            let exportDifferences = UpgradeFixtures.differences(old: try #require(expected["export"]), new: exported, ignoring: ["exportedAt", "format"])
            #expect(exportDifferences.isEmpty, "\(exportDifferences.prefix(20).joined(separator: "\n"))")
            // A device syncing from the start: the same records and tombstones.
            let pull = try await app.send(.POST, "/sync", token: token, json: SyncRequest(cursor: nil, clientId: UUID(), changes: [], limit: 5000))
            let pulled = try JSONSerialization.jsonObject(with: Data(buffer: pull.body))
            let old = try #require(expected["pull"] as? [String: Any])
            let pullDifferences = UpgradeFixtures.differences(old: old["changes"] as Any, new: (pulled as? [String: Any])?["changes"] as Any)
            #expect(pullDifferences.isEmpty, "\(pullDifferences.prefix(20).joined(separator: "\n"))")
            let changes = try #require(old["changes"] as? [[String: Any]])
            #expect(changes.contains { $0["deletedAt"] is String }, "the fixture holds tombstones")
            // Each stored picture and pattern file is served.
            for picture in try #require((expected["export"] as? [String: Any])?["pictures"] as? [[String: Any]]) {
                let key = try #require(picture["key"] as? String)
                #expect(try await app.send(.GET, "/images/\(key)", token: token).status == .ok, "\(key)")
            }
        }
    }

    @Test("The device's store of an earlier version (the stitch CLI's, StitchKit's as on a phone) opens, migrates and lists what it did", arguments: fixtures)
    func device(_ folder: URL) throws {
        let expected = try #require(try UpgradeFixtures.json(folder.appendingPathComponent("device/expected.json")) as? [String: Any])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-device-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.copyItem(atPath: folder.appendingPathComponent("device/stitch.sqlite").path, toPath: path)
        let store = try LocalStore(path: path)
        var threads = ThreadListModel()
        try threads.load(from: store)
        var stash = StashModel()
        try stash.load(from: store)
        let canvases = Dictionary(try store.all(Canvas.self).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let projects = try store.all(Project.self).sorted { $0.startedAt > $1.startedAt }
            .map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) }
        func encoded<T: Encodable>(_ value: T) throws -> Any { try JSONSerialization.jsonObject(with: try StitchJSON.encodePretty(value)) }
        for (name, today) in [("threads", try encoded(threads.threads)), ("canvases", try encoded(stash.canvases)), ("projects", try encoded(projects))] {
            let differences = UpgradeFixtures.differences(old: expected[name] as Any, new: today)
            #expect(differences.isEmpty, "\(name): \(differences.prefix(20).joined(separator: "\n"))")
        }
        #expect((expected["threads"] as? [Any])?.isEmpty == false && (expected["projects"] as? [Any])?.isEmpty == false)
        // Nothing it had not sent is lost, and it syncs on from where it was.
        #expect(try store.pendingChanges().isEmpty)
    }
}
