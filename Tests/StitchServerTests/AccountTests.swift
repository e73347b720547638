import Fluent
import NIOConcurrencyHelpers
import Foundation
import SQLKit
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// An account with one of everything, pictures included.
struct FilledAccount {
    let user: TestUser
    let canvas: Canvas
    let project: ProjectDetail
    let entry: JournalEntry

    static func make(_ app: Application, email: String, name: String = "Ann") async throws -> FilledAccount {
        let user = try await TestUser.make(app, email: email, name: name)
        let thread = try await user.thread("DMC", "310", quantity: 2, extra: ["colorName": "Black", "colorHex": "#000000", "fiberType": "cotton"])
        try await user.thread("Appleton", "992", quantity: 1, extra: ["notes": "Sea green, for the border"])
        var canvas = try await user.canvas("Nutcracker")
        let picture = try await user.upload("/canvases/\(canvas.id.wireText)/image", files: [Fixtures.file(Fixtures.jpeg)])
        try #require(picture.status == .ok || picture.status == .created, "\(picture.text)")
        canvas = try picture.decode(Canvas.self)
        _ = try await user.canvas("Santa", designer: "Kirk & Bradley")
        let project = try await user.project(canvas: canvas)
        let section: ProjectSection = try await user.create("/projects/\(project.project.id.wireText)/sections", ["name": "Border"])
        _ = try await user.create("/projects/\(project.project.id.wireText)/threads",
                                  ["threadId": thread.id.wireText, "brand": "DMC", "number": "310", "quantityNeeded": 3, "sectionId": section.id.wireText],
                                  as: ProjectThread.self)
        let entry: JournalEntry = try await user.create("/projects/\(project.project.id.wireText)/entries", ["notes": "Started the border"])
        let images = try await user.upload("/projects/\(project.project.id.wireText)/entries/\(entry.id.wireText)/images",
                                           files: [Fixtures.file(Fixtures.png, filename: "a.png", type: "image/png"),
                                                   Fixtures.file(Fixtures.jpeg + Data("a different picture".utf8))])
        try #require(images.status == .created || images.status == .ok, "\(images.text)")
        let pattern = try await user.upload("/projects/\(project.project.id.wireText)/patterns",
                                            files: [Fixtures.file(TestPDF.make(pages: 2), name: "file", filename: "Nutcracker chart.pdf", type: "application/pdf")])
        try #require(pattern.status == .created, "\(pattern.text)")
        let line = try await user.sendObject(.POST, "/shopping-list/lines", ["brand": "DMC", "number": "321", "quantity": 2, "notes": "running low"])
        try #require(line.status == .created, "\(line.text)")
        return FilledAccount(user: user, canvas: canvas, project: project, entry: entry)
    }
}

/// Every row of `userId` in every table that holds one, by table (zeros left out).
func rowsOf(_ userId: UUID, email: String, app: Application) async throws -> [String: Int] {
    var out: [String: Int] = [:]
    for table in [ThreadModel.schema, CanvasModel.schema, ProjectModel.schema, SectionModel.schema, RequirementModel.schema,
                  JournalEntryModel.schema, JournalImageModel.schema, ImageModel.schema, IdentityModel.schema, RefreshTokenModel.schema,
                  WebSessionModel.schema, PatternModel.schema, PatternRenderModel.schema] {
        let rows = try await app.db.sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(table)
            .where("user_id", .equal, SQLUUID(userId)).all()
        let n = try rows[0].decode(column: "n", as: Int.self)
        if n > 0 { out[table] = n }
    }
    if try await UserModel.find(userId, on: app.db) != nil { out[UserModel.schema] = 1 }
    let key = PasswordAttempts.accountKey(email: email)
    let throttles = try await LoginThrottleModel.query(on: app.db).group(.or) { $0.filter(\.$email == key).filter(\.$account == key) }.count()
    if throttles > 0 { out[LoginThrottleModel.schema] = throttles }
    return out
}

func imageFiles(_ app: Application) throws -> Set<String> {
    let dir = (app.config.dataDirectory as NSString).appendingPathComponent("images")
    return Set(try FileManager.default.contentsOfDirectory(atPath: dir))
}

/// The file storage, keeping what is drawn from a file 100 ms slower each, and counting it.
final class SlowDrawnStorage: ImageStorage {
    let inner: any ImageStorage
    let kept = NIOLockedValueBox(0)
    init(inner: any ImageStorage) { self.inner = inner }

    func put(_ data: Data, key: String) async throws {
        if key.contains("/") { try await Task.sleep(for: .milliseconds(100)) }
        try await inner.put(data, key: key)
        if key.contains("/") { kept.withLockedValue { $0 += 1 } }
    }
    func get(_ key: String) async throws -> Data? { try await inner.get(key) }
    func get(_ key: String, range: ClosedRange<Int>) async throws -> Data? { try await inner.get(key, range: range) }
    func storedKeys() async throws -> [(key: String, modified: Date)] { try await inner.storedKeys() }
    func delete(_ key: String) async throws { try await inner.delete(key) }
    func deleteAll(under key: String) async throws { try await inner.deleteAll(under: key) }
}

@Suite("Leaving and securing an account: password change, deletion")
struct AccountLifecycleTests {
    @Test("Changing the password asks for the current one and ends every other sign-in, API and browser alike; the one that asked stays")
    func changePassword() async throws {
        try await withTestApp { app, _ in
            let first = try await register(app, email: "ann@example.com")
            let second = try await login(app).decode(AuthResponse.self)
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            #expect(try await browser.request(.GET, "/app/inventory").status == .ok)

            // Wrong current password, too short a new one: refused, nothing changes.
            var res = try await app.send(.POST, "/auth/password", token: first.accessToken,
                                         json: ChangePasswordRequest(currentPassword: "wrong horse", newPassword: "new staple horse"))
            #expect(res.status == .forbidden && res.error?.fields?["currentPassword"] != nil)
            res = try await app.send(.POST, "/auth/password", token: first.accessToken,
                                     json: ChangePasswordRequest(currentPassword: "correct horse", newPassword: "short"))
            #expect(res.status == .badRequest && res.error?.fields?["newPassword"] != nil)
            #expect(try await app.send(.GET, "/auth/me", token: second.accessToken).status == .ok)

            res = try await app.send(.POST, "/auth/password", token: first.accessToken,
                                     json: ChangePasswordRequest(currentPassword: "correct horse", newPassword: "new staple horse"))
            #expect(res.status == .noContent, "\(res.text)")
            // The caller stays signed in, and can still refresh.
            #expect(try await app.send(.GET, "/auth/me", token: first.accessToken).status == .ok)
            #expect(try await refresh(app, first.refreshToken).status == .ok)
            // Every other sign-in is over: its access token, its refresh token, the browser.
            #expect(try await app.send(.GET, "/auth/me", token: second.accessToken).status == .unauthorized)
            #expect(try await refresh(app, second.refreshToken).status == .unauthorized)
            let after = try await browser.request(.GET, "/app/inventory")
            #expect(after.status == .seeOther && after.headers.first(name: .location) == "/app/signin")
            // Only the new password signs in.
            #expect(try await login(app).status == .unauthorized)
            #expect(try await login(app, password: "new staple horse").status == .ok)
        }
    }

    @Test("In the web app: the current password, the new one twice; this browser stays signed in, the API's sessions end")
    func changePasswordOnTheWeb() async throws {
        try await withTestApp { app, _ in
            let api = try await register(app, email: "ann@example.com")
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            var res = try await browser.post("/app/settings/password", from: "/app/settings/password",
                                              ["currentPassword": "correct horse", "newPassword": "new staple horse", "confirmPassword": "new staple hose"])
            #expect(res.status == .badRequest && res.text.contains("The two new passwords are not the same"))
            res = try await browser.post("/app/settings/password", from: "/app/settings/password",
                                          ["currentPassword": "wrong", "newPassword": "new staple horse", "confirmPassword": "new staple horse"])
            #expect(res.status == .forbidden && res.text.contains("Not your current password"))
            res = try await browser.post("/app/settings/password", from: "/app/settings/password",
                                          ["currentPassword": "correct horse", "newPassword": "new staple horse", "confirmPassword": "new staple horse"])
            #expect(res.status == .seeOther, "\(res.text)")
            #expect(try await browser.request(.GET, "/app/settings").status == .ok)
            #expect(try await app.send(.GET, "/auth/me", token: api.accessToken).status == .unauthorized)
        }
    }

    @Test("An account that signs in with a provider has no password to change (409)")
    func providerAccountHasNoPassword() async throws {
        try await withTestApp { app, _ in
            let user = try await register(app, email: "ann@example.com")
            let model = try #require(try await UserModel.find(user.user.id, on: app.db))
            model.passwordHash = nil
            try await model.save(on: app.db)
            let res = try await app.send(.POST, "/auth/password", token: user.accessToken,
                                         json: ChangePasswordRequest(currentPassword: "anything", newPassword: "new staple horse"))
            #expect(res.status == .conflict)
            // Deleting it takes the word DELETE instead of a password.
            #expect(try await app.send(.DELETE, "/auth/account", token: user.accessToken, json: DeleteAccountRequest(confirm: "delete")).status == .forbidden)
            #expect(try await app.send(.DELETE, "/auth/account", token: user.accessToken, json: DeleteAccountRequest(confirm: "DELETE")).status == .noContent)
            #expect(try await rowsOf(user.user.id, email: "ann@example.com", app: app).isEmpty)
        }
    }

    @Test("Deleting an account asks for the password, then leaves no row and no file of that user in any table; everyone else's stays; a repeated request answers the same")
    func deleteAccount() async throws {
        try await withTestApp { app, _ in
            let ann = try await FilledAccount.make(app, email: "ann@example.com")
            let bob = try await FilledAccount.make(app, email: "bob@example.com", name: "Bob")
            let annSecond = try await login(app).decode(AuthResponse.self)
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            // A failed sign-in leaves a throttle row keyed by the address.
            _ = try await login(app, password: "wrong horse")
            let annFiles = try Set(await ImageModel.query(on: app.db).filter(\.$userId == ann.user.id).all().compactMap(\.id))
            let bobFiles = try Set(await ImageModel.query(on: app.db).filter(\.$userId == bob.user.id).all().compactMap(\.id))
            let files = try imageFiles(app)
            #expect(annFiles.count == 4 && bobFiles.count == 4 && annFiles.isSubset(of: files))
            let before = try await rowsOf(ann.user.id, email: "ann@example.com", app: app)
            #expect(before.keys.count == 15, "\(before)")
            let bobBefore = try await rowsOf(bob.user.id, email: "bob@example.com", app: app)

            // Without the password, or with a wrong one: refused, nothing touched.
            #expect(try await ann.user.send(.DELETE, "/auth/account").status == .forbidden)
            #expect(try await ann.user.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "wrong horse")).status == .forbidden)
            #expect(try await rowsOf(ann.user.id, email: "ann@example.com", app: app) == before)

            let res = try await ann.user.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "correct horse"))
            #expect(res.status == .noContent, "\(res.text)")
            #expect(try await rowsOf(ann.user.id, email: "ann@example.com", app: app).isEmpty)
            let remaining = try imageFiles(app)
            #expect(remaining.isDisjoint(with: annFiles) && bobFiles.isSubset(of: remaining))
            #expect(try await rowsOf(bob.user.id, email: "bob@example.com", app: app) == bobBefore)
            #expect(try await bob.user.get("/threads", as: [InventoryThread].self).count == 2)

            // The same request again (its answer lost, say), or from the other device: the same 204.
            #expect(try await ann.user.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "correct horse")).status == .noContent)
            #expect(try await app.send(.DELETE, "/auth/account", token: annSecond.accessToken).status == .noContent)
            // Everything else that token could do is over, and the browser is signed out.
            #expect(try await ann.user.send(.GET, "/threads").status == .unauthorized)
            #expect(try await refresh(app, annSecond.refreshToken).status == .unauthorized)
            #expect(try await browser.request(.GET, "/app/inventory").status == .seeOther)
            #expect(try await login(app).status == .unauthorized)
            // A token that was never issued is still a 401.
            #expect(try await app.send(.DELETE, "/auth/account", token: "not.a.token").status == .unauthorized)
            // The address is free again.
            #expect(try await app.send(.POST, "/auth/register", json: RegisterRequest(email: "ann@example.com", password: "correct horse", displayName: "Ann")).status == .created)
        }
    }

    @Test("Deleting from the web app: the password on a page that says what goes; the browser ends on the sign-in page")
    func deleteOnTheWeb() async throws {
        try await withTestApp { app, _ in
            let ann = try await FilledAccount.make(app, email: "ann@example.com")
            let browser = WebClient(app: app)
            try await browser.signIn("ann@example.com")
            let page = try await browser.request(.GET, "/app/settings/delete-account")
            #expect(page.text.contains("2 threads, 2 canvases, 1 projects"))
            var res = try await browser.post("/app/settings/delete-account", from: "/app/settings/delete-account", ["password": "wrong"])
            #expect(res.status == .forbidden && res.text.contains("Not your password"))
            res = try await browser.post("/app/settings/delete-account", from: "/app/settings/delete-account", ["password": "correct horse"])
            #expect(res.status == .seeOther && res.headers.first(name: .location)?.hasPrefix("/app/signin") == true)
            let signIn = try await browser.request(.GET, res.headers.first(name: .location)!)
            #expect(signIn.text.contains("Your account and everything in it have been deleted."))
            #expect(try await rowsOf(ann.user.id, email: "ann@example.com", app: app).isEmpty)
            #expect(try imageFiles(app).isEmpty)
        }
    }

    @Test("Deleting an account while a pattern's pages are being kept: once it answers, no file of it is left, drawn or not")
    func deleteWhileDrawing() async throws {
        try await withTestApp { app, _ in
            // Each drawn page is kept a little slowly, so that the deletion surely comes mid-batch.
            let storage = SlowDrawnStorage(inner: app.imageStorage)
            app.imageStorage = storage
            let ann = try await TestUser.make(app, email: "ann@example.com")
            let project = try await ann.project(canvas: try await ann.canvas("Nutcracker"))
            let res = try await ann.upload("/projects/\(project.project.id.wireText)/patterns",
                                           files: [Fixtures.file(TestPDF.make(pages: 20), name: "file", filename: "Long chart.pdf", type: "application/pdf")])
            let created = try res.decode(PatternDetail.self)
            #expect(res.status == .created && created.pages.status == .rendering, "\(res.text)")
            for _ in 0..<1000 where storage.kept.withLockedValue({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try #require(storage.kept.withLockedValue { $0 } > 0)
            let deleted = try await ann.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "correct horse"))
            #expect(deleted.status == .noContent, "\(deleted.text)")
            // Nothing is left, and nothing more is kept after the answer.
            let keptBefore = storage.kept.withLockedValue { $0 }
            #expect(try imageFiles(app).isEmpty)
            await app.patternRenderer.wait(created.pattern.fileKey)
            #expect(storage.kept.withLockedValue { $0 } == keptBefore)
            #expect(try imageFiles(app).isEmpty)
        }
    }

    @Test("Ids go out lower-case whatever case they came in: a client finds the very string it sent in `results`")
    func lowercaseIds() async throws {
        try await withTestApp { app, _ in
            let user = try await TestUser.make(app)
            let now = app.clock.now()
            let lower = UUID(), upper = UUID()
            func change(_ id: UUID, _ text: String) throws -> [String: Any] {
                ["type": "thread", "id": text, "action": "upsert", "updatedAt": Timestamp.string(from: now),
                 "data": ["brand": "DMC", "number": id == lower ? "1" : "2", "fiberType": "wool", "quantity": 1, "createdAt": Timestamp.string(from: now)]]
            }
            let body: [String: Any] = ["clientId": UUID().wireText, "changes": [try change(lower, lower.wireText), try change(upper, upper.uuidString)]]
            let res = try await app.send(.POST, "/sync", token: user.token, rawBody: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
            #expect(res.status == .ok)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: res.body)) as? [String: Any])
            let ids = (json["results"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == [lower.wireText, upper.wireText])
            let list = try await user.send(.GET, "/threads").text
            #expect(list.contains(lower.wireText) && list.contains(upper.wireText) && !list.contains(upper.uuidString))
            #expect(try await user.send(.GET, "/threads/\(upper.uuidString)").status == .ok)
            // Another device's pull carries the same lower-case ids.
            let pull = try await app.send(.POST, "/sync", token: user.token, rawBody: #"{"clientId":"\#(UUID().wireText)","changes":[]}"#)
            let pulled = try #require(try JSONSerialization.jsonObject(with: Data(buffer: pull.body)) as? [String: Any])
            let pulledIds = Set(((pulled["changes"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            #expect(pulledIds == [lower.wireText, upper.wireText])
        }
    }
}
