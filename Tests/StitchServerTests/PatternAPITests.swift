import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// The width and height a PNG says it has.
func pngSize(_ data: Data) -> (Int, Int)? {
    guard data.count > 24, data.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
    let bytes = [UInt8](data)
    func be(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (be(16), be(20))
}

@Suite("Patterns: a project's PDF charts and pictures, drawn page by page, read where you left off")
struct PatternAPITests {
    private func upload(_ user: TestUser, _ project: UUID, _ data: Data, filename: String = "chart.pdf", type: String = "application/pdf") async throws -> TestingHTTPResponse {
        try await user.upload("/projects/\(project.wireText)/patterns", files: [Fixtures.file(data, name: "file", filename: filename, type: type)])
    }

    private func setUp(_ app: Application) async throws -> (TestUser, ProjectDetail) {
        let ann = try await TestUser.make(app)
        return (ann, try await ann.project(canvas: try await ann.canvas()))
    }

    @Test("A PDF: uploaded, its pages drawn in the background, each page and thumbnail served to its owner; the last page read is kept for the next device")
    func pdfPages() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let versionBefore = try await ann.syncVersion()
            let res = try await upload(ann, project.project.id, TestPDF.make(pages: 3), filename: "Nutcracker chart.pdf")
            try #require(res.status == .created, "\(res.text)")
            let created = try res.decode(PatternDetail.self)
            #expect(created.pattern.title == "Nutcracker chart" && created.pattern.lastPage == 1 && created.contentType == "application/pdf")
            #expect(created.pages.pageCount == 3 && [.rendering, .ready].contains(created.pages.status))
            #expect(try await ann.syncVersion() == versionBefore + 1)
            await app.patternRenderer.wait(created.pattern.fileKey)
            let detail = try await ann.get("/patterns/\(created.pattern.id.wireText)", as: PatternDetail.self)
            #expect(detail.pages == PatternPages(status: .ready, pageCount: 3, rendered: 3))
            for n in 1...3 {
                let page = try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/\(n)")
                #expect(page.status == .ok && page.headers.contentType == .png)
                let size = try #require(pngSize(Data(buffer: page.body)))
                #expect(max(size.0, size.1) == PageFiles.pageSize && size.1 > size.0, "\(size)")  // a letter page, upright
                let thumb = try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/thumbnails/\(n)")
                #expect(thumb.status == .ok && pngSize(Data(buffer: thumb.body)).map { max($0.0, $0.1) } == PageFiles.thumbnailSize)
            }
            for bad in ["0", "4", "999999", "abc", "-1"] {
                #expect(try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/\(bad)").status == .notFound, "page \(bad)")
            }
            // The original file, as a device keeps it.
            let file = try await ann.send(.GET, "/images/\(created.pattern.fileKey)")
            #expect(file.status == .ok && file.headers.contentType?.description == "application/pdf" && Data(buffer: file.body) == TestPDF.make(pages: 3))

            // Where you left off: saved by one device, seen by the next; out of range is refused.
            let moved = try await ann.sendObject(.PUT, "/patterns/\(created.pattern.id.wireText)", ["lastPage": 3])
            #expect(try moved.status == .ok && moved.decode(PatternDetail.self).pattern.lastPage == 3)
            let pull = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: []))
            let pulled = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: pull.body)).changes.first { $0.type == .pattern }
            #expect(try pulled?.record(as: Pattern.self).lastPage == 3)
            let beyond = try await ann.sendObject(.PUT, "/patterns/\(created.pattern.id.wireText)", ["lastPage": 4])
            #expect(beyond.status == .badRequest && beyond.text.contains("This pattern has 3 pages"))
            let zero = try await ann.sendObject(.PUT, "/patterns/\(created.pattern.id.wireText)", ["lastPage": 0])
            #expect(zero.status == .badRequest && zero.text.contains("counted from 1"))
            let renamed = try await ann.sendObject(.PUT, "/patterns/\(created.pattern.id.wireText)", ["title": "Chart, border", "fileKey": "stolen.pdf"])
            #expect(try renamed.status == .ok && renamed.decode(PatternDetail.self).pattern.fileKey == created.pattern.fileKey)
            let list = try await ann.get("/projects/\(project.project.id.wireText)/patterns", as: [PatternDetail].self)
            #expect(list.map(\.pattern.title) == ["Chart, border"] && list[0].pattern.lastPage == 3)

            // Deleted: gone from the API, and a device pulls the deletion. (The file stays while
            // the deleted record refers to it, as a picture does: a device's older copy could
            // bring the record back.)
            #expect(try await ann.send(.DELETE, "/patterns/\(created.pattern.id.wireText)").status == .noContent)
            #expect(try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)").status == .notFound)
            #expect(try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/1").status == .notFound)
            #expect(try await ann.get("/projects/\(project.project.id.wireText)/patterns", as: [PatternDetail].self).isEmpty)
            let after = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(), changes: []))
            #expect(try StitchJSON.decode(SyncResponse.self, from: Data(buffer: after.body)).changes.first { $0.type == .pattern }?.deletedAt != nil)
        }
    }

    @Test("Drawn pages are kept in the storage every instance shares, under their file's key, and go with it; no key reaches outside it")
    func pagesInSharedStorage() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let created = try await upload(ann, project.project.id, TestPDF.make(pages: 2)).decode(PatternDetail.self)
            let key = created.pattern.fileKey
            await app.patternRenderer.wait(key)
            // What another instance would read from the same storage: the drawn page, as served.
            let stored = try #require(try await app.imageStorage.get("\(key)/page-0002.png"))
            let served = try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/2")
            #expect(served.status == .ok && Data(buffer: served.body) == stored)
            #expect(try await app.imageStorage.get("\(key)/thumb-0001.png") != nil)
            for bad in ["\(key)/../x.png", "\(key)/page-0001.txt", "\(key)/Page-1.png", "../\(key)", "\(key)/a/b.png", "x/page-0001.png"] {
                #expect(!ImageKeys.isWellFormedUnder(bad), "\(bad)")
                await #expect(throws: (any Error).self) { try await app.imageStorage.put(Data([1]), key: bad) }
            }
            // A page the row says is drawn but the storage hasn't (drawn before pages were kept
            // there, or lost) is drawn again, not "being drawn" forever.
            try await app.imageStorage.delete("\(key)/page-0001.png")
            let missing = try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/1")
            #expect(missing.status == .conflict, "\(missing.status)")
            await app.patternRenderer.wait(key)
            #expect(try await ann.send(.GET, "/patterns/\(created.pattern.id.wireText)/pages/1").status == .ok)
            // Deleting the account takes the file and its pages.
            let gone = try await ann.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "correct horse"))
            #expect(gone.status == .noContent, "\(gone.text)")
            #expect(try await app.imageStorage.get(key) == nil)
            #expect(try await app.imageStorage.get("\(key)/page-0001.png") == nil)
        }
    }

    @Test("An upload with a part that has no name, or a title sent twice, is refused saying so, and keeps nothing")
    func malformedForms() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let boundary = "b-\(UUID().wireText)"
            for (parts, said) in [("--\(boundary)\r\nContent-Disposition: form-data; name=\"\"\r\n\r\n{}\r\n", "has no name"),
                                  ("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nA\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nB\r\n", "more than once")] {
                let res = try await app.send(.POST, "/projects/\(project.project.id)/patterns", token: ann.token, rawBody: parts + "--\(boundary)--\r\n",
                                             headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"])
                #expect(res.status == .badRequest && res.text.contains(said), "\(res.text)")
            }
            #expect(try await ann.get("/projects/\(project.project.id)/patterns", as: [PatternDetail].self).isEmpty)
        }
    }

    @Test("A picture is a one-page pattern, ready at once; a project's deletion takes its patterns with it")
    func picturePattern() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let photo = BarcodeImages.noBarcode(width: 2400, height: 1800, format: .jpeg)
            let res = try await upload(ann, project.project.id, photo, filename: "chart photo.jpg", type: "image/jpeg")
            try #require(res.status == .created, "\(res.text)")
            let detail = try res.decode(PatternDetail.self)
            #expect(detail.pages == PatternPages(status: .ready, pageCount: 1, rendered: 1) && detail.contentType == "image/jpeg")
            let page = try await ann.send(.GET, "/patterns/\(detail.pattern.id.wireText)/pages/1")
            #expect(page.status == .ok && pngSize(Data(buffer: page.body)).map { $0.0 } == PageFiles.pageSize)
            #expect(try await ann.send(.DELETE, "/projects/\(project.project.id.wireText)").status == .noContent)
            #expect(try await ann.send(.GET, "/patterns/\(detail.pattern.id.wireText)").status == .notFound)
        }
    }

    @Test("Bad files: password-protected or damaged PDFs are a 422 saying so, other files 415, over 50 MB 413, no file 400; nothing is stored")
    func badFiles() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let version = try await ann.syncVersion()
            let encrypted = try await upload(ann, project.project.id, TestPDF.make(pages: 2, encrypted: true))
            #expect(encrypted.status == .unprocessableEntity && encrypted.text.contains("password-protected"), "\(encrypted.text)")
            let damaged = try await upload(ann, project.project.id, TestPDF.malformed)
            #expect(damaged.status == .unprocessableEntity && damaged.text.contains("damaged"), "\(damaged.text)")
            let brokenPhoto = try await upload(ann, project.project.id, Data(Fixtures.jpeg.prefix(20)), filename: "x.jpg", type: "image/jpeg")
            #expect(brokenPhoto.status == .unprocessableEntity, "\(brokenPhoto.text)")
            let text = try await upload(ann, project.project.id, Fixtures.text, filename: "notes.txt", type: "text/plain")
            #expect(text.status == .unsupportedMediaType && text.text.contains("PDF, JPEG"))
            let huge = try await upload(ann, project.project.id, Data("%PDF-1.4\n".utf8) + Data(count: 51 * 1024 * 1024))
            #expect(huge.status == .payloadTooLarge, "\(huge.status)")
            let json = try await ann.sendObject(.POST, "/projects/\(project.project.id.wireText)/patterns", ["title": "x"])
            #expect(json.status == .unsupportedMediaType)
            let none = try await ann.upload("/projects/\(project.project.id.wireText)/patterns", files: [])
            #expect(none.status == .badRequest && none.text.contains("Choose a PDF"))
            let longTitle = try await ann.upload("/projects/\(project.project.id.wireText)/patterns",
                                                 files: [Fixtures.file(TestPDF.make(pages: 1), name: "file", filename: String(repeating: "x", count: 300) + ".pdf", type: "application/pdf")])
            #expect(longTitle.status == .badRequest)
            #expect(try await ImageModel.query(on: app.db).filter(\.$userId == ann.id).count() == 0)
            #expect(try await PatternRenderModel.query(on: app.db).count() == 0)
            #expect(try await ann.syncVersion() == version)
            // Nothing kept: no file, no drawn page (they live in the storage beside the file).
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: (app.config.dataDirectory as NSString).appendingPathComponent("images"))) ?? []
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test("A 200-page PDF: the upload answers at once, the pages are drawn in the background with progress, a page not drawn yet is a 409, and a restarted server finishes the rest")
    func longPDF() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let res = try await upload(ann, project.project.id, TestPDF.make(pages: 200))
            try #require(res.status == .created, "\(res.text)")
            // The upload answers before the pages are drawn (it says "rendering", with pages still to come).
            let created = try res.decode(PatternDetail.self)
            #expect(created.pages.pageCount == 200 && created.pages.status == .rendering && created.pages.rendered < 200)
            let id = created.pattern.id.wireText
            var seen: [Int] = []
            var detail = created
            let deadline = Date().addingTimeInterval(300)
            while detail.pages.status == .rendering, Date() < deadline {
                if detail.pages.rendered < 200 {
                    let notYet = try await ann.send(.GET, "/patterns/\(id)/pages/200")
                    #expect(notYet.status == .conflict || notYet.status == .ok)
                    if notYet.status == .conflict { #expect(notYet.text.contains("still being drawn") && notYet.headers.first(name: "Retry-After") == "1") }
                }
                try await Task.sleep(for: .milliseconds(200))
                detail = try await ann.get("/patterns/\(id)", as: PatternDetail.self)
                seen.append(detail.pages.rendered)
            }
            #expect(detail.pages == PatternPages(status: .ready, pageCount: 200, rendered: 200))
            #expect(seen == seen.sorted() && Set(seen).count > 2, "progress \(seen)")
            #expect(try await ann.send(.GET, "/patterns/\(id)/pages/200").status == .ok)

            // As if the server stopped part-way: the row says 40 drawn and the rest are gone.
            for n in 41...200 {
                try await app.imageStorage.delete(try PageFiles.key(created.pattern.fileKey, "page", n))
            }
            #expect(try await PageFiles.read(created.pattern.fileKey, page: 41, thumbnail: false, app: app) == nil)
            let row = try #require(try await PatternRenderModel.find(created.pattern.fileKey, on: app.db))
            row.status = PatternPages.Status.rendering.rawValue
            row.rendered = 40
            try await row.save(on: app.db)
            try await app.patternRenderer.resumeUnfinished(app)
            await app.patternRenderer.wait(created.pattern.fileKey)
            #expect(try await ann.get("/patterns/\(id)", as: PatternDetail.self).pages.status == .ready)
            #expect(try await ann.send(.GET, "/patterns/\(id)/pages/150").status == .ok)
        }
    }

    @Test("Two instances on one database: one draws a file however many ask; a claim left by a stopped instance runs out and is taken over where the drawing got to")
    func oneDrawerPerFile() async throws {
        try await withTestApp { app, clock in
            let (ann, project) = try await setUp(app)
            let res = try await upload(ann, project.project.id, TestPDF.make(pages: 24))
            let created = try res.decode(PatternDetail.self)
            let key = created.pattern.fileKey
            // Another instance, asked by a viewer's status poll while this one draws: once this one
            // holds the claim (the upload starts it in the background; on a loaded machine the other
            // could ask first and, rightly, draw instead).
            var polls = 0
            while try await PatternRenderModel.find(key, on: app.db)?.claimedBy != app.patternRenderer.instance, polls < 600 {
                try await Task.sleep(nanoseconds: 100_000_000)
                polls += 1
            }
            let other = PatternRenderer()
            other.start(key, app: app)
            await other.wait(key)
            await app.patternRenderer.wait(key)
            #expect(other.drawings.withLockedValue { $0 } == 0, "the other instance drew nothing")
            #expect(app.patternRenderer.drawings.withLockedValue { $0 } == 1)
            let id = created.pattern.id.wireText
            #expect(try await ann.get("/patterns/\(id)", as: PatternDetail.self).pages == PatternPages(status: .ready, pageCount: 24, rendered: 24))

            // As if an instance that held the claim was killed after 8 pages.
            for n in 9...24 { try await app.imageStorage.delete(try PageFiles.key(key, "page", n)) }
            let row = try #require(try await PatternRenderModel.find(key, on: app.db))
            row.status = PatternPages.Status.rendering.rawValue
            row.rendered = 8
            row.claimedBy = "killed-instance"
            row.claimedUntil = clock.now.addingTimeInterval(app.config.patternClaimLifetime)
            try await row.save(on: app.db)
            other.start(key, app: app)
            await other.wait(key)
            #expect(other.drawings.withLockedValue { $0 } == 0, "the claim still holds")
            #expect(try await PatternRenderModel.find(key, on: app.db)?.rendered == 8)
            clock.advance(by: app.config.patternClaimLifetime + 1)
            other.start(key, app: app)
            await other.wait(key)
            #expect(other.drawings.withLockedValue { $0 } == 1)
            let finished = try #require(try await PatternRenderModel.find(key, on: app.db))
            #expect(finished.status == PatternPages.Status.ready.rawValue && finished.rendered == 24 && finished.claimedBy == other.instance)
            #expect(try await ann.send(.GET, "/patterns/\(id)/pages/20").status == .ok)
        }
    }

    @Test("Synced like pictures: a device pushes a pattern for a file it uploaded; a file that isn't its own is refused")
    func syncedPattern() async throws {
        try await withTestApp { app, clock in
            let (ann, project) = try await setUp(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bobsFile = try await bob.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            let mine = try await ann.upload("/images", files: [Fixtures.file(Fixtures.jpeg)]).decode(ImageUploadResponse.self).key
            let good = Pattern(projectId: project.project.id, title: "From the phone", fileKey: mine, lastPage: 1, createdAt: clock.now, updatedAt: clock.now)
            var stolen = good
            stolen.id = UUID()
            stolen.fileKey = bobsFile
            let push = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: nil, clientId: UUID(),
                                                                           changes: [try SyncChange(record: good), try SyncChange(record: stolen)]))
            let results = try StitchJSON.decode(SyncResponse.self, from: Data(buffer: push.body)).results
            #expect(results.map(\.status) == [.applied, .rejected], "\(results)")
            #expect(results.last?.error?.fields?["fileKey"] == "No such file", "\(results)")
            // A file that arrived by sync gets its pages when first looked at.
            let detail = try await ann.get("/patterns/\(good.id.wireText)", as: PatternDetail.self)
            #expect(detail.pages == PatternPages(status: .ready, pageCount: 1, rendered: 1))
            #expect(try await ann.send(.GET, "/patterns/\(good.id.wireText)/thumbnails/1").status == .ok)
        }
    }

    @Test("A StitchKit device pulls a project's pattern into its store, downloads the PDF by its key, and its page pushed back is the server's lastPage")
    func deviceGetsPattern() async throws {
        try await withLiveServer { app, clock, server in
            let (ann, project) = try await setUp(app)
            let pdf = TestPDF.make(pages: 4)
            let created = try await upload(ann, project.project.id, pdf).decode(PatternDetail.self)
            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.login(email: "ann@example.com", password: "correct horse")
            try await phone.engine.sync()
            var kept = try #require(try phone.store.all(Pattern.self).first)
            #expect(kept == created.pattern)
            let file = try await phone.api.downloadImage(kept.fileKey)
            #expect(file.data == pdf && file.contentType == "application/pdf")
            clock.advance(by: 5)
            kept.lastPage = 4
            _ = try phone.store.save(kept)
            try await phone.engine.sync()
            await app.patternRenderer.wait(created.pattern.fileKey)
            #expect(try await ann.get("/patterns/\(created.pattern.id.wireText)", as: PatternDetail.self).pattern.lastPage == 4)
        }
    }
}
