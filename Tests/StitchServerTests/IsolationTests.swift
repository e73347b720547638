import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// Everything one user owns, made through the API.
struct OwnedData {
    var thread: InventoryThread
    var canvas: Canvas
    var project: Project
    var section: ProjectSection
    var requirement: ProjectThread
    var entry: JournalEntry
    var image: JournalImage
    var imageKey: String
    var pattern: Pattern
    var line: ShoppingLine

    static func make(for user: TestUser) async throws -> OwnedData {
        let thread = try await user.thread("DMC", "310", quantity: 2)
        var canvas = try await user.canvas()
        canvas = try await user.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(Fixtures.png)]).decode(Canvas.self)
        let project = try await user.project(canvas: canvas).project
        let section = try await user.create("/projects/\(project.id)/sections", ["name": "Border"], as: ProjectSection.self)
        let requirement = try await user.create("/projects/\(project.id)/threads",
            ["threadId": thread.id.uuidString, "sectionId": section.id.uuidString, "quantityNeeded": 4], as: ProjectThread.self)
        let entry = try await user.create("/projects/\(project.id)/entries", ["notes": "Day one"], as: JournalEntryDetail.self).entry
        let withImage = try await user.upload("/projects/\(project.id)/entries/\(entry.id)/images", files: [Fixtures.file(Fixtures.jpeg)])
            .decode(JournalEntryDetail.self)
        let pattern = try await user.upload("/projects/\(project.id)/patterns", files: [Fixtures.file(Fixtures.png, name: "file", filename: "chart.png", type: "image/png")])
            .decode(PatternDetail.self).pattern
        let line = try await user.create("/shopping-list/lines", ["brand": "Appleton", "number": "992", "quantity": 2], as: ShoppingLine.self)
        return OwnedData(thread: thread, canvas: canvas, project: project, section: section, requirement: requirement,
                         entry: entry, image: withImage.images[0], imageKey: canvas.imageKey!, pattern: pattern, line: line)
    }

    var allIds: [String] {
        [thread.id, canvas.id, project.id, section.id, requirement.id, entry.id, image.id, pattern.id, line.id].map(\.uuidString)
            + [imageKey, image.imageKey, pattern.fileKey]
    }

    /// The value for a path parameter, chosen by its name and the collection before it.
    func value(for parameter: String, after collection: String) -> String? {
        switch (parameter, collection) {
        case ("id", "threads"): thread.id.uuidString
        case ("id", "canvases"): canvas.id.uuidString
        case ("id", "projects"): project.id.uuidString
        case ("sectionId", _): section.id.uuidString
        case ("reqId", _): requirement.id.uuidString
        case ("entryId", _): entry.id.uuidString
        case ("imageId", _): image.id.uuidString
        case ("key", "images"): imageKey
        case ("patternId", _): pattern.id.uuidString
        case ("page", _): "1"
        case ("id", "lines"): line.id.uuidString
        // Recently deleted: restoring the owner's thread by its id.
        case ("type", "deleted"): "thread"
        case ("id", "deleted"): thread.id.uuidString
        // Ways in are the caller's own account's, named by provider: one the caller hasn't is a 404.
        case ("provider", "sign-in-methods"): "apple"
        default: nil
        }
    }
}

/// A user's whole account as the API shows it, to compare before and after.
func snapshot(_ user: TestUser, _ data: OwnedData) async throws -> String {
    var parts: [String] = []
    for path in ["/threads", "/canvases", "/projects", "/projects/\(data.project.id)/sections",
                 "/projects/\(data.project.id)/threads", "/projects/\(data.project.id)/entries", "/projects/\(data.project.id)/patterns",
                 "/shopping-list", "/shopping-list/lines", "/auth/me", "/account/sign-in-methods"] {
        parts.append(try await user.send(.GET, path).text)
    }
    return parts.joined(separator: "\n")
}

@Suite("Two users: nobody sees or touches anybody else's data")
struct IsolationTests {
    @Test("Every route of the route table, called by another user with the owner's ids, is a 404 and changes nothing")
    func everyRoute() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let data = try await OwnedData.make(for: ann)
            let before = try await snapshot(ann, data)
            let versionBefore = try await ann.syncVersion()
            var checked = 0

            // The auth routes take no record ids (and logout would end Bob's session mid-walk); the
            // catalog's are public facts, the same for everyone (CatalogAPITests).
            let unowned: Set<String> = ["auth", "app", "catalog"]
            for route in app.routes.all where !route.path.isEmpty && !unowned.contains(route.path[0].description) {
                let components = route.path
                let hasParameter = components.contains { if case .parameter = $0 { true } else { false } }
                var path = ""
                var previous = ""
                for component in components {
                    switch component {
                    case .constant(let text):
                        path += "/" + text
                        previous = text
                    case .parameter(let name):
                        let value = try #require(data.value(for: name, after: previous),
                                                 "route \(route.method) \(route.path.string) has a parameter the isolation test cannot fill: add it")
                        path += "/" + value
                    case .anything, .catchall:
                        Issue.record("wildcard route \(route.path.string) must be checked by hand")
                    }
                }
                let response: TestingHTTPResponse
                if path.hasSuffix("/image") || (path.hasSuffix("/images") || path.hasSuffix("/patterns")) && hasParameter && route.method == .POST {
                    response = try await bob.upload(path, files: [Fixtures.file(Fixtures.png)])
                } else {
                    response = try await bob.sendObject(route.method, path, [
                        "notes": "changed by bob", "quantity": 99, "name": "Bob's", "brand": "DMC", "number": "1",
                        "status": "completed", "designer": "Bob", "designName": "Bob", "quantityNeeded": 9,
                    ])
                }
                if hasParameter {
                    #expect(response.status == .notFound, "\(route.method) \(route.path.string) answered \(response.status)")
                    checked += 1
                }
                // Whatever the route, nothing of Ann's may appear in what Bob is told.
                for id in data.allIds {
                    #expect(!response.text.contains(id), "\(route.method) \(route.path.string) leaked \(id)")
                }
            }
            #expect(checked >= 20)
            #expect(try await snapshot(ann, data) == before)
            #expect(try await ann.syncVersion() == versionBefore)
        }
    }

    @Test("Lists, readiness and the shopping list only ever show the caller's records")
    func lists() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let data = try await OwnedData.make(for: ann)
            _ = try await bob.thread("DMC", "310", quantity: 50)
            #expect(try await bob.get("/threads", as: [InventoryThread].self).map(\.quantity) == [50])
            #expect(try await bob.get("/canvases", as: [Canvas].self).isEmpty)
            #expect(try await bob.get("/projects", as: [ProjectDetail].self).isEmpty)
            #expect(try await bob.get("/shopping-list", as: ShoppingListResponse.self).items.isEmpty)
            #expect(try await bob.get("/threads/brands", as: [String].self) == ["DMC"])
            // Bob's 50 skeins do not cover Ann's project.
            let r = try await ann.get("/projects/\(data.project.id)/readiness", as: ProjectReadiness.self)
            #expect(r.requirements[0].have == 2)
        }
    }
}
