import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// The web app's side of one account however they sign in: Settings' "Ways to sign in", adding a
/// provider from there, the merge it offers, and a provider sign-in meeting an account's address.
@Suite("Web: ways to sign in, merge, and a sign-in meeting an account's address", .serialized)
struct SignInMethodWebTests {
    func withWebProviders(_ body: (Application, TestClock) async throws -> Void) async throws {
        try await withFakeProviders(adjust: { config in
            config.apple?.webRedirectURI = "https://stitch.example/app/signin/apple/callback"
            config.instagram?.webRedirectURI = "https://stitch.example/app/signin/instagram/callback"
            config.tiktok?.webRedirectURI = "https://stitch.example/app/signin/tiktok/callback"
        }, body)
    }

    /// "Add <provider>" on Settings, through the provider and back: the callback's answer.
    func add(_ provider: String, code: String, web: WebClient) async throws -> TestingHTTPResponse {
        let start = try await web.post("/app/signin/\(provider)", from: "/app/settings", ["intent": "link"])
        #expect(start.headers.setCookie?["stitch_link"]?.isHTTPOnly == true)
        let state = try OAuthWebTests.state(start)
        return try await web.request(.GET, "/app/signin/\(provider)/callback?code=\(code)&state=\(state)")
    }

    @Test("Settings lists the ways in; Add Instagram links it; a sign-in that opens another account offers the merge, which brings it in; Remove never takes the last")
    func settingsFlow() async throws {
        try await withWebProviders { app, _ in
            let ann = try await TestUser.make(app)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            var page = try await web.request(.GET, "/app/settings").text
            #expect(page.contains("Ways to sign in") && page.contains("Email and password") && page.contains("Add Instagram") && page.contains("Add Apple"))
            #expect(!page.contains("Remove password"), "the only way in has no Remove")

            let added = try await add("instagram", code: "good-ig-code", web: web)
            #expect(added.status == .seeOther && added.headers.first(name: .location)?.hasPrefix("/app/settings") == true, "\(added.text)")
            page = try await web.request(.GET, "/app/settings").text
            #expect(page.contains("Remove password") && !page.contains("Add Instagram"))
            #expect(try await IdentityModel.query(on: app.db).filter(\.$provider == "instagram").first()?.$user.id == ann.id)

            // The TikTok account Ann made on her phone, with a thread in it.
            let tiktok = ProviderSignInRequest(provider: .tiktok, code: "good-tt-code")
            let dup = TestUser(app: app, auth: try (try await app.send(.POST, "/auth/provider", json: tiktok)).decode(AuthResponse.self))
            try await dup.thread("DMC", "321")
            let offered = try await add("tiktok", code: "good-tt-code", web: web)
            let offerPage = try #require(offered.headers.first(name: .location))
            #expect(offerPage.hasPrefix("/app/settings/merge?offer="))
            let merge = try await web.request(.GET, offerPage).text
            #expect(merge.contains("This TikTok opens another account") && merge.contains("1 threads"))
            // Another account can't use the offer: it names Ann's.
            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            let beaWeb = WebClient(app: app)
            try await beaWeb.signIn("bea@example.com")
            let offer = try #require(URLComponents(string: offerPage)?.queryItems?.first { $0.name == "offer" }?.value)
            let stolen = try await beaWeb.post("/app/settings/merge", from: "/app/settings", ["offer": offer])
            let beaThreads = try await bea.get("/threads", as: [InventoryThread].self)
            #expect(stolen.status == .seeOther && beaThreads.isEmpty)
            #expect(try await UserModel.find(dup.id, on: app.db) != nil)

            let done = try await web.post("/app/settings/merge", from: offerPage, ["offer": offer])
            #expect(done.status == .seeOther)
            let settingsAfter = try #require(done.headers.first(name: .location))
            let flash = try await web.request(.GET, settingsAfter).text
            #expect(flash.contains("merged into this one") && flash.contains("TikTok now signs in here"))
            #expect(try await ann.get("/threads", as: [InventoryThread].self).map(\.number) == ["321"])
            #expect(try await UserModel.find(dup.id, on: app.db) == nil)

            // Remove the password, then Instagram; TikTok, the last, stays.
            for provider in ["email", "instagram", "tiktok"] {
                let res = try await web.post("/app/settings/sign-in/\(provider)/remove", from: "/app/settings", [:])
                #expect(res.status == .seeOther)
            }
            #expect(try await AccountLinks.methods(of: ann.id, db: app.db).methods.map(\.provider) == [.tiktok])
            page = try await web.request(.GET, "/app/settings").text
            #expect(page.contains("Set a password") && !page.contains(">Remove<"))
            #expect(try await login(app).status == .unauthorized)
        }
    }

    @Test("Apple vouching for an account's address in the browser: the password page adds Apple and signs in; a wrong password says so")
    func appleMeetsAnAccount() async throws {
        try await withWebProviders { app, clock in
            let ann = try await TestUser.make(app)
            let web = WebClient(app: app)
            let start = try await web.post("/app/signin/apple", from: "/app/signin", [:])
            let location = try #require(start.headers.first(name: .location))
            let query = try #require(URLComponents(string: location)?.queryItems)
            let state = try #require(query.first { $0.name == "state" }?.value)
            let nonce = try #require(query.first { $0.name == "nonce" }?.value)
            let token = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: nonce, email: "ann@example.com", emailVerified: true)
            let back = try await web.request(.POST, "/app/signin/apple/callback", form: ["state": state, "id_token": token])
            let linkPage = back.headers.first(name: .location) ?? ""
            #expect(back.status == .seeOther && linkPage.hasPrefix("/app/link-sign-in?token="))
            #expect(try await UserModel.query(on: app.db).count() == 1)
            let text = try await web.request(.GET, linkPage).text
            #expect(text.contains("You already have an account") && text.contains("ann@example.com"))
            let linkToken = try #require(URLComponents(string: linkPage)?.queryItems?.first { $0.name == "token" }?.value)

            let wrong = try await web.post("/app/link-sign-in", from: linkPage, ["token": linkToken, "password": "wrong horse"])
            #expect(wrong.status == .unauthorized && wrong.text.contains("Invalid email or password"))
            #expect(try await web.request(.GET, "/app/inventory").status == .seeOther)
            let ok = try await web.post("/app/link-sign-in", from: linkPage, ["token": linkToken, "password": "correct horse"])
            #expect(ok.status == .seeOther && ok.headers.first(name: .location)?.hasPrefix("/app/inventory") == true)
            #expect(try await web.request(.GET, "/app/inventory").status == .ok)
            #expect(try await AccountLinks.methods(of: ann.id, db: app.db).methods.map(\.provider) == [.email, .apple])
        }
    }
}
