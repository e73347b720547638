import Fluent
import Foundation
import SQLKit
import StitchCore
import StitchKit
@testable import StitchServer
import Testing
import VaporTesting

/// A project needs no canvas: stitched from a chart, or not chosen yet. It is titled by its own
/// name, shows readiness, is shopped for, syncs, and the migration that allowed it kept every
/// project there was — on SQLite and PostgreSQL.
@Suite("Projects without a canvas")
struct ProjectWithoutCanvasTests {
    @Test("Started or planned under a name, from a chart: titled by the name, readiness and the shopping list as for any project")
    func api() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let res = try await ann.sendObject(.POST, "/projects", ["name": "Fox, from the chart", "status": "planned"])
            #expect(res.status == .created, "\(res.text)")
            let fox = try res.decode(ProjectDetail.self)
            #expect(fox.project.canvasId == nil && fox.canvas == nil && fox.title == "Fox, from the chart" && fox.project.status == .planned)
            let chart = try await ann.upload("/projects/\(fox.project.id)/patterns",
                                             files: [Fixtures.file(TestPDF.make(pages: 1), name: "file", filename: "Fox.pdf", type: "application/pdf")])
            #expect(chart.status == .created, "\(chart.text)")
            try await ann.create("/projects/\(fox.project.id)/threads", ["brand": "DMC", "number": "310", "quantityNeeded": 2], as: ProjectThread.self)
            #expect(try await ann.get("/projects/\(fox.project.id)/readiness", as: ProjectReadiness.self).color == .red)
            _ = try await ann.sendObject(.PUT, "/projects/\(fox.project.id)", ["status": "wip", "name": "Fox"])
            let list = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(list.items.map { "\($0.number) \($0.projects.map(\.title))" } == ["310 [\"Fox\"]"])
            // Without a name too (titled "Untitled project"), and an explicit null canvas; two canvasless projects side by side.
            let bare = try await ann.sendObject(.POST, "/projects", ["canvasId": nil])
            #expect(bare.status == .created)
            #expect(try bare.decode(ProjectDetail.self).title == "Untitled project")
            #expect(try await ann.get("/projects", as: [ProjectDetail].self).count == 2)
            // A canvas still can't have two projects, and someone else's canvas is refused.
            let canvas = try await ann.canvas()
            #expect(try await ann.sendObject(.POST, "/projects", ["canvasId": canvas.id.uuidString]).status == .created)
            #expect(try await ann.sendObject(.POST, "/projects", ["canvasId": canvas.id.uuidString]).status == .conflict)
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let theirs = try await bob.sendObject(.POST, "/projects", ["canvasId": canvas.id.uuidString])
            #expect(theirs.status == .conflict && theirs.error?.fields?["canvasId"] == "Choose a canvas from your stash", "\(theirs.status)")
            #expect(try await bob.get("/projects", as: [ProjectDetail].self).isEmpty)
            // A name longer than a design name may be is refused, and changes nothing.
            let long = try await ann.sendObject(.POST, "/projects", ["name": String(repeating: "x", count: 201)])
            #expect(long.status == .badRequest && long.error?.fields?["name"] != nil)
            #expect(try await ann.get("/projects", as: [ProjectDetail].self).count == 3)
        }
    }

    @Test("The migration that let projects go without a canvas keeps every project and its fields, and goes back")
    func migrationKeepsRows() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let started = try await ann.create("/projects", ["canvasId": canvas.id.uuidString, "notes": "Gift"], as: ProjectDetail.self).project
            let chart = try await ann.create("/projects", ["name": "Fox"], as: ProjectDetail.self).project
            // Back past it and forth again, with the later migration of this table around it.
            // (On one connection, as the migrator runs them: the suite's other tests keep SQLite's
            // other connections busy, and a table rebuilt under one of them was seen late.)
            let migration = AllowProjectsWithoutCanvas(), later = ProjectPicture(), latest = ProjectSize()
            try await app.db.withConnection { db in
                try await latest.revert(on: db)
                try await later.revert(on: db)
                try await migration.revert(on: db)
                try await migration.prepare(on: db)
                try await later.prepare(on: db)
                try await latest.prepare(on: db)
            }
            // Going back drops only what can't go back (a project without a canvas); the rest is
            // kept, every field as it was.
            let again = try await Records.list(ProjectModel.self, userId: ann.id, on: app.db)
            #expect(again == [started])
            // The indexes are back: still one live project per canvas, and any number without.
            #expect(try await ann.sendObject(.POST, "/projects", ["canvasId": canvas.id.uuidString]).status == .conflict)
            #expect(try await ann.sendObject(.POST, "/projects", ["name": "Fox"]).status == .created)
            _ = chart
        }
    }

    @Test("A device starts one offline, syncs it, and the web shows it; the web starts one from the start page")
    func deviceAndWeb() async throws {
        try await withLiveServer { app, clock, server in
            let ann = try await TestUser.make(app, email: "ann@example.com")
            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.login(email: "ann@example.com", password: "correct horse")
            var start = StartProjectModel()
            try start.load(from: phone.store)
            #expect(throws: ValidationError.self) { try start.start(named: "  ", in: phone.store) }
            let fox = try start.start(named: "Fox", planned: true, in: phone.store)
            try await phone.engine.sync()
            let there = try await ann.get("/projects/\(fox.id)", as: ProjectDetail.self)
            #expect(there.title == "Fox" && there.project.status == .planned && there.project.canvasId == nil)
            var detail = ProjectDetailModel(projectId: fox.id)
            try detail.load(from: phone.store)
            #expect(detail.title == "Fox")

            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let page = try await web.request(.GET, "/app/projects/start").text
            #expect(page.contains("Without a canvas"))
            let made = try await web.post("/app/projects/start", from: "/app/projects/start", ["name": "Hare", "status": "wip"])
            #expect(made.status == .seeOther, "\(made.text)")
            let location = try #require(made.headers.first(name: .location))
            #expect(try await web.request(.GET, location).text.contains("<h1>Hare</h1>"))
            let unnamed = try await web.post("/app/projects/start", from: "/app/projects/start", ["name": " ", "status": "wip"])
            #expect(unnamed.headers.first(name: .location)?.contains("flash=Give") == true)
            #expect(try await ann.get("/projects", as: [ProjectDetail].self).map(\.title).sorted() == ["Fox", "Hare"])
        }
    }
}
