import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Threads API")
struct ThreadAPITests {
    @Test("Create with defaults, read back, and the write takes the user's next sync version")
    func createAndShow() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let before = try await ann.syncVersion()
            let t = try await ann.create("/threads", ["brand": " DMC ", "number": "310", "colorName": "Black", "colorHex": "#000000"], as: InventoryThread.self)
            #expect(t.brand == "DMC" && t.fiberType == .wool && t.quantity == 0 && t.deletedAt == nil)
            #expect(try await ann.get("/threads/\(t.id)", as: InventoryThread.self) == t)
            let after = try await ann.syncVersion()
            #expect(after == before + 1)
            let model = try #require(try await ThreadModel.find(t.id, on: app.db))
            #expect(model.version == after)
        }
    }

    @Test("A client may choose the id; reusing an id is a 409")
    func clientId() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let id = UUID()
            let t = try await ann.create("/threads", ["id": id.uuidString, "brand": "DMC", "number": "310"], as: InventoryThread.self)
            #expect(t.id == id)
            let again = try await ann.sendObject(.POST, "/threads", ["id": id.uuidString, "brand": "DMC", "number": "321"])
            #expect(again.status == .conflict)
            let bad = try await ann.sendObject(.POST, "/threads", ["id": "not-a-uuid", "brand": "DMC", "number": "321"])
            #expect(bad.status == .badRequest)
        }
    }

    @Test("A thread you have already (same brand and number, any case or spacing): 409 with its id and nothing written; ?merge=true adds to it")
    func duplicate() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let first = try await ann.thread("DMC", "310", quantity: 1)
            let version = try await ann.syncVersion()
            var res = try await ann.sendObject(.POST, "/threads", ["brand": "dmc ", "number": "310", "quantity": 2, "colorName": "Black"])
            #expect(res.status == .conflict)
            #expect(res.error?.existingId == first.id && res.error?.fields?["number"]?.contains("You have DMC 310 already") == true, "\(res.text)")
            #expect(res.text.contains(first.id.wireText), "the id as records carry it")
            #expect(try await ann.syncVersion() == version)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 1)
            // Someone else's thread is no duplicate of yours.
            #expect(try await bob.thread("DMC", "310", quantity: 4).quantity == 4)

            res = try await ann.sendObject(.POST, "/threads?merge=true", ["brand": "dmc ", "number": "310", "quantity": 2, "colorName": "Black"])
            #expect(res.status == .ok)
            let merged = try res.decode(InventoryThread.self)
            #expect(merged.id == first.id && merged.quantity == 3 && merged.colorName == "Black")
            #expect(try await ann.get("/threads", as: [InventoryThread].self) == [merged])
            // Merging something new is just adding it; bad input is still a 400.
            res = try await ann.sendObject(.POST, "/threads?merge=true", ["brand": "DMC", "number": "321", "quantity": 1])
            #expect(res.status == .created)
            res = try await ann.sendObject(.POST, "/threads?merge=true", ["brand": "DMC", "number": "310", "quantity": -1])
            #expect(res.status == .badRequest)
            #expect(try await ann.get("/threads/\(first.id)", as: InventoryThread.self).quantity == 3)
            // merge is true or false; anything else (schemathesis sent -1) is a 400, not a quiet "no".
            for bad in ["-1", "yes", "1", ""] {
                res = try await ann.sendObject(.POST, "/threads?merge=\(bad)", ["brand": "DMC", "number": "999", "quantity": 1])
                #expect(res.status == .badRequest && res.text.contains("merge must be true or false"), "\(bad): \(res.text)")
            }
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 2)
        }
    }

    @Test("Invalid input: 400 with every bad field, malformed bodies and wrong types too, and nothing written")
    func invalid() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let version = try await ann.syncVersion()
            let res = try await ann.sendObject(.POST, "/threads", ["brand": "", "number": "", "quantity": -1, "colorHex": "black"])
            #expect(res.status == .badRequest)
            #expect(Set(res.error?.fields?.keys.map { $0 } ?? []) == ["brand", "number", "quantity", "colorHex"])
            for raw in ["{", "[]", "42", #"{"brand":"DMC","number":"310","quantity":"lots"}"#,
                        #"{"brand":"DMC","number":"310","fiberType":"linen"}"#, #"{"brand":"DMC","number":"310","quantity":1e30}"#,
                        #"{"brand":"DMC","number":"310","quantity":99999999999999999999999}"#, #"{"brand":7,"number":"310"}"#] {
                let r = try await ann.send(.POST, "/threads", raw: raw)
                #expect(r.status == .badRequest, "\(raw) → \(r.status)")
                #expect(r.error != nil)
            }
            #expect(try await ann.get("/threads", as: [InventoryThread].self).isEmpty)
            #expect(try await ann.syncVersion() == version)
        }
    }

    @Test("List: natural order by brand then number; search and filters")
    func listAndFilter() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            for (brand, number, color, fiber) in [("DMC", "310", "Black", "cotton"), ("DMC", "10", "Tender Green", "cotton"),
                                                  ("DMC", "2", "Ecru", "cotton"), ("Appleton", "992", "Sea Green", "wool"),
                                                  ("Silk & Ivory", "1", "Snow", "blend")] {
                try await ann.thread(brand, number, extra: ["colorName": color, "fiberType": fiber])
            }
            let all = try await ann.get("/threads", as: [InventoryThread].self).map { "\($0.brand) \($0.number)" }
            #expect(all == ["Appleton 992", "DMC 2", "DMC 10", "DMC 310", "Silk & Ivory 1"])
            #expect(try await ann.get("/threads?q=green", as: [InventoryThread].self).map(\.number) == ["992", "10"])
            #expect(try await ann.get("/threads?q=31", as: [InventoryThread].self).map(\.number) == ["310"])
            #expect(try await ann.get("/threads?brand=dmc", as: [InventoryThread].self).count == 3)
            #expect(try await ann.get("/threads?fiberType=wool", as: [InventoryThread].self).map(\.brand) == ["Appleton"])
            #expect(try await ann.get("/threads?brand=DMC&q=ecru", as: [InventoryThread].self).map(\.number) == ["2"])
            #expect(try await ann.send(.GET, "/threads?fiberType=linen").status == .badRequest)
        }
    }

    @Test("Brands for autocomplete: distinct, most used first")
    func brands() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            try await ann.thread("Appleton", "1")
            for n in ["1", "2", "3"] { try await ann.thread("DMC", n) }
            try await ann.thread("Paternayan", "1")
            try await ann.thread("Paternayan", "2")
            #expect(try await ann.get("/threads/brands", as: [String].self) == ["DMC", "Paternayan", "Appleton"])
            #expect(try await ann.get("/threads/brands?q=pa", as: [String].self) == ["Paternayan"])
        }
    }

    @Test("PUT is partial: absent keys stay, null clears an optional field, a required field can't be cleared")
    func partialUpdate() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let t = try await ann.thread(extra: ["colorName": "Black", "notes": "keep me", "quantity": 2])
            clock.advance(by: 60)
            let res = try await ann.sendObject(.PUT, "/threads/\(t.id)", ["quantity": 5, "colorName": nil])
            #expect(res.status == .ok)
            let updated = try res.decode(InventoryThread.self)
            #expect(updated.quantity == 5 && updated.colorName == nil && updated.notes == "keep me" && updated.brand == "DMC")
            #expect(updated.updatedAt > t.updatedAt && updated.createdAt == t.createdAt)
            let cleared = try await ann.sendObject(.PUT, "/threads/\(t.id)", ["brand": nil])
            #expect(cleared.status == .badRequest)
            let negative = try await ann.sendObject(.PUT, "/threads/\(t.id)", ["quantity": -1])
            #expect(negative.status == .badRequest && negative.error?.fields?["quantity"] != nil)
            // Server-owned fields are not the client's to set.
            let sneaky = try await ann.sendObject(.PUT, "/threads/\(t.id)", ["id": UUID().uuidString, "createdAt": "2001-01-01T00:00:00Z", "deletedAt": "2001-01-01T00:00:00Z"])
            #expect(sneaky.status == .ok)
            let after = try sneaky.decode(InventoryThread.self)
            #expect(after.id == t.id && after.createdAt == t.createdAt && after.deletedAt == nil)
            #expect(try await ann.get("/threads/\(t.id)", as: InventoryThread.self).quantity == 5)
        }
    }

    @Test("DELETE is a soft delete: 204, then 404 and gone from the list, but the row keeps its tombstone")
    func softDelete() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let t = try await ann.thread()
            #expect(try await ann.send(.DELETE, "/threads/\(t.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/threads/\(t.id)").status == .notFound)
            #expect(try await ann.send(.PUT, "/threads/\(t.id)", json: ["quantity": 1]).status == .notFound)
            #expect(try await ann.send(.DELETE, "/threads/\(t.id)").status == .notFound)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).isEmpty)
            let row = try #require(try await ThreadModel.find(t.id, on: app.db))
            #expect(row.deletedAt != nil && row.updatedAt == row.deletedAt)
        }
    }

    @Test("Ids that are not UUIDs are a 404; every endpoint needs a token")
    func badIdsAndAuth() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            #expect(try await ann.send(.GET, "/threads/310").status == .notFound)
            #expect(try await app.send(.GET, "/threads").status == .unauthorized)
            #expect(try await app.send(.POST, "/threads", json: ["brand": "DMC", "number": "1"]).status == .unauthorized)
        }
    }

    @Test("5,000 threads list completely and in order")
    func manyThreads() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let now = clock.now
            try await app.db.transaction { db in
                for i in 0..<5000 {
                    let t = InventoryThread(brand: i % 2 == 0 ? "DMC" : "Anchor", number: String(i), createdAt: now, updatedAt: now)
                    try await Records.create(t, as: ThreadModel.self, userId: ann.id, version: 1, on: db)
                }
            }
            let list = try await ann.get("/threads", as: [InventoryThread].self)
            #expect(list.count == 5000)
            #expect(list.first?.brand == "Anchor" && list.first?.number == "1" && list.last?.number == "4998")
        }
    }
}
