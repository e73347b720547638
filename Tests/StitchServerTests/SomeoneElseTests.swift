import Fluent
import Foundation
import ServerCommon
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// What a feature lets someone other than its user do: the stranger who registered an address
/// first, the stranger who types a crafted address, everyone behind one proxy, a page echoing
/// what someone typed beside the CSRF token. Each test plays that person.
@Suite("Someone else: the stranger who got there first, crafted addresses, one proxy, the token", .serialized)
struct SomeoneElseTests {
    func apple(_ clock: TestClock, sub: String = "owner-apple", email: String) async throws -> ProviderSignInRequest {
        let nonce = "n-\(UUID())"
        let token = try await FakeProviders.appleToken(sub: sub, expires: clock.now + 600, nonce: nonce, email: email, emailVerified: true)
        return ProviderSignInRequest(provider: .apple, idToken: token, nonce: nonce)
    }

    /// The fake providers, and mail to a real SMTP server on loopback.
    func withMail(_ body: (Application, TestClock, SMTPSink) async throws -> Void) async throws {
        let sink = try SMTPSink(security: .none, auth: false)
        defer { sink.stop() }
        try await withFakeProviders(adjust: { config in
            config.smtp = sink.settings(auth: false)
            config.publicURL = "https://stitch.test"
        }) { app, clock in try await body(app, clock, sink) }
    }

    static func link(in mail: SMTPSink.Message, after marker: String) throws -> String {
        let start = try #require(mail.body.range(of: marker)).upperBound
        return String(mail.body[start...].prefix { !$0.isWhitespace })
    }

    @Test("A stranger registers the owner's address first and keeps a password, a session and a refresh token; the owner signs in with Apple and proves the address by the mailed link: the stranger's password, session and refresh token stop working, and the owner's Apple opens the account")
    func preAccountHijack() async throws {
        try await withMail { app, clock, sink in
            // The stranger: an address that isn't theirs, a password of their own, signed in on
            // the API (access and refresh token) and in a browser.
            let stranger = try await register(app, email: "owner@example.com", password: "stranger's password")
            let browser = WebClient(app: app)
            try await browser.signIn("owner@example.com", password: "stranger's password")
            #expect(try await browser.request(.GET, "/app/inventory").status == .ok)
            // Registration mails a confirmation to the address: the stranger can't open it.
            let confirmation = try #require(try await sink.waitFor(1, confirmations: true).first)
            #expect(confirmation.rcpt_tos == ["owner@example.com"] && confirmation.subject == "Confirm your Stitchuation address")
            #expect(try await UserModel.query(on: app.db).first()?.emailProvenAt == nil)

            // The owner arrives with Apple, whose verified address is the same; has the link mailed.
            let clash = try await app.send(.POST, "/auth/provider", json: try await apple(clock, email: "owner@example.com"))
            #expect(clash.status == .conflict)
            let linkToken = try #require(try clash.decode(APIErrorBody.self).linkToken)
            #expect(try await app.send(.POST, "/auth/provider/link/mail", json: ProviderLinkMailRequest(linkToken: linkToken)).status == .accepted)
            let mail = try #require(try await sink.waitFor(1).last)
            let mailed = try Self.link(in: mail, after: "https://stitch.test/app/link-sign-in/confirm?token=")
            let owner = WebClient(app: app)
            let page = try await owner.request(.GET, "/app/link-sign-in/confirm?token=\(mailed)")
            #expect(page.text.contains("never confirmed") && page.text.contains("removes the password"), "the page says what adding will do")
            let added = try await owner.post("/app/link-sign-in/confirm", from: "/app/link-sign-in/confirm?token=\(mailed)", ["token": mailed])
            #expect(added.status == .seeOther)
            #expect(added.headers.first(name: .location)?.contains("never") == true, "\(added.headers)")

            // The stranger's ways in are gone: password, refresh token, access token, browser session.
            #expect(try await login(app, email: "owner@example.com", password: "stranger's password").status == .unauthorized)
            #expect(try await refresh(app, stranger.refreshToken).status == .unauthorized)
            #expect(try await app.send(.GET, "/auth/me", token: stranger.accessToken).status == .unauthorized)
            let strangersPage = try await browser.request(.GET, "/app/inventory")
            #expect(strangersPage.status == .seeOther && strangersPage.headers.first(name: .location) == "/app/signin")
            #expect(strangersPage.headers.first(name: "Clear-Site-Data") == "\"cache\"", "the stranger's browser forgets its cached pictures")
            // The owner's Apple opens the account, now proven, with no password on it.
            let signedIn = try await app.send(.POST, "/auth/provider", json: try await apple(clock, email: "owner@example.com"))
            let auth = try signedIn.decode(AuthResponse.self)
            #expect(auth.user.id == stranger.user.id && auth.user.providers == [.apple])
            let account = try #require(try await UserModel.find(stranger.user.id, on: app.db))
            #expect(account.passwordHash == nil && account.emailProvenAt != nil)
        }
    }

    @Test("An address proven by its confirmation mail keeps its password and sessions when Apple is added by the mailed link; a stale or forged confirmation proves nothing")
    func provenAddressKeepsItsWaysIn() async throws {
        try await withMail { app, clock, sink in
            let ann = try await register(app, email: "ann@example.com")
            let confirmation = try #require(try await sink.waitFor(1, confirmations: true).first)
            let token = try Self.link(in: confirmation, after: "https://stitch.test/app/confirm-address?token=")
            let web = WebClient(app: app)
            // Settings says the address isn't confirmed and mails the link again.
            try await web.signIn("ann@example.com")
            #expect(try await web.request(.GET, "/app/settings").text.contains("not confirmed yet"))
            let again = try await web.post("/app/settings/confirm-address", from: "/app/settings", [:])
            #expect(again.status == .seeOther && again.headers.first(name: .location)?.contains("sent") == true, "\(again.headers)")
            #expect(try await sink.waitFor(2, confirmations: true).count == 2)
            // A token changed by a byte proves nothing.
            let forged = try await web.request(.GET, "/app/confirm-address?token=\(token.dropLast())\(token.hasSuffix("A") ? "B" : "A")")
            let unproven = try await UserModel.find(ann.user.id, on: app.db)?.emailProvenAt
            #expect(forged.status == .seeOther && unproven == nil)
            let opened = try await web.request(.GET, "/app/confirm-address?token=\(token)")
            #expect(opened.status == .seeOther && opened.headers.first(name: .location)?.contains("confirmed") == true)
            #expect(try await UserModel.find(ann.user.id, on: app.db)?.emailProvenAt != nil)
            #expect(try await !web.request(.GET, "/app/settings").text.contains("not confirmed yet"))

            let clash = try await app.send(.POST, "/auth/provider", json: try await apple(clock, sub: "ann-apple", email: "ann@example.com"))
            let linkToken = try #require(try clash.decode(APIErrorBody.self).linkToken)
            _ = try await app.send(.POST, "/auth/provider/link/mail", json: ProviderLinkMailRequest(linkToken: linkToken))
            let mailed = try Self.link(in: try #require(try await sink.waitFor(1).last), after: "/app/link-sign-in/confirm?token=")
            let other = WebClient(app: app)
            let added = try await other.post("/app/link-sign-in/confirm", from: "/app/link-sign-in/confirm?token=\(mailed)", ["token": mailed])
            #expect(added.status == .seeOther && added.headers.first(name: .location)?.contains("never") == false)
            #expect(try await web.request(.GET, "/app/settings").status == .ok, "Ann's browser stays signed in")
            #expect(try await login(app).status == .ok)
            #expect(try await refresh(app, ann.refreshToken).status == .ok)

            // A week later the confirmation link has expired (it proved nothing more anyway).
            clock.advance(by: 8 * 24 * 3600)
            let late = try await other.request(.GET, "/app/confirm-address?token=\(token)")
            #expect(late.headers.first(name: .location)?.contains("expired") == true)
        }
    }

    @Test("A crafted address names no one else's counter: 'owner|their address' posted from anywhere doesn't lock the owner out, and a new password clears only the owner's counts; addresses with |, % and _ work as any other")
    func craftedAddressLocksNobodyOut() async throws {
        try await withTestApp(adjust: { config in
            config.trustedProxies = ["unknown"]
            config.clientAttemptLimit = 1000
        }) { app, _ in
            _ = try await register(app, email: "owner@example.com")
            func attempt(_ email: String, from address: String, _ password: String) async throws -> TestingHTTPResponse {
                try await app.send(.POST, "/auth/login", json: LoginRequest(email: email, password: password), headers: ["X-Forwarded-For": address])
            }
            for _ in 0..<7 { _ = try await attempt("owner@example.com|198.51.100.7", from: "203.0.113.9", "guess") }
            let owner = try await attempt("owner@example.com", from: "198.51.100.7", "correct horse")
            #expect(owner.status == .ok, "\(owner.status) \(owner.text)")
            // No row's key is typed text.
            let keys = try await LoginThrottleModel.query(on: app.db).all().map(\.email)
            #expect(keys.allSatisfy { $0.hasPrefix("account:") || $0.hasPrefix("pair:") } && !keys.contains { $0.contains("@") }, "\(keys)")

            // Wildcards in an address are letters like any other: they register, sign in, and a
            // reset of one clears its own counts, not those of addresses they would match.
            let odd = "a|b%c_d@example.com"
            _ = try await register(app, email: odd)
            #expect(try await attempt(odd, from: "192.0.2.1", "correct horse").status == .ok)
            for _ in 0..<5 { _ = try await attempt("owner@example.com", from: "192.0.2.50", "guess") }
            try await PasswordAttempts.clear(email: "%", on: app.db)
            try await PasswordAttempts.clear(email: odd, on: app.db)
            #expect(try await attempt("owner@example.com", from: "192.0.2.50", "guess").status == .tooManyRequests, "the owner's counts stay")
            try await PasswordAttempts.clear(email: "owner@example.com", on: app.db)
            #expect(try await attempt("owner@example.com", from: "192.0.2.50", "correct horse").status == .ok)
        }
    }

    @Test("Behind a trusted proxy each person counts as themselves: ranges in TRUSTED_PROXIES, Fly's Fly-Client-IP, and an IPv6 client counted by its /64")
    func eachPersonBehindAProxy() async throws {
        // Configuration as the Fly example sets it.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-proxy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let logger = Logger(label: "test")
        func load(_ variables: [String: String]) throws -> AppConfig {
            try AppConfig.fromEnvironment(.development, variables: variables.merging(["DATA_DIR": dir]) { a, _ in a }, logger: logger)
        }
        let fly = try load(["TRUSTED_PROXIES": "0.0.0.0/0,::/0", "CLIENT_IP_HEADER": "Fly-Client-IP"])
        #expect(fly.clientIPHeader == "Fly-Client-IP" && fly.trustedProxies == ["0.0.0.0/0", "::/0"])
        #expect(throws: (any Error).self) { try load(["TRUSTED_PROXIES": "fly-proxy"]) }
        #expect(throws: (any Error).self) { try load(["CLIENT_IP_HEADER": "Fly-Client-IP"]) }

        let trusted = TrustedProxies(["10.0.0.0/8", "fdaa::/16", "unknown"])
        #expect(trusted.contains("10.1.2.3") && trusted.contains("fdaa:0:1::2") && trusted.contains("unknown"))
        #expect(!trusted.contains("11.0.0.1") && !trusted.contains("2001:db8::1") && !trusted.contains("10.0.0.1x"))
        #expect(trusted.contains("::ffff:10.9.9.9"), "an IPv4-mapped address is its IPv4")
        #expect(IPAddress.countingKey("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(IPAddress.countingKey("2001:db8:1:2:ffff:ffff:ffff:ffff") == IPAddress.countingKey("2001:db8:1:2::9"))
        #expect(IPAddress.countingKey("203.0.113.9") == "203.0.113.9")

        try await withTestApp(adjust: { config in
            config.trustedProxies = ["unknown"]
            config.clientIPHeader = "Fly-Client-IP"
            config.clientAttemptLimit = 3
        }) { app, _ in
            func signIn(_ client: String, forwardedFor: String = "192.0.2.1") async throws -> HTTPStatus {
                try await app.send(.POST, "/auth/login", json: LoginRequest(email: "nobody@example.com", password: "guess"),
                                   headers: ["Fly-Client-IP": client, "X-Forwarded-For": forwardedFor]).status
            }
            // One phone's /64 is one client however many addresses it takes from it.
            var phone: [HTTPStatus] = []
            for i in 1...4 { phone.append(try await signIn("2001:db8:aa:bb::\(i)", forwardedFor: "192.0.2.\(i)")) }
            #expect(phone.prefix(3).allSatisfy { $0 == .unauthorized } && phone[3] == .tooManyRequests, "\(phone)")
            // Someone else behind the same proxy has their own limit.
            #expect(try await signIn("2001:db8:cc:dd::1") == .unauthorized)
            #expect(try await signIn("198.51.100.4") == .unauthorized)
        }
    }

    @Test("The CSRF token is masked afresh in every response (no two pages print the same bytes beside reflected input), and every masking of the session's token is accepted; another browser's is not")
    func maskedToken() async throws {
        try await withTestApp { app, _ in
            _ = try await TestUser.make(app)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            // The token a page's script sends (`data-csrf`), on a page that echoes the search.
            func token() async throws -> String {
                let page = try await web.request(.GET, "/app/inventory?q=hello").text
                #expect(page.contains("value=\"hello\""))
                let start = try #require(page.range(of: "data-csrf=\"")).upperBound
                return String(page[start...].prefix { $0 != "\"" })
            }
            let first = try await token()
            let second = try await token()
            #expect(first != second)
            // Two threads, one with each masking (two numbers drawn at random once collided: 409, the thread already kept).
            for (token, number) in zip([first, second], ["310", "311"]) {
                let res = try await web.request(.POST, "/app/inventory/new", form: ["_csrf": token, "brand": "DMC", "number": number, "quantity": "1"])
                #expect(res.status == .seeOther, "\(res.status)")
            }
            let other = WebClient(app: app)
            _ = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            try await other.signIn("bob@example.com")
            let refused = try await other.request(.POST, "/app/inventory/new", form: ["_csrf": first, "brand": "DMC", "number": "444", "quantity": "1"])
            #expect(refused.status == .forbidden)
        }
    }
}
