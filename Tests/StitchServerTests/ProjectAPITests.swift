import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Projects, journal, sections, requirements, readiness, shopping list")
struct ProjectAPITests {
    @Test("Start a project from a canvas: embedded canvas, one live project per canvas, foreign canvas refused")
    func startProject() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let c = try await ann.canvas("Nutcracker")
            let p = try await ann.project(canvas: c)
            #expect(p.project.status == .wip && p.canvas?.designName == "Nutcracker" && p.title == "Nutcracker")
            #expect(try await ann.get("/projects/\(p.project.id)", as: ProjectDetail.self).canvas?.id == c.id)
            let again = try await ann.sendObject(.POST, "/projects", ["canvasId": c.id.uuidString])
            #expect(again.status == .conflict)
            let foreign = try await bob.sendObject(.POST, "/projects", ["canvasId": c.id.uuidString])
            #expect(foreign.status == .conflict && foreign.error?.fields?["canvasId"] != nil)
            #expect(try await bob.get("/projects", as: [ProjectDetail].self).isEmpty)
            #expect(try await ann.get("/projects", as: [ProjectDetail].self).count == 1)
        }
    }

    @Test("Status changes stamp and clear finishingAt and completedAt")
    func statusDates() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let p = try await ann.project(canvas: try await ann.canvas()).project
            clock.advance(by: 60)
            let finishingRes = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "at_finishing"])
            #expect(finishingRes.status == .ok, "\(finishingRes.text)")
            let finishing = try finishingRes.decode(ProjectDetail.self).project
            #expect(finishing.status == .atFinishing && finishing.finishingAt == clock.now && finishing.completedAt == nil)
            clock.advance(by: 60)
            let doneRes = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "completed"])
            #expect(doneRes.status == .ok, "\(doneRes.text)")
            let done = try doneRes.decode(ProjectDetail.self).project
            #expect(done.completedAt == clock.now && done.finishingAt == finishing.finishingAt)
            let back = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "wip"]).decode(ProjectDetail.self).project
            #expect(back.finishingAt == nil && back.completedAt == nil)
            #expect(try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "framed"]).status == .badRequest)
            #expect(try await ann.get("/projects?status=wip", as: [ProjectDetail].self).count == 1)
            #expect(try await ann.get("/projects?status=completed", as: [ProjectDetail].self).isEmpty)
        }
    }

    @Test("Planned: readiness before starting, off the shopping list, started 'now' when it becomes WIP — or on the day given")
    func planned() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            try await ann.thread("DMC", "310", quantity: 1)
            let canvas = try await ann.canvas()
            let plannedAt = clock.now
            let res = try await ann.sendObject(.POST, "/projects", ["canvasId": canvas.id.uuidString, "status": "planned"])
            #expect(res.status == .created, "\(res.text)")
            let p = try res.decode(ProjectDetail.self).project
            #expect(p.status == .planned && p.startedAt == plannedAt && p.finishingAt == nil)
            try await ann.create("/projects/\(p.id)/threads", ["brand": "DMC", "number": "310", "quantityNeeded": 3], as: ProjectThread.self)
            let readiness = try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self)
            #expect(readiness.color == .red && readiness.requirements.first?.toBuy == 2, "can I start it? not yet: buy 2")
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty, "not started: not shopped for yet")
            #expect(try await ann.get("/projects?status=planned", as: [ProjectDetail].self).map(\.project.id) == [p.id])

            clock.advance(by: 600)
            let startedRes = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "wip"])
            try #require(startedRes.status == .ok, "\(startedRes.text)")
            let started = try startedRes.decode(ProjectDetail.self).project
            #expect(started.status == .wip && started.startedAt == clock.now, "started today, not the day it was planned")
            #expect(try await ann.get("/shopping-list", as: ShoppingListResponse.self).items.map(\.toBuy) == [2])

            // Back to planned and started again with the day it really began.
            _ = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "planned"])
            let begun = "2026-03-01T00:00:00.000Z"
            let againRes = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "wip", "startedAt": begun])
            try #require(againRes.status == .ok, "\(againRes.text)")
            let again = try againRes.decode(ProjectDetail.self).project
            #expect(Timestamp.string(from: again.startedAt) == begun)
            // Dates are checked: finishing or completing before the start is refused, nothing changed.
            let version = try await ann.syncVersion()
            let bad = try await ann.sendObject(.PUT, "/projects/\(p.id)", ["status": "at_finishing", "finishingAt": "2026-02-01T00:00:00.000Z"])
            #expect(bad.status == .badRequest && bad.error?.fields?["finishingAt"] != nil, "\(bad.text)")
            #expect(try await ann.syncVersion() == version)
        }
    }

    @Test("A journal entry's date is the stitcher's: set on create, changed on update (API and sync); its time of writing stays in updatedAt")
    func entryDates() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let p = try await ann.project(canvas: try await ann.canvas()).project
            let entry = try await ann.create("/projects/\(p.id)/entries", ["notes": "Finished the sky", "createdAt": "2026-02-03T12:00:00.000Z"],
                                             as: JournalEntryDetail.self).entry
            #expect(Timestamp.string(from: entry.createdAt) == "2026-02-03T12:00:00.000Z")
            let moved = try await ann.sendObject(.PUT, "/projects/\(p.id)/entries/\(entry.id)", ["createdAt": "2026-02-01T12:00:00.000Z"])
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(Timestamp.string(from: try moved.decode(JournalEntryDetail.self).entry.createdAt) == "2026-02-01T12:00:00.000Z")
            // Through sync too: a device's edit of the date is kept, where other records keep the server's creation date.
            clock.advance(by: 60)
            var edited = try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self)[0].entry
            edited.createdAt = try #require(Timestamp.date(from: "2026-01-20T12:00:00.000Z"))
            edited.updatedAt = clock.now
            let synced = try await ann.sync(syncRequest([try SyncChange(record: edited)]))
            #expect(synced.results.map(\.status) == [.applied], "\(synced.results)")
            let stored = try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self)[0].entry
            #expect(Timestamp.string(from: stored.createdAt) == "2026-01-20T12:00:00.000Z")
        }
    }

    @Test("Journal: entries newest first with images in order; more images append; delete removes images too")
    func journal() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let p = try await ann.project(canvas: try await ann.canvas()).project
            let first = try await ann.create("/projects/\(p.id)/entries", ["notes": "Started the background"], as: JournalEntryDetail.self)
            clock.advance(by: 60)
            let second = try await ann.create("/projects/\(p.id)/entries", ["notes": "Border done"], as: JournalEntryDetail.self)
            let res = try await ann.upload("/projects/\(p.id)/entries/\(second.entry.id)/images",
                                           files: [Fixtures.file(Fixtures.png), Fixtures.file(Fixtures.jpeg)])
            #expect(res.status == .created, "\(res.text)")
            #expect(try res.decode(JournalEntryDetail.self).images.map(\.sortOrder) == [0, 1])
            _ = try await ann.upload("/projects/\(p.id)/entries/\(second.entry.id)/images", files: [Fixtures.file(Fixtures.png, name: "images")])
            let list = try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self)
            #expect(list.map(\.entry.id) == [second.entry.id, first.entry.id])
            #expect(list[0].images.map(\.sortOrder) == [0, 1, 2])
            #expect(list[0].images.map { $0.imageKey.hasSuffix(".png") } == [true, false, true])
            // One bad picture in a batch stores none of them.
            let mixed = try await ann.upload("/projects/\(p.id)/entries/\(first.entry.id)/images",
                                             files: [Fixtures.file(Fixtures.png), Fixtures.file(Fixtures.text)])
            #expect(mixed.status == .unsupportedMediaType)
            #expect(try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self)[1].images.isEmpty)

            let edited = try await ann.sendObject(.PUT, "/projects/\(p.id)/entries/\(first.entry.id)", ["notes": "Started the background (basketweave)"])
            #expect(try edited.decode(JournalEntryDetail.self).entry.notes == "Started the background (basketweave)")
            let imageId = list[0].images[0].id
            #expect(try await ann.send(.DELETE, "/projects/\(p.id)/entries/\(second.entry.id)/images/\(imageId)").status == .noContent)
            #expect(try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self)[0].images.count == 2)
            #expect(try await ann.send(.DELETE, "/projects/\(p.id)/entries/\(second.entry.id)").status == .noContent)
            #expect(try await ann.get("/projects/\(p.id)/entries", as: [JournalEntryDetail].self).map(\.entry.id) == [first.entry.id])
            #expect(try await JournalImageModel.count(on: app.db, liveOnly: true) == 0)
        }
    }

    @Test("An entry under another project is not found")
    func entryOfOtherProject() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let p1 = try await ann.project(canvas: try await ann.canvas("A")).project
            let p2 = try await ann.project(canvas: try await ann.canvas("B")).project
            let e = try await ann.create("/projects/\(p1.id)/entries", ["notes": "x"], as: JournalEntryDetail.self)
            #expect(try await ann.sendObject(.PUT, "/projects/\(p2.id)/entries/\(e.entry.id)", ["notes": "y"]).status == .notFound)
            #expect(try await ann.send(.DELETE, "/projects/\(p2.id)/entries/\(e.entry.id)").status == .notFound)
        }
    }

    @Test("Sections keep their order; requirements link threads and sections of their own project only")
    func sectionsAndRequirements() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let p = try await ann.project(canvas: try await ann.canvas("A")).project
            let other = try await ann.project(canvas: try await ann.canvas("B")).project
            let background = try await ann.create("/projects/\(p.id)/sections", ["name": "Background"], as: ProjectSection.self)
            let border = try await ann.create("/projects/\(p.id)/sections", ["name": "Border"], as: ProjectSection.self)
            #expect(background.sortOrder == 0 && border.sortOrder == 1)
            #expect(try await ann.sendObject(.PUT, "/projects/\(p.id)/sections/\(border.id)", ["sortOrder": -1]).status == .badRequest)
            _ = try await ann.sendObject(.PUT, "/projects/\(p.id)/sections/\(background.id)", ["sortOrder": 5])
            #expect(try await ann.get("/projects/\(p.id)/sections", as: [ProjectSection].self).map(\.name) == ["Border", "Background"])
            #expect(try await ann.sendObject(.POST, "/projects/\(p.id)/sections", ["name": ""]).status == .badRequest)

            let black = try await ann.thread("DMC", "310", quantity: 3, extra: ["colorName": "Black"])
            let linked = try await ann.create("/projects/\(p.id)/threads", ["threadId": black.id.uuidString, "quantityNeeded": 5, "sectionId": border.id.uuidString], as: ProjectThread.self)
            #expect(linked.brand == "DMC" && linked.number == "310" && linked.colorName == "Black" && linked.projectId == p.id)
            let bobsThread = try await bob.thread("DMC", "999")
            let foreign = try await ann.sendObject(.POST, "/projects/\(p.id)/threads", ["threadId": bobsThread.id.uuidString, "brand": "DMC", "number": "999"])
            #expect(foreign.status == .conflict && foreign.error?.fields?["threadId"] != nil)
            let otherSection = try await ann.create("/projects/\(other.id)/sections", ["name": "Sky"], as: ProjectSection.self)
            let wrongSection = try await ann.sendObject(.POST, "/projects/\(p.id)/threads", ["brand": "DMC", "number": "1", "sectionId": otherSection.id.uuidString])
            #expect(wrongSection.status == .conflict && wrongSection.error?.fields?["sectionId"] != nil)
            #expect(try await ann.sendObject(.POST, "/projects/\(p.id)/threads", ["brand": "DMC", "number": "1", "quantityNeeded": 0]).status == .badRequest)
            let moved = try await ann.sendObject(.PUT, "/projects/\(p.id)/threads/\(linked.id)", ["quantityNeeded": 2, "sectionId": nil])
            #expect(try moved.decode(ProjectThread.self).sectionId == nil)
            #expect(try await ann.get("/projects/\(p.id)/threads", as: [ProjectThread].self).count == 1)

            // Deleting a section leaves its requirements with the project.
            let inBorder = try await ann.create("/projects/\(p.id)/threads", ["brand": "Appleton", "number": "992", "sectionId": border.id.uuidString], as: ProjectThread.self)
            #expect(try await ann.send(.DELETE, "/projects/\(p.id)/sections/\(border.id)").status == .noContent)
            let reqs = try await ann.get("/projects/\(p.id)/threads", as: [ProjectThread].self)
            #expect(reqs.first { $0.id == inBorder.id }?.sectionId == nil)
            #expect(try await ann.send(.DELETE, "/projects/\(p.id)/threads/\(inBorder.id)").status == .noContent)
            #expect(try await ann.get("/projects/\(p.id)/threads", as: [ProjectThread].self).count == 1)
        }
    }

    @Test("Readiness colours per section and project follow the inventory")
    func readiness() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let p = try await ann.project(canvas: try await ann.canvas()).project
            let background = try await ann.create("/projects/\(p.id)/sections", ["name": "Background"], as: ProjectSection.self)
            let border = try await ann.create("/projects/\(p.id)/sections", ["name": "Border"], as: ProjectSection.self)
            let black = try await ann.thread("DMC", "310", quantity: 3)
            try await ann.create("/projects/\(p.id)/threads", ["threadId": black.id.uuidString, "quantityNeeded": 2, "sectionId": border.id.uuidString], as: ProjectThread.self)
            let need5 = try await ann.create("/projects/\(p.id)/threads", ["threadId": black.id.uuidString, "quantityNeeded": 5, "sectionId": background.id.uuidString], as: ProjectThread.self)
            try await ann.create("/projects/\(p.id)/threads", ["brand": "Appleton", "number": "992", "quantityNeeded": 1, "sectionId": background.id.uuidString], as: ProjectThread.self)

            // Black: 5 for the Background and 2 for the Border with 3 owned. The Background comes
            // first and takes all 3: both sections are short, and each says the thread is shared.
            var r = try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self)
            #expect(r.sections.map(\.color) == [.red, .red])
            #expect(r.color == .red)
            let req = try #require(r.requirements.first { $0.requirementId == need5.id })
            #expect(req.have == 3 && req.needed == 5 && req.toBuy == 2 && req.neededInAll == 7 && req.sharedWith == ["Border"])
            #expect(req.summary == "Shared with Border: 7 needed in all, you have 3 — buy 4 more")

            _ = try await ann.sendObject(.PUT, "/threads/\(black.id)", ["quantity": 5])
            r = try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self)
            #expect(r.sections.map(\.color) == [.yellow, .red])
            _ = try await ann.thread("Appleton", "992", quantity: 1)
            r = try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self)
            #expect(r.sections.map(\.color) == [.green, .red] && r.color == .yellow)
            _ = try await ann.sendObject(.PUT, "/threads/\(black.id)", ["quantity": 7])
            r = try await ann.get("/projects/\(p.id)/readiness", as: ProjectReadiness.self)
            #expect(r.sections.map(\.color) == [.green, .green] && r.color == .green)
        }
    }

    @Test("Shopping list: what the projects being stitched need together less what is owned, per brand+number; buying adds to inventory")
    func shoppingList() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let a = try await ann.project(canvas: try await ann.canvas("Nutcracker")).project
            let b = try await ann.project(canvas: try await ann.canvas("Santa")).project
            let done = try await ann.project(canvas: try await ann.canvas("Done")).project
            _ = try await ann.sendObject(.PUT, "/projects/\(done.id)", ["status": "completed"])
            let black = try await ann.thread("DMC", "310", quantity: 1)
            try await ann.create("/projects/\(a.id)/threads", ["threadId": black.id.uuidString, "quantityNeeded": 3], as: ProjectThread.self)
            try await ann.create("/projects/\(b.id)/threads", ["brand": "dmc", "number": " 310", "quantityNeeded": 2], as: ProjectThread.self)
            try await ann.create("/projects/\(b.id)/threads", ["brand": "Appleton", "number": "992", "quantityNeeded": 4], as: ProjectThread.self)
            try await ann.create("/projects/\(done.id)/threads", ["brand": "Appleton", "number": "1", "quantityNeeded": 9], as: ProjectThread.self)

            // DMC 310: 3 + 2 needed, 1 owned — buy 4, not 2 + 1.
            var list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.map { "\($0.brand) \($0.number) \($0.toBuy)" } == ["Appleton 992 4", "DMC 310 4"])
            #expect(list.items[1].needed == 5 && list.items[1].have == 1)
            #expect(Set(list.items[1].projects.map(\.title)) == ["Nutcracker", "Santa"])
            #expect(list.items[1].projects.reduce(0) { $0 + $1.toBuy } == 4)
            #expect(list.totalToBuy == 8)

            // The same list on the web: a heading per brand, the catalog's swatch, a print
            // stylesheet, and as plain text to send (by brand, a box to tick per thread).
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let page = try await web.request(.GET, "/app/shopping").text
            let appleton = try #require(page.range(of: "data-brand=\"Appleton\"")), dmc = try #require(page.range(of: "data-brand=\"DMC\""))
            #expect(appleton.lowerBound < dmc.lowerBound && page.contains("background:#000000") && page.contains("shopping-list.txt"))
            let text = try await web.request(.GET, "/app/shopping/shopping-list.txt")
            #expect(text.status == .ok && text.headers.contentType?.description.hasPrefix("text/plain") == true)
            #expect(text.text.contains("\n\nAppleton\n☐ 992: buy 4 (Santa 4)\n\nDMC\n☐ 310: buy 4 ("), "\(text.text)")
            #expect(text.text.hasPrefix("Shopping list, "))
            let css = try await app.send(.GET, "/app/static/app.css").text
            #expect(css.contains("@media print") && css.contains("print-color-adjust: exact"))

            let bought = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "dmc", number: "310", quantity: 4))
            #expect(bought.status == .ok)
            #expect(try bought.decode(InventoryThread.self).quantity == 5)
            let fresh = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "Appleton", number: "992", quantity: 4))
            #expect(fresh.status == .created)
            list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.isEmpty)
            #expect(try await ann.get("/threads?brand=Appleton", as: [InventoryThread].self).map(\.quantity) == [4])
            let bad = try await ann.send(.POST, "/shopping-list/purchase", json: PurchaseRequest(brand: "", number: "1", quantity: 0))
            #expect(bad.status == .badRequest && Set(bad.error?.fields?.keys.map { $0 } ?? []) == ["brand", "quantity"])
        }
    }

    @Test("Deleting a project removes its journal, images, sections and requirements, and frees its canvas")
    func deleteCascade() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let c = try await ann.canvas()
            let p = try await ann.project(canvas: c).project
            let e = try await ann.create("/projects/\(p.id)/entries", ["notes": "x"], as: JournalEntryDetail.self)
            _ = try await ann.upload("/projects/\(p.id)/entries/\(e.entry.id)/images", files: [Fixtures.file(Fixtures.png)])
            let s = try await ann.create("/projects/\(p.id)/sections", ["name": "Border"], as: ProjectSection.self)
            try await ann.create("/projects/\(p.id)/threads", ["brand": "DMC", "number": "1", "sectionId": s.id.uuidString], as: ProjectThread.self)
            #expect(try await ann.send(.DELETE, "/projects/\(p.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/projects/\(p.id)").status == .notFound)
            #expect(try await ann.send(.GET, "/projects/\(p.id)/entries").status == .notFound)
            for count in [try await JournalEntryModel.count(on: app.db, liveOnly: true),
                          try await JournalImageModel.count(on: app.db, liveOnly: true),
                          try await SectionModel.count(on: app.db, liveOnly: true),
                          try await RequirementModel.count(on: app.db, liveOnly: true)] {
                #expect(count == 0)
            }
            #expect(try await ann.sendObject(.POST, "/projects", ["canvasId": c.id.uuidString]).status == .created)
        }
    }
}
