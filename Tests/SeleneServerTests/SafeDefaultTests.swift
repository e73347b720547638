import Foundation
import SeleneShared
@testable import SeleneServer
import ServerCommon
import Testing
import VaporTesting

/// Selene as an attacker meets it: a web page the person visits, which can reach 127.0.0.1 but
/// knows no token, re-points its own name at this machine (DNS rebinding), posts forms and
/// `no-cors` fetches, or asks the server to push to addresses inside the network.
@Suite("Selene safe by default: names, origins, content types, push addresses, headers, the first-run token")
struct SafeDefaultTests {
    static let secret = "the safe code is 4711"

    @Test("A request for another name (DNS rebinding) is refused before anything is read, token or not")
    func rebinding() async throws {
        for tokens in [[], [testToken]] {
            try await withSelene(tokens: tokens) { app, _ in
                try await app.note(Self.secret, token: tokens.first)
                let token = tokens.first.map { "Bearer \($0)" } ?? ""
                for path in ["/api/notes", "/app/notes", "/app/chat", "/metrics", "/"] {
                    for host in ["attacker.example", "attacker.example:5678", "rebind.127.0.0.1.nip.io:5678", "localhost.attacker.example"] {
                        let res = try await app.send(.GET, path, headers: ["Host": host, "Authorization": token])
                        #expect(res.status == .misdirectedRequest, "\(path) for \(host): \(res.status)")
                        #expect(!res.text.contains("4711") && res.text.contains("SELENE_ALLOWED_HOSTS"), "\(res.text)")
                    }
                }
                for host in ["127.0.0.1:5678", "localhost:5678", "[::1]:5678", "192.168.1.20:5678", "127.0.0.1", "LOCALHOST."] {
                    let res = try await app.send(.GET, "/api/notes", headers: ["Host": host, "Authorization": token])
                    #expect(res.status == .ok && res.text.contains("4711"), "\(host): \(res.status)")
                }
            }
        }
        let hosts = try AllowedHosts.parse("selene.example, my-mac.tailnet.ts.net", publicURL: "https://notes.example.org")
        try await withSelene(adjust: { config in config.allowedHosts = hosts }) { (app: Application, _: ManualClock) async throws in
            for host in ["selene.example", "my-mac.tailnet.ts.net:5678", "notes.example.org"] {
                #expect(try await app.send(.GET, "/api/notes", headers: ["Host": host]).status == .ok, "\(host)")
            }
            #expect(try await app.send(.GET, "/api/notes", headers: ["Host": "attacker.example"]).status == .misdirectedRequest)
        }
        #expect(throws: SeleneConfigError.self) { try AllowedHosts.parse("bad host/", publicURL: nil) }
        #expect(throws: SeleneConfigError.self) { try AllowedHosts.parse(nil, publicURL: "ftp://x") }
        #expect(try AllowedHosts.parse("*", publicURL: nil).accepts(host: "anything.example"))
    }

    @Test("Writes a foreign page can send — text/plain, a form, no type, a foreign Origin — change nothing")
    func crossSiteWrites() async throws {
        try await withSelene { app, _ in
            let body = #"{"content":"planted by a web page"}"#
            for (path, type) in [("/api/notes", "text/plain;charset=UTF-8"), ("/api/notes", "application/x-www-form-urlencoded"),
                                 ("/webhook/api/drafts", "text/plain"), ("/api/llm/generate", "multipart/form-data; boundary=x"),
                                 ("/api/memories", "text/plain")] {
                let res = try await app.send(.POST, path, raw: body, headers: ["Host": "127.0.0.1:5678", "Content-Type": type])
                #expect(res.status == .unsupportedMediaType, "\(path) as \(type): \(res.status)")
            }
            // A blob sent without a type (no Content-Type header at all).
            let untyped = try await app.testing().sendRequest(.POST, "/api/notes", headers: ["Host": "127.0.0.1:5678", "Content-Length": "\(body.utf8.count)"],
                                                              body: ByteBuffer(string: body))
            #expect(untyped.status == .unsupportedMediaType)
            for origin in ["https://attacker.example", "null", "http://127.0.0.1:9999", "http://localhost.attacker.example:5678"] {
                let res = try await app.send(.POST, "/api/notes", raw: body, headers: ["Host": "127.0.0.1:5678", "Origin": origin])
                #expect(res.status == .forbidden && res.text.contains("other websites"), "\(origin): \(res.status)")
                let form = try await app.send(.POST, "/app/notes/new", raw: "content=x&_csrf=x",
                                              headers: ["Host": "127.0.0.1:5678", "Origin": origin, "Content-Type": "application/x-www-form-urlencoded"])
                #expect(form.status == .forbidden, "form from \(origin)")
            }
            #expect(try await app.noteCount() == 0)
            // Selene's own page (same origin), and clients that send no Origin, still write.
            #expect(try await app.send(.POST, "/api/notes", raw: body, headers: ["Host": "127.0.0.1:5678", "Origin": "http://127.0.0.1:5678"]).status == .created)
            #expect(try await app.send(.POST, "/api/notes", raw: body, headers: ["Host": "[::1]:5678", "Origin": "http://[::1]:5678"]).status == .created)
            #expect(try await app.send(.POST, "/api/notes", json: NewNote(content: "from the terminal")).status == .created)
            #expect(try await app.noteCount() == 3)
            // Reading stays open to GETs with any Origin on an accepted name (CORS keeps their answers from foreign pages).
            #expect(try await app.send(.GET, "/api/notes", headers: ["Host": "127.0.0.1:5678", "Origin": "https://attacker.example"]).status == .ok)
        }
    }

    /// Signs a browser in with the sign-in link and returns its cookies (session and CSRF).
    static func browserCookies(_ app: Application, token: String) async throws -> (cookie: String, csrf: String) {
        let res = try await app.send(.GET, "/app/signin?token=\(token)")
        #expect(res.status == .seeOther && res.headers.first(name: .location) == "/app/chat")
        let session = try #require(res.headers.setCookie?["selene_session"]?.string)
        // A page gives the browser its CSRF cookie and its forms the token made for it and this session.
        let page = try await app.send(.GET, "/app/more", headers: ["Cookie": "selene_session=\(session)"])
        let seed = try #require(page.headers.setCookie?["selene_csrf"]?.string)
        let input = try #require(page.text.firstMatch(of: /<input[^>]*name="_csrf"[^>]*>/)?.0)
        let field = try #require(input.firstMatch(of: /value="([^"]+)"/)?.1)
        let cookie = "selene_session=\(session); selene_csrf=\(seed)"
        // The token is bound to both cookies: another browser's seed with it is refused.
        #expect(try await app.send(.POST, "/app/push/subscribe", raw: "{}",
                                   headers: ["Cookie": "selene_session=\(session); selene_csrf=\(String(repeating: "c", count: 43))", "X-CSRF-Token": String(field)]).status == .forbidden)
        return (cookie, String(field))
    }

    @Test("Push subscriptions to loopback, private and link-local addresses are refused, by address or by name")
    func pushAddresses() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("selene-push-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withSelene(tokens: [testToken], adjust: {
            var push = SeleneConfig.WebPush(keyFile: folder + "/vapid.pem")
            push.hosts = ["push.attacker.example": "192.168.1.10", "v6.attacker.example": "fd00::5", "mapped.attacker.example": "::ffff:10.0.0.1",
                          "push.example.net": "93.184.216.34"]
            $0.webPush = push
        }) { app, _ in
            let (cookie, csrf) = try await Self.browserCookies(app, token: testToken)
            let browser = WebPushTests.Browser()
            func subscribe(_ endpoint: String) async throws -> TestingHTTPResponse {
                let body = #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(browser.p256dh)","auth":"\#(Base64URL.encode(Data(repeating: 7, count: 16)))"}}"#
                return try await app.send(.POST, "/app/push/subscribe", raw: body, headers: ["Cookie": cookie, "X-CSRF-Token": csrf])
            }
            for endpoint in ["https://127.0.0.1/push/x", "https://[::1]:8443/push", "https://10.0.0.5/push", "https://169.254.169.254/latest/meta-data",
                             "https://172.16.4.4/push", "https://100.64.0.1/push", "https://localhost/push", "https://push.attacker.example/wpush/1",
                             "https://v6.attacker.example/push", "https://mapped.attacker.example/push", "http://push.example.net/push",
                             "https://user@push.example.net/push"] {
                let res = try await subscribe(endpoint)
                #expect(res.status == .badRequest, "\(endpoint): \(res.status) \(res.text)")
            }
            let refused = try await subscribe("https://push.attacker.example/wpush/1")
            #expect(refused.text.contains("192.168.1.10") && refused.text.contains("private network"), "\(refused.text)")
            #expect(try await ConversationStore(db: app.db).devices().isEmpty)
            let accepted = try await subscribe("https://push.example.net/wpush/abc")
            #expect(accepted.status == .created, "\(accepted.text)")
        }
        for inside in ["0.0.0.0", "127.1.2.3", "10.1.1.1", "172.31.255.1", "192.168.0.1", "169.254.1.1", "100.127.0.1", "224.0.0.1",
                       "255.255.255.255", "::", "::1", "fe80::1", "fc00::1", "fdff::1", "ff02::1", "::ffff:127.0.0.1", "64:ff9b::a00:1"] {
            #expect(IPAddress(inside)?.isPublic == false, "\(inside)")
        }
        for outside in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.4.4"] {
            #expect(IPAddress(outside)?.isPublic == true, "\(outside)")
        }
        #expect(try await PushAddress.systemResolve("localhost").allSatisfy { !$0.isPublic })
    }

    @Test("Every page and error of both products says: not in frames, scripts only from itself, no referrer to others")
    func headers() async throws {
        try await withSelene(tokens: [testToken]) { app, _ in
            for (path, host) in [("/app/signin", "127.0.0.1:5678"), ("/api/notes", "127.0.0.1:5678"), ("/nope", "127.0.0.1:5678"), ("/app/chat", "attacker.example")] {
                let res = try await app.send(.GET, path, headers: ["Host": host])
                #expect(res.headers.first(name: "X-Frame-Options") == "DENY", "\(path)")
                let csp = res.headers.first(name: "Content-Security-Policy") ?? ""
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe-eval"), "\(path)")
                #expect(res.headers.first(name: "Referrer-Policy") == "same-origin" && res.headers.first(name: "X-Content-Type-Options") == "nosniff")
            }
        }
    }

    @Test("No SELENE_API_TOKEN: a token made on the first start (0600), kept and read again; off is explicit")
    func firstRunToken() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("selene-token-\(UUID().uuidString)").path + "/data"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        var config = try SeleneConfig.fromEnvironment(["SELENE_DATA_DIR": folder])
        #expect(config.apiTokens.isEmpty && config.tokenFile == folder + "/api-token")
        #expect(try config.loadTokenFile())
        let token = try #require(config.apiTokens.first)
        #expect(token.count >= SeleneConfig.minimumTokenLength)
        #expect(try FileManager.default.attributesOfItem(atPath: folder + "/api-token")[.posixPermissions] as? Int == 0o600)
        let banner = config.tokenBanner(created: true, base: "http://127.0.0.1:5678") ?? ""
        #expect(banner.contains("http://127.0.0.1:5678/app/signin?token=\(token)") && banner.contains("selene login"))
        var again = try SeleneConfig.fromEnvironment(["SELENE_DATA_DIR": folder])
        #expect(try !again.loadTokenFile() && again.apiTokens == [token])
        #expect(again.tokenBanner(created: false, base: "x")?.contains(token) == false)
        #expect(throws: Never.self) { try ListenGuard.check(host: "0.0.0.0", config: again) }

        let off = try SeleneConfig.fromEnvironment(["SELENE_DATA_DIR": folder, "SELENE_API_TOKEN": "off"])
        #expect(off.apiTokens.isEmpty && off.tokenFile == nil)
        #expect(throws: SeleneConfigError.self) { try ListenGuard.check(host: "0.0.0.0", config: off) }
        let set = try SeleneConfig.fromEnvironment(["SELENE_DATA_DIR": folder, "SELENE_API_TOKEN": testToken])
        #expect(set.apiTokens == [testToken] && set.tokenFile == nil)

        try Data("short\n".utf8).write(to: URL(fileURLWithPath: folder + "/api-token"))
        var broken = try SeleneConfig.fromEnvironment(["SELENE_DATA_DIR": folder])
        #expect { try broken.loadTokenFile() } throws: { "\($0)".contains("api-token") }
    }

    @Test("The sign-in link signs a browser in and leaves the token out of the address; a wrong one doesn't")
    func signInLink() async throws {
        try await withSelene(tokens: [testToken]) { app, _ in
            let wrong = try await app.send(.GET, "/app/signin?token=not-the-token-not-the-token-not-the-token")
            #expect(wrong.status == .unauthorized && wrong.headers.setCookie?["selene_session"] == nil)
            let (cookie, _) = try await Self.browserCookies(app, token: testToken)
            let chat = try await app.send(.GET, "/app/chat", headers: ["Cookie": cookie])
            #expect(chat.status == .seeOther || chat.status == .ok)
            #expect(chat.headers.first(name: .location)?.contains("signin") != true, "signed in: \(chat.headers)")
        }
    }

    @Test("A page's message shows only when Selene signed it: a link someone else made with words of theirs shows nothing; Selene's own redirects carry their signature")
    func signedFlash() async throws {
        try await withSelene(tokens: [testToken]) { app, _ in
            let (cookie, csrf) = try await Self.browserCookies(app, token: testToken)
            let forged = try await app.send(.GET, "/app/notes?flash=Your%20account%20is%20locked%2C%20call%20555-0100", headers: ["Cookie": cookie])
            #expect(forged.status == .ok && !forged.text.contains("555-0100"))
            let saved = try await app.send(.POST, "/app/memories", raw: "content=Sam%20likes%20green%20tea&_csrf=\(csrf)",
                                           headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            let location = try #require(saved.headers.first(name: .location))
            #expect(saved.status == .seeOther && location.contains("fs="), "\(location)")
            let shown = try await app.send(.GET, location, headers: ["Cookie": cookie])
            #expect(shown.text.contains("Remembered.") || shown.text.contains("Selene knew something like it"), "\(shown.text.prefix(400))")
            // The same words with another signature are not shown.
            let altered = location.replacingOccurrences(of: "fs=", with: "fs=x")
            #expect(!(try await app.send(.GET, altered, headers: ["Cookie": cookie])).text.contains("Remembered."))
        }
    }

    @Test("Signing out ends the session and tells the browser to forget its HTTP cache; a page opened afterwards with the old cookie is sent to sign in, forgetting it too; the worker forgets its copies on the sign-in page")
    func signOutLeavesNothing() async throws {
        try await withSelene(tokens: [testToken]) { app, _ in
            let (cookie, csrf) = try await Self.browserCookies(app, token: testToken)
            let out = try await app.send(.POST, "/app/signout", raw: "_csrf=\(csrf)",
                                         headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            #expect(out.status == .seeOther && out.headers.first(name: "Clear-Site-Data") == "\"cache\"")
            let after = try await app.send(.GET, "/app/notes", headers: ["Cookie": cookie])
            #expect(after.status == .seeOther && after.headers.first(name: .location) == "/app/signin")
            #expect(after.headers.first(name: "Clear-Site-Data") == "\"cache\"")
            let worker = try await app.send(.GET, "/app/sw.js")
            #expect(worker.text.contains("SIGNED_OUT") && worker.text.contains("signin|setup"))
        }
    }
}
