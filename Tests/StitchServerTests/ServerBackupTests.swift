import Foundation
import NIOConcurrencyHelpers
import ServerCommon
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

/// The operator's backup of the whole server (`stitchuation backup` / `restore`), on the suite's
/// database (SQLite, or PostgreSQL with TEST_DATABASE_URL: pg_dump and pg_restore).
@Suite("Backing up and restoring the whole server")
struct ServerBackupTests {
    /// Writes acknowledged, with when: what a backup begun later must hold.
    actor Acknowledged {
        var writes: [(id: UUID, user: Int, at: Date)] = []
        func add(_ id: UUID, user: Int) { writes.append((id, user, Date())) }
        func before(_ moment: Date) -> [(id: UUID, user: Int)] { writes.filter { $0.at < moment }.map { ($0.id, $0.user) } }
        var count: Int { writes.count }
    }

    @Test("A backup taken while two people's devices write (one over the API, one syncing batches) restores on a new server with every write acknowledged before it began, and the restored server serves their photos")
    func backupDuringWrites() async throws {
        let backups = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let folder = (backups as NSString).appendingPathComponent("first")
        var photos: [(key: String, bytes: Data, user: Int)] = []
        var credentials: [(email: String, id: UUID)] = []
        var manifest: BackupManifest?
        let acknowledged = Acknowledged()
        try await withTestApp { app, clock in
            let people = [try await TestUser.make(app, email: "ann@example.com"), try await TestUser.make(app, email: "bea@example.com", name: "Bea")]
            credentials = [("ann@example.com", people[0].id), ("bea@example.com", people[1].id)]
            for (n, person) in people.enumerated() {
                let canvas = try await person.canvas("Canvas of \(n)")
                let res = try await person.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(Fixtures.jpeg)])
                let key = try #require(try res.decode(Canvas.self).imageKey)
                let served = try await person.send(.GET, "/images/\(key)")
                photos.append((key, Data(buffer: served.body), n))
            }
            // Both devices write threads as fast as they are answered; the backup is taken meanwhile.
            let stop = NIOLockedValueBox(false)
            manifest = try await withThrowingTaskGroup(of: BackupManifest?.self) { group in
                // Ann's device writes one thread at a time over the API.
                group.addTask {
                    var i = 0
                    while !stop.withLockedValue({ $0 }) {
                        let thread = try await people[0].thread("DMC", "0-\(i)", quantity: i % 5)
                        await acknowledged.add(thread.id, user: 0)
                        i += 1
                    }
                    return nil
                }
                // Bea's syncs batches of three; a thread counts once its push answered "applied".
                group.addTask {
                    var i = 0
                    let device = UUID()
                    while !stop.withLockedValue({ $0 }) {
                        let threads = (0..<3).map { k in
                            InventoryThread(brand: "Anchor", number: "1-\(i)-\(k)", quantity: k, createdAt: clock.now, updatedAt: clock.now)
                        }
                        let answer = try await people[1].sync(syncRequest(try threads.map { try SyncChange(record: $0) }, client: device))
                        for result in answer.results where result.status == .applied { await acknowledged.add(result.id, user: 1) }
                        i += 1
                    }
                    return nil
                }
                group.addTask {
                    while await acknowledged.count < 20 { try await Task.sleep(for: .milliseconds(5)) }
                    let taken = try await ServerBackup.take(app, to: folder)
                    // Writes go on after the copy began and finished; some more, then stop.
                    let after = await acknowledged.count
                    while await acknowledged.count < after + 10 { try await Task.sleep(for: .milliseconds(5)) }
                    stop.withLockedValue { $0 = true }
                    return taken
                }
                var taken: BackupManifest?
                for try await result in group { taken = taken ?? result }
                return taken
            }
        }
        let taken = try #require(manifest)
        #expect(taken.product == "stitchuation" && taken.version == StitchVersion.current && taken.files >= 2)
        #expect(taken.database == (TestDatabase.isPostgres ? "postgresql" : "sqlite"))
        let promised = await acknowledged.before(taken.began)
        #expect(promised.count >= 20)

        try await withRestored(folder) { app in
            for (n, person) in credentials.enumerated() {
                let res = try await login(app, email: person.email)
                try #require(res.status == .ok, "\(res.text)")
                let user = TestUser(app: app, auth: try res.decode(AuthResponse.self))
                #expect(user.id == person.id)
                let threads = Set(try await user.get("/threads", as: [InventoryThread].self).map(\.id))
                let missing = promised.filter { $0.user == n && !threads.contains($0.id) }
                #expect(missing.isEmpty, "\(missing.count) acknowledged writes of person \(n) are not in the restored server")
                for photo in photos where photo.user == n {
                    let served = try await user.send(.GET, "/images/\(photo.key)")
                    #expect(served.status == .ok && Data(buffer: served.body) == photo.bytes)
                }
                // Each person still sees only their own.
                for photo in photos where photo.user != n {
                    #expect(try await user.send(.GET, "/images/\(photo.key)").status == .notFound)
                }
            }
        }
    }

    @Test("Restore refuses a database that holds accounts (changing nothing) unless told to replace it; an unfinished backup or another product's is refused")
    func restoreRefuses() async throws {
        let backups = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-backup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: backups) }
        let folder = (backups as NSString).appendingPathComponent("one")
        try await withTestApp { app, _ in
            _ = try await TestUser.make(app, email: "ann@example.com")
            try await ServerBackup.take(app, to: folder)
            // A folder that holds something already is never written into.
            await #expect(throws: BackupError.self) { try await ServerBackup.take(app, to: folder) }
        }
        try await withRestored(folder) { app in
            // This server now holds Ann; someone signs up.
            #expect(try await login(app, email: "ann@example.com").status == .ok)
            _ = try await TestUser.make(app, email: "cat@example.com", name: "Cat")
        } between: { config in
            // The server stopped: a restore without --replace is refused and changes nothing.
            do {
                try await ServerBackup.restore(from: folder, config: config, replace: false)
                Issue.record("a restore over accounts went ahead without --replace")
            } catch let error as BackupError {
                #expect(error.description.contains("already holds data") && error.description.contains("--replace"), "\(error)")
            }
        } again: { (app: Application) async throws in
            #expect(try await login(app, email: "cat@example.com").status == .ok, "the refused restore changed nothing")
        } between: { config in
            try await ServerBackup.restore(from: folder, config: config, replace: true)
        } again: { (app: Application) async throws in
            #expect(try await login(app, email: "ann@example.com").status == .ok)
            #expect(try await login(app, email: "cat@example.com").status == .unauthorized)
        }
        // Unfinished (no manifest) and another product's backups.
        let unfinished = (backups as NSString).appendingPathComponent("unfinished")
        try FileManager.default.createDirectory(atPath: unfinished, withIntermediateDirectories: true)
        let config = AppConfig(database: .sqliteFile(path: (backups as NSString).appendingPathComponent("x/stitchuation.sqlite")), dataDirectory: backups + "/x", jwtSecret: testSecret)
        await #expect(throws: BackupError.self) { try await ServerBackup.restore(from: unfinished, config: config, replace: true) }
        var other = try BackupManifest.read(from: folder, product: "stitchuation")
        other.product = "selene"
        try other.write(into: unfinished)
        do {
            try await ServerBackup.restore(from: unfinished, config: config, replace: true)
            Issue.record("another product's backup was restored")
        } catch let error as BackupError {
            #expect(error.description.contains("selene"))
        }
        #expect(!FileManager.default.fileExists(atPath: backups + "/x/stitchuation.sqlite"))
    }

    @Test("Scheduled backups: one when the newest is due, the newest kept, stored files linked from the one before")
    func scheduled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-backups-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let key = try #require(try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(Fixtures.jpeg)]).decode(Canvas.self).imageKey)
            let schedule = BackupSchedule(settings: BackupSettings(directory: directory, every: 3600, keep: 2), product: ServerBackup.product) { app, folder, previous in
                try await ServerBackup.take(app, to: folder, previous: previous)
            }
            let start = Date()
            let first = try #require(try await schedule.round(app, now: start))
            #expect(try await schedule.round(app, now: start.addingTimeInterval(60)) == nil, "not due yet")
            let second = try #require(try await schedule.round(app, now: start.addingTimeInterval(3 * 3600)))
            // The photo's file is the same file in both (a hard link), not a second copy.
            let inode = { (folder: String) in (try? FileManager.default.attributesOfItem(atPath: "\(folder)/images/\(key)"))?[.systemFileNumber] as? UInt64 }
            #expect(inode(first) != nil && inode(first) == inode(second))
            _ = try #require(try await schedule.round(app, now: start.addingTimeInterval(6 * 3600)))
            let kept = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(kept.count == 2 && !kept.contains((first as NSString).lastPathComponent), "\(kept)")
            #expect(BackupSchedule.lastFinished(in: directory, product: ServerBackup.product) != nil)
        }
        // Settings from the environment, and values refused by name.
        let none = try BackupSettings.fromEnvironment([:])
        #expect(none == nil)
        let given = try BackupSettings.fromEnvironment(["BACKUP_DIR": "/b", "BACKUP_EVERY_HOURS": "6", "BACKUP_KEEP": "3"])
        #expect(given == BackupSettings(directory: "/b", every: 6 * 3600, keep: 3))
        #expect(throws: BackupError.self) { _ = try BackupSettings.fromEnvironment(["BACKUP_DIR": "/b", "BACKUP_KEEP": "0"]) }
        #expect(throws: BackupError.self) { _ = try BackupSettings.fromEnvironment(["BACKUP_DIR": "/b", "BACKUP_EVERY_HOURS": "daily"]) }
    }

    /// Restores `folder` into a new data folder (and, on PostgreSQL, a new database), starts a
    /// server on it (migrating as `serve` does) and runs `body`; then, with the server stopped,
    /// each `between` step, and each `again` on a new start.
    private func withRestored(
        _ folder: String, _ body: @escaping (Application) async throws -> Void,
        between first: @escaping (AppConfig) async throws -> Void = { _ in }, again firstAgain: @escaping (Application) async throws -> Void = { _ in },
        between second: @escaping (AppConfig) async throws -> Void = { _ in }, again secondAgain: @escaping (Application) async throws -> Void = { _ in }
    ) async throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-restored-\(UUID().uuidString)").path
        let created = TestDatabase.isPostgres ? try await TestDatabase.createPostgresDatabase() : nil
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let database: ServerDatabase = created.map { .postgres(url: $0.url) } ?? .sqliteFile(path: (dataDir as NSString).appendingPathComponent("stitchuation.sqlite"))
        var config = AppConfig(database: database, dataDirectory: dataDir, jwtSecret: testSecret)
        config.bcryptCost = 4
        do {
            try await ServerBackup.restore(from: folder, config: config, replace: false)
            let starts: [(stopped: (AppConfig) async throws -> Void, started: (Application) async throws -> Void)] = [({ _ in }, body), (first, firstAgain), (second, secondAgain)]
            for (stopped, step) in starts {
                try await stopped(config)
                let app = try await Application.make(.testing)
                app.logger.logLevel = .warning
                try await withClosing(app, close: { try await $0.asyncShutdown() }) { _ in
                    try await configure(app, config: config)
                    try await app.autoMigrate()
                    try await step(app)
                }
            }
        } catch {
            if let created { try? await TestDatabase.dropPostgresDatabase(created.name) }
            throw error
        }
        if let created { try await TestDatabase.dropPostgresDatabase(created.name) }
    }
}
