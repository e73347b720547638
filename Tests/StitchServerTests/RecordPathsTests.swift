import Fluent
import Foundation
import SQLKit
import StitchCore
import StitchKit
@testable import StitchServer
import Testing
import VaporTesting

/// Records of every kind with every field of their description set to a value that is not its
/// default, `variant` choosing one of two such sets (so a path that drops a field shows it).
/// References point at the others of the set; picture keys are ones the user uploaded.
struct FilledRecords {
    var records: [EntityType: any DescribedRecord] = [:]
    let ids: [EntityType: UUID]

    init(variant: Int, ids: [EntityType: UUID], pictures: [String], stamp: Date) throws {
        self.ids = ids
        let reference: [String: UUID] = [
            "canvasId": ids[.canvas]!, "projectId": ids[.project]!, "sectionId": ids[.projectSection]!,
            "threadId": ids[.thread]!, "entryId": ids[.journalEntry]!,
        ]
        var pictureIndex = 0
        func filled<R: DescribedRecord>(_ type: R.Type) throws -> R {
            var record = R.described.blank(id: ids[R.entityType]!, createdAt: stamp, updatedAt: stamp.addingTimeInterval(Double(variant)),
                                           deletedAt: nil)
            for (index, field) in R.described.fields.enumerated() {
                let value: FieldValue
                switch field.type {
                case .text where field.name == "imageKey" || field.name == "fileKey":
                    value = .text(pictures[pictureIndex])
                    pictureIndex += 1
                case .text:
                    if case .hexColor = field.rule { value = .text(variant == 1 ? "#1A2B3C" : "#D4E5F6") } else { value = .text("\(field.name) \(variant)") }
                case .int:
                    if case .range(_, let min, _, _) = field.rule { value = .int(min + 1 + variant) } else { value = .int(7 + variant) }
                case .id:
                    value = .id(try #require(reference[field.name], "\(R.self).\(field.name): no record of the set to point at"))
                case .instant:
                    // Later fields later: a project's dates stay in order (started, finishing, completed).
                    value = .instant(Date(timeIntervalSince1970: 1_700_000_000 + Double(variant * 86_400 + index * 3_600)))
                case .choice:
                    let others = field.choices.filter { FieldValue.text($0) != field.defaultValue }
                    value = .text(others[variant % others.count])
                }
                try #require(value != field.defaultValue, "\(R.self).\(field.name): the test's value is the default")
                try #require(field.set(&record, value), "\(R.self).\(field.name): \(value) not accepted")
            }
            #expect(record.validationErrors.isEmpty, "\(R.self): \(record.validationErrors)")
            return record
        }
        for type in EntityType.allCases {
            records[type] = try Self.withType(type) { try filled($0) }
        }
    }

    /// Runs `body` with the record type of `type`.
    static func withType<T>(_ type: EntityType, _ body: (any DescribedRecord.Type) throws -> T) rethrows -> T {
        switch type {
        case .thread: try body(InventoryThread.self)
        case .canvas: try body(Canvas.self)
        case .project: try body(Project.self)
        case .projectSection: try body(ProjectSection.self)
        case .projectThread: try body(ProjectThread.self)
        case .journalEntry: try body(JournalEntry.self)
        case .journalImage: try body(JournalImage.self)
        case .pattern: try body(Pattern.self)
        case .shoppingLine: try body(ShoppingLine.self)
        }
    }

    /// The records as upserts, parents first.
    var changes: [SyncChange] {
        get throws { try EntityType.allCases.map { try SyncChange(record: records[$0]!) } }
    }
}

/// Fails naming each field of `got` that differs from `want`, and the path it went through.
func expectSameFields<R: DescribedRecord>(_ got: R?, _ want: R, after path: String, stamps: Bool = true,
                                          sourceLocation: SourceLocation = #_sourceLocation) {
    guard let got else {
        Issue.record("\(R.self) \(want.id) is missing after \(path)", sourceLocation: sourceLocation)
        return
    }
    let stampKeys: Set<String> = ["id", "createdAt", "updatedAt", "deletedAt"]
    for ((key, value), (_, wanted)) in zip(got.fieldValues, want.fieldValues) where value != wanted {
        if !stamps && stampKeys.contains(key) { continue }
        Issue.record("\(R.self).\(key) came back different after \(path): \(value), wanted \(wanted)", sourceLocation: sourceLocation)
    }
}

@Suite("Every field of every record through every path", .serialized)
struct RecordPathsTests {
    @Test("Every record with every field set, through API write → database → pull → device store → push → backup → restore, comes back the same, field by field")
    func everyFieldEveryPath() async throws {
        try await withLiveServer { app, clock, server in
            let user = try await TestUser.make(app, email: "fields@example.com")
            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.login(email: "fields@example.com", password: "correct horse")
            var pictures: [String] = []
            // Eight different pictures (a restore keeps one copy of the same bytes): a canvas's, a
            // project's, a journal's and a pattern's file for each set.
            for i in 0..<8 { pictures.append(try await phone.api.uploadImage(Fixtures.png + Data("\(i)".utf8), filename: "p.png")) }
            let ids = Dictionary(uniqueKeysWithValues: EntityType.allCases.map { ($0, UUID()) })
            let first = try FilledRecords(variant: 1, ids: ids, pictures: Array(pictures[0..<4]), stamp: clock.now)

            // API write: every record pushed as it is.
            let push = try await user.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: try first.changes))
            try #require(push.status == .ok, "\(push.text)")
            let results = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: push.body)).results
            #expect(results.allSatisfy { $0.status == .applied }, "\(results)")

            // The database holds each field as sent.
            func stored<R: DescribedRecord>(_ record: R, on app: Application, userId: UUID) async throws -> R? {
                try await Records.find(StoredModel<R>.self, record.id, userId: userId, on: app.db)?.record
            }
            func checkDatabase(_ set: FilledRecords, on app: Application, userId: UUID, after path: String) async throws {
                for type in EntityType.allCases {
                    func check<R: DescribedRecord>(_ record: R) async throws {
                        expectSameFields(try await stored(record, on: app, userId: userId), record, after: path)
                    }
                    try await check(set.records[type]!)
                }
            }
            try await checkDatabase(first, on: app, userId: user.id, after: "API write → database")

            // Pulled by a device into its store.
            try await phone.engine.sync()
            for type in EntityType.allCases {
                func check<R: DescribedRecord & LocalRecord>(_ record: R) throws {
                    expectSameFields(try phone.store.find(R.self, id: record.id), record, after: "pull → device store")
                }
                try Self.withLocal(first.records[type]!) { try check($0) }
            }

            // Every field changed on the device and pushed.
            let second = try FilledRecords(variant: 2, ids: ids, pictures: Array(pictures[4..<8]), stamp: clock.now)
            clock.advance(by: 60)
            var saved = FilledRecords.Saved()
            for type in EntityType.allCases {
                func save<R: DescribedRecord & LocalRecord>(_ record: R) throws {
                    let kept = try phone.store.save(record)
                    expectSameFields(kept, record, after: "device store write", stamps: false)
                    saved.records[type] = kept
                }
                try Self.withLocal(second.records[type]!) { try save($0) }
            }
            try await phone.engine.sync()
            #expect(try phone.store.pendingCount() == 0)
            var pushed = second
            pushed.records = saved.records
            try await checkDatabase(pushed, on: app, userId: user.id, after: "device store → push → database")

            // In the account's backup, and restored from it on another server.
            let (json, backup) = try await user.export()
            for type in EntityType.allCases {
                func check<R: DescribedRecord>(_ record: R) throws {
                    let change = try backup.changes.first { $0.type == R.entityType && $0.id == record.id }
                    expectSameFields(try change?.record(as: R.self), record, after: "backup")
                }
                try check(pushed.records[type]!)
            }
            try await withTestApp { other, _ in
                let there = try await TestUser.make(other, email: "fields@example.com")
                let summary = try await there.restore(json)
                #expect(summary.issues.isEmpty && summary.renumbered == 0, "\(summary.lines)")
                try await checkDatabase(pushed, on: other, userId: there.id, after: "backup → restore → database")
            }
        }
    }

    @Test("Each record's table on this database has the columns of its description, nullable exactly where the field is optional, of the field's type")
    func columnsMatchDescriptions() async throws {
        try await withTestApp { app, _ in
            let sql = app.db as! any SQLDatabase
            let postgres = sql.dialect.name == "postgresql"
            func check<R: DescribedRecord>(_ type: R.Type) async throws {
                let table = R.described.table
                // (nullable, type family) per column: t text, i integer, u uuid, d timestamp.
                var wanted: [String: (Bool, Character)] = [
                    "id": (false, "u"), "user_id": (false, "u"), "version": (false, "i"),
                    "created_at": (false, "d"), "updated_at": (false, "d"), "deleted_at": (true, "d"),
                ]
                for field in R.described.fields {
                    let family: Character = switch field.type {
                    case .text, .choice: "t"
                    case .int: "i"
                    case .id: "u"
                    case .instant: "d"
                    }
                    wanted[field.column] = (field.isOptional, family)
                }
                var found: [String: (Bool, Character?)] = [:]
                if postgres {
                    let rows = try await sql.raw("""
                        SELECT column_name, is_nullable, data_type FROM information_schema.columns
                        WHERE table_schema = current_schema() AND table_name = \(bind: table)
                        """).all()
                    for row in rows {
                        let kind = try row.decode(column: "data_type", as: String.self)
                        let family: Character? = switch kind {
                        case "text", "character varying": "t"
                        case "bigint", "integer", "smallint": "i"
                        case "uuid": "u"
                        case "timestamp with time zone", "timestamp without time zone": "d"
                        default: nil
                        }
                        found[try row.decode(column: "column_name", as: String.self)] =
                            (try row.decode(column: "is_nullable", as: String.self) == "YES", family)
                    }
                } else {
                    for row in try await sql.raw("SELECT name, \"notnull\" AS required FROM pragma_table_info(\(bind: table))").all() {
                        found[try row.decode(column: "name", as: String.self)] = (try row.decode(column: "required", as: Int.self) == 0, nil)
                    }
                }
                for (column, (nullable, family)) in wanted {
                    guard let (have, haveFamily) = found[column] else {
                        Issue.record("\(table) has no column \(column) on \(sql.dialect.name) (a migration is missing)")
                        continue
                    }
                    if column != "id" && have != nullable {
                        Issue.record("\(table).\(column) is \(have ? "nullable" : "NOT NULL") on \(sql.dialect.name); its field is \(nullable ? "optional" : "required")")
                    }
                    if let haveFamily, haveFamily != family {
                        Issue.record("\(table).\(column) holds the wrong type on \(sql.dialect.name) for its field")
                    }
                }
                for column in found.keys where wanted[column] == nil {
                    Issue.record("\(table).\(column) is in no field of \(R.self)'s description")
                }
            }
            for type in EntityType.allCases {
                let recordType: any DescribedRecord.Type = FilledRecords.withType(type) { $0 }
                try await check(recordType)
            }
        }
    }

    /// Runs `body` with `record` as the local-store record it is.
    static func withLocal(_ record: any DescribedRecord, _ body: (any DescribedRecord & LocalRecord) throws -> Void) throws {
        guard let local = record as? any DescribedRecord & LocalRecord else {
            Issue.record("\(type(of: record)) is not kept in the device store")
            return
        }
        try body(local)
    }
}

extension FilledRecords {
    /// Records as a store kept them.
    struct Saved { var records: [EntityType: any DescribedRecord] = [:] }
}
