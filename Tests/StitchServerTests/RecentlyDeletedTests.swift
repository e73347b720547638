import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// "Recently deleted": a person undoes a delete within 30 days, on the web or through the API (the
/// CLI's), and every device gets it back; after 30 days it is gone for good, with its files.
@Suite("Recently deleted: listed for 30 days, restored as one change, then gone with its files")
struct RecentlyDeletedTests {
    @Test("Deleted threads, canvases, projects and journal entries are listed newest first; a restore brings a project back with its journal and sections as one change a device pulls; what can't stand as it was is refused with the reason")
    func listAndRestore() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let black = try await ann.thread("DMC", "310", quantity: 2)
            let canvas = try await ann.canvas("Nutcracker")
            let project = try await ann.project(canvas: canvas).project
            let entry = try await ann.create("/projects/\(project.id)/entries", ["notes": "Finished the sky"], as: JournalEntryDetail.self).entry
            let lone = try await ann.create("/projects/\(project.id)/entries", ["notes": "A note I didn't want"], as: JournalEntryDetail.self).entry
            let section = try await ann.create("/projects/\(project.id)/sections", ["name": "Background"], as: ProjectSection.self)
            let before = try await ann.sync(SyncRequest(cursor: nil, clientId: UUID(), changes: [], limit: 1000)).cursor

            clock.advance(by: 60)
            #expect(try await ann.send(.DELETE, "/threads/\(black.id)").status == .noContent)
            clock.advance(by: 60)
            #expect(try await ann.send(.DELETE, "/projects/\(project.id)/entries/\(lone.id)").status == .noContent)
            clock.advance(by: 60)
            #expect(try await ann.send(.DELETE, "/projects/\(project.id)").status == .noContent)
            clock.advance(by: 60)
            #expect(try await ann.send(.DELETE, "/canvases/\(canvas.id)").status == .noContent)

            // The entry deleted with its project comes back with it, so it isn't listed alone;
            // the one deleted before is part of the project's journal too once it is deleted.
            let listed = try await ann.get("/deleted", as: RecentlyDeleted.self).items
            #expect(listed.map(\.type) == [.canvas, .project, .thread], "\(listed)")
            #expect(listed.map(\.title) == ["Nutcracker", "Nutcracker", "DMC 310"])
            #expect(listed[0].restorableUntil == listed[0].deletedAt.addingTimeInterval(30 * 86_400))
            #expect(try await bob.get("/deleted", as: RecentlyDeleted.self).items.isEmpty, "nobody else's")
            #expect(try await bob.send(.POST, "/deleted/thread/\(black.id)/restore").status == .notFound)

            // The project needs its canvas first; then it comes back with its journal and section.
            let early = try await ann.send(.POST, "/deleted/project/\(project.id)/restore")
            #expect(early.status == .conflict && early.text.contains("canvas first"), "\(early.text)")
            #expect(try await ann.send(.POST, "/deleted/canvas/\(canvas.id)/restore").status == .ok)
            #expect(try await ann.send(.POST, "/deleted/project/\(project.id)/restore").status == .ok)
            let detail = try await ann.get("/projects/\(project.id)", as: ProjectDetail.self)
            #expect(detail.project.id == project.id)
            let entries = try await ann.get("/projects/\(project.id)/entries", as: [JournalEntryDetail].self).map(\.entry.id)
            #expect(entries == [entry.id], "the entry deleted with the project; not the one deleted before it")
            #expect(try await ann.get("/projects/\(project.id)/sections", as: [ProjectSection].self).map(\.id) == [section.id])
            // The entry deleted on its own is listed now that its project is live, and restored.
            #expect(try await ann.get("/deleted", as: RecentlyDeleted.self).items.map(\.id) == [lone.id, black.id])
            #expect(try await ann.send(.POST, "/deleted/journalEntry/\(lone.id)/restore").status == .ok)

            // A thread held again is not restored over it.
            let again = try await ann.thread("DMC", "310", quantity: 5)
            let held = try await ann.send(.POST, "/deleted/thread/\(black.id)/restore")
            #expect(held.status == .conflict && held.text.contains("DMC 310 again"))
            #expect(try await ann.send(.DELETE, "/threads/\(again.id)").status == .noContent)
            let restored = try await ann.send(.POST, "/deleted/thread/\(black.id)/restore")
            let left = try restored.decode(RecentlyDeleted.self).items.map(\.id)
            #expect(restored.status == .ok && left == [again.id])
            #expect(try await ann.get("/threads/\(black.id)", as: InventoryThread.self).quantity == 2)

            // A device that synced before the deletes pulls everything live again.
            let pulled = try await ann.sync(SyncRequest(cursor: before, clientId: UUID(), changes: [], limit: 1000))
            let live = Dictionary(pulled.changes.map { ($0.id, $0.deletedAt == nil) }, uniquingKeysWith: { _, b in b })
            for id in [black.id, canvas.id, project.id, entry.id, lone.id, section.id] { #expect(live[id] == true, "\(id)") }
            #expect(try await ann.send(.POST, "/deleted/threadz/\(black.id)/restore").status == .badRequest)
            #expect(try await ann.send(.POST, "/deleted/thread/\(black.id)/restore").status == .notFound, "back already")
        }
    }

    @Test("After 30 days a deleted record is no longer listed or restorable, and its photo leaves the data folder with its sizes; a photo a live record still shows stays")
    func goneForGood() async throws {
        try await withTestApp { app, clock in
            var ann = try await TestUser.make(app)
            /// Signed in again: a month later the first access token has long expired.
            func signIn() async throws -> TestUser { TestUser(app: app, auth: try await login(app).decode(AuthResponse.self)) }
            let doomed = try await ann.canvas("Doomed")
            let key = try #require(try await ann.upload("/canvases/\(doomed.id)/image", files: [Fixtures.file(PictureSizeTests.photo(width: 400, height: 300))])
                .decode(Canvas.self).imageKey)
            let kept = try await ann.canvas("Kept")
            let shared = try #require(try await ann.upload("/canvases/\(kept.id)/image", files: [Fixtures.file(Fixtures.png)]).decode(Canvas.self).imageKey)
            let alsoShared = try await ann.create("/canvases", ["designer": "A", "designName": "Also", "imageKey": shared], as: Canvas.self)
            #expect(try await ann.send(.DELETE, "/canvases/\(doomed.id)").status == .noContent)
            #expect(try await ann.send(.DELETE, "/canvases/\(alsoShared.id)").status == .noContent)

            clock.advance(by: 29 * 86_400)
            ann = try await signIn()
            #expect(try await Deletions.removeFilesGoneForGood(now: clock.now, app: app, db: app.db) == 0)
            #expect(try await app.imageStorage.get(key) != nil, "kept while it can be restored")
            let listed = try await ann.get("/deleted", as: RecentlyDeleted.self).items
            #expect(listed.count == 2 && listed.allSatisfy { $0.hasPhoto == true }, "\(listed)")
            // The photo is served to "Recently deleted" alone: not at its own address, not to anyone else.
            #expect(try await ann.send(.GET, "/images/\(key)").status == .notFound)
            let shown = try await ann.send(.GET, "/deleted/canvas/\(doomed.id)/photo")
            #expect(shown.status == .ok && shown.headers.contentType?.type == "image", "\(shown.status) \(shown.headers)")
            #expect(try await ann.send(.GET, "/deleted/canvas/\(kept.id)/photo").status == .notFound, "a live canvas's photo has its own address")
            #expect(try await ann.send(.GET, "/deleted/thread/\(doomed.id)/photo").status == .notFound)
            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            #expect(try await bea.send(.GET, "/deleted/canvas/\(doomed.id)/photo").status == .notFound)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let page = try await web.request(.GET, "/app/settings/deleted").text
            let thumb = "/app/settings/deleted/canvas/\(doomed.id.wireText)/photo?w=\(PictureSizes.widths[0])"
            #expect(page.contains("src=\"\(thumb)\""), "\(page)")
            #expect(try await web.request(.GET, thumb).status == .ok)
            let other = WebClient(app: app)
            try await other.signIn("bea@example.com")
            #expect(try await other.request(.GET, thumb).status == .notFound)

            clock.advance(by: 2 * 86_400)
            ann = try await signIn()
            #expect(try await ann.send(.GET, "/deleted/canvas/\(doomed.id)/photo").status == .notFound, "gone for good")
            #expect(try await ann.get("/deleted", as: RecentlyDeleted.self).items.isEmpty)
            #expect(try await ann.send(.POST, "/deleted/canvas/\(doomed.id)/restore").status == .notFound)
            #expect(try await Deletions.removeFilesGoneForGood(now: clock.now, app: app, db: app.db) == 1)
            #expect(try await app.imageStorage.get(key) == nil)
            #expect(try await app.imageStorage.get(PictureSizes.storageKey(key, width: 192)) == nil)
            #expect(try await ImageModel.find(key, on: app.db) == nil)
            #expect(try await app.imageStorage.get(shared) != nil)
            #expect(try await ann.send(.GET, "/images/\(shared)").status == .ok)
        }
    }

    @Test("The web app's Settings → Recently deleted lists them and restores one, saying what came back")
    func webPage() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let black = try await ann.thread("DMC", "310", quantity: 2)
            #expect(try await ann.send(.DELETE, "/threads/\(black.id)").status == .noContent)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            #expect(try await web.request(.GET, "/app/settings").text.contains("/app/settings/deleted"))
            let page = try await web.request(.GET, "/app/settings/deleted")
            #expect(page.status == .ok && page.text.contains("DMC 310") && page.text.contains("Restore DMC 310"))
            let restored = try await web.post("/app/settings/deleted/thread/\(black.id.wireText)/restore", from: "/app/settings/deleted", [:])
            #expect(restored.status == .seeOther && restored.headers.first(name: .location)?.contains("Restored") == true, "\(restored.headers)")
            #expect(try await ann.get("/threads/\(black.id)", as: InventoryThread.self).quantity == 2)
            #expect(try await web.request(.GET, "/app/settings/deleted").text.contains("Nothing deleted lately"))
        }
    }
}
