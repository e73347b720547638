import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// A project without a canvas gets a picture: one of its journal photos, or its pattern's first
/// page. Shown on the project list and page, carried by sync, kept while it is shown.
@Suite("A project's own picture", .serialized)
struct ProjectPictureTests {
    @Test("Chosen on the web from a journal photo or the pattern's first page (a PDF's drawn page kept as a picture); shown on the list and page; none; others' keys refused")
    func chooseOnTheWeb() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let project = try await ann.create("/projects", ["name": "Fox, from the chart"], as: ProjectDetail.self).project
            let entry = try await ann.create("/projects/\(project.id)/entries", ["notes": "Day one"], as: JournalEntryDetail.self).entry
            let withPhoto = try await ann.upload("/projects/\(project.id)/entries/\(entry.id)/images", files: [Fixtures.file(Fixtures.jpeg)])
            let photo = try withPhoto.decode(JournalEntryDetail.self).images[0]
            let pdf = try await ann.upload("/projects/\(project.id)/patterns",
                                           files: [Fixtures.file(TestPDF.make(pages: 2), name: "file", filename: "fox.pdf", type: "application/pdf")])
            let pattern = try pdf.decode(PatternDetail.self).pattern
            await app.patternRenderer.wait(pattern.fileKey)

            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let page = "/app/projects/\(project.id.wireText)"
            var shown = try await web.request(.GET, page).text
            #expect(shown.contains("Choose a picture") && shown.contains("Journal photo 1") && shown.contains("First page of fox"))
            #expect(!shown.contains("id=\"picture\" src"), "no picture yet")

            var res = try await web.post("\(page)/picture", from: page, ["picture": photo.imageKey])
            #expect(res.status == .seeOther && res.headers.first(name: .location) == "\(page)#picture")
            #expect(try await ann.get("/projects/\(project.id)", as: ProjectDetail.self).project.imageKey == photo.imageKey)
            shown = try await web.request(.GET, page).text
            #expect(shown.contains("/app/images/\(photo.imageKey)\" alt=\"Picture of Fox, from the chart\"") || shown.contains(photo.imageKey))
            let list = try await web.request(.GET, "/app/projects").text
            #expect(list.contains("class=\"thumb\" src=\"/app/images/\(photo.imageKey)"), "the list shows it")

            // The PDF's first page, kept as a picture of its own: it stays when the pattern goes.
            res = try await web.post("\(page)/picture", from: page, ["picture": "pattern:\(pattern.id.wireText)"])
            #expect(res.status == .seeOther, "\(res.text)")
            let firstPage = try #require(try await ann.get("/projects/\(project.id)", as: ProjectDetail.self).project.imageKey)
            #expect(firstPage.hasSuffix(".png") && firstPage != pattern.fileKey)
            #expect(try await ann.send(.GET, "/images/\(firstPage)").status == .ok)
            // Chosen again: the same picture, not another copy.
            _ = try await web.post("\(page)/picture", from: page, ["picture": "pattern:\(pattern.id.wireText)"])
            #expect(try await ann.get("/projects/\(project.id)", as: ProjectDetail.self).project.imageKey == firstPage)
            #expect(try await ann.send(.DELETE, "/patterns/\(pattern.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/images/\(firstPage)").status == .ok)

            // The photo's entry deleted: the picture the project shows stays while it shows it.
            res = try await web.post("\(page)/picture", from: page, ["picture": photo.imageKey])
            #expect(try await ann.send(.DELETE, "/projects/\(project.id)/entries/\(entry.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/images/\(photo.imageKey)").status == .ok)

            // Anything not this project's: refused, said on the page, nothing changed.
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bobs = try await bob.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            let version = try await ann.syncVersion()
            res = try await web.post("\(page)/picture", from: page, ["picture": bobs])
            #expect(res.status == .badRequest && res.text.contains("journal photos"))
            res = try await web.post("\(page)/picture", from: page, ["picture": "pattern:\(UUID().uuidString)"])
            #expect(res.status == .badRequest)
            #expect(try await ann.syncVersion() == version)
            // Through the API too: a key that isn't yours is a 409.
            let api = try await ann.sendObject(.PUT, "/projects/\(project.id)", ["imageKey": bobs])
            #expect(api.status == .conflict && api.error?.fields?["imageKey"] != nil, "\(api.text)")

            res = try await web.post("\(page)/picture", from: page, ["picture": ""])
            #expect(try await ann.get("/projects/\(project.id)", as: ProjectDetail.self).project.imageKey == nil)
            // A project with a canvas shows the canvas's picture and offers no choice.
            let canvas = try await ann.canvas()
            let withCanvas = try await ann.project(canvas: canvas)
            #expect(!(try await web.request(.GET, "/app/projects/\(withCanvas.project.id.wireText)").text.contains("Choose a picture")))
        }
    }
}
