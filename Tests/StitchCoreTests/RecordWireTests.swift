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
            ShoppingLine(brand: "DMC", number: "310", quantity: 2, createdAt: now, updatedAt: now),
            ShoppingLine(kind: .dismissed, brand: "Appleton", number: "992", colorName: "Green", quantity: 4, notes: "not now",
                         createdAt: now, updatedAt: later, deletedAt: later),
        ]
    }

    @Test("Writing: the same fields as JSONValue.from(record), nil optionals left out")
    func writes() throws {
        for record in Self.samples() {
            let foundation = try StitchJSON.decode(JSONValue.self, from: wireReference(record))
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

    @Test("Direct JSON: records, changes, pages and pushes write exactly the bytes of the general path")
    func directBytes() throws {
        func general<T: Encodable>(_ value: T) throws -> [UInt8] {
            // Foundation's encoding, re-serialized with the wire format's sorted keys.
            try StitchJSON.decode(JSONValue.self, from: wireReference(value)).serialized
        }
        let records = Self.samples()
        for record in records {
            #expect(try StitchJSON.encodeBytes(record) == general(record), "\(type(of: record))")
        }
        let changes = try records.map { try SyncChange(record: $0) }
            + [SyncChange(type: .thread, id: UUID(), action: .upsert, data: .object(["brand": .string("Ünï \"q\"\n")]), updatedAt: Self.now, deletedAt: nil),
               SyncChange(type: .canvas, id: UUID(), action: .delete, data: nil, updatedAt: Self.now, deletedAt: Self.later)]
        for change in changes {
            #expect(try StitchJSON.encodeBytes(change) == general(change))
            // The change made from a record reads back as the same change (and record) as its bytes.
            let read = try StitchJSON.decode(SyncChange.self, from: Data(try StitchJSON.encodeBytes(change)))
            #expect(read == change)
        }
        let results = [SyncResult(id: UUID(), type: .thread, status: .applied),
                       SyncResult(id: UUID(), type: nil, status: .rejected, error: APIErrorBody(error: "No", fields: ["brand": "Brand is required"])),
                       SyncResult(id: UUID(), type: .project, status: .stale, clamped: true)]
        let response = SyncResponse(cursor: "v1:3:0:", hasMore: true, changes: changes, results: results)
        #expect(try StitchJSON.encodeBytes(response) == general(response))
        let empty = SyncResponse(cursor: "c", hasMore: false, changes: [], results: [])
        #expect(try StitchJSON.encodeBytes(empty) == general(empty))
        for request in [SyncRequest(cursor: nil, clientId: UUID(), changes: changes), SyncRequest(cursor: "x", clientId: UUID(), changes: [], limit: 7)] {
            #expect(try StitchJSON.encodeBytes(request) == general(request))
        }
        let threads = records.compactMap { $0 as? InventoryThread }
        #expect(try StitchJSON.encodeBytes(threads) == general(threads))
    }

    @Test("Changes and results read by hand are the ones Foundation's decoder reads; odd input still fails the same way")
    func envelopes() throws {
        let id = UUID().uuidString
        let texts = [
            #"{"type":"thread","id":"\#(id)","action":"upsert","data":{"brand":"DMC"},"updatedAt":"2026-11-19T21:06:40.123Z"}"#,
            #"{"type":"canvas","id":"\#(id.lowercased())","action":"delete","data":null,"updatedAt":"2026-11-19T21:06:40Z","deletedAt":"2026-11-19T22:06:40.5+01:00","extra":1}"#,
            #"{"type":"thread","id":"\#(id)","action":"delete","updatedAt":"2026-11-19T21:06:40.123Z","deletedAt":null}"#,
        ]
        for text in texts {
            #expect(try StitchJSON.decode(SyncChange.self, from: Data(text.utf8)) == StitchJSON.makeDecoder().decode(SyncChange.self, from: Data(text.utf8)))
        }
        let bad = [
            #"{"type":"spool","id":"\#(id)","action":"upsert","updatedAt":"2026-11-19T21:06:40.123Z"}"#,
            #"{"type":"thread","id":"nope","action":"upsert","updatedAt":"2026-11-19T21:06:40.123Z"}"#,
            #"{"type":"thread","id":"\#(id)","action":"upsert","updatedAt":12}"#,
            #"{"type":"thread","id":"\#(id)","action":"upsert"}"#,
        ]
        for text in bad {
            #expect(throws: DecodingError.self) { try StitchJSON.decode(SyncChange.self, from: Data(text.utf8)) }
        }
        let results = [
            #"{"id":"\#(id)","status":"applied","type":"thread"}"#,
            #"{"id":"\#(id)","status":"stale","clamped":true}"#,
            #"{"id":"\#(id)","status":"rejected","type":"project","error":{"error":"No","fields":{"canvasId":"No such canvas"}}}"#,
        ]
        for text in results {
            #expect(try StitchJSON.decode(SyncResult.self, from: Data(text.utf8)) == StitchJSON.makeDecoder().decode(SyncResult.self, from: Data(text.utf8)))
        }
        #expect(throws: DecodingError.self) { try StitchJSON.decode(SyncResult.self, from: Data(#"{"id":"\#(id)","status":"lost"}"#.utf8)) }
    }
}
