import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// Cached list pages must never be stale: every kind of write changes what the next request sees,
/// each user and each query has its own page, and `If-None-Match` answers 304 only while nothing changed.
@Suite("List cache and ETags")
struct ListCacheTests {
    func threads(_ user: TestUser, _ app: Application, query: String = "", etag: String? = nil) async throws -> TestingHTTPResponse {
        var headers = HTTPHeaders()
        if let etag { headers.add(name: .ifNoneMatch, value: etag) }
        return try await app.send(.GET, "/threads" + query, token: user.token, headers: headers)
    }

    @Test("ETags are the same in every process: the query's part is FNV-1a, not a per-process hash")
    func stableTags() async throws {
        #expect(fnv1a("") == 0x811C_9DC5)
        #expect(fnv1a("a") == 0xE40C_292C)
        #expect(fnv1a("foobar") == 0xBF9C_F968)
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let tag = try #require(try await threads(ann, app, query: "?brand=DMC").headers.first(name: .eTag))
            #expect(tag.hasSuffix("-\(fnv1a("brand=DMC"))\""))
        }
    }

    @Test func everyWriteIsSeenAndUnchangedListsAre304() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let first = try await ann.thread("DMC", "310", quantity: 1)
            let page = try await threads(ann, app)
            let etag = try #require(page.headers.first(name: .eTag))
            #expect(try page.decode([InventoryThread].self).map(\.id) == [first.id])
            #expect(try await threads(ann, app, etag: etag).status == .notModified)
            // Another user, and another query, never get Ann's page.
            #expect(try await threads(bob, app).decode([InventoryThread].self).isEmpty)
            #expect(try await threads(bob, app, etag: etag).status == .ok)
            #expect(try await threads(ann, app, query: "?brand=Anchor").decode([InventoryThread].self).isEmpty)

            // Create, update, delete through REST; a push through sync: each is seen at once.
            let second = try await ann.thread("Anchor", "403", quantity: 2)
            #expect(try await threads(ann, app, etag: etag).status == .ok)
            #expect(try await threads(ann, app).decode([InventoryThread].self).map(\.id) == [second.id, first.id])
            #expect(try await threads(ann, app, query: "?brand=Anchor").decode([InventoryThread].self).map(\.id) == [second.id])
            #expect(try await ann.sendObject(.PUT, "/threads/\(first.id)", ["quantity": 7]).status == .ok)
            #expect(try await threads(ann, app).decode([InventoryThread].self).first { $0.id == first.id }?.quantity == 7)
            #expect(try await ann.send(.DELETE, "/threads/\(second.id)").status == .noContent)
            #expect(try await threads(ann, app).decode([InventoryThread].self).map(\.id) == [first.id])
            var pushed = first
            pushed.quantity = 9
            clock.advance(by: 5)
            pushed.updatedAt = clock.now.roundedToMilliseconds
            let sync = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: [try SyncChange(record: pushed)]))
            #expect(try sync.decode(SyncResponse.self).results.map(\.status) == [.applied])
            #expect(try await threads(ann, app).decode([InventoryThread].self).first?.quantity == 9)
            // Bob's writes leave Ann's page (and its ETag) alone.
            let current = try #require(try await threads(ann, app).headers.first(name: .eTag))
            _ = try await bob.thread("DMC", "blanc")
            #expect(try await threads(ann, app, etag: current).status == .notModified)
        }
    }

    @Test func theCacheCanBeTurnedOff() async throws {
        try await withTestApp(adjust: { $0.listCacheBytes = 0 }) { app, _ in
            let ann = try await TestUser.make(app)
            _ = try await ann.thread()
            #expect(try await threads(ann, app).decode([InventoryThread].self).count == 1)
            #expect(app.responseCache.storedBytes == 0)
        }
    }
}
