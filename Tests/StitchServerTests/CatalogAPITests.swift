import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Thread catalogs over the API: search as a person types, nearest colours")
struct CatalogAPITests {
    @Test("The shipped catalogs: DMC floss 454 colours with names, Anchor stranded cotton 443 by number; each number once, every colour a swatch")
    func shippedCatalog() throws {
        let catalog = try Catalogs.shared()
        let dmc = catalog.entries.filter { $0.brand == "DMC" }
        #expect(dmc.count == 454)
        #expect(Set(dmc.map(\.number)).count == dmc.count)
        #expect(dmc.allSatisfy { Rules.isHexColor($0.hex) && !$0.name.isEmpty && !$0.name.contains("?") })
        #expect(catalog.entry(brand: "dmc", number: "310")?.name == "Black")
        #expect(catalog.entry(brand: "DMC", number: "ecru")?.number == "Ecru")
        let anchor = catalog.entries.filter { $0.brand == "Anchor" }
        #expect(anchor.count == 443 && Set(anchor.map(\.number)).count == 443)
        #expect(anchor.allSatisfy { Rules.isHexColor($0.hex) && $0.name.isEmpty && $0.line == "Stranded cotton" })
        #expect(catalog.entry(brand: "anchor", number: "403")?.label == "Anchor 403")
        #expect(catalog.brands == ["DMC", "Anchor"])
        // DMC's pearl cotton shares the floss numbers and colours: sizes as variants of each entry.
        #expect(dmc.allSatisfy { $0.variants == ["Pearl cotton #3", "Pearl cotton #5", "Pearl cotton #8", "Pearl cotton #12"] })
        #expect(anchor.allSatisfy { $0.variants.isEmpty })
    }

    @Test("Every keystroke of a typed query answers from the whole catalog, best match first (speed: stitch-bench --only catalog)")
    func searchAsTyped() throws {
        let catalog = try Catalogs.shared()
        // What a person sees after each keystroke: typing "310" ends on DMC 310, "blakc" (a typo) still finds Black.
        for (word, wanted) in [("310", "310"), ("black", "310"), ("blakc", "310"), ("3865", "3865"), ("ecru", "Ecru")] {
            for end in word.indices {
                let results = catalog.search(String(word[...end]))
                #expect(!results.isEmpty, "\(word[...end]) found nothing")
                #expect(results.count <= 10)
            }
            #expect(catalog.search(word).contains { $0.brand == "DMC" && $0.number == wanted }, "\(word)")
        }
        #expect(catalog.search("310").first?.number == "310")
    }

    @Test("GET /catalog/search: from \"310\" and from \"black\" to DMC 310 Black with its swatch; a typo still finds it; bad input is a 400")
    func search() async throws {
        try await withTestApp { app, _ in
            func search(_ query: String) async throws -> [CatalogEntry] {
                let res = try await app.send(.GET, "/catalog/search?" + query)
                try #require(res.status == .ok, "\(query): \(res.status) \(res.body.string)")
                return try StitchJSON.decode([CatalogEntry].self, from: Data(buffer: res.body))
            }
            let black = CatalogEntry(brand: "DMC", line: "Six-strand floss", number: "310", name: "Black", hex: "#000000", fiberType: .cotton,
                                     variants: ["Pearl cotton #3", "Pearl cotton #5", "Pearl cotton #8", "Pearl cotton #12"])
            #expect(try await search("q=310").first == black)
            #expect(try await search("q=black").first == black)
            #expect(try await search("q=dmc%20blakc").contains(black))
            #expect(try await search("q=310&limit=1") == [black])
            #expect(try await search("q=").isEmpty)
            #expect(try await search("q=dusty%20rose").count == 10)
            #expect(try await search("q=dusty%20rose&limit=50").allSatisfy { $0.name.lowercased().contains("dusty rose") })
            for bad in ["q=310&limit=0", "q=310&limit=51", "q=310&limit=ten", "q=" + String(repeating: "a", count: 101)] {
                let res = try await app.send(.GET, "/catalog/search?" + bad)
                #expect(res.status == .badRequest, "\(bad): \(res.status)")
                #expect(res.body.string.contains("\"error\""))
            }
        }
    }

    @Test("GET /catalog/nearest: a catalog colour's nearest others by CIEDE2000, or a hex colour's; unknown numbers 404, bad colours and brands 400")
    func nearest() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.GET, "/catalog/DMC/310/nearest?in=DMC&limit=5")
            try #require(res.status == .ok, "\(res.body.string)")
            let answer = try StitchJSON.decode(NearestColours.self, from: Data(buffer: res.body))
            #expect(answer.from?.number == "310" && answer.hex == "#000000")
            #expect(answer.nearest.count == 5 && !answer.nearest.contains { $0.entry.number == "310" })
            #expect(answer.nearest.map(\.deltaE) == answer.nearest.map(\.deltaE).sorted())
            #expect(answer.nearest.allSatisfy { $0.deltaE > 0 } && answer.nearest[0].deltaE < 10)

            let byHex = try await app.send(.GET, "/catalog/nearest?hex=%23000001")
            let hexAnswer = try StitchJSON.decode(NearestColours.self, from: Data(buffer: byHex.body))
            #expect(hexAnswer.from == nil && hexAnswer.nearest.first?.entry.number == "310" && hexAnswer.nearest.count == 3)

            #expect(try await app.send(.GET, "/catalog/DMC/99999/nearest").status == .notFound)
            #expect(try await app.send(.GET, "/catalog/Anchor/99999/nearest").status == .notFound)
            #expect(try await app.send(.GET, "/catalog/Appleton/992/nearest").status == .notFound)
            // The example: the nearest Anchor to DMC 310 Black is Anchor 403 (black),
            // and the other way round; a red to a red.
            let toAnchor = try StitchJSON.decode(NearestColours.self, from: Data(buffer: try await app.send(.GET, "/catalog/DMC/310/nearest?in=Anchor").body))
            #expect(toAnchor.nearest.first?.entry.label == "Anchor 403" && toAnchor.nearest.allSatisfy { $0.entry.brand == "Anchor" }, "\(toAnchor.nearest)")
            let toDMC = try StitchJSON.decode(NearestColours.self, from: Data(buffer: try await app.send(.GET, "/catalog/Anchor/403/nearest?in=DMC").body))
            #expect(["310", "3371"].contains(toDMC.nearest.first?.entry.number ?? ""), "\(toDMC.nearest)")
            #expect(try await app.send(.GET, "/catalog/DMC/ecru/nearest").status == .ok)
            for bad in ["hex=red", "", "hex=%20%23000000", "hex=%23000000&in=Paternayan", "hex=%23000000&in=dmc", "hex=%23000000&limit=21", "hex=%23000000&limit=%2B3"] {
                let res = try await app.send(.GET, "/catalog/nearest?" + bad)
                #expect(res.status == .badRequest, "\(bad): \(res.status) \(res.body.string)")
            }
            #expect(try await app.send(.GET, "/catalog/nearest?hex=%23000000&in=Paternayan").body.string.contains("DMC"))
        }
    }
}

extension ByteBuffer {
    fileprivate var string: String { String(buffer: self) }
}

@Suite("Matching an inventory to the catalog over the API and the web app")
struct CatalogMatchAPITests {
    @Test("POST /threads/match-catalog fills what the catalog knows in one sync version, reports what it couldn't match, changes nothing the second time")
    func matchOverAPI() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let black = try await ann.thread("DMC", "310", quantity: 2)
            let mine = try await ann.thread("DMC", "321", extra: ["colorHex": "#FF0000", "colorName": "My red"])
            let appleton = try await ann.thread("Appleton", "992")
            let anchor = try await ann.thread("Anchor", "403")  // Anchor's card names no colours: a swatch only
            let before = try await ann.syncVersion()
            let res = try await ann.send(.POST, "/threads/match-catalog")
            try #require(res.status == .ok, "\(res.text)")
            let report = try res.decode(CatalogMatchReport.self)
            #expect(Set(report.matched.map(\.id)) == [black.id, mine.id, anchor.id] && report.unchanged == 0)
            #expect(report.unmatched.map(\.id) == [appleton.id] && report.unmatched[0].reason.contains("No catalog for Appleton"))
            #expect(try await ann.syncVersion() == before + 1)
            let now310 = try await ann.get("/threads/\(black.id.wireText)", as: InventoryThread.self)
            #expect(now310.colorHex == "#000000" && now310.colorName == "Black" && now310.catalogColorName == "Black" && now310.quantity == 2)
            #expect(now310.updatedAt > black.updatedAt)
            let now321 = try await ann.get("/threads/\(mine.id.wireText)", as: InventoryThread.self)
            #expect(now321.colorHex == "#FF0000" && now321.colorName == "My red" && now321.catalogColorName == "Red")
            let now403 = try await ann.get("/threads/\(anchor.id.wireText)", as: InventoryThread.self)
            #expect(now403.colorHex == "#121312" && now403.colorName == nil && now403.catalogColorName == nil)
            // A device pulls the changes.
            let pull = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: []))
            let pulled = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: pull.body)).changes
            #expect(try pulled.first { $0.id == black.id }?.record(as: InventoryThread.self).catalogColorName == "Black")
            // Again: nothing to do.
            let again = try await ann.send(.POST, "/threads/match-catalog").decode(CatalogMatchReport.self)
            #expect(again.matched.isEmpty && again.unchanged == 3 && again.unmatched.count == 1)
            // Another user's threads are not touched, and signing in is required.
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bobs = try await bob.send(.POST, "/threads/match-catalog").decode(CatalogMatchReport.self)
            #expect(bobs.matched.isEmpty && bobs.unmatched.isEmpty && bobs.unchanged == 0)
            #expect(try await app.send(.POST, "/threads/match-catalog").status == .unauthorized)
        }
    }

    @Test("The web app shows what could stand in for a thread — on its page and on the shopping list — nearest first, by CIEDE2000")
    func alternativesInWeb() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let black = try await ann.thread("DMC", "310")
            let silk = try await ann.thread("Silk Mori", "1234", extra: ["colorHex": "#C52A3A"])
            let plain = try await ann.thread("Appleton", "992")
            let canvas = try await ann.canvas()
            let project = try await ann.project(canvas: canvas)
            _ = try await ann.create("/projects/\(project.project.id.wireText)/threads", ["brand": "DMC", "number": "321", "quantityNeeded": 2], as: ProjectThread.self)
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            let page = try await browser.request(.GET, "/app/inventory/\(black.id.wireText)").text
            // DMC and Anchor ship: a DMC thread's nearest Anchor colours (nearest few: one other brand).
            #expect(page.contains("Nearest in other brands") && page.contains("DMC 310 Black in the DMC six-strand floss catalog"))
            let first = try #require(page.range(of: "Anchor 403"))
            #expect(page[first.upperBound...].contains("ΔE"))
            let mine = try await browser.request(.GET, "/app/inventory/\(silk.id.wireText)").text
            #expect(mine.contains("Nearest in other brands") && mine.contains("DMC 321 Red") && mine.contains("Anchor "))
            #expect(!(try await browser.request(.GET, "/app/inventory/\(plain.id.wireText)").text).contains("id=\"alternatives\""))
            let shopping = try await browser.request(.GET, "/app/shopping").text
            #expect(shopping.contains("Nearest: Anchor "), "\(shopping)")
        }
    }
}

