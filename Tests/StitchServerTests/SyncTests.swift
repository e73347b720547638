import Fluent
import Foundation
import SQLKit
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

func syncRequest(_ changes: [SyncChange], cursor: String? = nil, limit: Int? = nil, client: UUID = UUID()) -> SyncRequest {
    SyncRequest(cursor: cursor, clientId: client, changes: changes, limit: limit)
}

extension TestUser {
    func sync(_ request: SyncRequest) async throws -> SyncResponse {
        let res = try await send(.POST, "/sync", json: request)
        try #require(res.status == .ok, "sync: \(res.status) \(res.text)")
        return try res.decode(SyncResponse.self)
    }

    /// Pulls everything from the start, following pages.
    func pullAll(limit: Int? = nil) async throws -> [SyncChange] {
        var cursor: String?
        var all: [SyncChange] = []
        while true {
            let response = try await sync(syncRequest([], cursor: cursor, limit: limit))
            all += response.changes
            cursor = response.cursor
            if !response.hasMore { return all }
        }
    }
}

@Suite("Sync protocol")
struct SyncTests {
    @Test("Pushed records are applied and reach another device; the pushing device doesn't get them back")
    func pushThenPull() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let t = InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now)
            let c = Canvas(designer: "Melissa Shirley", designName: "Nutcracker", createdAt: clock.now, updatedAt: clock.now)
            let first = try await ann.sync(syncRequest([try SyncChange(record: t), try SyncChange(record: c)]))
            #expect(first.results.map(\.status) == [.applied, .applied])
            #expect(first.changes.isEmpty)
            #expect(!first.hasMore)
            // Another device sees both, and REST sees them too.
            let pulled = try await ann.pullAll()
            #expect(Set(pulled.map(\.id)) == [t.id, c.id])
            #expect(try pulled.first { $0.id == t.id }?.record(as: InventoryThread.self) == t)
            #expect(try await ann.get("/threads/\(t.id)", as: InventoryThread.self) == t)
            // Nothing new since the first device's cursor.
            let again = try await ann.sync(syncRequest([], cursor: first.cursor))
            #expect(again.changes.isEmpty)
        }
    }

    @Test("REST writes, deletes and cascades are pulled like pushed changes")
    func restWritesSync() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let start = try await ann.sync(syncRequest([]))
            let thread = try await ann.thread()
            let p = try await ann.project(canvas: try await ann.canvas())
            let entry = try await ann.create("/projects/\(p.project.id)/entries", ["notes": "x"], as: JournalEntryDetail.self)
            var res = try await ann.sync(syncRequest([], cursor: start.cursor))
            #expect(Set(res.changes.map(\.type)) == [.thread, .canvas, .project, .journalEntry])
            _ = try await ann.send(.DELETE, "/projects/\(p.project.id)")
            _ = try await ann.sendObject(.PUT, "/threads/\(thread.id)", ["quantity": 7])
            res = try await ann.sync(syncRequest([], cursor: res.cursor))
            #expect(Set(res.changes.map(\.id)) == [p.project.id, entry.entry.id, thread.id])
            #expect(res.changes.first { $0.id == p.project.id }?.action == .delete)
            #expect(res.changes.first { $0.id == entry.entry.id }?.deletedAt != nil)
        }
    }

    @Test("An older change is stale and the server's newer copy comes back; a newer one wins")
    func lastWriteWins() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            var t = InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now)
            _ = try await ann.sync(syncRequest([try SyncChange(record: t)]))
            var newer = t
            newer.quantity = 5
            newer.updatedAt = clock.now + 10
            _ = try await ann.sync(syncRequest([try SyncChange(record: newer)]))
            t.quantity = 99
            t.updatedAt = clock.now + 5
            let res = try await ann.sync(syncRequest([try SyncChange(record: t)]))
            #expect(res.results.first?.status == .stale)
            #expect(try res.changes.first?.record(as: InventoryThread.self).quantity == 5)
            #expect(try await ann.get("/threads/\(t.id)", as: InventoryThread.self).quantity == 5)
        }
    }

    @Test("Deletes are tombstones that propagate, and they win: no edit resurrects them, older or newer (an old tablet's edit sent later answers with the tombstone)")
    func deletes() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let t = InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now)
            let start = try await ann.sync(syncRequest([try SyncChange(record: t)]))
            let delete = SyncChange(type: .thread, id: t.id, action: .delete, data: nil, updatedAt: clock.now + 10, deletedAt: clock.now + 10)
            #expect(try await ann.sync(syncRequest([delete])).results.first?.status == .applied)
            #expect(try await ann.send(.GET, "/threads/\(t.id)").status == .notFound)
            var old = t
            old.quantity = 3
            old.updatedAt = clock.now + 5
            let resurrect = try await ann.sync(syncRequest([try SyncChange(record: old)]))
            #expect(resurrect.results.first?.status == .stale)
            #expect(resurrect.changes.first?.action == .delete)
            #expect(try await ann.send(.GET, "/threads/\(t.id)").status == .notFound)
            // The tablet was offline when the phone deleted it; its edit, made later, comes now.
            var tablet = t
            tablet.quantity = 7
            tablet.updatedAt = clock.now + 60
            let later = try await ann.sync(syncRequest([try SyncChange(record: tablet)]))
            #expect(later.results.first?.status == .stale)
            #expect(later.changes.count == 1 && later.changes.first?.action == .delete && later.changes.first?.deletedAt != nil)
            #expect(try await ann.send(.GET, "/threads/\(t.id)").status == .notFound)
            let pulled = try await ann.sync(syncRequest([], cursor: start.cursor))
            #expect(pulled.changes.map(\.action) == [.delete])
            // A delete of something the server never had is simply done.
            let ghost = SyncChange(type: .canvas, id: UUID(), action: .delete, data: nil, updatedAt: clock.now, deletedAt: clock.now)
            #expect(try await ann.sync(syncRequest([ghost])).results.first?.status == .applied)
        }
    }

    @Test("Sending the same request twice leaves the same state and does not bump versions again")
    func idempotent() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let t = InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now)
            let request = syncRequest([try SyncChange(record: t)])
            let first = try await ann.sync(request)
            let version = try await ann.syncVersion()
            let second = try await ann.sync(request)
            #expect(second.results.first?.status == .applied)
            #expect(try await ann.syncVersion() == version)
            #expect(second.changes.isEmpty && first.changes.isEmpty)
            #expect(try await ann.get("/threads", as: [InventoryThread].self) == [t])
        }
    }

    @Test("A clock more than five minutes ahead is clamped to the server's now, and the result says so")
    func clockSkew() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let future = clock.now + 24 * 3600
            let t = InventoryThread(brand: "DMC", number: "310", createdAt: future, updatedAt: future)
            let res = try await ann.sync(syncRequest([try SyncChange(record: t)]))
            #expect(res.results.first?.status == .applied && res.results.first?.clamped == true)
            let stored = try await ann.get("/threads/\(t.id)", as: InventoryThread.self)
            #expect(stored.updatedAt == clock.now)
            #expect(try res.changes.first?.record(as: InventoryThread.self).updatedAt == clock.now)
            // A later honest edit from another device wins over it.
            var edit = stored
            edit.quantity = 4
            edit.updatedAt = clock.now + 1
            #expect(try await ann.sync(syncRequest([try SyncChange(record: edit)])).results.first?.status == .applied)
            let slightlyAhead = InventoryThread(brand: "DMC", number: "321", createdAt: clock.now + 60, updatedAt: clock.now + 60)
            let ok = try await ann.sync(syncRequest([try SyncChange(record: slightlyAhead)]))
            #expect(ok.results.first?.clamped == nil)
        }
    }

    @Test("Invalid changes are rejected with their fields while valid ones apply; another user's id is rejected")
    func partialRejection() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let bobs = try await bob.thread("DMC", "999", quantity: 1)
            let good = InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now)
            let bad = InventoryThread(brand: "", number: "1", quantity: -2, createdAt: clock.now, updatedAt: clock.now)
            var stolen = bobs
            stolen.quantity = 0
            stolen.updatedAt = clock.now + 100
            let garbage = SyncChange(type: .canvas, id: UUID(), action: .upsert, data: .object(["designer": .int(7)]), updatedAt: clock.now, deletedAt: nil)
            let res = try await ann.sync(syncRequest([try SyncChange(record: good), try SyncChange(record: bad), try SyncChange(record: stolen), garbage]))
            #expect(res.results.map(\.status) == [.applied, .rejected, .rejected, .rejected])
            #expect(Set(res.results[1].error?.fields?.keys.map { $0 } ?? []) == ["brand", "quantity"])
            #expect(res.results[2].error?.error == "This id can't be used")
            #expect(!res.changes.contains { $0.id == bobs.id })
            #expect(try await bob.get("/threads/\(bobs.id)", as: InventoryThread.self).quantity == 1)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).map(\.number) == ["310"])
            // And Ann's pull never includes Bob's records.
            #expect(!(try await ann.pullAll()).contains { $0.id == bobs.id })
        }
    }

    @Test("A refused change to a record the server holds brings the server's copy back, even when the pull has nothing past the cursor; a refused new record or another user's id brings nothing")
    func refusedChangeGetsServerCopy() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let bobs = try await bob.thread("Anchor", "1", quantity: 3)
            let now = clock.now
            let thread = InventoryThread(brand: "DMC", number: "310", quantity: 1, createdAt: now, updatedAt: now)
            let canvas = Canvas(designer: "A", designName: "B", createdAt: now, updatedAt: now)
            var first = Project(canvasId: canvas.id, startedAt: now, createdAt: now, updatedAt: now)
            let setUp = try await ann.sync(syncRequest([try SyncChange(record: thread), try SyncChange(record: canvas), try SyncChange(record: first)]))
            #expect(setUp.results.allSatisfy { $0.status == .applied })
            // The first project is deleted and a second started on the canvas; the device has
            // seen all of it (its cursor is past every record).
            first.deletedAt = now + 5
            first.updatedAt = now + 5
            let second = Project(canvasId: canvas.id, startedAt: now + 6, createdAt: now + 6, updatedAt: now + 6)
            let seen = try await ann.sync(syncRequest([try SyncChange(record: first), try SyncChange(record: second)], cursor: setUp.cursor))
            #expect(seen.results.allSatisfy { $0.status == .applied } && !seen.hasMore)

            // Then: an edit of the thread that breaks a rule, an edit bringing the first project
            // back (deletes win: stale, its tombstone comes back), a new invalid thread, Bob's id.
            var badEdit = thread
            badEdit.brand = ""
            badEdit.updatedAt = now + 10
            var revival = first
            revival.deletedAt = nil
            revival.notes = "Back again"
            revival.updatedAt = now + 10
            let newBad = InventoryThread(brand: "DMC", number: "", createdAt: now, updatedAt: now)
            var stolen = bobs
            stolen.updatedAt = now + 100
            let res = try await ann.sync(syncRequest([try SyncChange(record: badEdit), try SyncChange(record: revival),
                                                     try SyncChange(record: newBad), try SyncChange(record: stolen)], cursor: seen.cursor))
            #expect(res.results.map(\.status) == [.rejected, .stale, .rejected, .rejected])
            // Exactly the server's copies of the two records it holds for Ann.
            #expect(res.changes.count == 2)
            let copies = Dictionary(uniqueKeysWithValues: res.changes.map { ($0.id, $0) })
            #expect(try copies[thread.id]?.record(as: InventoryThread.self) == thread)
            #expect(copies[first.id]?.action == .delete && copies[first.id]?.deletedAt == first.deletedAt)
            // Nothing changed on the server.
            #expect(try await ann.get("/threads/\(thread.id)", as: InventoryThread.self) == thread)
            #expect(try await ann.get("/projects", as: [ProjectDetail].self).map(\.project.id) == [second.id])
            #expect(try await bob.get("/threads/\(bobs.id)", as: InventoryThread.self).quantity == 3)
        }
    }

    @Test("A big push against stored records: every current copy is found (one read, ids bound as one value), stale ones lose, newer ones win, another user's ids are refused")
    func bigPushAgainstStored() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let stored = (0..<2_500).map { InventoryThread(brand: "DMC", number: "\($0)", quantity: 1, createdAt: clock.now, updatedAt: clock.now + 10) }
            let first = try await ann.sync(syncRequest(try stored.map { try SyncChange(record: $0) }, limit: 1))
            #expect(first.results.allSatisfy { $0.status == .applied })
            let bobs = try await bob.thread("Anchor", "1", quantity: 3)
            // Even numbers: newer edits. Odd: older ones. Plus new records and Bob's id.
            var changes = try stored.enumerated().map { i, thread in
                var edit = thread
                edit.quantity = 100 + i
                edit.updatedAt = clock.now + (i.isMultiple(of: 2) ? 20 : 5)
                return try SyncChange(record: edit)
            }
            let fresh = (0..<50).map { InventoryThread(brand: "Caron", number: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            changes += try fresh.map { try SyncChange(record: $0) }
            var stolen = bobs
            stolen.updatedAt = clock.now + 100
            changes.append(try SyncChange(record: stolen))
            let res = try await ann.sync(syncRequest(changes, cursor: first.cursor, limit: 1))
            #expect(res.results.count == changes.count)
            #expect(res.results.prefix(2_500).enumerated().allSatisfy { i, r in r.status == (i.isMultiple(of: 2) ? .applied : .stale) })
            #expect(res.results[2_500..<2_550].allSatisfy { $0.status == .applied })
            #expect(res.results.last?.status == .rejected)
            // Each stale change gets the server's copy back.
            #expect(Set(res.changes.map(\.id)) == Set(stored.enumerated().filter { !$0.offset.isMultiple(of: 2) }.map(\.element.id)))
            let threads = try await ann.get("/threads", as: [InventoryThread].self)
            #expect(threads.count == 2_550)
            let byId = Dictionary(uniqueKeysWithValues: threads.map { ($0.id, $0) })
            #expect(stored.enumerated().allSatisfy { i, t in byId[t.id]?.quantity == (i.isMultiple(of: 2) ? 100 + i : 1) })
            #expect(try await bob.get("/threads/\(bobs.id)", as: InventoryThread.self).quantity == 3)
        }
    }

    @Test("Changes may arrive in any order: a journal image before its entry, its project and canvas")
    func outOfOrder() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let key = try await ann.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            let now = clock.now
            let canvas = Canvas(designer: "A", designName: "B", createdAt: now, updatedAt: now)
            let project = Project(canvasId: canvas.id, startedAt: now, createdAt: now, updatedAt: now)
            let section = ProjectSection(projectId: project.id, name: "Border", createdAt: now, updatedAt: now)
            let thread = InventoryThread(brand: "DMC", number: "310", createdAt: now, updatedAt: now)
            let req = ProjectThread(projectId: project.id, sectionId: section.id, threadId: thread.id, brand: "DMC", number: "310", createdAt: now, updatedAt: now)
            let entry = JournalEntry(projectId: project.id, notes: "Day one", createdAt: now, updatedAt: now)
            let image = JournalImage(entryId: entry.id, imageKey: key, sortOrder: 0, createdAt: now, updatedAt: now)
            let changes = [try SyncChange(record: image), try SyncChange(record: req), try SyncChange(record: entry),
                           try SyncChange(record: section), try SyncChange(record: project), try SyncChange(record: thread),
                           try SyncChange(record: canvas)]
            let res = try await ann.sync(syncRequest(changes))
            #expect(res.results.allSatisfy { $0.status == .applied }, "\(res.results)")
            #expect(res.results.map(\.id) == changes.map(\.id))
            let entries = try await ann.get("/projects/\(project.id)/entries", as: [JournalEntryDetail].self)
            #expect(entries.first?.images.first?.imageKey == key)
        }
    }

    @Test("References must hold after the push: unknown parents, foreign images and a second live project are rejected")
    func badReferences() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let bobsKey = try await bob.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            let now = clock.now
            let canvas = Canvas(designer: "A", designName: "B", createdAt: now, updatedAt: now)
            let p1 = Project(canvasId: canvas.id, startedAt: now, createdAt: now, updatedAt: now)
            let p2 = Project(canvasId: canvas.id, startedAt: now, createdAt: now, updatedAt: now)
            let orphan = ProjectSection(projectId: UUID(), name: "Lost", createdAt: now, updatedAt: now)
            let entry = JournalEntry(projectId: p1.id, notes: "x", createdAt: now, updatedAt: now)
            let stolenImage = JournalImage(entryId: entry.id, imageKey: bobsKey, sortOrder: 0, createdAt: now, updatedAt: now)
            let res = try await ann.sync(syncRequest([try SyncChange(record: canvas), try SyncChange(record: p1), try SyncChange(record: p2),
                                                     try SyncChange(record: orphan), try SyncChange(record: entry), try SyncChange(record: stolenImage)]))
            #expect(res.results.map(\.status) == [.applied, .applied, .rejected, .rejected, .applied, .rejected])
            #expect(res.results[2].error?.fields?["canvasId"] != nil)
        }
    }

    @Test("A push is all or nothing: a failure part-way through its writes leaves nothing behind")
    func atomicPush() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let version = try await ann.syncVersion()
            struct Boom: Error {}
            app.syncFaults = SyncFaults(afterWriting: { type in if type == .thread { throw Boom() } })
            let t = InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now)
            let c = Canvas(designer: "A", designName: "B", createdAt: clock.now, updatedAt: clock.now)
            let res = try await ann.send(.POST, "/sync", json: syncRequest([try SyncChange(record: t), try SyncChange(record: c)]))
            #expect(res.status == .internalServerError)
            #expect(try await ThreadModel.count(on: app.db) == 0)
            #expect(try await CanvasModel.count(on: app.db) == 0)
            #expect(try await ann.syncVersion() == version)
            app.syncFaults = nil
            #expect(try await ann.sync(syncRequest([try SyncChange(record: t), try SyncChange(record: c)])).results.allSatisfy { $0.status == .applied })
        }
    }

    @Test("A write that commits while a pull reads its tables is never skipped by the cursor")
    func writeDuringPull() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let first = InventoryThread(brand: "DMC", number: "1", createdAt: clock.now, updatedAt: clock.now)
            let firstCanvas = Canvas(designer: "A", designName: "First", createdAt: clock.now, updatedAt: clock.now)
            _ = try await ann.sync(syncRequest([try SyncChange(record: first), try SyncChange(record: firstCanvas)]))
            // Another device pushes a thread and a canvas (one version) after this pull has read
            // the threads table but before it reads the canvases.
            let thread = InventoryThread(brand: "DMC", number: "2", createdAt: clock.now, updatedAt: clock.now)
            let canvas = Canvas(designer: "A", designName: "B", createdAt: clock.now, updatedAt: clock.now)
            let pushed = Once()
            app.syncFaults = SyncFaults(afterReading: { type in
                guard type == .thread, pushed.set() else { return }
                _ = try await ann.sync(syncRequest([try SyncChange(record: thread), try SyncChange(record: canvas)]))
            })
            let page = try await ann.sync(syncRequest([]))
            app.syncFaults = nil
            #expect(page.changes.map(\.id) == [first.id, firstCanvas.id])
            // The next pull from that cursor brings both records of the write.
            let next = try await ann.sync(syncRequest([], cursor: page.cursor))
            #expect(Set(next.changes.map(\.id)) == [thread.id, canvas.id])
        }
    }

    @Test("Bad requests: an unknown cursor, a zero limit, malformed JSON, unknown entity types, a change's data not an object")
    func badRequests() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            #expect(try await ann.send(.POST, "/sync", json: syncRequest([], cursor: "nonsense")).status == .conflict)
            #expect(try await ann.send(.POST, "/sync", json: syncRequest([], limit: 0)).status == .badRequest)
            #expect(try await ann.send(.POST, "/sync", raw: "{").status == .badRequest)
            #expect(try await ann.send(.POST, "/sync", raw: #"{"clientId":"\#(UUID())","changes":[{"type":"spaceship","id":"\#(UUID())","action":"upsert","updatedAt":"2026-01-01T00:00:00Z"}]}"#).status == .badRequest)
            // A change's data is a record's fields: an array (or a number) is a malformed request, and nothing of it is applied.
            let good = #"{"type":"thread","id":"\#(UUID())","action":"upsert","updatedAt":"2026-01-01T00:00:00Z","data":{"brand":"DMC","number":"310","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}}"#
            for data in ["[{}, -6.8e16]", "42", "\"text\""] {
                let bad = #"{"type":"journalEntry","id":"\#(UUID())","action":"upsert","updatedAt":"2026-01-01T00:00:00Z","data":\#(data)}"#
                let res = try await ann.send(.POST, "/sync", raw: #"{"clientId":"\#(UUID())","changes":[\#(good),\#(bad)]}"#)
                #expect(res.status == .badRequest, "\(data) → \(res.status) \(res.text)")
            }
            #expect(try await ann.get("/threads", as: [InventoryThread].self).isEmpty)
            #expect(try await app.send(.POST, "/sync", json: syncRequest([])).status == .unauthorized)
            let huge = try await ann.sync(syncRequest([], limit: 1_000_000))
            #expect(!huge.hasMore)
        }
    }

    @Test("10,000 records pulled in pages: no duplicates, no gaps, bounded pages; other page sizes give the same order")
    func pagination() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            var expected = Set<UUID>()
            for batch in 0..<4 {
                var changes: [SyncChange] = []
                for i in 0..<2500 {
                    let t = InventoryThread(brand: "DMC", number: "\(batch)-\(i)", createdAt: clock.now, updatedAt: clock.now)
                    expected.insert(t.id)
                    changes.append(try SyncChange(record: t))
                }
                let res = try await ann.sync(syncRequest(changes))
                #expect(res.results.allSatisfy { $0.status == .applied })
            }
            // A few REST writes in between make the versions uneven.
            let extra = try await ann.thread("Appleton", "1")
            expected.insert(extra.id)
            var cursor: String?
            var seen: [UUID] = []
            var pages = 0
            while true {
                let raw = try await ann.send(.POST, "/sync", json: syncRequest([], cursor: cursor, limit: 700))
                let res = try raw.decode(SyncResponse.self)
                // The headers say what the body does of the next page.
                #expect(raw.headers.first(name: SyncPage.cursorHeader) == res.cursor)
                #expect(raw.headers.first(name: SyncPage.hasMoreHeader) == (res.hasMore ? "true" : "false"))
                #expect(res.changes.count <= 700)
                seen += res.changes.map(\.id)
                cursor = res.cursor
                pages += 1
                if !res.hasMore { break }
            }
            #expect(seen.count == 10_001)
            #expect(Set(seen) == expected)
            #expect(pages == 15)
            // Pages of another size (the last part-full): the same records in the same order.
            var again: [UUID] = []
            cursor = nil
            while true {
                let res = try await ann.sync(syncRequest([], cursor: cursor, limit: 2_345))
                again += res.changes.map(\.id)
                cursor = res.cursor
                if !res.hasMore { break }
            }
            #expect(again == seen)
        }
    }

    @Test("Pages inside one big version, across its tables and into the next version: every record once, in (version, kind, id) order")
    func pagesWithinAVersion() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let threads = (0..<900).map { InventoryThread(brand: "DMC", number: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            let canvases = (0..<650).map { Canvas(designer: "A", designName: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            _ = try await ann.sync(syncRequest(try (canvases.map { try SyncChange(record: $0) } + threads.map { try SyncChange(record: $0) }), limit: 1))
            let later = (0..<400).map { InventoryThread(brand: "Anchor", number: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            _ = try await ann.sync(syncRequest(try later.map { try SyncChange(record: $0) }, limit: 1))
            func sorted(_ ids: [UUID]) -> [UUID] { ids.sorted(by: UUIDOrder.less) }
            let expected = sorted(threads.map(\.id)) + sorted(canvases.map(\.id)) + sorted(later.map(\.id))
            for size in [7, 299, 300, 900, 901, 5000] {
                var cursor: String?, seen: [UUID] = []
                while true {
                    let page = try await ann.sync(syncRequest([], cursor: cursor, limit: size))
                    #expect(page.changes.count <= size)
                    seen += page.changes.map(\.id)
                    cursor = page.cursor
                    if !page.hasMore { break }
                }
                #expect(seen == expected, "pages of \(size)")
            }
        }
    }

    @Test("A pull page bounded before its rows are read (its headers sent first) is byte for byte the page read whole: within a version, across versions, the last; a page spanning tables is read whole")
    func boundedPagesAreWholePages() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            func threads(_ n: Int, _ prefix: String) -> [InventoryThread] {
                (0..<n).map { InventoryThread(brand: "DMC", number: "\(prefix)\($0)", colorName: $0 % 3 == 0 ? nil : "Red \"\($0)\"", createdAt: clock.now, updatedAt: clock.now) }
            }
            func sorted(_ ids: [UUID]) -> [UUID] { ids.sorted(by: UUIDOrder.less) }
            // One big version, one spanning two tables, five single-record versions, one more big one.
            let big = threads(1_200, "a")
            _ = try await ann.sync(syncRequest(try big.map { try SyncChange(record: $0) }, limit: 1))
            let mixed = threads(400, "b"), canvases = (0..<3).map { Canvas(designer: "A", designName: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            _ = try await ann.sync(syncRequest(try canvases.map { try SyncChange(record: $0) } + mixed.map { try SyncChange(record: $0) }, limit: 1))
            var singles: [UUID] = []
            for i in 0..<5 { singles.append(try await ann.thread("Anchor", "\(i)").id) }
            let last = threads(300, "c")
            _ = try await ann.sync(syncRequest(try last.map { try SyncChange(record: $0) }, limit: 1))
            let expected = sorted(big.map(\.id)) + sorted(mixed.map(\.id)) + sorted(canvases.map(\.id)) + singles + sorted(last.map(\.id))

            for limit in [97, 500, 1_200, 1_201, 5_000] {
                var cursor: String?, seen: [UUID] = [], bounded = 0, whole = 0
                while true {
                    let raw = try await ann.send(.POST, "/sync", json: syncRequest([], cursor: cursor, limit: limit))
                    try #require(raw.status == .ok)
                    let from = try #require(cursor.map { SyncCursor(encoded: $0) } ?? .start)
                    switch try await SyncService.plan(userId: ann.id, after: from, limit: limit, db: app.db) {
                    case .planned: bounded += 1
                    case .unplanned: whole += 1
                    }
                    // The same page read whole, in process: the same bytes.
                    let page = try await SyncService.pull(userId: ann.id, after: from, limit: limit, skipVersion: nil, db: app.db)
                    let read = SyncResponse(cursor: page.cursor.encoded, hasMore: page.hasMore, changes: page.changes, results: [])
                    #expect(Array(raw.body.readableBytesView) == (try StitchJSON.encodeBytes(read)), "pages of \(limit) from \(from)")
                    #expect(raw.headers.first(name: SyncPage.cursorHeader) == read.cursor)
                    #expect(raw.headers.first(name: SyncPage.hasMoreHeader) == (read.hasMore ? "true" : "false"))
                    let response = try raw.decode(SyncResponse.self)
                    #expect(response.changes.count <= limit)
                    seen += response.changes.map(\.id)
                    cursor = response.cursor
                    if !response.hasMore { break }
                }
                #expect(seen == expected, "pages of \(limit)")
                #expect(whole > 0, "pages of \(limit)")
                if limit < 1_200 { #expect(bounded > 0, "pages of \(limit)") }
            }
            // The end of a complete pull: an empty page, read whole.
            let end = try await ann.sync(syncRequest([], cursor: nil, limit: 5_000))
            #expect(try await ann.sync(syncRequest([], cursor: end.cursor)).changes.isEmpty)
        }
    }

    @Test("A bulk push refreshes the table's planner statistics at once; a small one leaves it to autovacuum (PostgreSQL)",
          .enabled(if: TestDatabase.isPostgres))
    func bulkPushAnalyzes() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            func analyzed(_ table: String) async throws -> Int {
                let row = try await app.db.sql.raw("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = \(bind: table)").first()
                return try row?.decode(column: "analyze_count", as: Int.self) ?? 0
            }
            let canvases = (0..<10).map { Canvas(designer: "A", designName: "\($0)", createdAt: clock.now, updatedAt: clock.now) }
            _ = try await ann.sync(syncRequest(try canvases.map { try SyncChange(record: $0) }))
            let threads = (0..<TableStatistics.bulkRows).map {
                InventoryThread(brand: "DMC", number: "\($0)", createdAt: clock.now, updatedAt: clock.now)
            }
            _ = try await ann.sync(syncRequest(try threads.map { try SyncChange(record: $0) }, limit: 1))
            await app.tableStatistics.settle()
            // The statistics collector reports with a small delay.
            var count = 0
            for _ in 0..<50 where count == 0 {
                count = try await analyzed("threads")
                if count == 0 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(count >= 1)
            #expect(try await analyzed("canvases") == 0)
            // And the pull pages walk the index: every record, once, in order.
            #expect(Set(try await ann.pullAll(limit: 300).map(\.id)) == Set(threads.map(\.id) + canvases.map(\.id)))
        }
    }

    @Test("A pull's page is read as one range of the (user, version, id) index, even when it is half the user's rows (PostgreSQL)",
          .enabled(if: TestDatabase.isPostgres))
    func pullPageIsAnIndexRange() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            // Two accounts' rows interleaved on disk, wide enough to fill pages: with PostgreSQL's
            // default random-read cost the planner would read all of Ann's rows and sort them
            // to answer her first page.
            for chunk in 0..<80 {
                for user in [ann, bob] {
                    let threads = (0..<50).map {
                        InventoryThread(brand: "DMC", number: "\(chunk)-\($0)", notes: String(repeating: "x", count: 400),
                                        createdAt: clock.now, updatedAt: clock.now)
                    }
                    try await app.db.writeTransaction { db in try await BatchWriter.upsert(threads, as: ThreadModel.self, userId: user.id, version: 1, on: db) }
                }
            }
            try await app.db.sql.raw("ANALYZE threads").run()
            let query = SyncService.fetchQuery(ThreadModel.self, userId: ann.id, after: .start, limit: 2000,
                                               highWater: .max, skip: nil, db: app.db)
            let plan = try await app.db.sql.raw("EXPLAIN \(query.select)").all()
                .map { try $0.decode(column: "QUERY PLAN", as: String.self) }.joined(separator: "\n")
            #expect(plan.contains("Index Scan using threads_user_version_id"), "\(plan)")
            #expect(!plan.contains("Sort"), "\(plan)")
        }
    }

    @Test("A push's new rows are stored in the order a pull reads them (id order within the version), whatever order they were sent in")
    func pushedRowsLieInReadOrder() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let threads = (0..<600).map {
                InventoryThread(brand: "DMC", number: "\($0)", createdAt: clock.now, updatedAt: clock.now)
            }
            // Sent in reverse id order, to be sure the order is the server's doing.
            let sent = threads.sorted { UUIDOrder.less($1.id, $0.id) }
            let res = try await ann.sync(syncRequest(try sent.map { try SyncChange(record: $0) }, limit: 1))
            #expect(res.results.allSatisfy { $0.status == .applied })
            // Storage order: PostgreSQL's physical tuple address, SQLite's rowid.
            let order = TestDatabase.isPostgres ? "ctid" : "rowid"
            let stored = try await app.db.sql.raw("SELECT id FROM threads ORDER BY \(unsafeRaw: order)").all()
                .map { try $0.decode(column: "id", as: UUID.self) }
            let expected = threads.map(\.id).sorted(by: UUIDOrder.less)
            let outOfPlace = stored.indices.first { $0 >= expected.count || stored[$0] != expected[$0] }
            #expect(stored.count == expected.count && outOfPlace == nil, "stored order differs from id order at row \(outOfPlace ?? -1)")
            // And the pull reads them in that order.
            let pulled = try await ann.pullAll(limit: 250).map(\.id)
            #expect(pulled.count == expected.count && pulled == expected, "pulled \(pulled.count) of \(expected.count), not in id order")
        }
    }

    @Test("A pull page writes each record from its row exactly as the record itself writes: every kind, empty and full fields, text that needs escaping")
    func pullPageBytesAreTheRecords() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let t = clock.now, earlier = clock.now.addingTimeInterval(-400 * 86_400)
            let odd = "Quote \" back\\slash\nline\ttab \u{1}\u{1F} é ß 🧵 </script> ±"
            let bare = InventoryThread(brand: "DMC", number: "310", createdAt: t, updatedAt: t)
            let full = InventoryThread(brand: odd, number: "3865", colorName: "Winter White", colorHex: "#F8F8F2", fiberType: .silk,
                                       quantity: 12, barcode: "0123456789012", weightOrLength: "8 m", notes: odd,
                                       createdAt: earlier, updatedAt: t.addingTimeInterval(0.123))
            let gone = InventoryThread(brand: "DMC", number: "1", createdAt: t, updatedAt: t, deletedAt: t)
            let canvas = Canvas(designer: "Melissa Shirley", designName: odd, acquiredAt: earlier, imageKey: "canvases/a.jpg",
                                size: "14 × 14 in", meshCount: 18, notes: odd, createdAt: earlier, updatedAt: t)
            let plainCanvas = Canvas(designer: "Kirk & Bradley", designName: "Tulips", createdAt: t, updatedAt: t)
            let project = Project(canvasId: canvas.id, status: .atFinishing, startedAt: earlier, finishingAt: t, completedAt: t,
                                  notes: odd, createdAt: earlier, updatedAt: t)
            let plainProject = Project(canvasId: plainCanvas.id, startedAt: t, createdAt: t, updatedAt: t)
            let section = ProjectSection(projectId: project.id, name: odd, sortOrder: 3, status: .inProgress, notes: odd,
                                         createdAt: t, updatedAt: t)
            let plainSection = ProjectSection(projectId: project.id, name: "Sky", createdAt: t, updatedAt: t)
            let needed = ProjectThread(projectId: project.id, sectionId: section.id, threadId: full.id, brand: "DMC", number: "3865",
                                       colorName: odd, quantityNeeded: 2, notes: odd, createdAt: t, updatedAt: t)
            let plainNeeded = ProjectThread(projectId: project.id, brand: "Appleton", number: "991", createdAt: t, updatedAt: t)
            let entry = JournalEntry(projectId: project.id, notes: odd, createdAt: t, updatedAt: t)
            let image = JournalImage(entryId: entry.id, imageKey: "journal/b.jpg", sortOrder: 1, createdAt: t, updatedAt: t)
            let goneImage = JournalImage(entryId: entry.id, imageKey: "journal/c.jpg", sortOrder: 2, createdAt: t, updatedAt: t, deletedAt: t)
            let db = app.db
            for thread in [bare, full, gone] { _ = try await Records.create(thread, as: ThreadModel.self, userId: ann.id, version: 1, on: db) }
            for canvas in [canvas, plainCanvas] { _ = try await Records.create(canvas, as: CanvasModel.self, userId: ann.id, version: 2, on: db) }
            for project in [project, plainProject] { _ = try await Records.create(project, as: ProjectModel.self, userId: ann.id, version: 2, on: db) }
            for section in [section, plainSection] { _ = try await Records.create(section, as: SectionModel.self, userId: ann.id, version: 3, on: db) }
            for needed in [needed, plainNeeded] { _ = try await Records.create(needed, as: RequirementModel.self, userId: ann.id, version: 3, on: db) }
            _ = try await Records.create(entry, as: JournalEntryModel.self, userId: ann.id, version: 4, on: db)
            for image in [image, goneImage] { _ = try await Records.create(image, as: JournalImageModel.self, userId: ann.id, version: 4, on: db) }
            try await db.sql.update(UserModel.schema).set("sync_version", to: SQLBind(4)).where("id", .equal, SQLUUID(ann.id)).run()

            // What each change must be: its record as the record path reads it back, written by the record.
            var expected: [RecordKey: [UInt8]] = [:]
            func expect<M: RecordModel>(_ type: M.Type) async throws {
                for stored in try await db.selectRecords(M.self, M.select(on: db).where("user_id", .equal, SQLUUID(ann.id))) {
                    var bytes: [UInt8] = []
                    try SyncChange(record: stored.record).writeJSON(into: &bytes)
                    expected[RecordKey(M.Record.entityType, stored.record.id)] = bytes
                }
            }
            try await expect(ThreadModel.self); try await expect(CanvasModel.self); try await expect(ProjectModel.self)
            try await expect(SectionModel.self); try await expect(RequirementModel.self); try await expect(JournalEntryModel.self)
            try await expect(JournalImageModel.self)
            #expect(expected.count == 14)

            // Written straight from the rows, as a page bounded first is: every kind (each lies at
            // one version here), the same bytes, in id order, as one JSON array.
            func expectWritten<M: RecordModel>(_ type: M.Type) async throws {
                let plan = SyncService.PagePlan(type: M.Record.entityType, after: .start, through: nil, highWater: 4, cursor: .start, hasMore: false)
                let written = try await SyncService.encodedChanges(plan, userId: ann.id, db: db)
                let ids = expected.keys.filter { $0.type == M.Record.entityType }.map(\.id).sorted(by: UUIDOrder.less)
                #expect(!ids.isEmpty)
                let want = Array("[".utf8) + Array(ids.map { expected[RecordKey(M.Record.entityType, $0)]! }.joined(separator: Array(",".utf8))) + Array("]".utf8)
                #expect(written == want, "\(M.Record.entityType): \(String(decoding: written, as: UTF8.self))")
            }
            try await expectWritten(ThreadModel.self); try await expectWritten(CanvasModel.self); try await expectWritten(ProjectModel.self)
            try await expectWritten(SectionModel.self); try await expectWritten(RequirementModel.self); try await expectWritten(JournalEntryModel.self)
            try await expectWritten(JournalImageModel.self)

            let page = try await SyncService.pull(userId: ann.id, after: .start, limit: 100, skipVersion: nil, db: db)
            #expect(page.changes.count == 14)
            #expect(page.changes.filter { $0.action == .delete }.map(\.id).sorted() == [gone.id, goneImage.id].sorted())
            for change in page.changes {
                var bytes: [UInt8] = []
                change.writeJSON(into: &bytes)
                #expect(bytes == expected[change.key], "\(change.type) \(String(decoding: bytes, as: UTF8.self))")
            }
            // And over HTTP, a fresh device reads them back as the records themselves.
            let pulled = try await ann.sync(syncRequest([]))
            #expect(pulled.changes.count == 14)
            #expect(try pulled.changes.first { $0.id == bare.id }?.record(as: InventoryThread.self) == bare)
            #expect(try pulled.changes.first { $0.id == needed.id }?.record(as: ProjectThread.self) == needed)
            #expect(try pulled.changes.first { $0.id == canvas.id }?.record(as: Canvas.self) == canvas)
            let decoded = try #require(try pulled.changes.first { $0.id == full.id }?.record(as: InventoryThread.self))
            #expect(decoded.notes == odd && decoded.brand == odd && decoded.barcode == full.barcode)
            #expect(decoded.updatedAt.millisecondsSince1970 == full.updatedAt.millisecondsSince1970)
        }
    }

    @Test("A write that commits after a concurrent pull started is delivered by the next pull (PostgreSQL)",
          .enabled(if: TestDatabase.isPostgres))
    func cursorNeverSkipsLateCommits() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let first = InventoryThread(brand: "DMC", number: "1", createdAt: clock.now, updatedAt: clock.now)
            _ = try await ann.sync(syncRequest([try SyncChange(record: first)]))
            let late = InventoryThread(brand: "DMC", number: "2", createdAt: clock.now, updatedAt: clock.now)

            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
            // A write transaction takes its version and then waits, uncommitted.
            let writer = Task {
                try await app.db.transaction { db in
                    let version = try await SyncVersion.next(for: ann.id, on: db)
                    try await Records.create(late, as: ThreadModel.self, userId: ann.id, version: version, on: db)
                    startedContinuation.yield()
                    for await _ in release { break }
                }
            }
            for await _ in started { break }
            // Meanwhile a pull runs and finishes: it cannot see the uncommitted write.
            let during = try await ann.sync(syncRequest([]))
            #expect(during.changes.map(\.id) == [first.id])
            releaseContinuation.yield()
            try await writer.value
            // The next pull from that cursor gets the late write.
            let after = try await ann.sync(syncRequest([], cursor: during.cursor))
            #expect(after.changes.map(\.id) == [late.id])
        }
    }
}

/// True the first time it is asked, false ever after (from any task).
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func set() -> Bool { lock.withLock { defer { done = true }; return !done } }
}
