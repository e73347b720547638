import Fluent
import Foundation
import StitchCore
import StitchKit
@testable import StitchServer
import Testing
import VaporTesting

/// What schemathesis (`scripts/fuzz-api`) found, pinned down: the server and its OpenAPI document
/// agree on bodies, statuses and methods, and no request can take the server down.
@Suite("API contract: bodies, statuses, methods, multipart")
struct APIContractTests {
    @Test("Malformed multipart bodies are a 400 (one used to crash the server), nothing is stored, a good upload still works")
    func malformedMultipart() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let b = "d293156d1c91a3d4704c7b84c8e682fc"
            func text(_ s: String) -> [UInt8] { Array(s.utf8) }
            var bodies: [(String, [UInt8])] = []
            // The schemathesis case: a non-ASCII byte where a header name goes.
            bodies.append(("non-ASCII header name", text("--\(b)\r\n") + [0xC3, 0xB1, 0x69] + text("--\(b)--\r\n")))
            bodies.append(("non-ASCII header name with colon", text("--\(b)\r\n") + [0xF1, 0x9A, 0xBE, 0xAB] + text(": x\r\n\r\ndata\r\n--\(b)--\r\n")))
            bodies.append(("header without colon", text("--\(b)\r\nContent-Disposition form-data\r\n\r\nx\r\n--\(b)--\r\n")))
            bodies.append(("never closed", text("--\(b)\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\n") + [UInt8](Fixtures.png)))
            bodies.append(("no boundary at all", text("just some bytes")))
            bodies.append(("headers never end", text("--\(b)\r\nContent-Disposition: form-data; name=\"image\"")))
            bodies.append(("garbage after boundary", text("--\(b)garbage\r\n\r\n--\(b)--")))
            bodies.append(("empty", []))
            for (label, body) in bodies {
                let res = try await ann.sendMultipart("/images", boundary: b, body: body)
                #expect((400..<500).contains(Int(res.status.code)), "\(label): \(res.status) \(res.text)")
            }
            let tooLong = String(repeating: "x", count: 71)
            let long = try await ann.sendMultipart("/images", boundary: tooLong, body: Array("--\(tooLong)--".utf8))
            #expect(long.status == .badRequest)
            #expect(try await ImageModel.query(on: app.db).count() == 0)
            #expect(try await app.send(.GET, "/health").status == .ok)
            #expect(try await ann.upload("/images", files: [Fixtures.file(Fixtures.png, filename: "ñandú.png")]).status == .created)
        }
    }

    @Test("The multipart parser: preamble, epilogue, several parts, a part without headers, UTF-8 file names")
    func multipartParser() throws {
        let body = Data("preamble\r\n--XYZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none\r\n--XYZ  \r\n\r\nno headers\r\n--XYZ\r\ncontent-disposition: form-data; name=\"image\"; filename=\"tapisserie é.png\"\r\nContent-Type: image/png\r\n\r\n\r\n--XY\r\n--XYZ--\r\nepilogue".utf8)
        let parts = try MultipartCollector.parse(body, boundary: "XYZ")
        #expect(parts.map(\.name) == ["a", "", "image"])
        #expect(String(decoding: parts[0].body, as: UTF8.self) == "one")
        #expect(String(decoding: parts[1].body, as: UTF8.self) == "no headers")
        #expect(parts[2].filename == "tapisserie é.png")
        #expect(String(decoding: parts[2].body, as: UTF8.self) == "\r\n--XY")  // almost a boundary, so data
    }

    @Test("JSON bodies: none is a 400 and changes nothing, a non-JSON label is a 415, an unlabelled JSON body is read")
    func jsonBodies() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let thread = try await ann.thread("DMC", "310", quantity: 2)
            let version = try await ann.syncVersion()
            let empty = try await app.send(.PUT, "/threads/\(thread.id)", token: ann.token)
            #expect(empty.status == .badRequest && empty.error?.error == "A JSON request body is required")
            #expect(try await app.send(.POST, "/auth/login").status == .badRequest)
            #expect(try await app.send(.POST, "/sync", token: ann.token).status == .badRequest)
            #expect(try await ann.syncVersion() == version)
            #expect(try await ann.get("/threads/\(thread.id)", as: InventoryThread.self).updatedAt == thread.updatedAt)

            var text = HTTPHeaders()
            text.replaceOrAdd(name: .contentType, value: "text/plain")
            for (method, path) in [(HTTPMethod.POST, "/auth/login"), (.POST, "/threads"), (.PUT, "/threads/\(thread.id)"), (.POST, "/sync")] {
                let res = try await app.send(method, path, token: ann.token, rawBody: #"{"brand":"X","number":"1"}"#, headers: text)
                #expect(res.status == .unsupportedMediaType, "\(method) \(path): \(res.status)")
            }
            var none = HTTPHeaders()
            none.bearerAuthorization = BearerAuthorization(token: ann.token)
            let unlabelled = try await app.testing().sendRequest(.POST, "/sync", headers: none, body: ByteBuffer(string: #"{"clientId":"\#(UUID())","changes":[]}"#))
            #expect(unlabelled.status == .ok)
        }
    }

    @Test("A known path asked with another method: 405 with Allow; OPTIONS: 204 with Allow; an unknown path: 404")
    func methodNotAllowed() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let trace = try await app.send(.TRACE, "/threads", token: ann.token)
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers.first(name: "Allow") == "GET, HEAD, OPTIONS, POST")
            #expect(trace.error?.error == "TRACE is not supported here")
            // A fixed path that a parameter route would also match (/threads/:id has PUT).
            let brands = try await app.send(.PUT, "/threads/brands", token: ann.token, json: ["brand": "X"])
            #expect(brands.status == .methodNotAllowed && brands.headers.first(name: "Allow") == "GET, HEAD, OPTIONS")
            let options = try await app.send(.OPTIONS, "/threads/\(UUID())")
            #expect(options.status == .noContent && options.headers.first(name: "Allow") == "DELETE, GET, HEAD, OPTIONS, PUT")
            #expect(try await app.send(.PATCH, "/no-such-thing", token: ann.token).status == .notFound)
            // A parameter route's own 404 stays a 404.
            #expect(try await ann.send(.PUT, "/threads/\(UUID())", json: ["brand": "X"]).status == .notFound)
        }
    }

    @Test("Query filters take exactly the documented values; anything else is a 400")
    func strictQueryEnums() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            for path in ["/threads?fiberType=", "/threads?fiberType=WOOL", "/threads?fiberType=%20wool", "/projects?status=", "/projects?status=WIP"] {
                let res = try await ann.send(.GET, path)
                #expect(res.status == .badRequest, "\(path): \(res.status)")
            }
            #expect(try await ann.send(.GET, "/threads?fiberType=silk").status == .ok)
            #expect(try await ann.send(.GET, "/projects?status=at_finishing").status == .ok)
        }
    }

    @Test("Referring to something that isn't yours is a 409 with the field; a purchase past the limit is a 409 and adds nothing")
    func conflicts() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let c = try await ann.canvas()
            let image = try await ann.sendObject(.PUT, "/canvases/\(c.id)", ["imageKey": "never-uploaded.png"])
            #expect(image.status == .conflict && image.error?.fields?["imageKey"] == "No such image")
            let p = try await ann.project(canvas: c)
            let missing = try await ann.sendObject(.POST, "/projects/\(p.project.id)/threads", ["threadId": UUID().uuidString])
            #expect(missing.status == .conflict && missing.error?.fields?["threadId"] != nil)

            let thread = try await ann.thread("DMC", "310", quantity: Limits.maxQuantity - 2)
            let over = try await ann.sendObject(.POST, "/shopping-list/purchase", ["brand": "DMC", "number": "310", "quantity": 3])
            #expect(over.status == .conflict && over.error?.fields?["quantity"] != nil)
            #expect(try await ann.get("/threads/\(thread.id)", as: InventoryThread.self).quantity == Limits.maxQuantity - 2)
            let fits = try await ann.sendObject(.POST, "/shopping-list/purchase", ["brand": "DMC", "number": "310", "quantity": 2])
            #expect(fits.status == .ok)
            #expect(try fits.decode(InventoryThread.self).quantity == Limits.maxQuantity)
        }
    }

    @Test("A project dated ahead can be created completed: the stamped date is never before the start")
    func futureStart() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let c = try await ann.canvas()
            let start = clock.now.addingTimeInterval(86_400 * 365)
            let res = try await ann.sendObject(.POST, "/projects", ["canvasId": c.id.uuidString, "status": "completed", "startedAt": Timestamp.string(from: start)])
            #expect(res.status == .created, "\(res.text)")
            let detail = try res.decode(ProjectDetail.self)
            #expect(detail.project.completedAt == detail.project.startedAt)
        }
    }

    @Test("Passwords longer than bcrypt's 72 bytes count in full; timestamps with impossible offsets or leap seconds are refused")
    func longPasswordsAndTimestamps() async throws {
        try await withTestApp { app, _ in
            let long = String(repeating: "stitch ", count: 14) + "end"  // 101 characters
            _ = try await register(app, email: "long@example.com", password: long)
            #expect(try await login(app, email: "long@example.com", password: long).status == .ok)
            #expect(try await login(app, email: "long@example.com", password: String(long.prefix(72))).status == .unauthorized)
            #expect(try await login(app, email: "long@example.com", password: String(long.prefix(100)) + "X").status == .unauthorized)
            let tooLong = try await app.send(.POST, "/auth/register", json: RegisterRequest(email: "x@example.com", password: String(repeating: "p", count: 129), displayName: "X"))
            #expect(tooLong.status == .badRequest && tooLong.error?.fields?["password"] != nil)
        }
        #expect(Timestamp.date(from: "2026-01-01T00:00:00+23:59") != nil)
        #expect(Timestamp.date(from: "2026-01-01T00:00:00-65:51") == nil)
        #expect(Timestamp.date(from: "2026-01-01T00:00:00+01:60") == nil)
        #expect(Timestamp.date(from: "2026-06-30T23:59:60Z") == nil)
    }

    @Test("A cursor the server never issued is a 409 that applies nothing; StitchKit then pulls from the start")
    func unknownCursor() async throws {
        try await withLiveServer { app, clock, server in
            let ann = try await TestUser.make(app)
            let version = try await ann.syncVersion()
            let change = try SyncChange(record: InventoryThread(brand: "DMC", number: "1", createdAt: clock.now, updatedAt: clock.now))
            let res = try await ann.send(.POST, "/sync", json: SyncRequest(cursor: "bm90IGEgY3Vyc29y", clientId: UUID(), changes: [change]))
            #expect(res.status == .conflict && res.error?.fields?["cursor"] != nil)
            #expect(try await ann.syncVersion() == version)

            let phone = try Device(server: server, clock: clock)
            _ = try await phone.api.login(email: "ann@example.com", password: "correct horse")
            _ = try await ann.thread("Appleton", "992")
            let mine = try phone.store.save(InventoryThread(brand: "DMC", number: "310", createdAt: clock.now, updatedAt: clock.now))
            try phone.store.setSetting("sync.cursor", "bm90IGEgY3Vyc29y")  // e.g. a server restored from an old backup
            try await phone.engine.sync()
            #expect(try phone.store.pendingCount() == 0)
            #expect(try Set(phone.store.all(InventoryThread.self).map(\.brand)) == ["Appleton", "DMC"])
            #expect(try await ann.get("/threads/\(mine.id)", as: InventoryThread.self).number == "310")
        }
    }
}
