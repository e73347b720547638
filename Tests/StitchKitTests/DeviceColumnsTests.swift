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
    }
}
