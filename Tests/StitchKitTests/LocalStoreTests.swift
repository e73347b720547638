import Foundation
import GRDB
import StitchCore
@testable import StitchKit
import Testing

/// A clock a test moves by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = Date(timeIntervalSince1970: 1_800_000_000)
    var date: Date { lock.withLock { now } }
    func advance(_ seconds: TimeInterval) { lock.withLock { now += seconds } }
}

func makeStore(_ clock: ManualClock = ManualClock()) throws -> LocalStore {
    try LocalStore(path: nil, clock: { clock.date })
}

@Suite("Local store")
struct LocalStoreTests {
    @Test("Every write lands locally first: stamped, validated, pending; deletes are pending tombstones")
    func writes() throws {
        let clock = ManualClock()
        let store = try makeStore(clock)
        let t = try store.save(InventoryThread(brand: " DMC ", number: "310", quantity: 2, createdAt: .distantPast, updatedAt: .distantPast))
        #expect(t.brand == "DMC" && t.updatedAt == clock.date)
        #expect(try store.isPending(.thread, id: t.id))
        #expect(try store.pendingCount() == 1)
        clock.advance(5)
        var edited = t
        edited.quantity = 3
        let saved = try store.save(edited)
        #expect(saved.updatedAt == clock.date && saved.createdAt == t.createdAt)
        #expect(throws: ValidationError.self) { try store.save(InventoryThread(brand: "", number: "1", createdAt: clock.date, updatedAt: clock.date)) }
        try store.delete(InventoryThread.self, id: t.id)
        #expect(try store.find(InventoryThread.self, id: t.id) == nil)
        let tombstone = try #require(try store.all(InventoryThread.self, includeDeleted: true).first)
        #expect(tombstone.deletedAt != nil)
        let changes = try store.pendingChanges()
        #expect(changes.count == 1 && changes[0].action == .delete)
    }

    @Test("An edit never gets an earlier updatedAt than the version it replaces, even if the clock went back")
    func monotonicStamps() throws {
        let clock = ManualClock()
        let store = try makeStore(clock)
        let t = try store.save(InventoryThread(brand: "DMC", number: "310", createdAt: clock.date, updatedAt: clock.date))
        clock.advance(-3600)
        var edit = t
        edit.quantity = 9
        #expect(try store.save(edit).updatedAt > t.updatedAt)
    }

    @Test("Pulled changes: a record without local edits takes the server's copy; a newer local edit is kept")
    func pulledChanges() throws {
        let clock = ManualClock()
        let store = try makeStore(clock)
        let t = try store.save(InventoryThread(brand: "DMC", number: "310", quantity: 1, createdAt: clock.date, updatedAt: clock.date))
        try store.acknowledge([SyncResult(id: t.id, type: .thread, status: .applied)], sent: try store.pendingChanges(), at: clock.date)
        #expect(try store.pendingCount() == 0)
        var server = t
        server.quantity = 7
        server.updatedAt = clock.date + 10
        try store.applyPulled([try SyncChange(record: server)], cursor: "c1", at: clock.date)
        #expect(try store.find(InventoryThread.self, id: t.id)?.quantity == 7)
        #expect(try store.cursor == "c1")

        clock.advance(60)
        var local = server
        local.quantity = 3
        try store.save(local)  // newer than what the server will send next
        var older = server
        older.quantity = 99
        older.updatedAt = server.updatedAt + 1
        try store.applyPulled([try SyncChange(record: older)], cursor: "c2", at: clock.date)
        #expect(try store.find(InventoryThread.self, id: t.id)?.quantity == 3)
        #expect(try store.isPending(.thread, id: t.id))
    }

    @Test("A big mixed page, written several rows to a statement: server copies taken, newer local edits kept, deletes applied, applied records marked synced")
    func batchedPage() throws {
        let clock = ManualClock()
        let now = clock.date
        // Local state: a synced thread, a thread with a newer pending edit, one with an older pending edit.
        let store = try makeStore(clock)
        let synced = try store.save(InventoryThread(brand: "DMC", number: "1", createdAt: now, updatedAt: now))
        let keeps = try store.save(InventoryThread(brand: "DMC", number: "2", createdAt: now, updatedAt: now))
        let loses = try store.save(InventoryThread(brand: "DMC", number: "3", createdAt: now, updatedAt: now))
        try store.acknowledge([synced, keeps, loses].map { SyncResult(id: $0.id, type: .thread, status: .applied) },
                              sent: try store.pendingChanges(), at: now)
        clock.advance(10)
        var keepsEdit = keeps; keepsEdit.quantity = 5; try store.save(keepsEdit)
        var losesEdit = loses; losesEdit.quantity = 6; try store.save(losesEdit)
        let p = UUID()
        var page: [SyncChange] = []
        // 150 threads and 70 requirements (more than a statement's worth of each), interleaved
        // with the changes that read the local copy first.
        for i in 0..<150 {
            page.append(try SyncChange(record: InventoryThread(brand: "Anchor", number: "\(i)", quantity: i, createdAt: now, updatedAt: now)))
            if i < 70 { page.append(try SyncChange(record: ProjectThread(projectId: p, brand: "DMC", number: "\(i)", createdAt: now, updatedAt: now))) }
            if i == 20 { var s = synced; s.deletedAt = now + 20; s.updatedAt = now + 20; page.append(try SyncChange(record: s)) }
            if i == 40 { var k = keeps; k.quantity = 99; k.updatedAt = now + 5; page.append(try SyncChange(record: k)) }
            if i == 90 { var l = loses; l.quantity = 77; l.updatedAt = now + 60; page.append(try SyncChange(record: l)) }
            if i == 120 { page.append(SyncChange(type: .canvas, id: UUID(), action: .delete, data: nil, updatedAt: now, deletedAt: now)) }
        }
        try store.applyPulled(page, cursor: "c", at: clock.date)
        #expect(try store.find(InventoryThread.self, id: synced.id) == nil)
        #expect(try store.find(InventoryThread.self, id: keeps.id)?.quantity == 5)
        #expect(try store.isPending(.thread, id: keeps.id))
        #expect(try store.find(InventoryThread.self, id: loses.id)?.quantity == 77)
        #expect(try !store.isPending(.thread, id: loses.id))
        #expect(try store.all(InventoryThread.self).filter { $0.brand == "Anchor" }.map(\.quantity).sorted() == Array(0..<150))
        #expect(try store.all(ProjectThread.self).count == 70)
        #expect(try store.pendingCount() == 1)
        let syncedRows = try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE NOT pending") }
        #expect(syncedRows == 150 + 70 + 2)
        #expect(try store.cursor == "c")
    }

    @Test("Only the exact version pushed is marked synced: an edit during the round trip stays pending")
    func acknowledgeExactVersion() throws {
        let clock = ManualClock()
        let store = try makeStore(clock)
        let t = try store.save(InventoryThread(brand: "DMC", number: "310", createdAt: clock.date, updatedAt: clock.date))
        let sent = try store.pendingChanges()
        clock.advance(1)
        var edit = t
        edit.quantity = 4
        try store.save(edit)
        try store.acknowledge([SyncResult(id: t.id, type: .thread, status: .applied)], sent: sent, at: clock.date)
        #expect(try store.isPending(.thread, id: t.id))
    }

    /// A record written through its Codable conformance, as GRDB does by default.
    struct Coded<R: Encodable>: Encodable, EncodableRecord {
        let record: R
        func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }
    }

    @Test("Rows are written with exactly the columns and values of GRDB's Codable encoding")
    func rowsMatchCodable() throws {
        // Whole seconds: GRDB keeps milliseconds as text, which reads back a hair off the Double.
        let now = Date(timeIntervalSince1970: 1_800_000_000), later = now + 86_400
        let p = UUID()
        let records: [any LocalRecord] = [
            InventoryThread(brand: "DMC", number: "310", createdAt: now, updatedAt: now),
            InventoryThread(brand: "Caron", number: "7", colorName: "Snow", colorHex: "#A1B2C3", fiberType: .silk, quantity: 4,
                            barcode: "1", weightOrLength: "8m", notes: "é 🧵", createdAt: now, updatedAt: later, deletedAt: later),
            Canvas(designer: "A", designName: "B", createdAt: now, updatedAt: now),
            Canvas(designer: "A", designName: "B", acquiredAt: later, imageKey: "k.png", size: "13x18", meshCount: 18, notes: "n",
                   createdAt: now, updatedAt: later, deletedAt: later),
            Project(canvasId: UUID(), startedAt: now, createdAt: now, updatedAt: now),
            Project(canvasId: UUID(), status: .completed, startedAt: now, finishingAt: later, completedAt: later, notes: "x",
                    createdAt: now, updatedAt: later, deletedAt: later),
            ProjectSection(projectId: p, name: "Sky", sortOrder: 3, status: .inProgress, notes: "x", createdAt: now, updatedAt: now),
            ProjectThread(projectId: p, brand: "DMC", number: "1", createdAt: now, updatedAt: now),
            ProjectThread(projectId: p, sectionId: UUID(), threadId: UUID(), brand: "DMC", number: "1", colorName: "c", quantityNeeded: 9,
                          notes: "n", createdAt: now, updatedAt: later, deletedAt: later),
            JournalEntry(projectId: p, notes: "Day one", createdAt: now, updatedAt: now),
            JournalImage(entryId: UUID(), imageKey: "abc.png", sortOrder: 2, createdAt: now, updatedAt: later, deletedAt: later),
        ]
        func check<R: LocalRecord>(_ record: R) throws {
            #expect(try record.databaseDictionary == Coded(record: record).databaseDictionary, "\(R.self)")
        }
        for record in records { try check(record) }
        // And written by the pull's cached upsert, they read back as the same records, with the
        // same row as GRDB's own insert writes.
        let store = try makeStore()
        func upsert<R: LocalRecord>(_ record: R) throws {
            try store.writer.write { db in try LocalStore.upsert(record, db: db) }
            let row = try store.writer.read { db in try Row.fetchOne(db, sql: "SELECT * FROM \(R.databaseTableName) WHERE id = ?", arguments: [record.id]) }
            let other = try makeStore()
            try other.writer.write { db in try record.insert(db) }
            #expect(try other.writer.read { db in try Row.fetchOne(db, sql: "SELECT * FROM \(R.databaseTableName) WHERE id = ?", arguments: [record.id]) } == row)
        }
        for record in records { try upsert(record) }
        func readBack<R: LocalRecord>(_ record: R) throws {
            #expect(try store.writer.read { db in try R.fetchOne(db, key: ["id": record.id]) } == record)
        }
        for record in records { try readBack(record) }
    }

    @Test("A pulled page bound value by value, in full statements and a short last one, stores exactly GRDB's own rows")
    func batchedRowsMatchInserts() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // 150 threads: two full statements of 64 and a last one of 22. Empty and absent text,
        // text beyond ASCII, zero and large numbers.
        let threads = (0..<150).map { i in
            InventoryThread(brand: i % 3 == 0 ? "Caron Collection ✿" : "DMC", number: "\(i)", colorName: i % 2 == 0 ? nil : "Bleu \(i) é",
                            colorHex: i % 5 == 0 ? "#0A0B0C" : nil, fiberType: i % 4 == 0 ? .silk : .cotton, quantity: i % 7 == 0 ? 0 : i * 1_000,
                            notes: i % 6 == 0 ? "" : "line one\nline two 🧵 \(i)", createdAt: now, updatedAt: now + Double(i))
        }
        let pulled = try makeStore()
        try pulled.applyPulled(try threads.map { try SyncChange(record: $0) }, cursor: "c", at: now)
        let inserted = try makeStore()
        try inserted.writer.write { db in for thread in threads { try thread.insert(db) } }
        let sql = "SELECT * FROM \(InventoryThread.databaseTableName) ORDER BY id"
        let pulledRows = try pulled.writer.read { db in try Row.fetchAll(db, sql: sql) }
        #expect(pulledRows.count == 150)
        #expect(try inserted.writer.read { db in try Row.fetchAll(db, sql: sql) } == pulledRows)
        // And the statements stay usable: a second page over the same rows replaces them.
        let edited = threads.map { var t = $0; t.quantity += 1; t.updatedAt += 1; return t }
        try pulled.applyPulled(try edited.map { try SyncChange(record: $0) }, cursor: "d", at: now)
        #expect(try pulled.all(InventoryThread.self).sorted { $0.id < $1.id } == edited.sorted { $0.id < $1.id })
    }

    @Test("Dates are stored as exactly the text GRDB's own formatter writes")
    func dateText() throws {
        var rng = SystemRandomNumberGenerator()
        var dates = (0..<20_000).map { _ in Date(millisecondsSince1970: Int64.random(in: -11_676_096_000_000...253_402_300_799_999, using: &rng)) }
        dates += [Date(millisecondsSince1970: 0), Date(millisecondsSince1970: -1), Date(millisecondsSince1970: 951_782_400_000),
                  Date(millisecondsSince1970: -11_676_096_000_000), Date(millisecondsSince1970: 253_402_300_799_999)]
        for date in dates {
            #expect(LocalDates.databaseValue(date) == date.databaseValue, "\(date.millisecondsSince1970)")
        }
        // Sub-millisecond instants and years outside 1600–9999 are left to GRDB.
        for date in [Date(timeIntervalSince1970: 1_800_000_000.0004), Date(millisecondsSince1970: 253_402_300_800_000),
                     Date(millisecondsSince1970: -11_676_096_000_001), Date(millisecondsSince1970: -30_610_224_000_000)] {
            #expect(LocalDates.databaseValue(date) == date.databaseValue)
        }
    }

    @Test("The store persists in a file across opens")
    func persistent() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stitchkit-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let id: UUID
        do {
            let store = try LocalStore(path: path)
            id = try store.save(InventoryThread(brand: "DMC", number: "310", createdAt: Date(), updatedAt: Date())).id
            try store.setSetting(LocalStore.cursorKey, "abc")
        }
        let reopened = try LocalStore(path: path)
        #expect(try reopened.find(InventoryThread.self, id: id) != nil)
        #expect(try reopened.cursor == "abc")
        #expect(try reopened.pendingCount() == 1)
    }

    @Test("Token files are private to their owner")
    func tokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-session-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/session.json"
        let store = FileTokenStore(path: path)
        let session = Session(server: "http://x", accessToken: "a", refreshToken: "r",
                              user: UserProfile(id: UUID(), email: "a@b.co", displayName: "A", providers: [.email], createdAt: Date(timeIntervalSince1970: 0)))
        try store.save(session)
        #expect(try store.load() == session)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        try store.clear()
        #expect(try store.load() == nil)
    }
}

@Suite("View models")
struct ViewModelTests {
    @Test("Thread list: search, filters, natural order, brands most used first, stepper clamped at zero")
    func threadList() throws {
        let store = try makeStore()
        let now = store.clock()
        for (brand, number, color, fiber, qty) in [("DMC", "310", "Black", FiberType.cotton, 1), ("DMC", "10", "Green", .cotton, 0),
                                                    ("DMC", "2", nil, .cotton, 0), ("Appleton", "992", "Sea Green", .wool, 2)] {
            try store.save(InventoryThread(brand: brand, number: number, colorName: color, fiberType: fiber, quantity: qty, createdAt: now, updatedAt: now))
        }
        var model = ThreadListModel()
        #expect(model.emptyState == nil || model.all.isEmpty)
        try model.load(from: store)
        #expect(model.threads.map { "\($0.brand) \($0.number)" } == ["Appleton 992", "DMC 2", "DMC 10", "DMC 310"])
        #expect(model.brands == ["DMC", "Appleton"])
        model.search = "green"
        #expect(model.threads.map(\.number) == ["992", "10"])
        model.search = ""
        model.fiber = .wool
        #expect(model.threads.map(\.brand) == ["Appleton"])
        model.fiber = nil
        model.brand = "dmc"
        #expect(model.threads.count == 3)
        let zero = model.threads.first { $0.number == "10" }!
        let pendingBefore = try store.pendingCount()
        let stepped = try model.step(zero.id, by: -1, in: store)
        #expect(stepped?.quantity == 0)
        #expect(try store.pendingCount() == pendingBefore)  // nothing written
        #expect(try model.step(zero.id, by: 3, in: store)?.quantity == 3)
        #expect(try model.step(zero.id, by: -5, in: store)?.quantity == 0)
    }

    @Test("Batch add keeps the brand with Add another, suggests brands from history, reports bad fields")
    func batchAdd() throws {
        let store = try makeStore()
        var add = AddThreadModel(brand: "DMC")
        add.number = "310"
        add.colorName = "Black"
        #expect(try add.save(to: store) != nil)
        #expect(add.brand == "DMC" && add.number.isEmpty && add.colorName.isEmpty)
        add.number = ""
        #expect(try add.save(to: store) == nil)
        #expect(add.errors["number"] == "Number is required")
        add.brand = "a"
        try store.save(InventoryThread(brand: "Appleton", number: "1", createdAt: store.clock(), updatedAt: store.clock()))
        #expect(add.brandSuggestions(from: try store.all(InventoryThread.self)) == ["Appleton"])
    }

    @Test("Start project offers only canvases without a project, with the spec's empty state")
    func startProject() throws {
        let store = try makeStore()
        let now = store.clock()
        let a = try store.save(Canvas(designer: "A", designName: "One", createdAt: now, updatedAt: now))
        var model = StartProjectModel()
        try model.load(from: store)
        #expect(model.available.map(\.id) == [a.id])
        let project = try model.start(a.id, in: store)
        try model.load(from: store)
        #expect(model.available.isEmpty)
        #expect(model.emptyState?.message == "All canvases are already linked to projects. Add a new canvas first.")
        #expect(throws: ValidationError.self) { try model.start(a.id, in: store) }

        var detail = ProjectDetailModel(projectId: project.id)
        try detail.load(from: store)
        #expect(detail.title == "One" && detail.emptyJournal?.title == "No entries yet")
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!
        try detail.addEntry(notes: "First stitches", images: [png, png], in: store)
        #expect(detail.journal.first?.images.map(\.sortOrder) == [0, 1])
        #expect(try store.stagedImageCount() == 2)
        try detail.setStatus(.completed, in: store)
        #expect(detail.project?.completedAt != nil)
    }

    @Test("Deleting a project on the device deletes its journal and photos, sections, requirements and patterns — each sent as a deletion — and nothing of another project")
    func deleteProject() throws {
        let store = try makeStore()
        let now = store.clock()
        let canvases = [try store.save(Canvas(designer: "A", designName: "One", createdAt: now, updatedAt: now)),
                        try store.save(Canvas(designer: "B", designName: "Two", createdAt: now, updatedAt: now))]
        var start = StartProjectModel()
        try start.load(from: store)
        let one = try start.start(canvases[0].id, in: store), other = try start.start(canvases[1].id, in: store)
        for project in [one, other] {
            var detail = try ProjectDetailModel.loaded(project.id, from: store)
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!
            try detail.addEntry(notes: "First stitches", images: [png], in: store)
            let section = try store.save(ProjectSection(projectId: project.id, name: "Sky", createdAt: now, updatedAt: now))
            try store.save(ProjectThread(projectId: project.id, sectionId: section.id, brand: "DMC", number: "310", createdAt: now, updatedAt: now))
            try store.save(Pattern(projectId: project.id, title: "Chart", fileKey: "patterns/\(project.id.text).pdf", createdAt: now, updatedAt: now))
        }
        var detail = try ProjectDetailModel.loaded(one.id, from: store)
        try detail.delete(in: store)
        #expect(detail.project == nil && detail.journal.isEmpty && detail.sections.isEmpty && detail.requirements.isEmpty)
        #expect(try store.all(Project.self).map(\.id) == [other.id])
        #expect(try store.all(JournalEntry.self).map(\.projectId) == [other.id])
        #expect(try store.all(JournalImage.self).count == 1)
        #expect(try store.all(ProjectSection.self).map(\.projectId) == [other.id])
        #expect(try store.all(ProjectThread.self).map(\.projectId) == [other.id])
        #expect(try store.all(Pattern.self).map(\.projectId) == [other.id])
        #expect(try store.all(Pattern.self, includeDeleted: true).filter { $0.projectId == one.id }.allSatisfy { $0.deletedAt != nil })
    }

    @Test("On the device: a duplicate thread refused or merged; a planned project started today; dates and an entry's day set by hand; sections moved and deleted keeping their threads")
    func editsOnDevice() throws {
        let clock = ManualClock()
        let store = try makeStore(clock)
        var add = AddThreadModel(brand: "DMC")
        add.number = "310"
        add.addAnother = false
        #expect(try add.save(to: store) != nil)
        add.quantity = 2
        #expect(try add.save(to: store) == nil)
        #expect(add.duplicate?.quantity == 1 && add.errors["number"] == "You have DMC 310 already: 1 skein")
        #expect(try add.save(to: store, merge: true)?.quantity == 3)
        #expect(try store.all(InventoryThread.self).count == 1)

        let now = store.clock()
        let canvas = try store.save(Canvas(designer: "A", designName: "One", createdAt: now, updatedAt: now))
        var start = StartProjectModel()
        try start.load(from: store)
        let planned = try start.start(canvas.id, planned: true, in: store)
        #expect(planned.status == .planned)
        var detail = ProjectDetailModel(projectId: planned.id)
        try detail.load(from: store)
        #expect(throws: ValidationError.self) { try detail.setDates(started: now, in: store) }
        clock.advance(3600)
        try detail.setStatus(.wip, in: store)
        #expect(detail.project?.startedAt == clock.date, "started when it became WIP")
        let earlier = now.addingTimeInterval(-30 * 86_400)
        try detail.setDates(started: earlier, in: store)
        #expect(detail.project?.startedAt == earlier)
        #expect(throws: ValidationError.self) { try detail.setDates(completed: now, in: store) }

        let entry = try detail.addEntry(notes: "Bought it", images: [], date: earlier, in: store)
        try detail.editEntry(entry.id, date: earlier.addingTimeInterval(86_400), in: store)
        #expect(try store.find(JournalEntry.self, id: entry.id)?.createdAt == earlier.addingTimeInterval(86_400), "an entry's day is the stitcher's")

        for name in ["Border", "Sky"] {
            try store.save(ProjectSection(projectId: planned.id, name: name, sortOrder: detail.sections.count, createdAt: now, updatedAt: now))
            try detail.load(from: store)
        }
        try store.save(ProjectThread(projectId: planned.id, sectionId: detail.sections[0].id, brand: "DMC", number: "310", createdAt: now, updatedAt: now))
        try detail.load(from: store)
        try detail.moveSection(detail.sections[1].id, by: -1, in: store)
        #expect(detail.sections.map(\.name) == ["Sky", "Border"] && detail.sections.map(\.sortOrder) == [0, 1])
        try detail.deleteSection(detail.sections[1].id, in: store)
        #expect(detail.sections.map(\.name) == ["Sky"] && detail.requirements.map(\.sectionId) == [nil])
    }

    @Test("Shopping list and bought, with the same rules as the server")
    func shopping() throws {
        let store = try makeStore()
        let now = store.clock()
        let c = try store.save(Canvas(designer: "A", designName: "Nutcracker", createdAt: now, updatedAt: now))
        let p = try store.save(Project(canvasId: c.id, startedAt: now, createdAt: now, updatedAt: now))
        try store.save(ProjectThread(projectId: p.id, brand: "DMC", number: "310", quantityNeeded: 3, createdAt: now, updatedAt: now))
        var model = ShoppingListModel()
        try model.load(from: store)
        #expect(model.items.map(\.toBuy) == [3])
        #expect(model.items.first?.projects.first?.title == "Nutcracker")
        let thread = try model.bought(brand: "dmc", number: "310", quantity: 3, in: store)
        #expect(thread.quantity == 3 && model.items.isEmpty)
        #expect(try model.bought(brand: "DMC", number: "310", quantity: 1, in: store).quantity == 4)
        #expect(try store.all(InventoryThread.self).count == 1)
    }
}

@Suite("CSV import and export on the device")
struct ImportExportTests {
    @Test("5,000 threads import in chunks with progress, export as CSV, and re-import into an empty store as the same inventory; the JSON backup decodes to exactly the same records")
    func roundTrip() throws {
        let store = try makeStore()
        var lines = ["brand,number,colorName,colorHex,fiberType,quantity,barcode,weightOrLength,notes"]
        for i in 0..<5000 {
            lines.append(CSV.line(["Brand \(i % 7)", "\(i)", "Colour, \(i) é", i % 2 == 0 ? "#A1B2C3" : "", FiberType.allCases[i % 6].rawValue,
                                   "\(i % 10)", "0775400\(i)", "8m skein", i % 3 == 0 ? "says \"hi\"" : ""]))
        }
        let file = try ThreadCSV.read(Data(lines.joined(separator: "\n").utf8), now: store.clock())
        #expect(file.report.problems.isEmpty && file.rows.count == 5000)
        let plan = ImportPlan.make(file.rows, existing: try store.all(InventoryThread.self), rule: .add, now: store.clock())
        #expect(plan.count(.add) == 5000)
        var progress: [Int] = []
        try store.saveImported(plan.writes) { progress.append($0) }
        #expect(progress == stride(from: 500, through: 5000, by: 500).map { $0 })
        #expect(try store.pendingCount() == 5000)

        let exported = ThreadCSV.write(try store.all(InventoryThread.self))
        let again = try ThreadCSV.read(exported, now: store.clock())
        #expect(again.report.problems.isEmpty && again.report.unusedColumns.isEmpty)
        let fresh = try makeStore()
        try fresh.saveImported(ImportPlan.make(again.rows, existing: [], rule: .add, now: fresh.clock()).writes)
        func key(_ t: InventoryThread) -> String { [t.brand, t.number, t.colorName ?? "", t.colorHex ?? "", t.fiberType.rawValue, "\(t.quantity)", t.barcode ?? "", t.weightOrLength ?? "", t.notes ?? ""].joined(separator: "|") }
        #expect(Set(try fresh.all(InventoryThread.self).map(key)) == Set(try store.all(InventoryThread.self).map(key)))

        // Importing the same file again adds the quantities to the threads already there: no duplicates.
        let second = ImportPlan.make(file.rows, existing: try store.all(InventoryThread.self), rule: .add, now: store.clock())
        #expect(second.count(.add) == 0 && second.count(.merge) == 4500 && second.count(.unchanged) == 500)
        try store.saveImported(second.writes)
        #expect(try store.all(InventoryThread.self).count == 5000)

        let export = try AccountBackup.make(from: store)
        let data = try StitchJSON.encodePretty(export)
        #expect(try StitchJSON.decode(AccountBackup.self, from: data) == export)
        #expect(try StitchJSON.makeDecoder().decode(AccountBackup.self, from: data) == export)
        #expect(export.threads.count == 5000)
    }

    @Test("A backup made on the device takes pictures waiting to upload from the device and the rest from the server, and fails rather than leave one out")
    func backupPictures() async throws {
        let store = try makeStore()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 32)
        let staged = try store.stageImage(png)
        let now = store.clock()
        try store.save(Canvas(designer: "Melissa Shirley", designName: "Nutcracker", imageKey: staged, createdAt: now, updatedAt: now))
        try store.save(Canvas(designer: "Kirk & Bradley", designName: "Santa", imageKey: "a.jpg", createdAt: now, updatedAt: now))
        let backup = try await AccountBackup.make(from: store) { key in
            #expect(key == "a.jpg")
            return (Data([0xFF, 0xD8, 0xFF, 0xE0]), "image/jpeg")
        }
        #expect(backup.pictures.map(\.key) == ["a.jpg", staged])
        #expect(backup.pictures.first { $0.key == staged }?.bytes == png)
        await #expect(throws: ClientError.self) {
            _ = try await AccountBackup.make(from: store) { _ in throw ClientError.signedOut }
        }
    }
}
