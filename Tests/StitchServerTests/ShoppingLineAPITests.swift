import Foundation
import StitchCore
import StitchKit
@testable import StitchServer
import Testing
import VaporTesting

/// The shopping list a stitcher shops with: threads added by hand (from a planned project's short
/// requirement, or running low), lines set aside, buying that uses both up — over the API, the web
/// app and a device, on SQLite and PostgreSQL.
@Suite("Shopping list lines: added by hand, set aside, bought")
struct ShoppingLineAPITests {
    @Test("Added by hand beside the projects' shortfall; a second time adds to the line; buying uses the shortfall first, then the hand line")
    func addAndBuy() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let wip = try await ann.project(canvas: try await ann.canvas("Nutcracker")).project
            try await ann.thread("DMC", "310", quantity: 1)
            try await ann.create("/projects/\(wip.id)/threads", ["brand": "DMC", "number": "310", "quantityNeeded": 3], as: ProjectThread.self)

            let added = try await ann.sendObject(.POST, "/shopping-list/lines", ["brand": "dmc", "number": "310", "quantity": 2, "notes": "running low"])
            #expect(added.status == .created, "\(added.text)")
            let line = try added.decode(ShoppingLine.self)
            #expect(line.kind == .added && line.quantity == 2)
            var list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.map { "\($0.brand) \($0.number) buy \($0.toBuy) by hand \($0.byHand)" } == ["DMC 310 buy 4 by hand 2"])
            #expect(list.items[0].handLineIds == [line.id] && list.items[0].handNotes == ["running low"] && list.items[0].forProjects == 2)

            // Again for the same thread: one line, the skeins added, 200.
            let again = try await ann.sendObject(.POST, "/shopping-list/lines", ["brand": "DMC", "number": " 310", "quantity": 1, "kind": "dismissed"])
            #expect(again.status == .ok, "\(again.text)")
            let merged = try again.decode(ShoppingLine.self)
            #expect(merged.id == line.id && merged.quantity == 3)
            #expect(try await ann.get("/shopping-list/lines", as: [ShoppingLine].self).map(\.quantity) == [3])

            // A thread nobody's project needs, running low.
            let appleton = try await ann.sendObject(.POST, "/shopping-list/lines", ["brand": "Appleton", "number": "992"])
            #expect(appleton.status == .created)
            #expect(try appleton.decode(ShoppingLine.self).quantity == 1)
            list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.map { "\($0.brand) \($0.number) \($0.toBuy)" } == ["Appleton 992 1", "DMC 310 5"] && list.totalToBuy == 6)

            // Buy 3 of DMC 310: 2 go to the project, 1 to the hand line (3 → 2).
            let bought = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "DMC", number: "310", quantity: 3))
            #expect(bought.status == .ok)
            #expect(try bought.decode(InventoryThread.self).quantity == 4)
            #expect(try await ann.get("/shopping-list/lines/\(line.id)", as: ShoppingLine.self).quantity == 2)
            list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.map { "\($0.brand) \($0.number) \($0.toBuy)" } == ["Appleton 992 1", "DMC 310 2"])
            // The rest: the line is used up and gone.
            _ = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "DMC", number: "310", quantity: 2))
            #expect(try await ann.send(.GET, "/shopping-list/lines/\(line.id)").status == .notFound)
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.map(\.number) == ["992"])

            // Edit and delete a line.
            let appletonLine = try appleton.decode(ShoppingLine.self)
            let edited = try await ann.sendObject(.PUT, "/shopping-list/lines/\(appletonLine.id)", ["quantity": 4, "kind": "dismissed"])
            let editedLine = try edited.decode(ShoppingLine.self)
            #expect(edited.status == .ok && editedLine.quantity == 4 && editedLine.kind == .added)
            #expect(try await ann.send(.DELETE, "/shopping-list/lines/\(appletonLine.id)").status == .noContent)
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty)
        }
    }

    @Test("Set aside: off the list while the projects want the same number, back when that changes; a thread not on the list is 404")
    func setAside() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let wip = try await ann.project(canvas: try await ann.canvas("Nutcracker")).project
            let need = try await ann.create("/projects/\(wip.id)/threads", ["brand": "DMC", "number": "310", "quantityNeeded": 3], as: ProjectThread.self)
            _ = try await ann.sendObject(.POST, "/shopping-list/lines", ["brand": "DMC", "number": "310", "quantity": 1])

            let res = try await ann.send(.POST, "/shopping-list/dismiss", json: DismissRequest(brand: "dmc", number: "310"))
            #expect(res.status == .ok, "\(res.text)")
            #expect(try res.decode(ShoppingListResponse.self).items.isEmpty)
            let lines = try await ann.get("/shopping-list/lines", as: [ShoppingLine].self)
            #expect(lines.map { "\($0.kind) \($0.quantity)" } == ["dismissed 3"], "the hand line went, the shortfall is remembered")
            // The need changes: back on the list.
            _ = try await ann.sendObject(.PUT, "/projects/\(wip.id)/threads/\(need.id)", ["quantityNeeded": 5])
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.map(\.toBuy) == [5])
            _ = try await ann.sendObject(.PUT, "/projects/\(wip.id)/threads/\(need.id)", ["quantityNeeded": 3])
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty)

            let missing = try await ann.send(.POST, "/shopping-list/dismiss", json: DismissRequest(brand: "DMC", number: "999"))
            #expect(missing.status == .notFound && missing.error?.error.contains("not on your shopping list") == true)
        }
    }

    @Test("Bad input changes nothing; another user's lines are 404; lines sync to a device and back")
    func badInputIsolationAndSync() async throws {
        try await withLiveServer { app, clock, server in
            let ann = try await TestUser.make(app, email: "ann@example.com")
            let bob = try await TestUser.make(app, email: "bob@example.com")
            for body: [String: Any?] in [["brand": "DMC", "number": "310", "quantity": -1], ["brand": "DMC", "number": "310", "quantity": 0],
                                         ["brand": "", "number": "310"], ["brand": "DMC"], ["brand": "DMC", "number": "310", "quantity": "two"],
                                         ["brand": "DMC", "number": "310", "quantity": Limits.maxQuantity + 1]] {
                let res = try await ann.sendObject(.POST, "/shopping-list/lines", body)
                #expect(res.status == .badRequest, "\(body): \(res.status) \(res.text)")
            }
            let line = try await ann.create("/shopping-list/lines", ["brand": "DMC", "number": "310", "quantity": Limits.maxQuantity], as: ShoppingLine.self)
            let over = try await ann.sendObject(.POST, "/shopping-list/lines", ["brand": "DMC", "number": "310", "quantity": 1])
            #expect(over.status == .conflict, "\(over.text)")
            #expect(try await ann.sendObject(.PUT, "/shopping-list/lines/\(line.id)", ["quantity": -3]).status == .badRequest)
            #expect(try await ann.get("/shopping-list/lines", as: [ShoppingLine].self).map(\.quantity) == [Limits.maxQuantity])

            for (method, path) in [(HTTPMethod.GET, "/shopping-list/lines/\(line.id)"), (.PUT, "/shopping-list/lines/\(line.id)"), (.DELETE, "/shopping-list/lines/\(line.id)")] {
                let res = try await bob.sendObject(method, path, ["quantity": 1])
                #expect(res.status == .notFound, "\(method) \(path): \(res.status)")
            }
            #expect(try await bob.get("/shopping-list/lines", as: [ShoppingLine].self).isEmpty)
            #expect(try await bob.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty)
            #expect(try await bob.send(.POST, "/shopping-list/dismiss", json: DismissRequest(brand: "DMC", number: "310")).status == .notFound)
            #expect(try await ann.get("/shopping-list/lines/\(line.id)", as: ShoppingLine.self).quantity == Limits.maxQuantity)

            // A device pulls the line, adds to it offline, sets another aside; the server agrees.
            _ = try await ann.sendObject(.PUT, "/shopping-list/lines/\(line.id)", ["quantity": 2])
            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.login(email: "ann@example.com", password: "correct horse")
            try await phone.engine.sync()
            var model = ShoppingListModel()
            try model.load(from: phone.store)
            #expect(model.items.map { "\($0.number) \($0.byHand)" } == ["310 2"])
            clock.advance(by: 60)
            try model.add(brand: "DMC", number: "310", quantity: 3, notes: "for the Santa", in: phone.store)
            let thread = try model.bought(brand: "DMC", number: "310", quantity: 4, in: phone.store)
            #expect(thread.quantity == 4 && model.items.map { "\($0.number) \($0.byHand)" } == ["310 1"])
            try await phone.engine.sync()
            let server310 = try await ann.get("/shopping-list", as: ShoppingListResponse.self).items
            #expect(server310.map { "\($0.number) \($0.toBuy) \($0.byHand)" } == ["310 1 1"])
            #expect(try await ann.get("/threads", as: [InventoryThread].self).map(\.quantity) == [4])
        }
    }

    @Test("Buying with two copies of a thread made at the same moment: the server and a device pick the same one and change the same lines")
    func sameTieSameOutcome() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let wip = try await ann.project(canvas: try await ann.canvas("Nutcracker")).project
            let t = clock.now
            // Two devices added DMC 310 offline at the same moment; the lower id is the one bought onto.
            let first = InventoryThread(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!, brand: "DMC", number: "310",
                                        quantity: 1, createdAt: t, updatedAt: t)
            let second = InventoryThread(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!, brand: "dmc", number: "310",
                                         quantity: 2, createdAt: t, updatedAt: t)
            let need = ProjectThread(projectId: wip.id, brand: "DMC", number: "310", quantityNeeded: 5, createdAt: t, updatedAt: t)
            let hand = ShoppingLine(brand: "DMC", number: "310", quantity: 3, notes: "spare", createdAt: t, updatedAt: t)
            for thread in [second, first] { try await Records.create(thread, as: ThreadModel.self, userId: ann.id, version: 1, on: app.db) }
            try await Records.create(need, as: RequirementModel.self, userId: ann.id, version: 1, on: app.db)
            try await Records.create(hand, as: ShoppingLineModel.self, userId: ann.id, version: 1, on: app.db)
            let store = try LocalStore(path: nil, clock: { t })
            for thread in [second, first] { try store.save(thread) }
            try store.save(wip)
            try store.save(need)
            try store.save(hand)

            let answer = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "DMC", number: "310", quantity: 4))
            #expect(answer.status == .ok, "\(answer.text)")
            let onServer = try answer.decode(InventoryThread.self)
            var model = ShoppingListModel()
            let onDevice = try model.bought(brand: "DMC", number: "310", quantity: 4, in: store)
            #expect(onServer.id == first.id && onDevice.id == first.id && onServer.quantity == 5 && onDevice.quantity == 5)
            let serverLines = try await ann.get("/shopping-list/lines", as: [ShoppingLine].self)
            let deviceLines = try store.all(ShoppingLine.self)
            // The project is 2 short (3 owned across both copies, 5 needed): the other 2 of the 4 come off the hand line.
            #expect(serverLines.map { "\($0.id) \($0.quantity)" } == ["\(hand.id) 1"])
            #expect(deviceLines.map { "\($0.id) \($0.quantity)" } == ["\(hand.id) 1"])
        }
    }

    @Test("Web: a planned project's short thread goes on the list with one tap, is bought from the list, and the project turns green")
    func webPlanToGreen() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas("Santa")
            let p = try await ann.create("/projects", ["canvasId": canvas.id.uuidString, "status": "planned"], as: ProjectDetail.self).project
            try await ann.thread("DMC", "310", quantity: 1)
            try await ann.create("/projects/\(p.id)/threads", ["brand": "DMC", "number": "310", "quantityNeeded": 3], as: ProjectThread.self)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let projectPath = "/app/projects/\(p.id.wireText)"
            var page = try await web.request(.GET, projectPath).text
            #expect(page.contains("Add 2 to shopping list"))
            let form = ["brand": "DMC", "number": "310", "quantity": "2", "notes": "For Santa", "back": projectPath + "#threads"]
            let add = try await web.post("/app/shopping/add", from: projectPath, form)
            #expect(add.status == .seeOther && add.headers.first(name: .location)?.hasPrefix(projectPath + "?flash=") == true
                    && add.headers.first(name: .location)?.hasSuffix("#threads") == true, "\(add.headers)")
            page = try await web.request(.GET, projectPath).text
            #expect(page.contains("On your shopping list: 2 added by hand") && !page.contains("Add 2 to shopping list"))
            // Somewhere else to go back to is refused: back to the list instead.
            let away = try await web.post("/app/shopping/add", from: "/app/shopping", ["brand": "DMC", "number": "1", "quantity": "1", "back": "//evil.example/x"])
            #expect(away.headers.first(name: .location)?.hasPrefix("/app/shopping?") == true)

            let shopping = try await web.request(.GET, "/app/shopping").text
            #expect(shopping.contains("2 by hand") || shopping.contains("by hand: For Santa"), "\(shopping)")
            let buy = try await web.post("/app/shopping/bought", from: "/app/shopping", ["brand": "DMC", "number": "310", "quantity": "2", "colorName": ""])
            #expect(buy.status == .seeOther)
            #expect(try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self).color == .green)
            // DMC 1 (added by hand above) is left; set it aside from the page.
            let aside = try await web.post("/app/shopping/set-aside", from: "/app/shopping", ["brand": "DMC", "number": "1"])
            #expect(aside.status == .seeOther)
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty)
            let gone = try await web.post("/app/shopping/set-aside", from: "/app/shopping", ["brand": "DMC", "number": "1"])
            #expect(gone.headers.first(name: .location)?.contains("not%20on%20your%20shopping%20list") == true, "\(gone.headers)")
        }
    }
}
