import Fluent
import Foundation
import SQLKit
import StitchCore
@testable import StitchKit
@testable import StitchServer
import Testing
import VaporTesting

/// #79 (4): tombstones end. Past the horizon (`TOMBSTONE_DAYS`, 90) a deleted record's row goes;
/// a device that last synced before then is told to sync from the start, and does so keeping
/// what it hasn't sent and bringing back nothing that was deleted.
@Suite("Tombstones end: removed after the horizon; an old device syncs from the start and loses only edits of what is gone")
struct TombstoneHorizonTests {
    static let day: TimeInterval = 86_400
    /// Sign-ins that outlast the months these tests skip (the horizon is what is tested, not expiry).
    static func longSessions(_ config: inout AppConfig) {
        config.accessTokenLifetime = 400 * day
        config.refreshTokenLifetime = 400 * day
    }

    @Test("Housekeeping removes tombstones past the horizon (children with their parent), notes the account's version, and leaves younger ones and other accounts alone")
    func removal() async throws {
        try await withTestApp(adjust: Self.longSessions) { app, clock in
            let ann = try await TestUser.make(app)
            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            let old = try await ann.thread("DMC", "310")
            let project = try await ann.create("/projects", ["name": "Sampler", "status": "planned"], as: ProjectDetail.self).project
            let entry = try await ann.create("/projects/\(project.id.wireText)/entries", ["notes": "Started the border"], as: JournalEntry.self)
            let beas = try await bea.thread("DMC", "310")
            for (user, path) in [(ann, "/threads/\(old.id.wireText)"), (ann, "/projects/\(project.id.wireText)"), (bea, "/threads/\(beas.id.wireText)")] {
                #expect(try await user.send(.DELETE, path).status == .noContent)
            }
            let deletedAt = try await ann.syncVersion()
            clock.advance(by: 60 * Self.day)
            let young = try await ann.thread("DMC", "321")
            #expect(try await ann.send(.DELETE, "/threads/\(young.id.wireText)").status == .noContent)

            // 89 days on: nothing is old enough.
            clock.advance(by: 29 * Self.day)
            #expect(try await Deletions.removeTombstones(now: clock.now, days: 90, db: app.db) == 0)
            #expect(try await Self.removedThrough(ann.id, app) == 0)

            // 91 days on: the project with its entry, and both accounts' threads; the younger stays.
            clock.advance(by: 2 * Self.day)
            #expect(try await Deletions.removeTombstones(now: clock.now, days: 90, db: app.db) == 4)
            #expect(try await Self.removedThrough(ann.id, app) == deletedAt)
            #expect(try await Self.removedThrough(bea.id, app) == (try await bea.syncVersion()))
            for (model, id) in [(ThreadModel.schema, old.id), (ProjectModel.schema, project.id), (JournalEntryModel.schema, entry.id), (ThreadModel.schema, beas.id)] {
                #expect(try await app.db.sql.raw("SELECT 1 AS one FROM \(ident: model) WHERE id = \(bind: id)").first() == nil, "\(model) \(id)")
            }
            #expect(try await app.db.sql.raw("SELECT 1 AS one FROM threads WHERE id = \(bind: young.id)").first() != nil)
            // Again: nothing more.
            #expect(try await Deletions.removeTombstones(now: clock.now, days: 90, db: app.db) == 0)
        }
    }

    @Test("TOMBSTONE_DAYS: 90 unless set; shorter than the days a delete can be undone is refused at start")
    func setting() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tombstone-config-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let logger = Logger(label: "test")
        #expect(try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir], logger: logger).tombstoneDays == 90)
        #expect(try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir, "TOMBSTONE_DAYS": "365"], logger: logger).tombstoneDays == 365)
        for bad in ["29", "ninety", "0", "-5"] {
            #expect(throws: ConfigError.self) {
                try AppConfig.fromEnvironment(.development, variables: ["DATA_DIR": dir, "TOMBSTONE_DAYS": bad], logger: logger)
            }
        }
    }

    @Test("A tablet offline past the horizon: its cursor is refused (409, nothing applied), it pulls from the start, forgets what was deleted, drops and names its edit of it, and pushes the thread it made; the phone, synced meanwhile, carries on")
    func oldDeviceSyncsFromScratch() async throws {
        try await withLiveServer(adjust: Self.longSessions) { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let tablet = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "tess@example.com", password: "correct horse", displayName: "Tess")
            _ = try await tablet.api.login(email: "tess@example.com", password: "correct horse")
            let black = try phone.store.save(InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now))
            let red = try phone.store.save(InventoryThread(brand: "DMC", number: "321", quantity: 1, createdAt: clock.now, updatedAt: clock.now))
            let gold = try phone.store.save(InventoryThread(brand: "DMC", number: "3865", quantity: 1, createdAt: clock.now, updatedAt: clock.now))
            try await phone.engine.sync()
            try await tablet.engine.sync()
            let oldCursor = try #require(try tablet.store.cursor)

            // The tablet goes into a drawer with an edit of DMC 310 and a thread it made.
            clock.advance(by: 60)
            var edit = try #require(try tablet.store.find(InventoryThread.self, id: black.id))
            edit.quantity = 6
            try tablet.store.save(edit)
            let made = try tablet.store.save(InventoryThread(brand: "Anchor", number: "403", quantity: 3, createdAt: clock.now, updatedAt: clock.now))
            var goldEdit = try #require(try tablet.store.find(InventoryThread.self, id: gold.id))
            goldEdit.notes = "for the halo"
            try tablet.store.save(goldEdit)
            // The phone deletes DMC 310 and DMC 321, and syncs on for months.
            clock.advance(by: 60)
            try phone.store.delete(InventoryThread.self, id: black.id)
            try phone.store.delete(InventoryThread.self, id: red.id)
            try await phone.engine.sync()
            clock.advance(by: 91 * Self.day)
            _ = try phone.store.save(InventoryThread(brand: "DMC", number: "444", quantity: 1, createdAt: clock.now, updatedAt: clock.now))
            try await phone.engine.sync()
            #expect(try await Deletions.removeTombstones(now: clock.now, days: app.config.tombstoneDays, db: app.db) == 2)

            // The old cursor is refused before anything it carries is applied.
            let token = try #require(try tablet.tokens.load()?.accessToken)
            let stale = SyncRequest(cursor: oldCursor, clientId: UUID(), changes: [try SyncChange(record: edit)])
            let refused = try await app.send(.POST, "/sync", token: token, json: stale)
            #expect(refused.status == .conflict, "\(refused.text)")
            let body = try refused.decode(APIErrorBody.self)
            #expect(body.fields?["cursor"] != nil && body.error.contains("90 days"), "\(body)")
            #expect(try await app.db.sql.raw("SELECT 1 AS one FROM threads WHERE id = \(bind: black.id)").first() == nil, "nothing applied")
            // A pull-only page with it is refused too; from the start is not.
            #expect(try await app.send(.POST, "/sync", token: token, json: SyncRequest(cursor: oldCursor, clientId: UUID(), changes: [])).status == .conflict)
            #expect(try await app.send(.POST, "/sync", token: token, json: SyncRequest(cursor: nil, clientId: UUID(), changes: [])).status == .ok)

            // The phone's cursor is past the removed tombstones: it syncs as ever.
            try await phone.engine.sync()
            #expect(try await phone.engine.status().lastError == nil)

            // The tablet: from the start, in small pages.
            await tablet.engine.setPageSize(2)
            try await tablet.engine.sync()
            let status = try await tablet.engine.status()
            #expect(status.lastError == nil && status.rejected.isEmpty, "\(status)")
            #expect(status.deletedElsewhere == ["DMC 310"], "the edit of a thread deleted long ago is dropped and named: \(status)")
            #expect(try tablet.store.pendingCount() == 0)
            #expect(try tablet.store.all(InventoryThread.self, includeDeleted: true).allSatisfy { $0.id != black.id && $0.id != red.id })
            #expect(try tablet.store.find(InventoryThread.self, id: made.id)?.quantity == 3, "the thread it made is kept")
            #expect(try tablet.store.find(InventoryThread.self, id: gold.id)?.notes == "for the halo", "an edit of a live record is kept")

            let stored = try await serverState(app, userId: session.user.id)
            #expect(stored["thread/\(black.id)"] == nil && stored["thread/\(red.id)"] == nil, "nothing deleted came back")
            #expect(stored["thread/\(made.id)"] != nil)
            #expect(try await app.db.sql.raw("SELECT 1 AS one FROM threads WHERE id = \(bind: black.id)").first() == nil)
            try await phone.engine.sync()
            #expect(try tablet.state() == stored && phone.state() == stored)
            // Again: nothing more to say.
            try await tablet.engine.sync()
            #expect(try await tablet.engine.status().deletedElsewhere.isEmpty)
        }
    }

    @Test("A sync from the start cut off part-way resumes from the start's pages, still pushing nothing until the pull is done")
    func interruptedFromScratch() async throws {
        try await withLiveServer(adjust: Self.longSessions) { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let tablet = try Device(server: server, clock: clock)
            _ = try await phone.api.register(email: "ivy@example.com", password: "correct horse", displayName: "Ivy")
            _ = try await tablet.api.login(email: "ivy@example.com", password: "correct horse")
            let gone = try phone.store.save(InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now))
            for i in 0..<6 { _ = try phone.store.save(InventoryThread(brand: "DMC", number: "\(700 + i)", createdAt: clock.now, updatedAt: clock.now)) }
            try await phone.engine.sync()
            try await tablet.engine.sync()
            clock.advance(by: 60)
            var edit = try #require(try tablet.store.find(InventoryThread.self, id: gone.id))
            edit.quantity = 9
            try tablet.store.save(edit)
            try phone.store.delete(InventoryThread.self, id: gone.id)
            try await phone.engine.sync()
            clock.advance(by: 91 * Self.day)
            #expect(try await Deletions.removeTombstones(now: clock.now, days: 90, db: app.db) == 1)

            // The first page of the sync from the start arrives; the device stops there.
            await tablet.engine.setPageSize(2)
            let api = tablet.api
            let first = try await api.syncPage(SyncRequest(cursor: nil, clientId: UUID(), changes: [], limit: 2)).response()
            try tablet.store.beginFromScratch()
            try tablet.store.applyPulled(first.changes, cursor: first.cursor, at: clock.now, fromScratch: true)
            #expect(try tablet.store.isSyncingFromScratch)
            // Next launch: the rest of the pull, then the sweep, then the push.
            try await tablet.engine.sync()
            #expect(try await tablet.engine.status().deletedElsewhere == ["DMC 310"])
            #expect(try !tablet.store.isSyncingFromScratch && tablet.store.pendingCount() == 0)
            #expect(try await app.db.sql.raw("SELECT 1 AS one FROM threads WHERE id = \(bind: gone.id)").first() == nil)
            #expect(try tablet.store.all(InventoryThread.self).count == 6)
        }
    }

    @Test("The web app's changes kept past the horizon: a thread made offline is kept; an edit or a −/+ of a thread whose tombstone is gone is refused by name and brings nothing back")
    func webOutboxPastHorizon() async throws {
        try await withTestApp(adjust: Self.longSessions) { app, clock in
            let ann = try await TestUser.make(app)
            let black = try await ann.thread("DMC", "310", quantity: 1)
            let madeAt = Timestamp.string(from: clock.now.addingTimeInterval(10))
            clock.advance(by: 60)
            #expect(try await ann.send(.DELETE, "/threads/\(black.id.wireText)").status == .noContent)
            clock.advance(by: 91 * Self.day)
            #expect(try await Deletions.removeTombstones(now: clock.now, days: 90, db: app.db) == 1)
            // The page that kept them is signed in again (its session ran out meanwhile).
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let fresh: HTTPHeaders = ["X-CSRF-Token": try await web.csrf(from: "/app/inventory/new")]

            let made = UUID(), step = UUID()
            let body = PWATests.kept([
                ("thread", black.id, #"{"quantity":4}"#, madeAt),
                ("step", step, #"{"thread":"\#(black.id.wireText)","delta":1}"#, madeAt),
                ("thread", made, #"{"brand":"DMC","number":"444","fiberType":"cotton","quantity":2,"createdAt":"\#(madeAt)"}"#, madeAt),
            ], user: ann.id)
            let res = try await web.request(.POST, "/app/sync", json: body, headers: fresh)
            try #require(res.status == .ok, "\(res.text)")
            let answer = try res.decode(PWATests.WebSyncAnswer.self)
            let results = Dictionary(uniqueKeysWithValues: answer.results.map { ($0.id, $0) })
            #expect(results[black.id]?.status == .rejected && results[black.id]?.error?.error.contains("deleted") == true, "\(res.text)")
            #expect(results[step]?.status == .rejected && results[step]?.error?.error.contains("no longer") == true, "\(res.text)")
            #expect(results[made]?.status == .applied, "\(res.text)")
            #expect(try await app.db.sql.raw("SELECT 1 AS one FROM threads WHERE id = \(bind: black.id)").first() == nil)
            #expect(try await ann.get("/threads/\(made.wireText)", as: InventoryThread.self).quantity == 2)
        }
    }

    static func removedThrough(_ user: UUID, _ app: Application) async throws -> Int64 {
        let row = try await app.db.sql.raw("SELECT tombstones_removed_through AS v FROM users WHERE id = \(bind: user)").first()
        return try #require(row).decode(column: "v", as: Int64.self)
    }
}
