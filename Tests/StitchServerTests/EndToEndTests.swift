import AsyncHTTPClient
import Fluent
import Foundation
import StitchCore
import StitchKit
import TestDatabases
@testable import StitchServer
import Testing
import VaporTesting

/// The real server listening on a random local port, for clients that speak HTTP.
func withLiveServer(prepare: (Application) -> Void = { _ in }, adjust: (inout AppConfig) -> Void = { _ in },
                    _ body: (Application, TestClock, String) async throws -> Void) async throws {
    try await withTestApp(adjust: adjust) { app, clock in
        prepare(app)
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)
        do {
            try await body(app, clock, "http://127.0.0.1:\(port)")
        } catch {
            await app.server.shutdown()
            throw error
        }
        await app.server.shutdown()
    }
}

/// One device: its own local database, session and sync engine.
struct Device {
    let store: LocalStore
    let api: APIClient
    let engine: SyncEngine
    let tokens: MemoryTokenStore

    init(server: String, clock: TestClock) throws {
        store = try LocalStore(path: nil, clock: { clock.now })
        tokens = MemoryTokenStore()
        api = APIClient(tokens: tokens, server: server, timeout: 60)
        engine = SyncEngine(store: store, api: api, sleep: { _ in })
    }

    /// Everything live on the device, by type/id, fingerprinted.
    func state() throws -> [String: String] {
        var out: [String: String] = [:]
        func add<R: LocalRecord>(_ type: R.Type) throws {
            for r in try store.all(R.self) { out["\(R.entityType.rawValue)/\(r.id)"] = ConflictRule.fingerprint(r) }
        }
        try add(InventoryThread.self); try add(Canvas.self); try add(Project.self); try add(ProjectSection.self)
        try add(ProjectThread.self); try add(JournalEntry.self); try add(JournalImage.self)
        return out
    }
}

func serverState(_ app: Application, userId: UUID) async throws -> [String: String] {
    var out: [String: String] = [:]
    func add<M: RecordModel>(_ type: M.Type) async throws {
        for m in try await Records.all(M.self, userId: userId, on: app.db) { out["\(M.Record.entityType.rawValue)/\(m.id!)"] = ConflictRule.fingerprint(m.record) }
    }
    try await add(ThreadModel.self); try await add(CanvasModel.self); try await add(ProjectModel.self); try await add(SectionModel.self)
    try await add(RequirementModel.self); try await add(JournalEntryModel.self); try await add(JournalImageModel.self)
    return out
}

@Suite("End to end: StitchKit clients and the stitch CLI against the real server", .serialized)
struct EndToEndTests {
    @Test("A device pulls many pages, each asked for as soon as the one before has arrived, and ends with everything and nothing pending")
    func pagedPullAhead() async throws {
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let ipad = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "pages@example.com", password: "correct horse", displayName: "Pat")
            _ = try await ipad.api.login(email: "pages@example.com", password: "correct horse")
            for i in 0..<23 {
                _ = try phone.store.save(InventoryThread(brand: "DMC", number: "\(i)", quantity: i % 3, createdAt: clock.now, updatedAt: clock.now))
            }
            try await phone.engine.sync()
            // The iPad has its own edit waiting: it is pushed with the first page, then pages run ahead.
            _ = try ipad.store.save(InventoryThread(brand: "Anchor", number: "1", createdAt: clock.now, updatedAt: clock.now))
            await ipad.engine.setPageSize(4)
            try await ipad.engine.sync()
            #expect(try ipad.store.all(InventoryThread.self).count == 24)
            #expect(try ipad.store.pendingCount() == 0)
            try await phone.engine.sync()
            let server = try await serverState(app, userId: session.user.id)
            #expect(try ipad.state() == server)
            #expect(try phone.state() == server)
            // A second round finds nothing new and changes nothing.
            try await ipad.engine.sync()
            #expect(try ipad.state() == server)
        }
    }

    @Test("A page asked for with the headers' cursor is kept only when the body's agrees; without the headers a device pages as before",
          arguments: [SyncHeaderTamper.Mode.removed, .startCursor, .unknownCursor])
    func pullAheadHeadersDisagree(mode: SyncHeaderTamper.Mode) async throws {
        try await withLiveServer(prepare: { $0.middleware.use(SyncHeaderTamper(mode: mode)) }) { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let ipad = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "headers@example.com", password: "correct horse", displayName: "Pat")
            _ = try await ipad.api.login(email: "headers@example.com", password: "correct horse")
            for i in 0..<23 {
                _ = try phone.store.save(InventoryThread(brand: "DMC", number: "\(i)", createdAt: clock.now, updatedAt: clock.now))
            }
            try await phone.engine.sync()
            await ipad.engine.setPageSize(4)
            try await ipad.engine.sync()
            #expect(try ipad.store.all(InventoryThread.self).count == 23)
            #expect(try ipad.state() == (try await serverState(app, userId: session.user.id)))
            #expect(try await ipad.engine.status().lastError == nil)
        }
    }

    @Test("Requests cancelled at any moment, as they start, in flight or as they end, never crash or hang the client",
          .timeLimit(.minutes(5)))
    func cancelledRequests() async throws {
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.register(email: "cancel@example.com", password: "correct horse", displayName: "Cy")
            for i in 0..<20 {
                _ = try phone.store.save(InventoryThread(brand: "DMC", number: "\(i)", createdAt: clock.now, updatedAt: clock.now))
            }
            try await phone.engine.sync()
            // Linux's URLSession crashed the process ("a task that is not in the registry") when
            // a task was cancelled just as its request completed; every moment is tried here.
            let request = SyncRequest(cursor: nil, clientId: UUID(), changes: [], limit: 5)
            for i in 0..<300 {
                let call = Task { try await phone.api.syncPage(request) }
                if i % 3 > 0 { try await Task.sleep(for: .microseconds(Int.random(in: 0...(i % 3 == 1 ? 500 : 5000)))) }
                call.cancel()
                _ = try? await call.value
            }
            #expect(try await phone.api.syncPage(request).response().changes.count == 5)
            try await phone.engine.sync()
            #expect(try phone.store.pendingCount() == 0)
        }
    }

    @Test("Two devices of one user edit offline, conflict, delete, sync in different orders, and converge")
    func twoDevicesConverge() async throws {
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let ipad = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "ann@example.com", password: "correct horse", displayName: "Ann")
            _ = try await ipad.api.login(email: "ann@example.com", password: "correct horse")

            // The phone builds up some data and syncs; the iPad pulls it.
            let black = try phone.store.save(InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now))
            let canvas = try phone.store.save(Canvas(designer: "Melissa Shirley", designName: "Nutcracker", meshCount: 18, createdAt: clock.now, updatedAt: clock.now))
            var start = StartProjectModel()
            try start.load(from: phone.store)
            let project = try start.start(canvas.id, in: phone.store)
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!
            var detail = ProjectDetailModel(projectId: project.id)
            try detail.load(from: phone.store)
            try detail.addEntry(notes: "Day one", images: [png], in: phone.store)
            try await phone.engine.sync()
            #expect(try phone.store.pendingCount() == 0 && phone.store.stagedImageCount() == 0)
            try await ipad.engine.sync()
            #expect(try ipad.state() == phone.state())
            let uploadedKey = try #require(try ipad.store.all(JournalImage.self).first?.imageKey)
            #expect(!uploadedKey.hasPrefix("local-"))

            // Both go offline and edit: the same thread on both (the iPad later, so it wins), a delete
            // on the phone of what the iPad edits earlier, and new records on each.
            clock.advance(by: 10)
            var phoneEdit = black
            phoneEdit.quantity = 5
            try phone.store.save(phoneEdit)
            try phone.store.delete(Canvas.self, id: UUID())  // nothing there: a no-op
            let phoneOnly = try phone.store.save(InventoryThread(brand: "Appleton", number: "992", createdAt: clock.now, updatedAt: clock.now))
            clock.advance(by: 5)
            var ipadProject = try #require(try ipad.store.find(Project.self, id: project.id))
            ipadProject.notes = "Using basketweave"
            try ipad.store.save(ipadProject)
            clock.advance(by: 5)
            var ipadEdit = try #require(try ipad.store.find(InventoryThread.self, id: black.id))
            ipadEdit.quantity = 9
            try ipad.store.save(ipadEdit)
            let ipadOnly = try ipad.store.save(Canvas(designer: "Raymond Crawford", designName: "Santa", createdAt: clock.now, updatedAt: clock.now))
            clock.advance(by: 5)
            try phone.store.delete(Project.self, id: project.id)  // newer than the iPad's note

            // The iPad can't reach the server at first: its changes stay.
            let offline = APIClient(tokens: ipad.tokens, server: "http://127.0.0.1:9", timeout: 2)
            let offlineEngine = SyncEngine(store: ipad.store, api: offline, sleep: { _ in })
            await #expect(throws: ClientError.self) { try await offlineEngine.sync() }
            #expect(try ipad.store.pendingCount() == 3)

            // Back online, in one order, then the other, then once more each.
            try await ipad.engine.sync()
            try await phone.engine.sync()
            try await ipad.engine.sync()
            try await phone.engine.sync()
            let server = try await serverState(app, userId: session.user.id)
            #expect(try phone.state() == server)
            #expect(try ipad.state() == server)
            #expect(try phone.store.find(InventoryThread.self, id: black.id)?.quantity == 9)
            #expect(try phone.store.find(Project.self, id: project.id) == nil)
            #expect(try ipad.store.find(InventoryThread.self, id: phoneOnly.id) != nil)
            #expect(try phone.store.find(Canvas.self, id: ipadOnly.id) != nil)
            #expect(try phone.store.pendingCount() == 0 && ipad.store.pendingCount() == 0)
        }
    }

    @Test("Deletes win across devices: the phone deletes a thread while the tablet (StitchKit) and a terminal (the stitch CLI) were offline editing it later; neither edit brings it back, each device drops its copy and says so, and all converge")
    func deletesWinAcrossDevices() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let tablet = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "dora@example.com", password: "correct horse", displayName: "Dora")
            _ = try await tablet.api.login(email: "dora@example.com", password: "correct horse")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-deletes-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            func stitch(_ args: String..., offline: Bool = false) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"].merging(offline ? ["STITCH_OFFLINE": "1"] : [:]) { a, _ in a })
            }
            let black = try phone.store.save(InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now))
            let red = try phone.store.save(InventoryThread(brand: "DMC", number: "321", quantity: 1, createdAt: clock.now, updatedAt: clock.now))
            try await phone.engine.sync()
            try await tablet.engine.sync()
            var r = try await stitch("login", "--server", server, "--email", "dora@example.com")
            #expect(r.code == 0, "\(r.err)")

            // Offline, the tablet and the terminal edit the threads; the phone then deletes both.
            clock.advance(by: 10)
            var edit = try #require(try tablet.store.find(InventoryThread.self, id: black.id))
            edit.quantity = 6
            try tablet.store.save(edit)
            r = try await stitch("threads", "inc", "DMC", "321", "3", offline: true)
            #expect(r.code == 0 && r.out.contains("waiting to sync"), "\(r.out) \(r.err)")
            clock.advance(by: 10)
            try phone.store.delete(InventoryThread.self, id: black.id)
            try phone.store.delete(InventoryThread.self, id: red.id)
            try await phone.engine.sync()
            // The tablet's edit (older than the delete) and the terminal's (on the real clock, later)
            // both arrive after it.
            clock.advance(by: 3600)
            var later = try #require(try tablet.store.find(InventoryThread.self, id: black.id))
            later.notes = "still using it"
            try tablet.store.save(later)
            try await tablet.engine.sync()
            let status = try await tablet.engine.status()
            #expect(status.deletedElsewhere == ["DMC 310"] && status.rejected.isEmpty, "\(status)")
            #expect(try tablet.store.find(InventoryThread.self, id: black.id) == nil && tablet.store.pendingCount() == 0)
            r = try await stitch("sync")
            #expect(r.code == 0 && r.out.contains("deleted on another device: your change to DMC 321 wasn't kept"), "\(r.out) \(r.err)")
            r = try await stitch("threads")
            #expect(!r.out.contains("321") && !r.out.contains("310"), "\(r.out)")

            let stored = try await serverState(app, userId: session.user.id)
            #expect(try phone.state() == stored && tablet.state() == stored)
            let token = try #require(try tablet.tokens.load()?.accessToken)  // refreshed by its last sync
            for id in [black.id, red.id] {
                #expect(try await app.send(.GET, "/threads/\(id.wireText)", token: token).status == .notFound)
            }

            // Deleted by mistake: "Recently deleted" from the terminal brings DMC 310 back, to every device.
            r = try await stitch("deleted")
            #expect(r.code == 0 && r.out.contains("DMC 310") && r.out.contains("DMC 321") && r.out.contains("stitch restore"), "\(r.out) \(r.err)")
            r = try await stitch("restore", "thread", String(black.id.wireText.prefix(8)))
            #expect(r.code == 0 && r.out.contains("Restored DMC 310; synced."), "\(r.out) \(r.err)")
            r = try await stitch("restore", "thread", "ffffffff")
            #expect(r.code == 6 && r.err.contains("stitch deleted"), "\(r.out) \(r.err)")
            r = try await stitch("threads")
            #expect(r.out.contains("310") && !r.out.contains("321"), "\(r.out)")
            try await tablet.engine.sync()
            #expect(try tablet.store.find(InventoryThread.self, id: black.id)?.quantity == 2)
            #expect(try await app.send(.GET, "/threads/\(black.id.wireText)", token: token).status == .ok)
        }
    }

    @Test("A change the server refuses for a record it holds is undone on the device: it takes the server's copy and converges")
    func refusedChangeConverges() async throws {
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "ann@example.com", password: "correct horse", displayName: "Ann")
            let canvas = try phone.store.save(Canvas(designer: "Melissa Shirley", designName: "Nutcracker", createdAt: clock.now, updatedAt: clock.now))
            var start = StartProjectModel()
            try start.load(from: phone.store)
            let first = try start.start(canvas.id, in: phone.store)
            clock.advance(by: 5)
            // The project is ended and another started on the same canvas; all of it synced.
            try phone.store.delete(Project.self, id: first.id)
            try start.load(from: phone.store)
            let second = try start.start(canvas.id, in: phone.store)
            try await phone.engine.sync()

            // Then the ended project is edited back to life on the device, newer than its delete:
            // deletes win, so the server answers with the tombstone and the device drops its copy.
            clock.advance(by: 5)
            var revived = try #require(try phone.store.all(Project.self, includeDeleted: true).first { $0.id == first.id })
            revived.deletedAt = nil
            revived.notes = "Back again"
            try phone.store.save(revived)
            try await phone.engine.sync()
            let status = try await phone.engine.status()
            #expect(status.rejected.isEmpty && status.deletedElsewhere.count == 1, "\(status)")
            #expect(try phone.store.pendingCount() == 0)
            #expect(try phone.store.find(Project.self, id: first.id) == nil)
            #expect(try phone.store.find(Project.self, id: second.id) != nil)
            let server = try await serverState(app, userId: session.user.id)
            #expect(try phone.state() == server)
        }
    }

    @Test("A page bounded first sends its headers before its rows are read, so the next page can be asked for meanwhile; a failure after the headers ends the response without a page, and a device keeps nothing of it and syncs next time")
    func boundedPageHeadersFirst() async throws {
        try await withLiveServer { app, clock, server in
            let phone = try Device(server: server, clock: clock)
            let session = try await phone.api.register(email: "early@example.com", password: "correct horse", displayName: "Pat")
            for i in 0..<30 { _ = try phone.store.save(InventoryThread(brand: "DMC", number: "\(i)", createdAt: clock.now, updatedAt: clock.now)) }
            try await phone.engine.sync()
            let token = try #require(try phone.tokens.load()?.accessToken)

            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            func page(_ cursor: String?) async throws -> HTTPClientResponse {
                var request = HTTPClientRequest(url: server + "/sync")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: try StitchJSON.encode(syncRequest([], cursor: cursor, limit: 10))))
                return try await http.execute(request, timeout: .seconds(60))
            }
            do {
                // The rows wait until the client has the headers (for at most 20 s: were the
                // headers held back until the rows were read, the test fails rather than hangs).
                let gate = Latch(), rowsRead = Latch()
                app.syncFaults = SyncFaults(beforeBoundedRows: {
                    await gate.wait(timeout: .seconds(20))
                    rowsRead.open()
                })
                let first = try await page(nil)
                #expect(first.status == .ok)
                #expect(!rowsRead.isOpen, "the headers came only after the rows were read")
                #expect(first.headers.first(name: SyncPage.hasMoreHeader) == "true")
                let cursor = try #require(first.headers.first(name: SyncPage.cursorHeader))
                // The next page, asked for with the headers' cursor while this one waits.
                let second = try await page(cursor)
                #expect(second.headers.first(name: SyncPage.hasMoreHeader) == "true")
                gate.open()
                let one = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: try await first.body.collect(upTo: 1 << 24)))
                let two = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: try await second.body.collect(upTo: 1 << 24)))
                #expect(one.changes.count == 10 && one.cursor == cursor && one.hasMore)
                #expect(two.changes.count == 10 && two.cursor == second.headers.first(name: SyncPage.cursorHeader))
                #expect(Set(one.changes.map(\.id)).isDisjoint(with: two.changes.map(\.id)))

                // A read that fails after the headers: the body never ends as a page.
                struct Broken: Error {}
                app.syncFaults = SyncFaults(beforeBoundedRows: { throw Broken() })
                let broken = try await page(nil)
                #expect(broken.status == .ok)
                do {
                    let body = try await broken.body.collect(upTo: 1 << 24)
                    #expect(throws: (any Error).self, "a cut-off body decoded as a page") { try StitchJSON.decode(SyncResponse.self, from: Data(buffer: body)) }
                } catch {
                    // The connection closed before the body's end: the usual way it shows.
                }
                // A fresh device's first sync meets the same failure: it keeps nothing and says so;
                // once the server reads again, the next sync brings everything.
                let ipad = try Device(server: server, clock: clock)
                _ = try await ipad.api.login(email: "early@example.com", password: "correct horse")
                await ipad.engine.setPageSize(10)
                await #expect(throws: (any Error).self) { try await ipad.engine.sync() }
                #expect(try ipad.store.all(InventoryThread.self).isEmpty)
                app.syncFaults = nil
                try await ipad.engine.sync()
                #expect(try ipad.state() == (try await serverState(app, userId: session.user.id)))
                #expect(try ipad.store.all(InventoryThread.self).count == 30)
            } catch {
                app.syncFaults = nil
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test("An expired access token is refreshed once transparently; a dead session reports signed out and keeps local data")
    func refreshAndSignedOut() async throws {
        try await withLiveServer { app, clock, server in
            let device = try Device(server: server, clock: clock)
            _ = try await device.api.register(email: "ann@example.com", password: "correct horse", displayName: "Ann")
            try device.store.save(InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now))
            clock.advance(by: 20 * 60)  // the access token has expired
            try await device.engine.sync()
            #expect(try device.store.pendingCount() == 0)

            // The server ends every session (as after a stolen-token alarm).
            try await RefreshTokenModel.query(on: app.db).set(\.$revokedAt, to: clock.now).update()
            try device.store.save(InventoryThread(brand: "DMC", number: "321", createdAt: clock.now, updatedAt: clock.now))
            await #expect(throws: ClientError.signedOut) { try await device.engine.sync() }
            #expect(try device.store.all(InventoryThread.self).count == 2)
            #expect(try device.store.pendingCount() == 1)
            #expect(try device.tokens.load() == nil)
            #expect(try await device.engine.status().lastError != nil)
        }
    }

    @Test("The stitch CLI, as a subprocess: register, add offline-first, sync, and a second home sees it")
    func cli() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, _, server in
            let homeA = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-a-\(UUID())").path
            let homeB = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-b-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: homeA); try? FileManager.default.removeItem(atPath: homeB) }
            func stitch(_ home: String, _ args: String...) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"])
            }
            var r = try await stitch(homeA, "register", "--server", server, "--email", "cli@example.com", "--name", "Cli")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch(homeA, "threads", "add", "DMC", "310", "--quantity", "2")
            #expect(r.code == 0 && r.out.contains("synced") && r.out.contains("Black, #000000 from the catalog"), "\(r.out) \(r.err)")
            r = try await stitch(homeA, "threads", "dec", "DMC", "310", "5")
            #expect(r.out.contains("0 in stock"), "\(r.out)")
            let dec = r
            r = try await stitch(homeA, "threads", "add", "DMC", "", "--quantity", "1")
            #expect(r.code == 3 && r.err.contains("number"), "\(r.err)")
            r = try await stitch(homeA, "canvases", "add", "--designer", "Melissa Shirley", "--name", "Nutcracker", "--mesh", "0")
            #expect(r.code == 3 && r.err.contains("Enter a positive number"))

            // Offline: the change is kept and said to be waiting.
            let offline = try await Self.run(binary, ["threads", "add", "Appleton", "992"], env: ["STITCH_HOME": homeA, "STITCH_OFFLINE": "1"])
            #expect(offline.code == 0 && offline.out.contains("waiting to sync") && offline.out.contains("Not looked up in the catalog (offline)"), "\(offline.out)")
            r = try await stitch(homeA, "status", "--json")
            #expect(r.out.contains("\"pending\" : 1"), "\(r.out) after dec: \(dec.out) \(dec.err)")
            r = try await stitch(homeA, "sync")
            #expect(r.code == 0 && r.out.contains("0 change(s) pending"), "\(r.out) \(r.err)")

            r = try await stitch(homeB, "login", "--server", server, "--email", "cli@example.com")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch(homeB, "threads", "list", "--json")
            let threads = try StitchJSON.makeDecoder().decode([InventoryThread].self, from: Data(r.out.utf8))
            #expect(threads.map { "\($0.brand) \($0.number) \($0.quantity)" } == ["Appleton 992 1", "DMC 310 0"])
            // The name, catalog name, swatch and fibre came from the server's catalog.
            #expect(threads.last.map { [$0.colorName, $0.catalogColorName, $0.colorHex, $0.fiberType.rawValue] } == ["Black", "Black", "#000000", "cotton"])
            r = try await stitch(homeB, "whoami")
            #expect(r.out.contains("Cli <cli@example.com>"))

            // Scan-to-add from the terminal: a photo (read by the server), unknown at first; added
            // with its barcode, then found by photo and by typed code, offline too.
            let code = BarcodeImages.ean13("501234567890")
            let photo = homeB + "/label.jpg"
            try BarcodeImages.photo(code, degrees: 9, format: .jpeg).write(to: URL(fileURLWithPath: photo))
            r = try await stitch(homeB, "threads", "scan", photo)
            #expect(r.code == 0 && r.out.contains("isn't in your inventory") && r.out.contains("stitch threads add BRAND NUMBER --barcode \(code)"), "\(r.out) \(r.err)")
            r = try await stitch(homeB, "threads", "add", "Appleton", "991", "--barcode", code)
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch(homeB, "threads", "scan", photo, "--json")
            let scanned = try StitchJSON.makeDecoder().decode(BarcodeScan.self, from: Data(r.out.utf8))
            #expect(scanned.outcome == .owned && scanned.threads.map(\.number) == ["991"], "\(r.out) \(r.err)")
            let typed = try await Self.run(binary, ["threads", "scan", code], env: ["STITCH_HOME": homeB, "STITCH_OFFLINE": "1"])
            #expect(typed.code == 0 && typed.out.contains("is your Appleton 991"), "\(typed.out) \(typed.err)")
            try Data("not a photo".utf8).write(to: URL(fileURLWithPath: homeB + "/notes.txt"))
            r = try await stitch(homeB, "threads", "scan", homeB + "/notes.txt")
            #expect(r.code == 3 && r.err.contains("JPEG, PNG"), "\(r.err)")
            r = try await stitch(homeB, "threads", "scan", "12345")
            #expect(r.code == 3 && r.err.contains("neither a file nor a barcode"), "\(r.err)")
            r = try await stitch(homeB, "projects", "show", "nothing-like-this")
            #expect(r.code == 6)
            r = try await stitch(homeB, "logout")
            #expect(r.code == 0)
            r = try await stitch(homeB, "sync")
            #expect(r.code == 5 && r.err.contains("signed out"))
            // Unreachable server: a clear message and its own exit code.
            r = try await stitch(homeA, "sync")
            #expect(r.code == 0)
            await app.server.shutdown()
            r = try await stitch(homeA, "sync")
            #expect(r.code == 4 && r.err.contains("can't be reached"), "\(r.err)")
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        }
    }

    @Test("The stitch CLI edits what it shows: a duplicate thread refused (exit 7) or merged; sections renamed, moved, given a status and deleted; a requirement, a journal entry and the project's notes changed — and the server has it all after sync")
    func cliEdits() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, _, server in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-edit-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            func stitch(_ args: String...) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"])
            }
            var r = try await stitch("register", "--server", server, "--email", "edit@example.com", "--name", "Edie")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("threads", "add", "DMC", "310", "--quantity", "1", "--no-catalog")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("threads", "add", "dmc", " 310", "--quantity", "2", "--no-catalog")
            #expect(r.code == 7 && r.err.contains("You have DMC 310 already: 1 skein") && r.err.contains("--merge"), "\(r.code) \(r.err)")
            r = try await stitch("threads", "add", "dmc", "310", "--quantity", "2", "--no-catalog", "--merge")
            #expect(r.code == 0 && r.out.contains("you have 3 now"), "\(r.out) \(r.err)")

            r = try await stitch("canvases", "add", "--designer", "Melissa Shirley", "--name", "Nutcracker", "--mesh", "18", "--size", "10x14")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("canvases", "list", "--json")
            let canvas = try #require(try StitchJSON.makeDecoder().decode([Canvas].self, from: Data(r.out.utf8)).first)
            r = try await stitch("projects", "start", canvas.id.text)
            #expect(r.code == 0, "\(r.err)")
            // A 48-megapixel phone photo of 25 MB goes in as it is; the server keeps it under 10 MB.
            let bigPhoto = home + "-big.jpg"
            try BigPhotoTests.phonePhoto(bytes: 25 * 1024 * 1024).write(to: URL(fileURLWithPath: bigPhoto))
            defer { try? FileManager.default.removeItem(atPath: bigPhoto) }
            r = try await stitch("canvases", "add", "--designer", "Zecca", "--name", "Big photo", "--image", bigPhoto)
            #expect(r.code == 0, "\(r.out) \(r.err)")
            for name in ["Border", "Sky", "Moon"] { _ = try await stitch("sections", "add", "Nutcracker", name) }
            r = try await stitch("sections", "move", "Nutcracker", "Moon", "up")
            #expect(r.out.contains("Sections: Border, Moon, Sky"), "\(r.out) \(r.err)")
            r = try await stitch("sections", "move", "Nutcracker", "Border", "up")
            #expect(r.code == 0 && r.out.contains("Sections: Border, Moon, Sky"), "first stays first: \(r.out)")
            r = try await stitch("sections", "rename", "Nutcracker", "Sky", "Night sky")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("sections", "status", "Nutcracker", "Night sky", "in_progress")
            #expect(r.code == 0 && r.out.contains("In progress"), "\(r.out) \(r.err)")
            r = try await stitch("sections", "status", "Nutcracker", "Night sky", "half_done")
            #expect(r.code == 64 && r.err.contains("'not_started', 'in_progress' or 'completed'"), "arguments it doesn't take: \(r.code) \(r.err)")
            r = try await stitch("sections", "notes", "Nutcracker", "Night sky", "Gradient: 823 at the top, 336 below")
            #expect(r.code == 0 && r.out.contains("Noted on Night sky."), "\(r.out) \(r.err)")
            r = try await stitch("sections", "notes", "Nutcracker", "Night sky")
            #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines) == "Gradient: 823 at the top, 336 below", "\(r.out)")
            r = try await stitch("sections", "list", "Nutcracker")
            #expect(r.out.contains("NOTES") && r.out.contains("Gradient: 823"), "\(r.out)")
            r = try await stitch("sections", "notes", "Nutcracker", "Night sky", "x", "--clear")
            #expect(r.code == 64, "\(r.code) \(r.err)")
            r = try await stitch("sections", "notes", "Nutcracker", "Night sky", "--clear")
            #expect(r.code == 0 && r.out.contains("Cleared Night sky's notes."), "\(r.out) \(r.err)")
            r = try await stitch("sections", "notes", "Nutcracker", "Night sky")
            #expect(r.out.contains("Night sky has no notes."), "\(r.out)")
            r = try await stitch("sections", "rename", "Nutcracker", "Nowhere", "X")
            #expect(r.code == 6 && r.err.contains("No section Nowhere"), "\(r.err)")
            r = try await stitch("needs", "add", "--project", "Nutcracker", "DMC", "310", "--quantity", "2", "--section", "Moon")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("needs", "list", "Nutcracker", "--json")
            let requirement = try #require(try StitchJSON.makeDecoder().decode([RequirementReadiness].self, from: Data(r.out.utf8)).first)
            r = try await stitch("needs", "edit", requirement.requirementId.text, "--quantity", "4", "--color", "Raven", "--notes", "2 plies")
            #expect(r.code == 0 && r.out.contains("Needs 4 × DMC 310 Raven"), "\(r.out) \(r.err)")
            r = try await stitch("needs", "edit", requirement.requirementId.text, "--quantity", "0")
            #expect(r.code == 3, "\(r.code) \(r.err)")
            r = try await stitch("sections", "rm", "Nutcracker", "Moon")
            #expect(r.code == 0 && r.out.contains("its 1 thread(s) stay with the project"), "\(r.out) \(r.err)")

            r = try await stitch("journal", "add", "--project", "Nutcracker", "--note", "Started the sky")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("projects", "show", "Nutcracker", "--json")
            struct Shown: Decodable { var journal: [JournalEntryDetail] }
            let entry = try #require(try StitchJSON.makeDecoder().decode(Shown.self, from: Data(r.out.utf8)).journal.first).entry
            r = try await stitch("journal", "edit", entry.id.text, "--note", "Started the sky and the moon")
            #expect(r.code == 0, "\(r.err)")
            // Photos added to the entry afterwards, one moved to the front, one taken off.
            let jpeg = home + "-photo.jpg", png = home + "-photo.png"
            try Fixtures.jpeg.write(to: URL(fileURLWithPath: jpeg))
            try Fixtures.png.write(to: URL(fileURLWithPath: png))
            defer { try? FileManager.default.removeItem(atPath: jpeg); try? FileManager.default.removeItem(atPath: png) }
            r = try await stitch("journal", "photos", "add", entry.id.wireText, jpeg, png, jpeg)
            #expect(r.code == 0 && r.out.contains("Added 3 photo(s). Photos now: "), "\(r.out) \(r.err)")
            r = try await stitch("projects", "show", "Nutcracker", "--json")
            let added = try #require(try StitchJSON.makeDecoder().decode(Shown.self, from: Data(r.out.utf8)).journal.first { $0.entry.id == entry.id }).images
            #expect(added.count == 3 && added.map(\.sortOrder) == [0, 1, 2])
            r = try await stitch("journal", "photos", "move", String(added[2].id.wireText.prefix(8)), "--to", "1")
            let short = added.map { String($0.id.wireText.prefix(8)) }
            #expect(r.code == 0 && r.out.contains("Photos now: \(short[2]), \(short[0]), \(short[1])."), "\(r.out) \(r.err)")
            r = try await stitch("journal", "photos", "rm", short[0])
            #expect(r.code == 0 && r.out.contains("Removed the photo. Photos now: \(short[2]), \(short[1])."), "\(r.out) \(r.err)")
            r = try await stitch("journal", "photos", "move", short[1], "--to", "0")
            #expect(r.code == 3 && r.err.contains("Positions start at 1"), "\(r.code) \(r.err)")
            r = try await stitch("journal", "photos", "rm", "ffffffff")
            #expect(r.code == 6, "\(r.code) \(r.err)")
            r = try await stitch("journal", "photos", "add", entry.id.wireText, home + "-nowhere.jpg")
            #expect(r.code == 6 && r.err.contains("Can't read"), "\(r.code) \(r.err)")
            r = try await stitch("projects", "show", "Nutcracker")
            #expect(r.out.contains("photo 1  \(short[2])") && r.out.contains("photo 2  \(short[1])"), "\(r.out)")
            r = try await stitch("projects", "notes", "Nutcracker", "Gift for Mum")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("projects", "show", "Nutcracker")
            #expect(r.out.contains("by Melissa Shirley · 18 mesh · 10x14") && r.out.contains("Notes: Gift for Mum")
                    && r.out.contains("Started the sky and the moon"), "\(r.out)")
            // Dates a stitcher brings along, and a project planned before it is started.
            r = try await stitch("projects", "dates", "Nutcracker", "--started", "2026-01-05")
            #expect(r.code == 0 && r.out.contains("started 2026-01-05"), "\(r.out) \(r.err)")
            r = try await stitch("projects", "dates", "Nutcracker", "--completed", "2026-02-01")
            #expect(r.code == 3 && r.err.contains("It isn't completed"), "\(r.err)")
            r = try await stitch("journal", "add", "--project", "Nutcracker", "--note", "Bought the canvas", "--date", "2026-01-04")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("canvases", "add", "--designer", "Kirk & Bradley", "--name", "Santa")
            r = try await stitch("canvases", "list", "--json")
            let santa = try #require(try StitchJSON.makeDecoder().decode([Canvas].self, from: Data(r.out.utf8)).first { $0.designName == "Santa" })
            r = try await stitch("projects", "start", santa.id.text, "--plan")
            #expect(r.code == 0 && r.out.contains("Planned Santa"), "\(r.out) \(r.err)")
            r = try await stitch("projects", "list")
            #expect(r.out.contains("Planned"), "\(r.out)")
            // A project without a canvas: stitched from a chart, under its own name.
            r = try await stitch("projects", "start", "--name", "Fox chart", "--plan")
            #expect(r.code == 0 && r.out.contains("Planned Fox chart"), "\(r.out) \(r.err)")
            r = try await stitch("projects", "start", santa.id.text, "--name", "Fox chart")
            #expect(r.code == 2 && r.err.contains("not both"), "\(r.err)")
            r = try await stitch("projects", "show", "fox chart")
            #expect(r.code == 0 && r.out.contains("Fox chart"), "\(r.out) \(r.err)")
            // Its own size and mesh, as a canvas has; a project with a canvas has the canvas's.
            r = try await stitch("projects", "size", "fox chart", "--size", "10x10 in", "--mesh", "18")
            #expect(r.code == 0 && r.out.contains("Fox chart: 18 mesh · 10x10 in."), "\(r.out) \(r.err)")
            r = try await stitch("projects", "size", "fox chart", "--mesh", "16")
            r = try await stitch("projects", "show", "fox chart")
            #expect(r.out.contains("16 mesh · 10x10 in"), "\(r.out)")
            r = try await stitch("projects", "size", "fox chart", "--mesh", "0")
            #expect(r.code == 3, "\(r.code) \(r.err)")
            r = try await stitch("projects", "size", "Nutcracker", "--mesh", "13")
            #expect(r.code == 3 && r.err.contains("change it on the canvas"), "\(r.code) \(r.err)")
            r = try await stitch("projects", "size", "Nutcracker")
            #expect(r.out.contains("18 mesh · 10x14 (its canvas's)"), "\(r.out)")
            // The shopping list as text to send: 4 needed, 3 owned; the planned Santa isn't shopped for.
            r = try await stitch("shopping-list", "--text")
            #expect(r.code == 0 && r.out.hasPrefix("Shopping list, ") && r.out.hasSuffix("\n\nDMC\n☐ 310 Raven: buy 1 (Nutcracker 1)\n"), "\(r.out) \(r.err)")
            // Threads added by hand and a line set aside: the same rules as the web and the API.
            r = try await stitch("shopping-list", "--add", "Appleton", "992", "2", "--note", "running low")
            #expect(r.code == 0 && r.out.contains("Appleton 992, 2 by hand"), "\(r.out) \(r.err)")
            r = try await stitch("shopping-list", "--add", "Appleton", "992", "x")
            #expect(r.code == 2 && r.err.contains("--add BRAND NUMBER QUANTITY"), "\(r.code) \(r.err)")
            r = try await stitch("shopping-list", "--dismiss", "DMC", "310")
            #expect(r.code == 0 && r.out.contains("Set aside: DMC 310"), "\(r.out) \(r.err)")
            r = try await stitch("shopping-list", "--dismiss", "DMC", "999")
            #expect(r.code != 0 && r.err.contains("not on your shopping list"), "\(r.code) \(r.err)")
            r = try await stitch("shopping-list")
            #expect(r.out.contains("Appleton") && r.out.contains("by hand 2: running low") && !r.out.contains("Raven"), "\(r.out)")
            r = try await stitch("sync")
            #expect(r.code == 0 && r.out.contains("0 change(s) pending"), "\(r.out) \(r.err)")

            // The server has what the terminal did.
            let user = try #require(try await UserModel.query(on: app.db).filter(\.$email == "edit@example.com").first())
            let userId = try user.requireID()
            let threads = try await Records.list(ThreadModel.self, userId: userId, on: app.db)
            #expect(threads.map { "\($0.brand) \($0.number) \($0.quantity)" } == ["DMC 310 3"])
            let sections = try await Records.list(SectionModel.self, userId: userId, on: app.db).sorted { $0.sortOrder < $1.sortOrder }
            #expect(sections.map(\.name) == ["Border", "Night sky"] && sections[1].status == .inProgress)
            let requirements = try await Records.list(RequirementModel.self, userId: userId, on: app.db)
            #expect(requirements.map { [String($0.quantityNeeded), $0.colorName ?? "", $0.notes ?? "", $0.sectionId == nil ? "none" : "section"] }
                    == [["4", "Raven", "2 plies", "none"]])
            let lines = try await Records.list(ShoppingLineModel.self, userId: userId, on: app.db).sorted { $0.createdAt < $1.createdAt }
            #expect(lines.map { "\($0.kind) \($0.brand) \($0.number) \($0.quantity)" } == ["added Appleton 992 2", "dismissed DMC 310 1"])
            let entries = try await Records.list(JournalEntryModel.self, userId: userId, on: app.db).sorted { $0.createdAt < $1.createdAt }
            #expect(entries.map(\.notes) == ["Bought the canvas", "Started the sky and the moon"])
            #expect(Timestamp.string(from: entries[0].createdAt) == "2026-01-04T12:00:00.000Z")
            let projects = try await Records.list(ProjectModel.self, userId: userId, on: app.db).sorted { $0.createdAt < $1.createdAt }
            #expect(projects.map(\.notes) == ["Gift for Mum", nil, nil] && projects.map(\.status) == [.wip, .planned, .planned])
            #expect(projects[2].canvasId == nil && projects[2].name == "Fox chart")
            #expect(projects[2].size == "10x10 in" && projects[2].meshCount == 16 && projects[0].meshCount == nil)
            let big = try #require(try await Records.list(CanvasModel.self, userId: userId, on: app.db).first { $0.designName == "Big photo" })
            let bigImage = try #require(try await ImageModel.find(big.imageKey, on: app.db))
            #expect(bigImage.byteSize <= 10 * 1024 * 1024 && bigImage.contentType == "image/jpeg")
            #expect(Timestamp.string(from: projects[0].startedAt) == "2026-01-05T00:00:00.000Z")

            // The photos reached the server in their order, the one taken off deleted there.
            let photos = try await Records.list(JournalImageModel.self, userId: userId, on: app.db)
                .filter { $0.entryId == entry.id }.sorted { $0.sortOrder < $1.sortOrder }
            #expect(photos.map(\.id) == [added[2].id, added[1].id], "\(photos.map(\.id))")

            r = try await stitch("journal", "rm", entry.id.text)
            #expect(r.code == 0, "\(r.err)")
            #expect(try await Records.list(JournalEntryModel.self, userId: userId, on: app.db).map(\.notes) == ["Bought the canvas"])
        }
    }

    @Test("The stitch CLI: a spreadsheet's threads imported (dry run, then for real, merged the second time), CSV and a JSON backup with pictures exported, the backup restored into another account, the password changed, the account deleted")
    func cliImportRestoreLeave() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, _, server in
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-data-\(UUID())").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let (homeA, homeB, homeC) = (root + "/a", root + "/b", root + "/c")
            var password = "correct horse"
            func stitch(_ home: String, _ args: String..., env: [String: String] = [:]) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": password].merging(env) { _, new in new })
            }
            func write(_ name: String, _ text: String) throws -> String {
                try Data(text.utf8).write(to: URL(fileURLWithPath: root + "/" + name))
                return root + "/" + name
            }
            var r = try await stitch(homeA, "register", "--server", server, "--email", "ann@example.com", "--name", "Ann")
            #expect(r.code == 0, "\(r.err)")

            let sheet = try write("stash.csv", "\u{FEFF}Manufacturer;No.;Colour;Qty;Bin\r\nDMC;310;Noir;2;A1\r\nAnchor;403;Rouge;lots;B2\r\nDMC;B5200;Blanc cassé;1;A1\r\n")
            r = try await stitch(homeA, "import", "threads", sheet, "--dry-run")
            #expect(r.code == 3, "\(r.out) \(r.err)")
            #expect(r.out.contains("Read 3 row(s) (semicolon-separated, UTF-8 with a byte-order mark)."))
            #expect(r.out.contains("Column E (Bin) is not imported."))
            #expect(r.out.contains("line 3, column D (Qty): “lots” is not a whole number"))
            #expect(r.out.contains("Would add 2 threads. (dry run: nothing was saved)") && r.out.contains("  + DMC 310 Noir (line 2)"))
            #expect(try await stitch(homeA, "threads", "list", "--json").out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
            r = try await stitch(homeA, "import", "threads", sheet)
            #expect(r.code == 3 && r.out.contains("Added 2 threads.") && r.out.contains("synced"), "\(r.out) \(r.err)")
            r = try await stitch(homeA, "import", "threads", try write("more.csv", "brand,number,quantity\nDMC,310,2\ndmc,b5200,1\n"), "--on-duplicate", "add")
            #expect(r.code == 0 && r.out.contains("Added 0 threads, merged 2 into ones you have") && r.out.contains("quantity 2 → 4"), "\(r.out)")
            let bare = try write("bare.csv", "brand,number\nAppleton,992\n")
            r = try await stitch(homeA, "import", "threads", bare)
            #expect(r.code == 3 && r.err.contains("Nothing imported") && r.out.contains("every thread would have 0 in stock"), "\(r.out) \(r.err)")
            r = try await stitch(homeA, "import", "threads", bare, "--yes")
            #expect(r.code == 0 && r.out.contains("Added 1 threads."))
            r = try await stitch(homeA, "import", "canvases", try write("c.csv", "Designer,Design,Mesh\nMelissa Shirley,Nutcracker,13 mesh\n"))
            #expect(r.code == 0, "\(r.out) \(r.err)")
            let photo = try write("photo.jpg", "")
            try Fixtures.jpeg.write(to: URL(fileURLWithPath: photo))
            r = try await stitch(homeA, "canvases", "add", "--designer", "Kirk & Bradley", "--name", "Santa", "--image", photo)
            #expect(r.code == 0, "\(r.out) \(r.err)")

            r = try await stitch(homeA, "export", "--format", "csv", "--out", root + "/csv")
            let csv = try Data(contentsOf: URL(fileURLWithPath: root + "/csv/threads.csv"))
            #expect(Array(csv.prefix(3)) == [0xEF, 0xBB, 0xBF] && String(decoding: csv, as: UTF8.self).contains("Blanc cassé"))
            r = try await stitch(homeA, "export", "--format", "json", "--out", root + "/json")
            #expect(r.code == 0 && r.out.contains("2 pictures") == false && r.out.contains("1 pictures"), "\(r.out) \(r.err)")
            let backupFile = root + "/json/stitchuation-export.json"
            let backup = try StitchJSON.decode(AccountBackup.self, from: try Data(contentsOf: URL(fileURLWithPath: backupFile)))
            #expect(backup.threads.count == 3 && backup.canvases.count == 2 && backup.pictures.count == 1)
            #expect(backup.pictures.first?.bytes == Fixtures.jpeg)
            #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: backupFile)), as: UTF8.self).contains(backup.threads[0].id.uuidString))

            // Into another account on the same server: every id is taken there, so each gets a new one.
            r = try await stitch(homeB, "register", "--server", server, "--email", "bob@example.com", "--name", "Bob")
            r = try await stitch(homeB, "import", "backup", backupFile)
            #expect(r.code == 0 && r.out.contains("Threads: 3 added") && r.out.contains("Pictures: 1 stored") && r.out.contains("5 record(s) got a new id"), "\(r.out) \(r.err)")
            r = try await stitch(homeB, "threads", "list", "--json")
            #expect(try StitchJSON.decode([InventoryThread].self, from: Data(r.out.utf8)).map(\.quantity).sorted() == [0, 2, 4])
            r = try await stitch(homeB, "import", "backup", try write("bad.json", #"{"format":"other"}"#))
            #expect(r.code == 3 && r.err.contains("not a Stitchuation backup"), "\(r.err)")

            // A new password ends the other sign-in, not this one.
            r = try await stitch(homeC, "login", "--server", server, "--email", "ann@example.com")
            #expect(r.code == 0)
            r = try await stitch(homeA, "password", env: ["STITCH_NEW_PASSWORD": "new staple horse"])
            #expect(r.code == 0 && r.out.contains("Password changed"), "\(r.out) \(r.err)")
            password = "new staple horse"
            #expect(try await stitch(homeA, "sync").code == 0)
            r = try await stitch(homeC, "sync")
            #expect(r.code == 5, "\(r.out) \(r.err)")

            // Leaving: the password again, then nothing of the account is left, here or on the server.
            r = try await stitch(homeA, "account", "delete", "--yes", env: ["STITCH_PASSWORD": "wrong"])
            #expect(r.code != 0 && r.err.contains("not right"), "\(r.err)")
            r = try await stitch(homeA, "account", "delete", "--yes")
            #expect(r.code == 0 && r.out.contains("have been deleted"), "\(r.out) \(r.err)")
            #expect(try await stitch(homeA, "threads", "list", "--json").out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
            #expect(try await UserModel.query(on: app.db).filter(\.$email == "ann@example.com").count() == 0)
            r = try await stitch(homeC, "login", "--server", server, "--email", "ann@example.com")
            #expect(r.code != 0)
        }
    }

    @Test("The stitch CLI reads a chart's colour key from the server (what it names, what you have, what it couldn't read) and adds it to the project with --skip, --quantity and --section; again, it adds nothing")
    func cliChartKey() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, _, server in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-key-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            func stitch(_ args: String...) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"])
            }
            // The chart arrives from another device (the web app or the phone uploads patterns).
            let kim = try await TestUser.make(app, email: "kim@example.com", name: "Kim")
            try await kim.thread("DMC", "310", quantity: 1)
            let project = try await kim.project(canvas: try await kim.canvas("Winter Robin"))
            _ = try await kim.create("/projects/\(project.project.id.wireText)/sections", ["name": "Border"], as: ProjectSection.self)
            let res = try await kim.upload("/projects/\(project.project.id.wireText)/patterns",
                                           files: [Fixtures.file(TestChart.twoPages, name: "file", filename: "Winter Robin chart.pdf", type: "application/pdf")])
            try #require(res.status == .created, "\(res.text)")

            var r = try await stitch("login", "--server", server, "--email", "kim@example.com")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("patterns", "list", "Winter Robin")
            #expect(r.code == 0 && r.out.contains("Winter Robin chart"), "\(r.out) \(r.err)")
            r = try await stitch("patterns", "key", "winter robin chart")
            #expect(r.code == 0 && r.out.contains("Read 5 threads from the key."), "\(r.out) \(r.err)")
            let table = r.out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            #expect(table.contains { $0.hasPrefix("DMC 310 Black 2 6400 stitches 1 blended with DMC 3865") }, "\(r.out)")
            #expect(r.out.contains("page 2: = Cosmo 2500 Pale Pink 300 stitches — no catalog for Cosmo"), "\(r.out)")

            r = try await stitch("patterns", "key", "Winter Robin chart", "--add", "--skip", "DMC 9999")
            #expect(r.code == 3 && r.err.contains("--skip \"DMC 9999\": not a thread of this chart's key"), "\(r.code) \(r.err)")
            r = try await stitch("patterns", "key", "Winter Robin chart", "--add", "--section", "DMC 321=Sky")
            #expect(r.code == 6 && r.err.contains("No section Sky"), "\(r.code) \(r.err)")
            r = try await stitch("patterns", "key", "Winter Robin chart", "--add", "--skip", "anchor 403", "--quantity", "DMC 3865=3",
                                 "--section", "DMC 321=border")
            #expect(r.code == 0 && r.out.contains("Added 4 threads to the project: DMC 310 × 2, DMC 321 × 1, DMC 3865 × 3, DMC 798 × 1."), "\(r.out) \(r.err)")
            let needs = try await kim.get("/projects/\(project.project.id.wireText)/threads", as: [ProjectThread].self)
            #expect(needs.map { "\($0.brand) \($0.number) \($0.quantityNeeded)" }.sorted() == ["DMC 310 2", "DMC 321 1", "DMC 3865 3", "DMC 798 1"])
            #expect(needs.first { $0.number == "321" }?.sectionId != nil && needs.first { $0.number == "310" }?.threadId != nil)
            // The device pulled them: its own readiness has them.
            r = try await stitch("projects", "show", "Winter Robin", "--json")
            #expect(r.out.contains("\"3865\""), "\(r.out)")

            r = try await stitch("patterns", "key", "Winter Robin chart")
            #expect(r.out.contains("already on the project's list"), "\(r.out)")
            r = try await stitch("patterns", "key", "Winter Robin chart", "--add")
            #expect(r.code == 0 && r.out.contains("Added 1 thread to the project: Anchor 403 × 1."), "only what it didn't have: \(r.out) \(r.err)")
        }
    }

    @Test("stitch canvas palette: a canvas's photo as its colours and threads — the owned one marked, skeins to buy — as a table and as JSON, then added to the canvas's project")
    func cliCanvasPalette() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        try await withLiveServer { app, _, server in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-palette-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            func stitch(_ args: String...) async throws -> (code: Int32, out: String, err: String) {
                try await Self.run(binary, args, env: ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"])
            }
            // The photo arrives from another device (the phone or the web app uploads it).
            let lou = try await TestUser.make(app, email: "lou@example.com", name: "Lou")
            try await lou.thread("DMC", "321", quantity: 1)
            let canvas = try await lou.create("/canvases", ["designer": "Me", "designName": "Flag", "meshCount": 13, "size": "10 x 8"], as: Canvas.self)
            let upload = try await lou.upload("/canvases/\(canvas.id.text)/image", files: [("image", "flag.png", "image/png", CanvasPaletteAPITests.photo())])
            try #require(upload.status == .ok, "\(upload.text)")

            var r = try await stitch("login", "--server", server, "--email", "lou@example.com")
            #expect(r.code == 0, "\(r.err)")
            r = try await stitch("canvas", "palette", "Flag")
            #expect(r.code == 0 && r.out.hasPrefix("Flag: 3 colours painted"), "\(r.out) \(r.err)")
            #expect(r.out.contains("DMC 321 Red (yours: 1), very close") && r.out.contains("(buy "), "\(r.out)")
            r = try await stitch("canvases", "palette", "Flag", "--detail", "9")
            #expect(r.code != 0 && r.err.contains("From 1 (fewest colours) to 5"), "\(r.code) \(r.err)")
            r = try await stitch("canvas", "palette", "Flag", "--json")
            let answer = try StitchJSON.decode(CanvasPaletteAnswer.self, from: Data(r.out.utf8))
            #expect(answer.canvasId == canvas.id && answer.threads.rows.count == 3)

            // Added to the canvas's project: none yet, so one is started; its list follows on sync.
            r = try await stitch("canvas", "palette", "Flag", "--add-to-project")
            #expect(r.code == 0 && r.out.hasPrefix("Started a project from Flag. Added 3 threads: DMC 321 × "), "\(r.out) \(r.err)")
            r = try await stitch("sync")
            r = try await stitch("canvas", "palette", "Flag", "--add-to-project")
            #expect(r.code == 0 && r.out.contains("Added 0 threads") && r.out.contains("Already on its list: DMC 321, DMC 797, DMC 699."), "\(r.out) \(r.err)")
        }
    }

    @Test("The stitch CLI waits for a slow server without keeping a core busy (URLSession on Linux did, for as long as it waited)")
    func cliWaitsIdle() async throws {
        let binary = try #require(Self.stitchBinary(), "build the stitch executable first (swift build)")
        let slow = Latch()
        try await withLiveServer(prepare: { $0.middleware.use(SlowSync(slow: slow)) }) { _, _, server in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-idle-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["STITCH_HOME": home, "STITCH_PASSWORD": "correct horse"]
            var r = try await Self.run(binary, ["register", "--server", server, "--email", "idle@example.com", "--name", "Idle"], env: env)
            #expect(r.code == 0, "\(r.err)")
            r = try await Self.run(binary, ["threads", "add", "DMC", "310", "--quantity", "2"], env: env.merging(["STITCH_OFFLINE": "1"]) { $1 })
            #expect(r.code == 0 && r.out.contains("waiting to sync"), "\(r.out) \(r.err)")
            // Each sync request now waits 5 s at the server; bash's `times` prints the CPU its
            // children used (user, then system) after the client ends.
            slow.open()
            r = try await Self.run("/bin/bash", ["-c", "\"$@\" 2>&1; status=$?; times >&2; exit $status", "bash", binary, "sync"], env: env)
            #expect(r.code == 0 && r.out.contains("0 change(s) pending"), "\(r.out) \(r.err)")
            let times = r.err.split(separator: "\n").last.map(String.init) ?? ""
            let seconds = times.matches(of: /(\d+)m([\d.]+)s/).map { Double($0.output.1)! * 60 + Double($0.output.2)! }
            #expect(seconds.count == 2, "\(r.err)")
            // Waiting at least 5 s; the client itself starts, sends and stores in about 0.1 s (with
            // URLSession on Linux: 0.76 s of CPU over one 5-s wait, on a machine otherwise busy).
            #expect(seconds.reduce(0, +) < 0.4, "the client used \(seconds) s of CPU (user, system) while the server was slow: \(times)")
        }
    }

    static func stitchBinary() -> String? { builtProduct("stitch") }

    /// Runs the CLI and waits for it on a thread of its own: blocking one of Swift's few
    /// cooperative threads (two on two cores) while the CLI talks to this process's server could
    /// starve the server whenever another suite keeps the other one busy (seen as a sign-up's
    /// database connection timing out, and everything after it failing).
    static func run(_ binary: String, _ args: [String], env: [String: String]) async throws -> (code: Int32, out: String, err: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(binary, args, env: env) }) }.start()
        }
    }

    private static func runBlocking(_ binary: String, _ args: [String], env: [String: String]) throws -> (code: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = args
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "STITCH_OFFLINE")
        // A full suite on two cores can keep the server busier than a person's ever is (a reset
        // confirm once took over 15 s there): the CLI's longer timeout, as a slow link would set it.
        environment["STITCH_TIMEOUT"] = "120"
        for (k, v) in env { environment[k] = v }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

/// Changes what a sync response's headers say of the next page (its body untouched): a proxy that
/// drops them, or a server that gets them wrong.
struct SyncHeaderTamper: AsyncMiddleware {
    enum Mode: Sendable, CustomStringConvertible {
        case removed, startCursor, unknownCursor
        var description: String {
            switch self {
            case .removed: "headers removed"
            case .startCursor: "the first page's cursor"
            case .unknownCursor: "a cursor the server never issued"
            }
        }
    }
    let mode: Mode

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        guard request.url.path == "/sync", response.headers.first(name: SyncPage.hasMoreHeader) == "true" else { return response }
        switch mode {
        case .removed:
            response.headers.remove(name: SyncPage.cursorHeader)
            response.headers.remove(name: SyncPage.hasMoreHeader)
        case .startCursor: response.headers.replaceOrAdd(name: SyncPage.cursorHeader, value: SyncCursor.start.encoded)
        case .unknownCursor: response.headers.replaceOrAdd(name: SyncPage.cursorHeader, value: "nonsense")
        }
        return response
    }
}

/// A busy server or a slow link: once `slow` is open, each sync request is answered 5 s late.
struct SlowSync: AsyncMiddleware {
    let slow: Latch

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if slow.isOpen, request.url.path == "/sync" { try await Task.sleep(for: .seconds(5)) }
        return try await next.respond(to: request)
    }
}

/// A gate a task waits at until another opens it (or a time limit passes).
final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = false

    var isOpen: Bool { lock.withLock { opened } }

    func open() { lock.withLock { opened = true } }

    func wait(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while !isOpen, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
