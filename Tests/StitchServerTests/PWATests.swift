import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("The web app installs and keeps pages to read offline")
struct PWATests {
    @Test("Manifest, icon, worker and offline page are served; the worker keeps exactly the pages a stitcher reads in a shop")
    func installable() async throws {
        try await withTestApp { app, _ in
            let manifest = try await app.send(.GET, "/app/manifest.webmanifest")
            #expect(manifest.status == .ok && manifest.headers.contentType?.description == "application/manifest+json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: manifest.body)) as? [String: Any])
            #expect(json["start_url"] as? String == "/app/inventory" && json["scope"] as? String == "/app/" && json["display"] as? String == "standalone")
            #expect(try await app.send(.GET, "/app/static/icon.svg").text.hasPrefix("<svg"))
            // The manifest carries its icon (no request when the browser checks it after the load
            // event): the served SVG, as a data: URL.
            let icon = try #require((json["icons"] as? [[String: Any]])?.first?["src"] as? String)
            #expect(icon.hasPrefix("data:image/svg+xml,")
                    && icon.dropFirst("data:image/svg+xml,".count).removingPercentEncoding == PWA.icon.trimmingCharacters(in: .whitespacesAndNewlines))
            let worker = try await app.send(.GET, "/app/sw.js")
            #expect(worker.status == .ok && worker.headers.first(name: "Service-Worker-Allowed") == "/app/" && worker.text.contains("stitch-pages-v1"))
            let offline = try await app.send(.GET, "/app/offline")
            #expect(offline.status == .ok && offline.text.contains("re offline"))
            // Every shell file the worker installs answers (an install fails on one that doesn't).
            for path in [SiteURL.stylesheet.path, SiteURL.script.path, SiteURL.icon.path, SiteURL.offline.path] {
                #expect(try await app.send(.GET, path).status == .ok, "\(path)")
            }
            let readable = try NSRegularExpression(pattern: PWA.readable)
            func kept(_ path: String) -> Bool { readable.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil }
            let id = UUID().wireText
            for path in ["/app/inventory", "/app/inventory/new", "/app/stash", "/app/stash/\(id)", "/app/stash/\(id)/palette", "/app/projects", "/app/projects/\(id)", "/app/shopping"] {
                #expect(kept(path), "\(path) is read offline")
            }
            for path in ["/app/settings", "/app/signin", "/app/stash/new", "/app/stash/\(id)/palette/size", "/app/projects/start", "/app/settings/export.json"] {
                #expect(!kept(path), "\(path) is not kept")
            }
            // Every signed-in page links the manifest.
            let page = try await app.send(.GET, "/app/signin").text
            #expect(page.contains("rel=\"manifest\" href=\"/app/manifest.webmanifest\""))
            // The tab's icon is in the page (no request after the load event); the same SVG as the served one.
            let marker = "rel=\"icon\" href=\""
            let start = try #require(page.range(of: marker)).upperBound
            let url = String(page[start...].prefix { $0 != "\"" })
            #expect(url.hasPrefix("data:image/svg+xml,") && !url.contains("#") && !url.contains("<"))
            let svg = String(url.dropFirst("data:image/svg+xml,".count)).replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding
            #expect(svg == PWA.icon.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(page.contains("rel=\"apple-touch-icon\" href=\"/app/static/icon.svg\""))
        }
    }

    struct WebSyncAnswer: Decodable {
        var results: [SyncResult]
        var changes: [SyncChange]
    }

    /// Changes the web app kept offline, as app.js sends them to /app/sync.
    static func kept(_ changes: [(type: String, id: UUID, fields: String, at: String)], user: UUID) -> String {
        "{\"user\":\"\(user.wireText)\",\"changes\":[" + changes.map { "{\"type\":\"\($0.type)\",\"id\":\"\($0.id.wireText)\",\"fields\":\($0.fields),\"changedAt\":\"\($0.at)\"}" }
            .joined(separator: ",") + "]}"
    }

    @Test("Changes kept offline in the browser: laid over the server's record and dated when they were made; a later change elsewhere wins and comes back; bad ones are refused by name; no token, no change")
    func keptOffline() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let black = try await ann.thread("DMC", "310", quantity: 1, extra: ["colorName": "Black", "notes": "for the outline"])
            let gold = try await ann.thread("DMC", "3865", quantity: 2)
            let project = try await ann.create("/projects", ["name": "Shop sampler", "status": "planned"], as: ProjectDetail.self).project
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let page = try await web.request(.GET, "/app/inventory").text
            #expect(page.contains("data-user=\"\(ann.auth.user.id.wireText)\""))
            let token = try await web.csrf(from: "/app/inventory")
            let csrf: HTTPHeaders = ["X-CSRF-Token": token]

            // DMC 3865 changed on a device after the browser's offline step (made a minute ago).
            clock.advance(by: 60)
            let made = Timestamp.string(from: clock.now.addingTimeInterval(-30))
            let put = try await ann.sendObject(.PUT, "/threads/\(gold.id.wireText)", ["quantity": 7])
            try #require(put.status == .ok, "\(put.text)")
            let newThread = UUID(), note = UUID(), other = UUID(), bought = UUID(), badBuy = UUID()
            let madeAfter = Timestamp.string(from: clock.now.addingTimeInterval(-20))
            let body = Self.kept([
                ("thread", black.id, #"{"quantity":4}"#, made),
                ("thread", gold.id, #"{"quantity":3}"#, made),
                ("thread", newThread, #"{"brand":"DMC","number":"444","colorName":"Dark lemon","fiberType":"cotton","quantity":2,"createdAt":"\#(made)"}"#, made),
                ("journalEntry", note, #"{"projectId":"\#(project.id.wireText)","notes":"Bought the gold","createdAt":"\#(made)"}"#, made),
                ("thread", UUID(), #"{"quantity":1}"#, made),
                ("canvas", other, #"{"designName":"Hare"}"#, made),
                // Bought after the quantity was set: both count (4 + 2), in the order they were made.
                ("purchase", bought, #"{"brand":"DMC","number":"310","quantity":2}"#, madeAfter),
                ("purchase", badBuy, #"{"brand":"DMC","number":"310","quantity":0}"#, madeAfter),
            ], user: ann.auth.user.id)
            // Without the page's token nothing changes.
            #expect(try await web.request(.POST, "/app/sync", json: body).status == .forbidden)
            #expect(try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self).quantity == 1)

            let res = try await web.request(.POST, "/app/sync", json: body, headers: csrf)
            try #require(res.status == .ok, "\(res.text)")
            let answer = try res.decode(WebSyncAnswer.self)
            let status = Dictionary(uniqueKeysWithValues: answer.results.map { ($0.id, $0.status) })
            #expect(status[black.id] == .applied && status[newThread] == .applied && status[note] == .applied)
            #expect(status[gold.id] == .stale, "\(String(describing: status[gold.id])) \(res.text)")
            #expect(status[other] == .rejected && status[bought] == .applied && status[badBuy] == .rejected)
            #expect(answer.results.map(\.id) == [black.id, gold.id, newThread, note, answer.results[4].id, other, bought, badBuy])
            #expect(answer.results.filter { $0.status == .rejected }.count == 3)
            #expect(answer.results.first { $0.id == badBuy }?.error?.fields?["quantity"] != nil)
            // The server's copy of what it kept comes back.
            let goldCopy = try #require(answer.changes.first { $0.id == gold.id })
            #expect(try goldCopy.record(as: InventoryThread.self).quantity == 7)

            // Only the changed field moved; the rest of the record is the server's.
            let blackNow = try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self)
            #expect(blackNow.quantity == 6 && blackNow.colorName == "Black" && blackNow.notes == "for the outline")
            #expect(try await ann.get("/threads/\(gold.id.wireText)", as: InventoryThread.self).quantity == 7)
            let added = try await ann.get("/threads/\(newThread.wireText)", as: InventoryThread.self)
            #expect(added.brand == "DMC" && added.number == "444" && added.quantity == 2 && added.colorName == "Dark lemon")
            #expect(try await ann.get("/projects/\(project.id.wireText)/entries", as: [JournalEntryDetail].self).map(\.entry.notes) == ["Bought the gold"])

            // Sent again (the answer was lost on the way): nothing changes twice.
            let again = try await web.request(.POST, "/app/sync", json: body, headers: csrf)
            #expect(again.status == .ok)
            #expect(try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self).quantity == 6)
            #expect(try await ann.get("/projects/\(project.id.wireText)/entries", as: [JournalEntryDetail].self).count == 1)

            // Someone else's browser can't reach Ann's records: an id of hers is not theirs to change.
            let bob = WebClient(app: app)
            let bobUser = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            try await bob.signIn("bob@example.com")
            let bobToken = try await bob.csrf(from: "/app/settings")
            let later = Timestamp.string(from: clock.now.addingTimeInterval(1))
            let theft = try await bob.request(.POST, "/app/sync", json: Self.kept([("thread", black.id, #"{"quantity":99}"#, later)], user: bobUser.auth.user.id),
                                              headers: ["X-CSRF-Token": bobToken])
            #expect(theft.status == .ok && !theft.text.contains("for the outline"))
            #expect(try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self).quantity == 6)

            // Ann's page kept a batch; Bob signed in on that browser since: the batch says it is
            // Ann's, and Bob's session doesn't take it (409, nothing applied to either account).
            let annsKept = Self.kept([("thread", UUID(), #"{"brand":"DMC","number":"555","fiberType":"cotton","quantity":5,"createdAt":"\#(later)"}"#, later),
                                      ("purchase", UUID(), #"{"brand":"DMC","number":"310","quantity":3}"#, later)], user: ann.auth.user.id)
            let crossed = try await bob.request(.POST, "/app/sync", json: annsKept, headers: ["X-CSRF-Token": bobToken])
            #expect(crossed.status == .conflict && crossed.text.contains("another account"), "\(crossed.text)")
            #expect(try await bobUser.get("/threads", as: [InventoryThread].self).isEmpty)
            #expect(try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self).quantity == 6)

            // Deleted on another device after the page kept its change (made later still): deletes
            // win, the change isn't kept, and the answer carries the tombstone for the page to say so.
            let doomed = try await ann.thread("DMC", "666", quantity: 1)
            #expect(try await ann.send(.DELETE, "/threads/\(doomed.id.wireText)").status == .noContent)
            let afterDelete = Timestamp.string(from: clock.now.addingTimeInterval(30))
            let onDeleted = try await web.request(.POST, "/app/sync", json: Self.kept([("thread", doomed.id, #"{"quantity":4}"#, afterDelete)], user: ann.auth.user.id),
                                                  headers: csrf)
            let deletedAnswer = try onDeleted.decode(WebSyncAnswer.self)
            #expect(deletedAnswer.results.map(\.status) == [.stale], "\(onDeleted.text)")
            #expect(deletedAnswer.changes.first { $0.id == doomed.id }?.deletedAt != nil, "\(onDeleted.text)")
            #expect(try await ann.send(.GET, "/threads/\(doomed.id.wireText)").status == .notFound)

            // Signed out: 401, and the page keeps what it has for the next sign-in.
            let out = WebClient(app: app)
            #expect(try await out.request(.POST, "/app/sync", json: body, headers: csrf).status != .ok)
            // Malformed: a clear 400.
            let bad = try await web.request(.POST, "/app/sync", json: #"{"changes":[{"type":"thread"}]}"#, headers: csrf)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("A −/+ step kept on the device (its request had no answer in time) counts once, whichever of it and its request reaches the server first, and adds to a change made meanwhile elsewhere; bad steps are refused by name")
    func givenUpStep() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let red = try await ann.thread("DMC", "321", quantity: 1)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let token = try await web.csrf(from: "/app/inventory")
            func request(_ changeId: UUID, _ delta: Int = 1) async throws -> Int {
                let res = try await web.request(.POST, "/app/inventory/\(red.id.wireText)/step",
                                                form: ["_csrf": token, "delta": "\(delta)", "changeId": changeId.wireText],
                                                headers: ["Accept": "application/json"])
                try #require(res.status == .ok, "\(res.text)")
                return try res.decode([String: Int].self)["quantity"] ?? -1
            }
            func kept(_ steps: [(id: UUID, fields: String)]) async throws -> WebSyncAnswer {
                let made = Timestamp.string(from: clock.now.addingTimeInterval(-5))
                let res = try await web.request(.POST, "/app/sync", json: Self.kept(steps.map { ("step", $0.id, $0.fields, made) }, user: ann.auth.user.id),
                                                headers: ["X-CSRF-Token": token])
                try #require(res.status == .ok, "\(res.text)")
                return try res.decode(WebSyncAnswer.self)
            }
            let plusOne = #"{"thread":"\#(red.id.wireText)","delta":1}"#
            func quantity() async throws -> Int { try await ann.get("/threads/\(red.id.wireText)", as: InventoryThread.self).quantity }

            // The page's +1 had no answer in time and was kept. The kept step reaches the server
            // first; the request itself comes after and adds nothing.
            clock.advance(by: 10)
            let late = UUID()
            let answer = try await kept([(late, plusOne)])
            #expect(answer.results.map(\.status) == [.applied])
            #expect(try answer.changes.first { $0.id == red.id }?.record(as: InventoryThread.self).quantity == 2, "the thread as counted comes back")
            #expect(try await request(late) == 2, "a spent step answers the quantity as it is")
            #expect(try await quantity() == 2)

            // The other order: the request lands first (2 → 3), the kept copy adds nothing.
            let first = UUID()
            #expect(try await request(first) == 3)
            #expect(try await kept([(first, plusOne)]).results.map(\.status) == [.applied])
            #expect(try await quantity() == 3)

            // Meanwhile a device sets 7 (a purchase, say): the kept step adds to it, like a purchase
            // (a step is one skein more or fewer, not a quantity that overwrites).
            let put = try await ann.sendObject(.PUT, "/threads/\(red.id.wireText)", ["quantity": 7])
            try #require(put.status == .ok, "\(put.text)")
            #expect(try await kept([(UUID(), plusOne)]).results.map(\.status) == [.applied])
            #expect(try await quantity() == 8)

            // Sent twice (its answer lost): once; a −1 at zero spends its id too.
            let twice = UUID()
            #expect(try await request(twice) == 9)
            #expect(try await request(twice) == 9)
            #expect(try await request(UUID(), -9) == 0)
            let atZero = UUID()
            #expect(try await request(atZero, -1) == 0)
            #expect(try await request(atZero, 1) == 0, "an id spent at zero adds nothing later")

            // Refused by name, nothing changed: no thread, a delta of 0 or past 1000, a thread that
            // isn't there (or isn't Ann's).
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bobs = try await bob.thread("DMC", "310", quantity: 1)
            let bad = try await kept([(UUID(), #"{"delta":1}"#), (UUID(), #"{"thread":"\#(red.id.wireText)","delta":0}"#),
                                      (UUID(), #"{"thread":"\#(red.id.wireText)","delta":5000}"#),
                                      (UUID(), #"{"thread":"\#(bobs.id.wireText)","delta":1}"#)])
            #expect(bad.results.map(\.status) == [.rejected, .rejected, .rejected, .rejected])
            #expect(bad.results.map { $0.error?.error ?? "" } == ["A step names the thread it changes", "A step adds or takes away 1 to 1000 skeins",
                                                                 "A step adds or takes away 1 to 1000 skeins", "That thread is no longer in your inventory"])
            #expect(try await quantity() == 0)
            #expect(try await bob.get("/threads/\(bobs.id.wireText)", as: InventoryThread.self).quantity == 1)
        }
    }
}
