import Foundation
import GRDB
import StitchCore
@testable import StitchKit
import Testing

@Suite("The device store's tables are the records' descriptions")
struct DeviceColumnsTests {
    @Test("Each record's table on the device has a column per described field (named by its wire key) and the stamps, nullable exactly where the field is optional")
    func columnsMatchDescriptions() throws {
        let store = try LocalStore(path: nil)
        func check<R: DescribedRecord & LocalRecord>(_ type: R.Type) throws {
            #expect(R.databaseTableName == R.described.table)
            var wanted: [String: Bool] = ["id": false, "createdAt": false, "updatedAt": false, "deletedAt": true]
            for field in R.described.fields { wanted[field.name] = field.isOptional }
            let columns = try store.writer.read { db in try db.columns(in: R.databaseTableName) }
            var found: [String: Bool] = [:]
            for column in columns { found[column.name] = !column.isNotNull }
            for (name, nullable) in wanted {
                if let have = found[name] {
                    if name != "id" && have != nullable {
                        Issue.record("\(R.databaseTableName).\(name) is \(have ? "nullable" : "NOT NULL"); its field is \(nullable ? "optional" : "required")")
                    }
                } else {
                    Issue.record("\(R.databaseTableName) has no column \(name) (a device migration is missing)")
                }
            }
            for name in found.keys where wanted[name] == nil {
                Issue.record("\(R.databaseTableName).\(name) is in no field of \(R.self)'s description")
            }
        }
        try check(InventoryThread.self); try check(Canvas.self); try check(Project.self); try check(ProjectSection.self)
        try check(ProjectThread.self); try check(JournalEntry.self); try check(JournalImage.self)
        try check(Pattern.self); try check(ShoppingLine.self)
    }

    @Test("A device store from before projects could go without a canvas keeps every project through the migration")
    func projectsMigrationKeepsRows() throws {
        let queue = try DatabaseQueue()
        try LocalStore.migrator.migrate(queue, upTo: "v4: shopping list lines")
        let stamp = Date(timeIntervalSince1970: 1_800_000_000)
        let id = UUID(), canvasId = UUID()
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO projects (id, canvasId, status, startedAt, finishingAt, completedAt, notes, createdAt, updatedAt, deletedAt)
                VALUES (?, ?, 'wip', ?, NULL, NULL, 'Gift', ?, ?, NULL)
                """, arguments: [id, canvasId, stamp, stamp, stamp])
        }
        try LocalStore.migrator.migrate(queue)
        let project = try queue.read { db in try Project.fetchOne(db, key: ["id": id]) }
        #expect(project == Project(id: id, canvasId: canvasId, status: .wip, startedAt: stamp, notes: "Gift", createdAt: stamp, updatedAt: stamp))
        try queue.write { db in try Project(name: "Fox", startedAt: stamp, createdAt: stamp, updatedAt: stamp).insert(db) }
        #expect(try queue.read { db in try Project.fetchCount(db) } == 2)
    }
}

extension DeviceColumnsTests {
    @Test("A device store from before a project had its own size keeps every project, picture and all, and then keeps a size")
    func projectSizeMigrationKeepsRows() throws {
        let queue = try DatabaseQueue()
        try LocalStore.migrator.migrate(queue, upTo: "v7: a sync from the start")
        let stamp = Date(timeIntervalSince1970: 1_800_000_000)
        let id = UUID()
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO projects (id, canvasId, name, imageKey, status, startedAt, finishingAt, completedAt, notes, createdAt, updatedAt, deletedAt)
                VALUES (?, NULL, 'Fox', 'abc.jpg', 'planned', ?, NULL, NULL, 'From the chart', ?, ?, NULL)
                """, arguments: [id, stamp, stamp, stamp])
        }
        try LocalStore.migrator.migrate(queue)
        var project = try #require(try queue.read { db in try Project.fetchOne(db, key: ["id": id]) })
        #expect(project == Project(id: id, name: "Fox", imageKey: "abc.jpg", status: .planned, startedAt: stamp, notes: "From the chart",
                                   createdAt: stamp, updatedAt: stamp))
        project.size = "10x10 in"
        project.meshCount = 18
        try queue.write { db in try project.update(db) }
        #expect(try queue.read { db in try Project.fetchOne(db, key: ["id": id]) } == project)
    }
}

@Suite("Device store rows read through the description")
struct DeviceRowReadingTests {
    @Test("A record reads the same through the query interface (by position) and through a raw SELECT * (by name), whatever the table's column order")
    func positionalAndByName() throws {
        let store = try LocalStore(path: nil)
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        let saved = try store.save(InventoryThread(brand: "DMC", number: "310", colorName: "Night", catalogColorName: "Black", colorHex: "#000000",
                                                   fiberType: .cotton, quantity: 3, barcode: "123", weightOrLength: "8m", notes: "n",
                                                   createdAt: t, updatedAt: t))
        let viaQuery = try #require(try store.find(InventoryThread.self, id: saved.id))
        let viaRaw = try store.writer.read { db in try InventoryThread.fetchOne(db, sql: "SELECT * FROM threads") }
        let reordered = try store.writer.read { db in
            try InventoryThread.fetchOne(db, sql: "SELECT notes, catalogColorName, id, brand, number, colorName, colorHex, fiberType, quantity, barcode, weightOrLength, createdAt, updatedAt, deletedAt FROM threads")
        }
        #expect(viaQuery == saved && viaRaw == saved && reordered == saved)
        let missing = try store.writer.read { db in try Row.fetchOne(db, sql: "SELECT id, brand FROM threads") }
        #expect(throws: (any Error).self) { try InventoryThread(row: try #require(missing)) }
    }
}
