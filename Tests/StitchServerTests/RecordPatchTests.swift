import Foundation
import StitchCore
@testable import StitchServer
import Testing

/// #80 (1): the one typed change every record write takes, from the API's JSON and the web app's
/// forms alike — a JSON merge patch (RFC 7386) decoded and validated as a whole record.
@Suite("A record patch: absent keys stay, null clears, what the server owns can't be set")
struct RecordPatchTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static let thread = InventoryThread(brand: "DMC", number: "310", colorName: "Black", fiberType: .cotton, quantity: 3,
                                        notes: "a note", createdAt: now, updatedAt: now)

    @Test("Applied to a record: a key given replaces, null clears an optional field, an absent key stays")
    func applied() throws {
        let patch: RecordPatch = ["quantity": 5, "notes": .null]
        let changed = try patch.applied(to: Self.thread, protected: RecordWrites<ThreadModel>.serverOwned)
        #expect(changed.quantity == 5)
        #expect(changed.notes == nil)
        #expect(changed.colorName == "Black" && changed.brand == "DMC" && changed.fiberType == .cotton)
    }

    @Test("Protected keys keep the record's values (or stay absent), whatever the patch says")
    func protectedKeys() throws {
        let other = UUID()
        let patch: RecordPatch = ["id": .id(other), "createdAt": .time(Date(timeIntervalSince1970: 0)), "deletedAt": .time(Self.now), "number": "550"]
        let changed = try patch.applied(to: Self.thread, protected: RecordWrites<ThreadModel>.serverOwned)
        #expect(changed.id == Self.thread.id)
        #expect(changed.createdAt == Self.now)
        #expect(changed.deletedAt == nil)
        #expect(changed.number == "550")
    }

    @Test("A wrong type is a decoding error naming the field, not a silent default")
    func wrongType() throws {
        let patch: RecordPatch = ["quantity": "lots"]
        #expect(throws: DecodingError.self) { try patch.applied(to: Self.thread, protected: []) as InventoryThread }
    }

    @Test("Created: defaults, then the body, then what the server sets over both; null leaves a default out")
    func created() throws {
        let id = UUID()
        let body: RecordPatch = ["brand": "Anchor", "number": "403", "colorName": .null, "id": .id(UUID())]
        let thread: InventoryThread = try body.created(
            defaults: ["brand": "", "number": "", "fiberType": "wool", "quantity": 2, "colorName": "Black"],
            protected: ["id": .id(id), "createdAt": .time(Self.now), "updatedAt": .time(Self.now)])
        #expect(thread.id == id && thread.brand == "Anchor" && thread.fiberType == .wool && thread.quantity == 2 && thread.colorName == nil)
        #expect(thread.createdAt == Self.now)
        // A required field cleared has no default left: a thread needs a quantity.
        #expect(throws: DecodingError.self) {
            let _: InventoryThread = try RecordPatch(["quantity": .null]).created(
                defaults: ["brand": "A", "number": "1", "fiberType": "wool", "quantity": 2],
                protected: ["id": .id(id), "createdAt": .time(Self.now), "updatedAt": .time(Self.now)])
        }
    }

    @Test("A body: JSON objects only, said clearly; a client's id must be a UUID")
    func bodies() throws {
        let parsed = try RecordPatch(json: Data(#"{"brand":"DMC","quantity":4,"notes":null}"#.utf8))
        #expect(parsed.keys == ["brand", "quantity", "notes"])
        #expect(parsed["notes"] == .null)
        for bad in ["[1,2]", "\"text\"", "{\"brand\":", "", "nul"] {
            #expect(throws: APIError.self) { try RecordPatch(json: Data(bad.utf8)) }
        }
        #expect(try RecordPatch(["id": .null]).clientId() == nil)
        let id = UUID()
        #expect(try RecordPatch(["id": .id(id)]).clientId() == id)
        #expect(throws: APIError.self) { try RecordPatch(["id": "not-a-uuid"]).clientId() }
        #expect(throws: APIError.self) { try RecordPatch(["id": 12]).clientId() }
    }
}
