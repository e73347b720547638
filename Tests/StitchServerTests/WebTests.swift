import BuildStamp
import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

/// A browser-like session against the in-memory app: keeps cookies, reads CSRF tokens from forms.
final class WebClient {
    let app: Application
    var cookies: [String: String] = [:]

    init(app: Application) { self.app = app }

    func request(_ method: HTTPMethod, _ path: String, form: [String: String]? = nil, json: String? = nil,
                 headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers = extra
        if !cookies.isEmpty { headers.replaceOrAdd(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        var body: ByteBuffer?
        if let form {
            var c = URLComponents()
            c.queryItems = form.map { URLQueryItem(name: $0.key, value: $0.value) }
            body = ByteBuffer(string: (c.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B"))
            headers.contentType = .urlEncodedForm
        }
        if let json {
            body = ByteBuffer(string: json)
            headers.contentType = .json
        }
        let res = try await app.testing().sendRequest(method, path, headers: headers, body: body)
        for cookie in res.headers[.setCookie] {
            let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || cookie.contains("Max-Age=0") { cookies.removeValue(forKey: name) } else { cookies[name] = value }
        }
        return res
    }

    func csrf(from path: String) async throws -> String {
        let page = try await request(.GET, path).text
        let marker = "name=\"_csrf\" value=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    func signUp(email: String = "ann@example.com") async throws {
        let res = try await post("/app/signup", from: "/app/signup", ["displayName": "Ann", "email": email, "password": "correct horse"])
        try #require(res.status == .seeOther, "\(res.text)")
    }

    func signIn(_ email: String, password: String = "correct horse") async throws {
        let res = try await post("/app/signin", from: "/app/signin", ["email": email, "password": password])
        try #require(res.status == .seeOther, "\(res.text)")
    }

    func post(_ path: String, from page: String, _ form: [String: String]) async throws -> TestingHTTPResponse {
        var form = form
        form["_csrf"] = try await csrf(from: page)
        return try await request(.POST, path, form: form)
    }
}

@Suite("Web app: pages, forms, sessions, CSRF, isolation")
struct WebTests {
    @Test("Page views render their models: the empty states, the swatch or '?', natural order, the stepper")
    func inventoryView() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ctx = PageContext(user: nil, csrf: "token-token-token-token-token-token")
        let empty = InventoryPage(threads: [], matching: 0, brands: [], search: "", brand: nil, fiber: nil, total: 0).render(ctx).render()
        #expect(empty.contains("No threads yet") && empty.contains("Tap + to add your first thread"))
        let threads = [InventoryThread(brand: "DMC", number: "310", colorName: "Black", colorHex: "#000000", fiberType: .cotton, quantity: 0, createdAt: now, updatedAt: now),
                       InventoryThread(brand: "DMC", number: "<b>2</b>", createdAt: now, updatedAt: now)]
        let html = InventoryPage(threads: threads, matching: 2, brands: ["DMC"], search: "", brand: nil, fiber: nil, total: 2).render(ctx).render()
        #expect(html.contains("background:#000000") && html.contains(">?</span>"))
        #expect(html.contains("Black · Cotton"))
        #expect(html.contains("&lt;b&gt;2&lt;/b&gt;") && !html.contains("<b>2</b>"))  // escaped
        #expect(html.contains("aria-label=\"One less DMC 310\"") && html.contains("disabled=\"disabled\""))
        #expect(html.contains("name=\"_csrf\" value=\"token-token-token-token-token-token\""))
        #expect(html.contains("aria-current=\"page\""))
        let stash = StashPage(canvases: [], search: "", total: 0).render(ctx).render()
        #expect(stash.contains("No canvases yet") && stash.contains("Tap + to add your first canvas"))
        let projects = ProjectsPage(projects: []).render(ctx).render()
        #expect(projects.contains("No projects yet") && projects.contains("Tap + to start a new project"))
        let start = StartProjectPage(available: []).render(ctx).render()
        #expect(start.contains("No available canvases") && start.contains("All canvases are already linked to projects. Add a new canvas first."))
        let delete = DeleteCanvasPage(canvas: Canvas(designer: "A", designName: "B", createdAt: now, updatedAt: now)).render(ctx).render()
        #expect(delete.contains("Are you sure you want to delete this canvas?"))
        let viewer = PhotoViewerPage(projectId: UUID(), title: "Nutcracker", images: (0..<5).map {
            JournalImage(entryId: UUID(), imageKey: "k\($0)", sortOrder: $0, createdAt: now, updatedAt: now) }, index: 1).render(ctx).render()
        #expect(viewer.contains(">2 of 5<") && viewer.contains("rel=\"prev\"") && viewer.contains("rel=\"next\""))
    }

    @Test("The inventory comes a page of rows at a time, searched and filtered on the server; every thread as JSON for the offline search (304 when unchanged, the owner's only)")
    func inventoryInPages() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            for n in 1...250 { try await ann.thread(n <= 240 ? "DMC" : "Anchor", String(n), quantity: n % 3) }
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            func rows(_ page: String) -> Int { page.components(separatedBy: "data-thread=\"").count - 1 }
            let first = try await web.request(.GET, "/app/inventory").text
            #expect(rows(first) == InventoryPage.pageSize && rows(first) == 100)
            #expect(first.contains("Showing 100 of 250 threads.") && first.contains("href=\"/app/inventory?shown=200\"") && first.contains("Show 100 more"))
            // In inventory order: Anchor's ten, then DMC 1, 2, … in natural order.
            #expect(first.contains("Anchor <span class=\"data\">241</span>") && first.contains("DMC <span class=\"data\">90</span>")
                    && !first.contains("DMC <span class=\"data\">91</span>"))
            let second = try await web.request(.GET, "/app/inventory?shown=200").text
            #expect(rows(second) == 200 && second.contains("Showing 200 of 250 threads.") && second.contains("Show 50 more")
                    && second.contains("href=\"/app/inventory?shown=300\""))
            let whole = try await web.request(.GET, "/app/inventory?shown=300").text
            #expect(rows(whole) == 250 && !whole.contains("id=\"more\""))
            // The search reaches every thread, not only the rows shown; a filter pages the same way.
            let found = try await web.request(.GET, "/app/inventory?q=239").text
            #expect(rows(found) == 1 && found.contains("DMC <span class=\"data\">239</span>") && !found.contains("Showing"))
            let dmc = try await web.request(.GET, "/app/inventory?brand=DMC").text
            #expect(rows(dmc) == 100 && dmc.contains("Showing 100 of 240 matching threads.") && dmc.contains("href=\"/app/inventory?brand=DMC&amp;shown=200\""))
            for odd in ["shown=-5", "shown=x", "shown=99999999999999999999"] {
                let page = try await web.request(.GET, "/app/inventory?\(odd)")
                #expect(page.status == .ok && rows(page.text) >= 100, "\(odd)")
            }

            // Every thread as JSON, in the same order, with what a row shows.
            let data = try await web.request(.GET, "/app/inventory.json")
            #expect(data.status == .ok && data.headers.contentType?.subType == "json")
            struct Kept: Decodable { struct Row: Decodable { var id: String; var brand: String; var number: String; var quantity: Int; var fiberType: String }; var threads: [Row] }
            let kept = try JSONDecoder().decode(Kept.self, from: Data(data.body.readableBytesView))
            #expect(kept.threads.count == 250 && kept.threads.first.map { "\($0.brand) \($0.number)" } == "Anchor 241")
            #expect(kept.threads.first { $0.number == "239" }?.quantity == 239 % 3)
            #expect(first.contains("data-thread=\"\(kept.threads[0].id)\"") && first.contains("data-thread=\"\(kept.threads[99].id)\"")
                    && !first.contains("data-thread=\"\(kept.threads[100].id)\""), "the page's rows are the JSON's first hundred, by the same ids")
            let etag = try #require(data.headers.first(name: .eTag))
            let again = try await web.request(.GET, "/app/inventory.json", headers: ["If-None-Match": etag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            try await ann.thread("DMC", "9999")
            let changed = try await web.request(.GET, "/app/inventory.json", headers: ["If-None-Match": etag])
            #expect(changed.status == .ok && changed.headers.first(name: .eTag) != etag && changed.text.contains("\"9999\""))

            // Someone else's inventory is their own; without a session, the sign-in page.
            _ = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bob = WebClient(app: app)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.request(.GET, "/app/inventory.json").text == "{\"threads\":[]}")
            #expect(try await WebClient(app: app).request(.GET, "/app/inventory.json").status == .seeOther)
        }
    }

    @Test("A project's thread requirement is picked from the inventory's list up to 300 threads; above, typed (brands offered) and linked to the owned thread on save")
    func requirementPickerScales() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let project = try await ann.project(canvas: try await ann.canvas())
            let owned = try await ann.thread("DMC", "3865", quantity: 2)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let path = "/app/projects/\(project.project.id.wireText)"
            let small = try await web.request(.GET, path).text
            #expect(small.contains("name=\"threadId\"") && small.contains(">DMC 3865</option>"))
            for n in 1...ProjectDetailPage.pickerLimit { try await ann.thread("Anchor", String(n)) }
            let big = try await web.request(.GET, path).text
            #expect(!big.contains("name=\"threadId\"") && big.contains("list=\"inventory-brands\"")
                    && big.contains("<option value=\"Anchor\">") && big.contains("<option value=\"DMC\">"))
            let added = try await web.post(path + "/needs", from: path, ["brand": "dmc", "number": " 3865 ", "quantityNeeded": "3", "sectionId": ""])
            #expect(added.status == .seeOther, "\(added.text)")
            // Typed in another case and with spaces: linked to the thread owned, spelled as it is.
            let needs = try await ann.get("/projects/\(project.project.id)/threads", as: [ProjectThread].self)
            #expect(needs.count == 1 && needs[0].threadId == owned.id && needs[0].brand == "DMC" && needs[0].number == "3865" && needs[0].quantityNeeded == 3)
            // One nobody owns stays typed, unlinked.
            _ = try await web.post(path + "/needs", from: path, ["brand": "Paternayan", "number": "220", "quantityNeeded": "1", "sectionId": ""])
            let both = try await ann.get("/projects/\(project.project.id)/threads", as: [ProjectThread].self)
            #expect(both.count == 2 && both.first { $0.brand == "Paternayan" }?.threadId == nil)
        }
    }

    @Test("Typed site URLs build the same paths the routes are registered with")
    func siteURLs() {
        #expect(SiteURL.thread("abc").path == "/app/inventory/abc")
        #expect(SiteURL.photo("p", "i").path == "/app/projects/p/photos/i")
        #expect(SiteURL.newThread.path(query: ["brand": "DMC & Co", "saved": nil]) == "/app/inventory/new?brand=DMC%20%26%20Co")
        #expect(SiteURL.thread(":id").route.map(\.description) == ["app", "inventory", ":id"])
    }

    @Test("Sign up, use the inventory through forms, sign out; sessions are HttpOnly SameSite=Lax cookies")
    func signUpAndUse() async throws {
        try await withTestApp { app, _ in
            let web = WebClient(app: app)
            #expect(try await web.request(.GET, "/app/inventory").status == .seeOther)
            let token = try await web.csrf(from: "/app/signup")
            let res = try await web.request(.POST, "/app/signup", form: ["_csrf": token, "displayName": "Ann", "email": "ann@example.com", "password": "correct horse"])
            #expect(res.status == .seeOther)
            let setCookie = res.headers[.setCookie].first { $0.hasPrefix("stitch_session=") } ?? ""
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
            #expect(try await web.request(.GET, "/app/inventory").text.contains("No threads yet"))

            var add = try await web.post("/app/inventory/new", from: "/app/inventory/new",
                                         ["brand": "DMC", "number": "310", "quantity": "1", "fiberType": "cotton", "addAnother": "on"])
            #expect(add.status == .seeOther)
            #expect(add.headers.first(name: .location)?.hasPrefix("/app/inventory/new?brand=DMC") == true)
            add = try await web.post("/app/inventory/new", from: "/app/inventory/new", ["brand": "DMC", "number": "", "quantity": "1"])
            #expect(add.status == .badRequest && add.text.contains("Number is required"))
            let list = try await web.request(.GET, "/app/inventory").text
            #expect(list.contains("DMC ") && list.contains(">310<"))

            let thread = try #require(try await ThreadModel.first(on: app.db))
            var step = try await web.post("/app/inventory/\(thread.id!)/step", from: "/app/inventory", ["delta": "-1"])
            #expect(step.status == .seeOther)
            step = try await web.post("/app/inventory/\(thread.id!)/step", from: "/app/inventory", ["delta": "-1"])
            #expect(try await ThreadModel.find(thread.id!, on: app.db)?.quantity == 0)
            // Steps at once (two tabs, a purchase landing meanwhile) all count: each adds to the
            // quantity its write reads, none overwrites another's.
            let stepToken = try await web.csrf(from: "/app/inventory")
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .cookie, value: web.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            headers.contentType = .urlEncodedForm
            headers.replaceOrAdd(name: .accept, value: "application/json")
            let stepHeaders = headers, stepPath = "/app/inventory/\(thread.id!)/step"
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let res = try await app.testing().sendRequest(.POST, stepPath, headers: stepHeaders,
                                                                      body: ByteBuffer(string: "_csrf=\(stepToken)&delta=1"))
                        return res.status == .ok ? "ok" : "\(res.status.code) \(res.body.string)"
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: "ok", count: 4))
            #expect(try await ThreadModel.find(thread.id!, on: app.db)?.quantity == 4)

            let out = try await web.post("/app/signout", from: "/app/settings", [:])
            #expect(out.status == .seeOther)
            #expect(try await web.request(.GET, "/app/inventory").status == .seeOther)
        }
    }

    @Test("A web session in use stays signed in: each day of use moves its end 30 days on, never past 180 days after the sign-in; unused for 30 days it ends")
    func slidingSession() async throws {
        try await withTestApp { app, clock in
            let web = WebClient(app: app)
            try await web.signUp()
            let signedIn = try #require(try await WebSessionModel.query(on: app.db).first())
            #expect(signedIn.expiresAt == signedIn.createdAt.addingTimeInterval(30 * 24 * 3600))
            // Used every 20 days for 160 days: never signed out, though 30 days have long passed since the sign-in.
            for _ in 0..<8 {
                clock.advance(by: 20 * 24 * 3600)
                let page = try await web.request(.GET, "/app/inventory")
                #expect(page.status == .ok, "signed out \(clock.now.timeIntervalSince(signedIn.createdAt) / 86400) days after the sign-in")
                #expect(page.headers[.setCookie].contains { $0.hasPrefix("stitch_session=") && $0.contains("HttpOnly") })
            }
            // The end never passes 180 days after the sign-in, however much it is used.
            let capped = try #require(try await WebSessionModel.query(on: app.db).first())
            #expect(capped.expiresAt == signedIn.createdAt.addingTimeInterval(180 * 24 * 3600))
            clock.advance(by: 21 * 24 * 3600)  // day 181
            #expect(try await web.request(.GET, "/app/inventory").status == .seeOther)

            // A session unused for 30 days ends.
            let idle = WebClient(app: app)
            try await idle.signIn("ann@example.com")
            #expect(try await idle.request(.GET, "/app/inventory").status == .ok)
            clock.advance(by: 30 * 24 * 3600 + 60)
            #expect(try await idle.request(.GET, "/app/inventory").status == .seeOther)
            // Pages on the same day don't write the session again.
            let today = WebClient(app: app)
            try await today.signIn("ann@example.com")
            let again = try await today.request(.GET, "/app/inventory")
            #expect(!again.headers[.setCookie].contains { $0.hasPrefix("stitch_session=") })
        }
    }

    @Test("Every state-changing form refuses a missing or wrong CSRF token, and changes nothing")
    func csrf() async throws {
        try await withTestApp { app, _ in
            let web = WebClient(app: app)
            try await web.signUp()
            let missing = try await web.request(.POST, "/app/inventory/new", form: ["brand": "DMC", "number": "1"])
            #expect(missing.status == .forbidden)
            #expect(missing.headers.contentType?.subType == "html" && missing.text.contains("This form has expired"))
            let wrong = try await web.request(.POST, "/app/inventory/new", form: ["_csrf": String(repeating: "x", count: 43), "brand": "DMC", "number": "1"])
            #expect(wrong.status == .forbidden)
            let anonymous = WebClient(app: app)
            let signIn = try await anonymous.request(.POST, "/app/signin", form: ["email": "ann@example.com", "password": "correct horse"])
            #expect(signIn.status == .forbidden)
            #expect(try await ThreadModel.count(on: app.db) == 0)
        }
    }

    @Test("Web pages never show or change another user's records: 404 pages")
    func isolation() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let data = try await OwnedData.make(for: ann)
            let bob = WebClient(app: app)
            try await bob.signUp(email: "bob@example.com")
            for path in ["/app/inventory/\(data.thread.id)", "/app/stash/\(data.canvas.id)", "/app/stash/\(data.canvas.id)/edit",
                         "/app/stash/\(data.canvas.id)/delete", "/app/projects/\(data.project.id)",
                         "/app/projects/\(data.project.id)/needs/\(data.requirement.id)",
                         "/app/projects/\(data.project.id)/photos/\(data.image.id)", "/app/images/\(data.imageKey)"] {
                let res = try await bob.request(.GET, path)
                #expect(res.status == .notFound, "\(path) → \(res.status)")
                #expect(!res.text.contains(data.canvas.designName))
            }
            for (path, form) in [("/app/inventory/\(data.thread.id)/step", ["delta": "5"]), ("/app/inventory/\(data.thread.id)/delete", [:]),
                                 ("/app/stash/\(data.canvas.id)/delete", [:]), ("/app/projects/\(data.project.id)/delete", [:]),
                                 ("/app/projects/\(data.project.id)/status", ["status": "completed"]),
                                 ("/app/projects/\(data.project.id)/sections", ["name": "Mine"]),
                                 ("/app/projects/\(data.project.id)/needs/\(data.requirement.id)/delete", [:]),
                                 ("/app/projects/\(data.project.id)/needs/\(data.requirement.id)", ["quantityNeeded": "9"]),
                                 ("/app/projects/\(data.project.id)/sections/\(data.section.id)", ["name": "Mine", "status": "completed"]),
                                 ("/app/projects/\(data.project.id)/sections/\(data.section.id)/move", ["direction": "up"]),
                                 ("/app/projects/\(data.project.id)/sections/\(data.section.id)/delete", [:]),
                                 ("/app/projects/\(data.project.id)/entries/\(data.entry.id)", ["notes": "Mine now"]),
                                 ("/app/projects/\(data.project.id)/entries/\(data.entry.id)/delete", [:]),
                                 ("/app/projects/\(data.project.id)/notes", ["notes": "Mine"])] {
                let res = try await bob.post(path, from: "/app/settings", form)
                #expect(res.status == .notFound, "\(path) → \(res.status)")
            }
            #expect(try await bob.request(.GET, "/app/inventory").text.contains("No threads yet"))
            #expect(try await ann.get("/threads/\(data.thread.id)", as: InventoryThread.self).quantity == 2)
            #expect(try await ann.get("/projects/\(data.project.id)", as: ProjectDetail.self).project.status == .wip)
            #expect(try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self) == [data.section])
            #expect(try await ann.get("/projects/\(data.project.id)/threads", as: [ProjectThread].self) == [data.requirement])
            #expect(try await ann.get("/projects/\(data.project.id)/entries", as: [JournalEntryDetail].self).map(\.entry.notes) == [data.entry.notes])
        }
    }

    @Test("Static assets: the stylesheet comes from the design tokens, fonts and script are served")
    func assets() async throws {
        try await withTestApp { app, _ in
            let css = try await app.send(.GET, "/app/static/app.css")
            #expect(css.status == .ok && css.text.contains("--color-linen: #F5F0E8;"))
            #expect(try await app.send(.GET, "/app/static/app.js").status == .ok)
            // WOFF2, subset to Latin: a first visit moves tens of kilobytes of fonts, not 1.5 MB.
            var fontBytes = 0
            for name in ["PlayfairDisplay", "SourceSerif4"] {
                let font = try await app.send(.GET, "/app/static/fonts/\(name).woff2")
                #expect(font.status == .ok && font.headers.first(name: .contentType) == "font/woff2" && font.body.getString(at: 0, length: 4) == "wOF2")
                fontBytes += font.body.readableBytes
            }
            #expect(fontBytes > 20_000 && fontBytes < 120_000, "\(fontBytes)")
            #expect(try await app.send(.GET, "/app/static/fonts/PlayfairDisplay.ttf").status == .notFound)
            let page = try await app.send(.GET, "/app/signin")
            #expect(page.text.contains(#"rel="preload" href="/app/static/fonts/SourceSerif4.woff2" as="font""#))
            #expect(try await app.send(.GET, "/app/static/fonts/..%2F..%2Fopenapi.json").status == .notFound)
            let missing = try await app.send(.GET, "/app/no-such-page")
            #expect(missing.status == .notFound && missing.text.contains("We couldn&#39;t find that page"), "\(missing.text)")
        }
    }
}

@Suite("Web: Sign in with Apple", .serialized)
struct AppleWebTests {
    @Test("The button appears when configured; Apple's form post with a valid token and state signs in")
    func appleFlow() async throws {
        let fake = try await FakeProviders.start()
        do {
            try await withTestApp(adjust: { config in
                fake.configure(&config)
                config.apple?.webRedirectURI = "https://stitch.example/app/signin/apple/callback"
            }) { app, clock in
                let web = WebClient(app: app)
                let page = try await web.request(.GET, "/app/signin").text
                #expect(page.contains("Sign in with Apple"))
                let start = try await web.post("/app/signin/apple", from: "/app/signin", [:])
                let location = try #require(start.headers.first(name: .location))
                #expect(location.hasPrefix("https://appleid.apple.com/auth/authorize?"))
                let query = try #require(URLComponents(string: location)?.queryItems)
                let state = try #require(query.first { $0.name == "state" }?.value)
                let hashedNonce = try #require(query.first { $0.name == "nonce" }?.value)
                #expect(query.first { $0.name == "client_id" }?.value == "com.stitchuation.app")
                #expect(query.first { $0.name == "response_mode" }?.value == "form_post")

                let token = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: hashedNonce, email: "ann@privaterelay.appleid.com")
                // Login CSRF: the attacker's own state and token, posted from the victim's browser
                // (which never started a sign-in), sign nobody in.
                let victim = WebClient(app: app)
                let csrf = try await victim.request(.POST, "/app/signin/apple/callback", form: ["state": state, "id_token": token])
                #expect(csrf.status == .unauthorized && csrf.headers.setCookie?["stitch_session"] == nil)
                // The browser that started it brings the flow's cookie (SameSite=None over HTTPS: Apple's post is cross-site).
                let flow = try #require(start.headers.setCookie?["stitch_apple_flow"])
                #expect(flow.isHTTPOnly && flow.path == "/app/signin/apple")
                let callback = web
                let ok = try await callback.request(.POST, "/app/signin/apple/callback",
                                                    form: ["state": state, "id_token": token, "user": #"{"name":{"firstName":"Ann","lastName":"Stitcher"}}"#])
                #expect(ok.status == .seeOther && ok.headers.first(name: .location) == "/app/inventory")
                #expect(try await callback.request(.GET, "/app/inventory").status == .ok)
                #expect(try await UserModel.query(on: app.db).first()?.displayName == "Ann Stitcher")
                // Each state once: the same post again (its cookie kept by hand) is refused.
                let replay = WebClient(app: app)
                replay.cookies["stitch_apple_flow"] = flow.string
                #expect(try await replay.request(.POST, "/app/signin/apple/callback", form: ["state": state, "id_token": token]).status == .unauthorized)

                let forged = try await WebClient(app: app).request(.POST, "/app/signin/apple/callback", form: ["state": state + "x", "id_token": token])
                #expect(forged.status == .unauthorized)
                let otherNonce = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: "something-else")
                let mismatch = try await WebClient(app: app).request(.POST, "/app/signin/apple/callback", form: ["state": state, "id_token": otherNonce])
                #expect(mismatch.status == .unauthorized)
                clock.advance(by: 11 * 60)
                let stale = try await WebClient(app: app).request(.POST, "/app/signin/apple/callback", form: ["state": state, "id_token": token])
                #expect(stale.status == .unauthorized)
            }
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }
}

@Suite("Web: Instagram and TikTok sign-in (OAuth authorization code, state bound to the browser, PKCE for TikTok)", .serialized)
struct OAuthWebTests {
    /// The `state` of the provider's authorize URL a start answered with.
    static func state(_ start: TestingHTTPResponse) throws -> String {
        let location = try #require(start.headers.first(name: .location))
        return try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
    }

    @Test("Each button goes to its provider with a signed state; the code comes back, is exchanged, and signs in — the same account next time; forged, foreign, stale or refused ones don't")
    func oauthFlow() async throws {
        let fake = try await FakeProviders.start()
        do {
            try await withTestApp(adjust: { config in
                fake.configure(&config)
                config.instagram?.authorizeURL = "https://www.instagram.com/oauth/authorize"
                config.instagram?.webRedirectURI = "https://stitch.example/app/signin/instagram/callback"
                config.tiktok?.authorizeURL = "https://www.tiktok.com/v2/auth/authorize/"
                config.tiktok?.webRedirectURI = "https://stitch.example/app/signin/tiktok/callback"
            }) { app, clock in
                for (provider, code, name) in [("instagram", "good-ig-code", "stitchy_ig"), ("tiktok", "good-tt-code", "Stitchy TT")] {
                    let web = WebClient(app: app)
                    let page = try await web.request(.GET, "/app/signin").text
                    #expect(page.contains("Continue with Instagram") && page.contains("Continue with TikTok"))
                    let start = try await web.post("/app/signin/\(provider)", from: "/app/signin", [:])
                    let location = try #require(start.headers.first(name: .location))
                    let query = try #require(URLComponents(string: location)?.queryItems)
                    func item(_ name: String) -> String? { query.first { $0.name == name }?.value }
                    let state = try #require(item("state"))
                    #expect(item("redirect_uri") == "https://stitch.example/app/signin/\(provider)/callback" && item("response_type") == "code")
                    if provider == "tiktok" {
                        #expect(location.hasPrefix("https://www.tiktok.com/v2/auth/authorize/?") && item("client_key") == "tt-client")
                        #expect(item("code_challenge_method") == "S256" && item("code_challenge")?.count == 43)
                    } else {
                        #expect(location.hasPrefix("https://www.instagram.com/oauth/authorize?") && item("client_id") == "ig-client")
                    }

                    // Someone else's browser can't use this state: the nonce cookie is this one's.
                    let stranger = try await WebClient(app: app).request(.GET, "/app/signin/\(provider)/callback?code=\(code)&state=\(state)")
                    #expect(stranger.status == .unauthorized && stranger.text.contains("couldn"))
                    // Forged state, a refused code, the provider's own refusal: no session.
                    for bad in ["code=\(code)&state=\(state)x", "code=bad-code&state=\(state)", "error=access_denied&state=\(state)"] {
                        let res = try await web.request(.GET, "/app/signin/\(provider)/callback?\(bad)")
                        #expect(res.status == .unauthorized, "\(bad) → \(res.status)")
                        #expect(try await web.request(.GET, "/app/inventory").status == .seeOther)
                        // A failure clears the cookie: start again for the next try.
                        _ = try await web.post("/app/signin/\(provider)", from: "/app/signin", [:])
                    }
                    let again = try await web.post("/app/signin/\(provider)", from: "/app/signin", [:])
                    let fresh = try Self.state(again)
                    let ok = try await web.request(.GET, "/app/signin/\(provider)/callback?code=\(code)&state=\(fresh)")
                    #expect(ok.status == .seeOther && ok.headers.first(name: .location) == "/app/inventory", "\(ok.text)")
                    #expect(try await web.request(.GET, "/app/inventory").status == .ok)
                    #expect(try await UserModel.query(on: app.db).all().contains { $0.displayName == name })
                }
                // Signing in again with the same identity is the same account.
                let count = try await UserModel.query(on: app.db).count()
                let web = WebClient(app: app)
                let start = try await web.post("/app/signin/instagram", from: "/app/signin", [:])
                let state = try Self.state(start)
                clock.advance(by: 11 * 60)
                #expect(try await web.request(.GET, "/app/signin/instagram/callback?code=good-ig-code&state=\(state)").status == .unauthorized, "stale")
                let start2 = try await web.post("/app/signin/instagram", from: "/app/signin", [:])
                let state2 = try Self.state(start2)
                #expect(try await web.request(.GET, "/app/signin/instagram/callback?code=good-ig-code&state=\(state2)").status == .seeOther)
                #expect(try await UserModel.query(on: app.db).count() == count)
                #expect(try await WebClient(app: app).request(.GET, "/app/signin/mastodon/callback?code=x&state=y").status == .notFound)
            }
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }
}

@Suite("Web: every part of a project is edited where it is shown")
struct WebEditingTests {
    /// Ann's project with two sections, a requirement and a journal entry with a photo, and her web session.
    static func setUp(_ app: Application) async throws -> (TestUser, WebClient, OwnedData, ProjectSection) {
        let ann = try await TestUser.make(app)
        let data = try await OwnedData.make(for: ann)
        let second = try await ann.create("/projects/\(data.project.id)/sections", ["name": "Background"], as: ProjectSection.self)
        let web = WebClient(app: app)
        try await web.signIn("ann@example.com")
        return (ann, web, data, second)
    }

    @Test("A project without a canvas has a size and mesh of its own: set over the API and on its page, shown, cleared; one with a canvas has the canvas's")
    func projectSize() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, _) = try await Self.setUp(app)
            let fox = try await ann.create("/projects", ["name": "Fox chart", "size": "10x10 in", "meshCount": 18], as: ProjectDetail.self).project
            #expect(fox.size == "10x10 in" && fox.meshCount == 18)
            let page = "/app/projects/\(fox.id.wireText)"
            var shown = try await web.request(.GET, page).text
            #expect(shown.contains("<dd>18 mesh</dd>") && shown.contains("<dd>10x10 in</dd>") && shown.contains("Change size and mesh"))
            var res = try await web.post("\(page)/size", from: page, ["size": "14×18 in", "meshCount": "13"])
            #expect(res.status == .seeOther && res.headers.first(name: .location) == "\(page)#project-facts")
            var saved = try await ann.get("/projects/\(fox.id.wireText)", as: ProjectDetail.self).project
            #expect(saved.size == "14×18 in" && saved.meshCount == 13)
            shown = try await web.request(.GET, page).text
            #expect(shown.contains("<dd>13 mesh</dd>") && shown.contains("value=\"14×18 in\""))

            // Bad input says what is wrong and changes nothing.
            let version = try await ann.syncVersion()
            for mesh in ["thirteen", "0", "500"] {
                res = try await web.post("\(page)/size", from: page, ["size": "x", "meshCount": mesh])
                #expect(res.status == .badRequest && res.text.contains("aria-invalid"), "\(mesh)")
            }
            // A project with a canvas shows the canvas's and has no form of its own.
            let withCanvas = "/app/projects/\(data.project.id.wireText)"
            #expect(!(try await web.request(.GET, withCanvas).text.contains("f-project-size")))
            res = try await web.post("\(withCanvas)/size", from: withCanvas, ["size": "1x1 in", "meshCount": "10"])
            #expect(res.status == .badRequest && res.text.contains("change it on the canvas"))
            // Another account's project is not found.
            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            let beaWeb = WebClient(app: app)
            try await beaWeb.signIn("bea@example.com")
            res = try await beaWeb.post("\(page)/size", from: "/app/projects/start", ["size": "mine now", "meshCount": "10"])
            #expect(res.status == .notFound)
            #expect(try await ann.syncVersion() == version)
            _ = bea

            // Blank clears both.
            res = try await web.post("\(page)/size", from: page, ["size": "", "meshCount": ""])
            saved = try await ann.get("/projects/\(fox.id.wireText)", as: ProjectDetail.self).project
            #expect(res.status == .seeOther && saved.size == nil && saved.meshCount == nil)
            #expect(try await web.request(.GET, page).text.contains("Add size and mesh"))
        }
    }

    @Test("Sections: rename and status, move up and down (one order for every device), delete keeping its threads")
    func sections() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, second) = try await Self.setUp(app)
            let page = "/app/projects/\(data.project.id)"
            let base = "\(page)/sections/\(data.section.id)"
            var res = try await web.post(base, from: page, ["name": "Outer border", "status": "in_progress"])
            #expect(res.status == .seeOther && res.headers.first(name: .location) == "/app/projects/\(data.project.id.wireText)#threads")
            var sections = try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)
            #expect(sections.map(\.name) == ["Outer border", "Background"] && sections[0].status == .inProgress)
            let shown = try await web.request(.GET, page).text
            #expect(shown.contains("Outer border") && shown.contains("In progress") && shown.contains("Edit section"))
            #expect(!shown.contains("class=\"muted section-notes\""))

            // Notes: written on the section's form, shown under its heading, kept when a form without them is sent, cleared when blank.
            res = try await web.post(base, from: page, ["name": "Outer border", "status": "in_progress", "notes": "Basketweave, left side first"])
            #expect(res.status == .seeOther)
            #expect(try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)[0].notes == "Basketweave, left side first")
            let noted = try await web.request(.GET, page).text
            #expect(noted.contains("<p class=\"muted section-notes\">Basketweave, left side first</p>"), "\(noted)")
            #expect(noted.contains("id=\"f-section-notes-\(data.section.id.wireText)\""))
            res = try await web.post(base, from: page, ["name": "Outer border", "status": "in_progress"])
            #expect(try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)[0].notes == "Basketweave, left side first")
            res = try await web.post(base, from: page, ["name": "Outer border", "status": "in_progress", "notes": "  "])
            #expect(try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)[0].notes == nil)

            // Bad input: a blank name or an unknown status changes nothing and says what is wrong.
            let version = try await ann.syncVersion()
            res = try await web.post(base, from: page, ["name": "", "status": "in_progress"])
            #expect(res.status == .badRequest && res.text.contains("Please check"))
            res = try await web.post(base, from: page, ["name": "Border", "status": "half_done"])
            #expect(res.status == .badRequest)
            res = try await web.post("\(base)/move", from: page, ["direction": "sideways"])
            #expect(res.status == .badRequest)
            #expect(try await ann.syncVersion() == version)

            res = try await web.post("\(page)/sections/\(second.id)/move", from: page, ["direction": "up"])
            #expect(res.status == .seeOther)
            sections = try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)
            #expect(sections.map(\.name) == ["Background", "Outer border"] && sections.map(\.sortOrder) == [0, 1])
            // Already first: nothing changes, and no version is taken.
            let before = try await ann.syncVersion()
            res = try await web.post("\(page)/sections/\(second.id)/move", from: page, ["direction": "up"])
            let after = try await ann.syncVersion()
            #expect(res.status == .seeOther && after == before)
            res = try await web.post("\(base)/move", from: page, ["direction": "up"])
            sections = try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)
            #expect(sections.map(\.name) == ["Outer border", "Background"])

            res = try await web.post("\(base)/delete", from: page, [:])
            #expect(res.status == .seeOther)
            sections = try await ann.get("/projects/\(data.project.id)/sections", as: [ProjectSection].self)
            #expect(sections.map(\.name) == ["Background"])
            let requirement = try await ann.get("/projects/\(data.project.id)/threads", as: [ProjectThread].self)
            #expect(requirement.count == 1 && requirement[0].sectionId == nil, "the thread stays with the project")
            #expect(try await web.request(.GET, page).text.contains("Other threads"))
        }
    }

    @Test("Requirements: quantity, colour name and notes changed, bad quantities refused, the readiness follows")
    func requirements() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, _) = try await Self.setUp(app)
            let page = "/app/projects/\(data.project.id)"
            let path = "\(page)/needs/\(data.requirement.id)"
            // The project's page links each thread to its own edit page: no edit fields per row.
            let project = try await web.request(.GET, page).text
            #expect(project.contains("href=\"/app/projects/\(data.project.id.wireText)/needs/\(data.requirement.id.wireText)\""))
            #expect(project.components(separatedBy: "name=\"quantityNeeded\"").count == 2, "only the form that adds a thread")
            let editing = try await web.request(.GET, path)
            #expect(editing.status == .ok && editing.text.contains("name=\"quantityNeeded\"") && editing.text.contains("value=\"\(data.requirement.quantityNeeded)\""))
            #expect(try await web.request(.GET, "\(page)/needs/\(UUID().uuidString)").status == .notFound)
            var res = try await web.post(path, from: path, ["quantityNeeded": "1", "colorName": "Raven", "notes": "Two plies, tent stitch"])
            #expect(res.status == .seeOther)
            var saved = try await ann.get("/projects/\(data.project.id)/threads", as: [ProjectThread].self)[0]
            #expect(saved.quantityNeeded == 1 && saved.colorName == "Raven" && saved.notes == "Two plies, tent stitch")
            let readiness = try await ann.get("/projects/\(data.project.id)/readiness", as: ProjectReadiness.self)
            #expect(readiness.color == .green, "2 owned, 1 needed")
            let shown = try await web.request(.GET, page).text
            #expect(shown.contains("Two plies, tent stitch") && shown.contains("Raven"))

            let version = try await ann.syncVersion()
            for bad in ["0", "-3", "lots", ""] {
                res = try await web.post(path, from: path, ["quantityNeeded": bad, "colorName": "Other"])
                #expect(res.status == .badRequest, "\(bad) → \(res.status)")
                // Refused on the thread's page, what was sent kept in its fields.
                #expect(res.text.contains("aria-invalid") && res.text.contains("value=\"Other\"") && res.text.contains("value=\"\(bad)\""))
            }
            #expect(try await ann.syncVersion() == version)
            // Empty texts clear them.
            res = try await web.post(path, from: page, ["quantityNeeded": "3", "colorName": "", "notes": ""])
            saved = try await ann.get("/projects/\(data.project.id)/threads", as: [ProjectThread].self)[0]
            #expect(saved.quantityNeeded == 3 && saved.colorName == nil && saved.notes == nil)
        }
    }

    @Test("Journal entries edited and deleted with their photos; the project's notes and facts shown and edited")
    func journalAndNotes() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, _) = try await Self.setUp(app)
            let page = "/app/projects/\(data.project.id)"
            var shown = try await web.request(.GET, page).text
            #expect(shown.contains("Melissa Shirley") && shown.contains("18 mesh") && shown.contains("No notes yet."))

            var res = try await web.post("\(page)/entries/\(data.entry.id)", from: page, ["notes": "Day one: the border begun"])
            #expect(res.status == .seeOther && res.headers.first(name: .location) == "/app/projects/\(data.project.id.wireText)#journal")
            var entries = try await ann.get("/projects/\(data.project.id)/entries", as: [JournalEntryDetail].self)
            #expect(entries.map(\.entry.notes) == ["Day one: the border begun"] && entries[0].images.count == 1)

            res = try await web.post("\(page)/notes", from: page, ["notes": "Gift for Mum.\nFinish by May."])
            #expect(res.status == .seeOther)
            #expect(try await ann.get("/projects/\(data.project.id)", as: ProjectDetail.self).project.notes == "Gift for Mum.\nFinish by May.")
            shown = try await web.request(.GET, page).text
            #expect(shown.contains("Gift for Mum.") && !shown.contains("No notes yet."))

            res = try await web.post("\(page)/entries/\(data.entry.id)/delete", from: page, [:])
            #expect(res.status == .seeOther)
            entries = try await ann.get("/projects/\(data.project.id)/entries", as: [JournalEntryDetail].self)
            #expect(entries.isEmpty)
            let image = try #require(try await JournalImageModel.find(data.image.id, on: app.db))
            #expect(image.deletedAt != nil, "the entry's photo goes with it")
            res = try await web.post("\(page)/notes", from: page, ["notes": ""])
            #expect(try await ann.get("/projects/\(data.project.id)", as: ProjectDetail.self).project.notes == nil)
        }
    }

    @Test("An entry's photos on the web: more added later (after the others), one moved earlier or later (one order, one sync version), one removed; a bad picture says so and stores nothing; another's entry is a 404")
    func entryPhotos() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, _) = try await Self.setUp(app)
            let page = "/app/projects/\(data.project.id)"
            let photos = "\(page)/entries/\(data.entry.id)/photos"
            func order() async throws -> [UUID] {
                try await ann.get("/projects/\(data.project.id)/entries", as: [JournalEntryDetail].self)[0].images.map(\.id)
            }
            let shown = try await web.request(.GET, page).text
            #expect(shown.contains("aria-label=\"Move photo 1 earlier\"") && shown.contains("Remove photo 1") && shown.contains("Add photos"))
            var res = try await web.upload(photos, from: page, file: (name: "images", filename: "two.png", data: Fixtures.png))
            #expect(res.status == .seeOther && res.headers.first(name: .location) == "/app/projects/\(data.project.id.wireText)#journal", "\(res.text)")
            res = try await web.upload(photos, from: page, file: (name: "images", filename: "three.jpg", data: Fixtures.jpeg))
            let three = try await order()
            #expect(three.count == 3 && three[0] == data.image.id, "added after the one it had")

            // The last one earlier: [a, c, b]; the first earlier again: nothing moves.
            let version = try await ann.syncVersion()
            res = try await web.post("\(photos)/\(three[2].wireText)/move", from: page, ["direction": "earlier"])
            #expect(res.status == .seeOther)
            #expect(try await order() == [three[0], three[2], three[1]])
            #expect(try await ann.syncVersion() == version + 1, "one write for the new order")
            let entries = try await ann.get("/projects/\(data.project.id)/entries", as: [JournalEntryDetail].self)
            #expect(entries[0].images.map(\.sortOrder) == [0, 1, 2])
            _ = try await web.post("\(photos)/\(three[0].wireText)/move", from: page, ["direction": "earlier"])
            let unmoved = try await order(), unchanged = try await ann.syncVersion()
            #expect(unmoved == [three[0], three[2], three[1]] && unchanged == version + 1)
            res = try await web.post("\(photos)/\(three[0].wireText)/move", from: page, ["direction": "sideways"])
            #expect(res.status == .badRequest)

            // Removed: the entry and the others stay.
            res = try await web.post("\(photos)/\(three[2].wireText)/delete", from: page, [:])
            let left = try await order()
            #expect(res.status == .seeOther && left == [three[0], three[1]])

            // Not a picture: said on the page, nothing stored.
            let before = try await ann.syncVersion()
            res = try await web.upload(photos, from: page, file: (name: "images", filename: "notes.png", data: Data("not a picture".utf8)))
            let after = try await ann.syncVersion()
            #expect(res.status != .seeOther && res.text.contains("Journal") && after == before, "\(res.status)")
            #expect(try await order().count == 2)

            // Someone else's entry and photos are not there for Bob.
            _ = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let bob = WebClient(app: app)
            try await bob.signIn("bob@example.com")
            #expect(try await bob.post("\(photos)/\(three[0].wireText)/move", from: "/app/inventory/new", ["direction": "later"]).status == .notFound)
            #expect(try await bob.post("\(photos)/\(three[0].wireText)/delete", from: "/app/inventory/new", [:]).status == .notFound)
            #expect(try await bob.upload(photos, from: "/app/inventory/new", file: (name: "images", filename: "x.png", data: Fixtures.png)).status == .notFound)
            #expect(try await order() == [three[0], three[1]])
        }
    }

    @Test("Plan a project, start it (dated today), set its dates by hand; a journal entry dated the day it tells of")
    func planAndDates() async throws {
        try await withTestApp { app, clock in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            var res = try await web.post("/app/projects/start", from: "/app/projects/start", ["canvasId": canvas.id.uuidString, "status": "planned"])
            #expect(res.status == .seeOther)
            let page = try #require(res.headers.first(name: .location))
            let id = try #require(UUID(uuidString: String(page.split(separator: "/").last!)))
            var shown = try await web.request(.GET, page).text
            #expect(shown.contains("badge planned") && shown.contains("Planned") && !shown.contains("Change dates"))
            #expect(try await web.request(.GET, "/app/projects").text.contains("Planned "))
            // The project list is grouped by status: being stitched first, then planned, at finishing, completed.
            let other = try await ann.project(canvas: try await ann.canvas("Santa", designer: "Kirk & Bradley")).project
            let list = try await web.request(.GET, "/app/projects").text
            let stitching = try #require(list.range(of: "data-status=\"wip\"")), plannedGroup = try #require(list.range(of: "data-status=\"planned\""))
            #expect(stitching.lowerBound < plannedGroup.lowerBound && list.contains("Stitching") && list.contains(other.id.wireText))

            clock.advance(by: 600)
            res = try await web.post("\(page)/status", from: page, ["status": "wip"])
            var project = try await ann.get("/projects/\(id)", as: ProjectDetail.self).project
            #expect(project.status == .wip && project.startedAt == clock.now)
            shown = try await web.request(.GET, page).text
            #expect(shown.contains("Change dates"))

            res = try await web.post("\(page)/dates", from: page, ["startedAt": "2026-01-05"])
            #expect(res.status == .seeOther)
            project = try await ann.get("/projects/\(id)", as: ProjectDetail.self).project
            #expect(Timestamp.string(from: project.startedAt) == "2026-01-05T00:00:00.000Z")
            for bad in [["startedAt": "5 January"], ["startedAt": ""], ["startedAt": "2026-01-05", "completedAt": "2025-01-01"]] {
                res = try await web.post("\(page)/dates", from: page, bad)
                #expect(res.status == .badRequest || (res.status == .seeOther && bad["completedAt"] != nil), "\(bad) → \(res.status)")
            }
            // A completed date is only taken once the project is completed (ignored before).
            #expect(try await ann.get("/projects/\(id)", as: ProjectDetail.self).project.completedAt == nil)
            _ = try await web.post("\(page)/status", from: page, ["status": "completed"])
            res = try await web.post("\(page)/dates", from: page, ["startedAt": "2026-01-05", "finishingAt": "2026-03-01", "completedAt": "2026-01-01"])
            #expect(res.status == .badRequest && res.text.contains("Completed date can&#39;t be before the start date"), "\(res.text)")

            res = try await web.post("\(page)/entries", from: page, ["notes": "Bought the threads", "date": "2026-01-04"])
            #expect(res.status == .seeOther)
            var entry = try await ann.get("/projects/\(id)/entries", as: [JournalEntryDetail].self)[0].entry
            #expect(Timestamp.string(from: entry.createdAt) == "2026-01-04T12:00:00.000Z")
            res = try await web.post("\(page)/entries/\(entry.id)", from: page, ["notes": "Bought the threads", "date": "2026-01-03"])
            entry = try await ann.get("/projects/\(id)/entries", as: [JournalEntryDetail].self)[0].entry
            #expect(Timestamp.string(from: entry.createdAt) == "2026-01-03T12:00:00.000Z")
            res = try await web.post("\(page)/entries/\(entry.id)", from: page, ["notes": "Bought the threads", "date": "someday"])
            #expect(res.status == .badRequest)
        }
    }

    @Test("Canvas batch entry: 'Add another' comes back with the designer kept and the design name to type")
    func canvasAddAnother() async throws {
        try await withTestApp { app, _ in
            let web = WebClient(app: app)
            try await web.signUp()
            let res = try await web.post("/app/stash/new", from: "/app/stash/new",
                                         ["designer": "Melissa Shirley", "designName": "Nutcracker", "addAnother": "on"])
            #expect(res.status == .seeOther)
            let next = try #require(res.headers.first(name: .location))
            let page = try await web.request(.GET, next).text
            #expect(page.contains("value=\"Melissa Shirley\"") && page.contains("Added Nutcracker."), "\(next)")
            #expect(!page.contains("value=\"Nutcracker\""))
        }
    }

    @Test("Adding a thread you have: the form offers to add to it (409), merging adds the quantity; no second copy")
    func duplicateThread() async throws {
        try await withTestApp { app, _ in
            let (ann, web, data, _) = try await Self.setUp(app)
            var res = try await web.post("/app/inventory/new", from: "/app/inventory/new", ["brand": "dmc", "number": " 310", "quantity": "3"])
            #expect(res.status == .conflict)
            #expect(res.text.contains("You have DMC 310 already") && res.text.contains("Add 3 to it"), "\(res.text)")
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 1)
            res = try await web.post("/app/inventory/new", from: "/app/inventory/new", ["brand": "dmc", "number": " 310", "quantity": "3", "merge": "on"])
            #expect(res.status == .seeOther && res.headers.first(name: .location)?.contains("you%20have%205%20now") == true, "\(res.headers)")
            let threads = try await ann.get("/threads", as: [InventoryThread].self)
            #expect(threads.count == 1 && threads[0].id == data.thread.id && threads[0].quantity == 5)
        }
    }
}

@Suite("Web: messages after a redirect are the server's own")
struct FlashTests {
    @Test("A link with words of someone else's in ?flash= shows nothing; the server's own message (signed) shows")
    func signedFlash() async throws {
        try await withTestApp { app, _ in
            let web = WebClient(app: app)
            try await web.signUp()
            let phishing = "Your account is locked: call +1 555 0100 with your password"
            let crafted = try await web.request(.GET, "/app/inventory?flash=" + (phishing.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(crafted.status == .ok && !crafted.text.contains("call +1 555"))
            let forged = try await web.request(.GET, "/app/inventory?flash=Hello&fs=AAAAAAAAAAAAAAAAAAAAAA")
            #expect(!forged.text.contains(">Hello<"))
            let added = try await web.post("/app/shopping/add", from: "/app/shopping", ["brand": "DMC", "number": "310", "quantity": "2"])
            let location = try #require(added.headers.first(name: .location))
            #expect(location.contains("fs="), "\(location)")
            let shown = try await web.request(.GET, location)
            #expect(shown.text.contains("class=\"flash\""), "\(shown.text.prefix(300))")
        }
    }

    @Test("CSRF tokens are bound to the session: a tossed cookie with its own value, or another session's token, is refused; over HTTPS the cookies are __Host-")
    func boundCSRF() async throws {
        try await withTestApp { app, _ in
            let ann = WebClient(app: app)
            try await ann.signUp()
            let token = try await ann.csrf(from: "/app/shopping")
            // Double submit alone would take this: a value a neighbouring site set as the cookie, and the same in the form.
            let tossed = WebClient(app: app)
            tossed.cookies = ann.cookies
            tossed.cookies["stitch_csrf"] = String(repeating: "t", count: 43)
            let planted = try await tossed.request(.POST, "/app/shopping/add", form: ["_csrf": String(repeating: "t", count: 43), "brand": "DMC", "number": "1", "quantity": "1"])
            #expect(planted.status == .forbidden, "\(planted.status)")
            // Ann's own token still works, and not after her session changes.
            #expect(try await ann.request(.POST, "/app/shopping/add", form: ["_csrf": token, "brand": "DMC", "number": "310", "quantity": "1"]).status == .seeOther)
            let other = WebClient(app: app)
            try await other.signUp(email: "bob@example.com")
            other.cookies["stitch_csrf"] = ann.cookies["stitch_csrf"]
            #expect(try await other.request(.POST, "/app/shopping/add", form: ["_csrf": token, "brand": "DMC", "number": "1", "quantity": "1"]).status == .forbidden)
            let secure = try await WebClient(app: app).request(.GET, "/app/signin", headers: ["X-Forwarded-Proto": "https"])
            #expect(secure.headers[.setCookie].contains { $0.hasPrefix("__Host-stitch_csrf=") && $0.contains("Secure") && $0.contains("Path=/") }, "\(secure.headers[.setCookie])")
        }
    }

    @Test("Settings shows the version (one place: StitchVersion) and the commit, as `stitchuation --version` prints them")
    func version() async throws {
        try await withTestApp { app, _ in
            let web = WebClient(app: app)
            try await web.signUp()
            let settings = try await web.request(.GET, "/app/settings").text
            #expect(settings.contains("Stitchuation \(StitchVersion.current) (commit \(BuildStamp.commit))"))
            if let commit = checkoutCommit() { #expect(BuildStamp.commit.hasPrefix(commit)) }
        }
    }
}
