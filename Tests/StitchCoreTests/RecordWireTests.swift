import Foundation
@testable import StitchCore
import Testing

/// The hand-written wire fields must be exactly what Codable writes and reads (Foundation's
/// coders, since StitchJSON's own coders now take the fast path for records themselves).
@Suite("Record wire fields match Codable")
struct RecordWireTests {
    static let now = Date(millisecondsSince1970: 1_795_000_000_123)
    static let later = Date(millisecondsSince1970: 1_795_000_999_456)

    static func samples() -> [any SyncRecord] {
        let p = UUID(), t = UUID(), s = UUID()
        return [
            InventoryThread(brand: "DMC", number: "310", createdAt: now, updatedAt: now),
            InventoryThread(brand: "Caron", number: "7", colorName: "Snow\nwhite", colorHex: "#A1B2C3", fiberType: .silk, quantity: 4,
                            barcode: "123", weightOrLength: "8m", notes: "é ü 🧵", createdAt: now, updatedAt: later, deletedAt: later),
            Canvas(designer: "Melissa Shirley", designName: "Nutcracker", createdAt: now, updatedAt: now),
            Canvas(designer: "A", designName: "B", acquiredAt: later, imageKey: "k.png", size: "13x18", meshCount: 18, notes: "n",
                   createdAt: now, updatedAt: later, deletedAt: later),
            Project(canvasId: UUID(), startedAt: now, createdAt: now, updatedAt: now),
            Project(canvasId: UUID(), status: .completed, startedAt: now, finishingAt: later, completedAt: later, notes: "done",
                    createdAt: now, updatedAt: later, deletedAt: later),
            ProjectSection(projectId: p, name: "Border", createdAt: now, updatedAt: now),
            ProjectSection(projectId: p, name: "Sky", sortOrder: 3, status: .inProgress, notes: "x", createdAt: now, updatedAt: later, deletedAt: later),
            ProjectThread(projectId: p, brand: "DMC", number: "1", createdAt: now, updatedAt: now),
            ProjectThread(projectId: p, sectionId: s, threadId: t, brand: "DMC", number: "1", colorName: "c", quantityNeeded: 9, notes: "n",
                          createdAt: now, updatedAt: later, deletedAt: later),
            JournalEntry(projectId: p, notes: "Day one", createdAt: now, updatedAt: now),
            JournalEntry(projectId: p, notes: "", createdAt: now, updatedAt: later, deletedAt: later),
            JournalImage(entryId: UUID(), imageKey: "abc.png", sortOrder: 0, createdAt: now, updatedAt: now),
            JournalImage(entryId: UUID(), imageKey: "abc.png", sortOrder: 2, createdAt: now, updatedAt: later, deletedAt: later),
        ]
    }

    @Test("Writing: the same fields as JSONValue.from(record), nil optionals left out")
    func writes() throws {
        for record in Self.samples() {
            let foundation = try StitchJSON.decode(JSONValue.self, from: StitchJSON.makeEncoder().encode(record))
            #expect(JSONValue.object(record.wireFields) == foundation, "\(type(of: record))")
        }
    }

    @Test("Reading: the same record as Codable, for each type")
    func reads() throws {
        func check<R: SyncRecord>(_ record: R) throws {
            let data = try StitchJSON.makeEncoder().encode(record)
            guard case .object(let fields) = try StitchJSON.decode(JSONValue.self, from: data) else { Issue.record("not an object"); return }
            #expect(R(wireFields: fields) == record)
            #expect(try StitchJSON.makeDecoder().decode(R.self, from: data) == record)
            // Explicit nulls read like absent keys; lowercase ids and offset dates read like Codable reads them.
            var loose = fields
            for (key, value) in fields where value == .null { loose[key] = nil }
            loose["id"] = .string(record.id.uuidString.lowercased())
            loose["createdAt"] = .string("2026-11-19T21:06:40.123+00:00")
            let codable = try StitchJSON.makeDecoder().decode(R.self, from: Data(JSONValue.object(loose).serialized))
            #expect(R(wireFields: loose) == codable)
        }
        for record in Self.samples() { try check(record) }
    }

    @Test("Anything unusual is left to Codable: the fast reader answers nil, and the change still decodes or fails as before")
    func fallsBack() throws {
        let thread = InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: Self.now, updatedAt: Self.now)
        guard case .object(var fields) = try JSONValue.from(thread) else { return }
        fields["quantity"] = .string("2")
        #expect(InventoryThread(wireFields: fields) == nil)
        #expect(throws: DecodingError.self) { try JSONValue.object(fields).decode(as: InventoryThread.self) }
        fields["quantity"] = .int(2); fields["fiberType"] = .string("linen")
        #expect(InventoryThread(wireFields: fields) == nil)
        fields["fiberType"] = .string("wool"); fields["brand"] = nil
        #expect(InventoryThread(wireFields: fields) == nil)
        let change = SyncChange(type: .thread, id: thread.id, action: .upsert, data: .object(fields), updatedAt: Self.now, deletedAt: nil)
        #expect(throws: DecodingError.self) { try change.record(as: InventoryThread.self) }
        #expect(try SyncChange(record: thread).record(as: InventoryThread.self) == thread)
    }
}
