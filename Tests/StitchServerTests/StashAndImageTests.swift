import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Canvases and images")
struct StashAndImageTests {
    @Test("Canvases: create, newest first, search by designer or design name, mesh count rule")
    func canvases() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let a = try await ann.canvas("Nutcracker", designer: "Melissa Shirley")
            clock.advance(by: 10)
            let b = try await ann.canvas("Santa's Workshop", designer: "Raymond Crawford")
            #expect(try await ann.get("/canvases", as: [Canvas].self).map(\.id) == [b.id, a.id])
            #expect(try await ann.get("/canvases?q=melissa", as: [Canvas].self).map(\.id) == [a.id])
            #expect(try await ann.get("/canvases?q=WORKSHOP", as: [Canvas].self).map(\.id) == [b.id])
            let bad = try await ann.sendObject(.POST, "/canvases", ["designer": "X", "designName": "Y", "meshCount": 0])
            #expect(bad.status == .badRequest && bad.error?.fields?["meshCount"] == "Enter a positive number")
            let missing = try await ann.sendObject(.POST, "/canvases", ["designName": "Y"])
            #expect(missing.status == .badRequest && missing.error?.fields?["designer"] == "Designer is required")
            let acquired = try await ann.create("/canvases", ["designer": "X", "designName": "Y", "acquiredAt": "2025-06-01T00:00:00Z", "size": "13x18"], as: Canvas.self)
            #expect(acquired.acquiredAt == Timestamp.date(from: "2025-06-01T00:00:00Z") && acquired.size == "13x18")
            let updated = try await ann.sendObject(.PUT, "/canvases/\(a.id)", ["notes": "From the shop in Naples", "meshCount": nil])
            #expect(try updated.decode(Canvas.self).meshCount == nil)
        }
    }

    @Test("A canvas with a live project can't be deleted (409); without one it can")
    func deleteCanvas() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let c = try await ann.canvas()
            let p = try await ann.project(canvas: c)
            #expect(try await ann.send(.DELETE, "/canvases/\(c.id)").status == .conflict)
            #expect(try await ann.send(.GET, "/canvases/\(c.id)").status == .ok)
            #expect(try await ann.send(.DELETE, "/projects/\(p.project.id)").status == .noContent)
            #expect(try await ann.send(.DELETE, "/canvases/\(c.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/canvases/\(c.id)").status == .notFound)
        }
    }

    @Test("A deleted canvas's photo is 404 at once, to the API and to pages, every size; a photo that another live record still shows is served; a photo no record names yet (just uploaded) is served")
    func deletedPhotoIsGone() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let c = try await ann.canvas()
            let key = try #require(try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(Fixtures.png)]).decode(Canvas.self).imageKey)
            #expect(try await ann.send(.GET, "/images/\(key)").status == .ok)
            #expect(try await web.request(.GET, "/app/images/\(key)?w=192").status == .ok)
            #expect(try await ann.send(.DELETE, "/canvases/\(c.id)").status == .noContent)
            for path in ["/images/\(key)", "/images/\(key)?w=192"] {
                #expect(try await ann.send(.GET, path).status == .notFound, "\(path)")
            }
            #expect(try await web.request(.GET, "/app/images/\(key)?w=192").status == .notFound)
            #expect(try await web.request(.GET, "/app/images/\(key)").status == .notFound)

            // One photo on two canvases: deleting one leaves it shown by the other.
            let bare = try await ann.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            #expect(try await ann.send(.GET, "/images/\(bare)").status == .ok, "not named by a record yet")
            let first = try await ann.create("/canvases", ["designer": "A", "designName": "One", "imageKey": bare], as: Canvas.self)
            _ = try await ann.create("/canvases", ["designer": "A", "designName": "Two", "imageKey": bare], as: Canvas.self)
            #expect(try await ann.send(.DELETE, "/canvases/\(first.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/images/\(bare)").status == .ok)
        }
    }

    @Test("Upload a real PNG and JPEG; the owner gets them back with type, ETag and a private cache header")
    func uploadAndServe() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let c = try await ann.canvas()
            // Declared as JPEG, really a PNG: the bytes decide.
            let res = try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(Fixtures.png, filename: "x.jpg")])
            #expect(res.status == .ok, "\(res.text)")
            let canvas = try res.decode(Canvas.self)
            let key = try #require(canvas.imageKey)
            #expect(key.hasSuffix(".png") && key.count > 64)

            let served = try await ann.send(.GET, "/images/\(key)")
            #expect(served.status == .ok)
            #expect(served.headers.contentType?.description == "image/png")
            #expect(Data(buffer: served.body) == Fixtures.png)
            let etag = try #require(served.headers.first(name: .eTag))
            #expect(served.headers.first(name: .cacheControl)?.contains("private") == true)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = BearerAuthorization(token: ann.token)
            headers.replaceOrAdd(name: .ifNoneMatch, value: etag)
            #expect(try await app.testing().sendRequest(.GET, "/images/\(key)", headers: headers).status == .notModified)

            #expect(try await bob.send(.GET, "/images/\(key)").status == .notFound)
            // No token or a bad one: 401 like everywhere else; someone else's key: 404, as if never issued.
            #expect(try await app.send(.GET, "/images/\(key)").status == .unauthorized)
            #expect(try await app.send(.GET, "/images/\(key)", token: "garbage").status == .unauthorized)
            #expect(try await ann.send(.GET, "/images/..%2F..%2Fetc%2Fpasswd").status == .notFound)

            let jpeg = try await ann.upload("/images", files: [Fixtures.file(Fixtures.jpeg, filename: "photo.png", type: "image/png")])
            #expect(jpeg.status == .created)
            #expect(try jpeg.decode(ImageUploadResponse.self).contentType == "image/jpeg")
        }
    }

    @Test("Rejected uploads store nothing: a renamed text file (415), an 11 MB file (413), an empty file (400)")
    func rejectedUploads() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let c = try await ann.canvas()
            let imagesDir = app.config.dataDirectory + "/images"
            let text = try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(Fixtures.text, filename: "cat.jpg")])
            #expect(text.status == .unsupportedMediaType)
            var big = Fixtures.jpeg
            big.append(Data(repeating: 0, count: 11 * 1024 * 1024))
            let large = try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(big)])
            #expect(large.status == .payloadTooLarge)
            let empty = try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(Data())])
            #expect(empty.status == .badRequest)
            let traversal = try await ann.upload("/canvases/\(c.id)/image", files: [Fixtures.file(Fixtures.text, filename: "../../etc/passwd")])
            #expect(traversal.status == .unsupportedMediaType)
            let noFile = try await ann.send(.POST, "/canvases/\(c.id)/image", json: ["image": "base64?"])
            #expect(noFile.status == .unsupportedMediaType)
            #expect(try await ImageModel.query(on: app.db).count() == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: imagesDir).isEmpty)
            #expect(try await ann.get("/canvases/\(c.id)", as: Canvas.self).imageKey == nil)
        }
    }

    @Test("Replacing a canvas image keeps the old file while anything still refers to it")
    func replaceImage() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let c1 = try await ann.canvas("One")
            let c2 = try await ann.canvas("Two")
            let first = try await ann.upload("/canvases/\(c1.id)/image", files: [Fixtures.file(Fixtures.png)]).decode(Canvas.self)
            let oldKey = try #require(first.imageKey)
            // The second canvas shares the picture.
            #expect(try await ann.sendObject(.PUT, "/canvases/\(c2.id)", ["imageKey": oldKey]).status == .ok)
            let replaced = try await ann.upload("/canvases/\(c1.id)/image", files: [Fixtures.file(Fixtures.jpeg)]).decode(Canvas.self)
            #expect(replaced.imageKey != oldKey)
            #expect(try await ann.send(.GET, "/images/\(oldKey)").status == .ok)
            // Now nothing refers to it: the file goes.
            #expect(try await ann.sendObject(.PUT, "/canvases/\(c2.id)", ["imageKey": nil]).status == .ok)
            #expect(try await ann.send(.GET, "/images/\(oldKey)").status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: app.config.dataDirectory + "/images/" + oldKey))
            // Someone else's key can't be borrowed.
            let bob = try await TestUser.make(app, email: "bob@example.com")
            let bobs = try await bob.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self)
            #expect(try await ann.sendObject(.PUT, "/canvases/\(c2.id)", ["imageKey": bobs.key]).status == .conflict)
        }
    }
}
