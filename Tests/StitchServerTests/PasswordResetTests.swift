import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// "Forgot password" against a real SMTP server on a loopback port (aiosmtpd): the mail is read
/// as it arrived and its link followed.
@Suite("Forgot password: a single-use link by mail, then a new password that signs out everywhere")
struct PasswordResetTests {
    func withMail(_ security: SMTPSink.Security = .starttls, adjust: @escaping (inout AppConfig) -> Void = { _ in },
                  _ body: (Application, TestClock, SMTPSink) async throws -> Void) async throws {
        let sink = try SMTPSink(security: security, auth: security != .none)
        defer { sink.stop() }
        try await withTestApp(adjust: { config in
            config.smtp = sink.settings(auth: security != .none)
            config.publicURL = "https://stitch.test"
            adjust(&config)
        }) { app, clock in try await body(app, clock, sink) }
    }

    func ask(_ app: Application, _ email: String) async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/auth/password-reset", json: PasswordResetRequest(email: email))
    }

    func confirm(_ app: Application, _ token: String, _ password: String = "new battery staple") async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/auth/password-reset/confirm", json: PasswordResetConfirmRequest(token: token, newPassword: password))
    }

    @Test("Over STARTTLS with a password: the link arrives, works once, sets the password and ends every session (apps and browsers); an unknown address gets the same answer and no mail")
    func endToEnd() async throws {
        try await withMail { app, _, sink in
            let ann = try await register(app)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            #expect(try await web.request(.GET, "/app/inventory").status == .ok)

            let unknown = try await ask(app, "nobody@example.com")
            let known = try await ask(app, "  Ann@Example.com ")
            #expect(known.status == .accepted)
            #expect(unknown.status == known.status && unknown.text == known.text, "the answer says nothing of whether the address has an account")
            #expect(try known.decode(PasswordResetAccepted.self).message.contains("within an hour"))

            let mail = try #require(try await sink.waitFor(1).first)
            await app.mailQueue.drain()
            #expect(sink.messages.filter { $0.subject != SMTPSink.confirmationSubject }.count == 1, "no mail for an address without an account")
            #expect(mail.rcpt_tos == ["ann@example.com"] && mail.to == "ann@example.com")
            #expect(mail.mail_from == "no-reply@stitch.test" && mail.from == "Stitchuation <no-reply@stitch.test>")
            #expect(mail.tls && mail.user == SMTPSink.user, "sent over STARTTLS after signing in")
            #expect(mail.subject == "Choose a new Stitchuation password")
            #expect(mail.body.contains("Hello Ann") && mail.body.contains("https://stitch.test/app/reset-password?token="))
            let token = try #require(mail.token)
            #expect(token.count == PasswordResetConfirmRequest.tokenLength)

            // The link opens a form while it can be used.
            #expect(try await web.request(.GET, "/app/reset-password?token=\(token)").text.contains("Set new password"))

            let done = try await confirm(app, token)
            #expect(done.status == .noContent, "\(done.text)")
            #expect(try await refresh(app, ann.refreshToken).status == .unauthorized, "the app's session ended")
            #expect(try await app.send(.GET, "/auth/me", token: ann.accessToken).status == .unauthorized, "its access token too")
            #expect(try await web.request(.GET, "/app/inventory").status == .seeOther, "the browser's session ended")
            #expect(try await login(app).status == .unauthorized, "the old password no longer works")
            #expect(try await login(app, password: "new battery staple").status == .ok)

            let again = try await confirm(app, token, "another password 3")
            #expect(again.status == .badRequest && again.error?.fields?["token"] != nil, "single use: \(again.text)")
            #expect(try await login(app, password: "new battery staple").status == .ok, "a used link changes nothing")
            let page = try await web.request(.GET, "/app/reset-password?token=\(token)")
            #expect(page.status == .badRequest && page.text.contains("Email me a new link"))
        }
    }

    @Test("TLS from the first byte, and plain text to a relay on this machine", arguments: [SMTPSink.Security.implicit, .none])
    func otherTransports(security: SMTPSink.Security) async throws {
        try await withMail(security) { app, _, sink in
            try await register(app)
            #expect(try await ask(app, "ann@example.com").status == .accepted)
            let mail = try #require(try await sink.waitFor(1).first)
            #expect(mail.tls == (security == .implicit))
            #expect(mail.token != nil)
        }
    }

    @Test("An account without a password (a provider's) is told how it signs in, and its link sets a first password: the address becomes a way in")
    func providerAccount() async throws {
        try await withMail { app, _, sink in
            let ann = try await register(app)
            let user = try #require(try await UserModel.query(on: app.db).first())
            user.passwordHash = nil
            try await user.save(on: app.db)
            try await IdentityModel.query(on: app.db).filter(\.$provider == "email").delete()
            try await IdentityModel(userId: ann.user.id, provider: .apple, providerUserId: "001234.apple-user", now: Date()).create(on: app.db)
            #expect(try await ask(app, "ann@example.com").status == .accepted)
            let mail = try #require(try await sink.waitFor(1).first)
            #expect(mail.subject == "A password for your Stitchuation account" && mail.body.contains("It has no password yet: it signs in with Apple"))
            let token = try #require(mail.token)
            #expect(try await confirm(app, token, "a first password").status == .noContent)
            #expect(try await login(app, password: "a first password").status == .ok)
            #expect(try await AccountLinks.methods(of: ann.user.id, db: app.db).methods.map(\.provider) == [.email, .apple])
        }
    }

    @Test("Bad input changes nothing: malformed, unknown, expired and superseded tokens, a short password, a malformed address")
    func badInput() async throws {
        try await withMail(.none) { app, clock, sink in
            try await register(app)
            for token in ["", "short", String(repeating: "!", count: 43), String(repeating: "a", count: 44)] {
                let res = try await confirm(app, token)
                #expect(res.status == .badRequest && res.error?.fields?["token"]?.contains("not a password-reset link") == true, "\(token): \(res.text)")
            }
            let unknown = try await confirm(app, String(repeating: "A", count: 43))
            #expect(unknown.status == .badRequest && unknown.error?.error.contains("expired or was already used") == true)
            let badAddress = try await ask(app, "not an address")
            #expect(badAddress.status == .badRequest && badAddress.error?.fields?["email"] != nil)

            #expect(try await ask(app, "ann@example.com").status == .accepted)
            let first = try #require(try await sink.waitFor(1)[0].token)
            let short = try await confirm(app, first, "short")
            #expect(short.status == .badRequest && short.error?.fields?["newPassword"] != nil)

            // An hour later the link has expired.
            clock.advance(by: 3601)
            let expired = try await confirm(app, first)
            #expect(expired.status == .badRequest && expired.error?.fields?["token"] != nil)

            // Using one link ends the others.
            #expect(try await ask(app, "ann@example.com").status == .accepted)
            #expect(try await ask(app, "ann@example.com").status == .accepted)
            let links = try await sink.waitFor(3).dropFirst().compactMap(\.token)
            #expect(links.count == 2)
            #expect(try await confirm(app, links[1]).status == .noContent)
            #expect(try await confirm(app, links[0], "yet another one").status == .badRequest)
            #expect(try await login(app, password: "new battery staple").status == .ok)
        }
    }

    @Test("Rate limits: three links an hour per address (any address, known or not) and the client limit; 429 with Retry-After")
    func rateLimits() async throws {
        try await withMail(.none, adjust: { $0.clientAttemptLimit = 8 }) { app, clock, _ in
            try await register(app)
            for address in ["ann@example.com", "nobody@example.com"] {
                for _ in 0..<3 { #expect(try await ask(app, address).status == .accepted) }
                let refused = try await ask(app, address)
                #expect(refused.status == .tooManyRequests && refused.headers.first(name: "Retry-After") != nil)
                #expect(refused.error?.error.contains("this address") == true)
            }
            // The client has now sent 8: the next, for a fresh address, is refused by the client limit.
            let client = try await ask(app, "third@example.com")
            #expect(client.status == .tooManyRequests && client.error?.error.contains("from this address") == true)
            clock.advance(by: 3601)
            #expect(try await ask(app, "ann@example.com").status == .accepted, "a new hour, a new count")
        }
    }

    @Test("With no mail set up a reset is refused, saying so, and nothing is stored")
    func unconfigured() async throws {
        try await withTestApp { app, _ in
            try await register(app)
            let res = try await ask(app, "ann@example.com")
            #expect(res.status == .serviceUnavailable && res.error?.error.contains("SMTP_URL") == true)
            #expect(try await PasswordResetModel.query(on: app.db).count() == 0)
            let page = try await WebClient(app: app).request(.GET, "/app/forgot-password").text
            #expect(page.contains("send email, so it") && !page.contains("Email me a link"))
        }
    }

    @Test("The web app: sign-in page → forgot password → mail → new password → signed out → sign in with it")
    func webFlow() async throws {
        try await withMail { app, _, sink in
            let web = WebClient(app: app)
            try await web.signUp()
            let other = WebClient(app: app)
            try await other.signIn("ann@example.com")
            let out = try await web.post("/app/signout", from: "/app/settings", [:])
            #expect(out.status == .seeOther)
            #expect(try await web.request(.GET, "/app/signin").text.contains("href=\"/app/forgot-password\""))

            let asked = try await web.post("/app/forgot-password", from: "/app/forgot-password", ["email": "ann@example.com"])
            #expect(asked.status == .ok && asked.text.contains("If an account signs in with that address"))
            let link = try #require(try await sink.waitFor(1)[0].token)
            let page = "/app/reset-password?token=\(link)"

            let mismatch = try await web.post("/app/reset-password", from: page, ["token": link, "newPassword": "new battery staple", "confirmPassword": "other one"])
            #expect(mismatch.status == .badRequest && mismatch.text.contains("not the same"))
            let set = try await web.post("/app/reset-password", from: page, ["token": link, "newPassword": "new battery staple", "confirmPassword": "new battery staple"])
            #expect(set.status == .seeOther && set.headers.first(name: .location)?.contains("/app/signin") == true)
            #expect(try await other.request(.GET, "/app/inventory").status == .seeOther, "the other browser was signed out")
            try await web.signIn("ann@example.com", password: "new battery staple")
            #expect(try await web.request(.GET, "/app/inventory").status == .ok)
        }
    }

    @Test("A device over HTTP (StitchKit) and the stitch CLI: ask for a link, set the password with it; the device's session is forgotten")
    func clients() async throws {
        let binary = try #require(EndToEndTests.stitchBinary(), "build the stitch executable first (swift build)")
        let sink = try SMTPSink()
        defer { sink.stop() }
        try await withLiveServer(adjust: { config in
            config.smtp = sink.settings()
            config.publicURL = "https://stitch.test"
        }) { app, clock, server in
            let device = try Device(server: server, clock: clock)
            _ = try await device.api.register(email: "ann@example.com", password: "correct horse", displayName: "Ann")
            #expect(try await device.api.requestPasswordReset(email: "ann@example.com").contains("within an hour"))
            let link = "https://stitch.test/app/reset-password?token=" + (try #require(try await sink.waitFor(1)[0].token))
            try await device.api.confirmPasswordReset(token: link + "\n", newPassword: "new battery staple")
            #expect(try device.tokens.load() == nil, "signed out on the device too")
            _ = try await device.api.login(email: "ann@example.com", password: "new battery staple")

            // The CLI: the same two steps, the new password from STITCH_NEW_PASSWORD.
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-cli-reset-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["STITCH_HOME": home, "STITCH_NEW_PASSWORD": "third battery staple"]
            var r = try await EndToEndTests.run(binary, ["forgot-password", "--server", server, "--email", "ann@example.com"], env: env)
            #expect(r.code == 0 && r.out.contains("we've sent it a link"), "\(r.out) \(r.err)")
            let token = try #require(try await sink.waitFor(2)[1].token)
            r = try await EndToEndTests.run(binary, ["forgot-password", "--server", server, "--link", "https://stitch.test/app/reset-password?token=\(token)"], env: env)
            #expect(r.code == 0 && r.out.contains("Password changed"), "\(r.out) \(r.err)")
            r = try await EndToEndTests.run(binary, ["forgot-password", "--server", server, "--link", token], env: env)
            #expect(r.code != 0 && r.err.contains("expired or was already used"), "\(r.out) \(r.err)")
            // A token starting with "-" (base64url: one in 64) is the link's value, not an option.
            r = try await EndToEndTests.run(binary, ["forgot-password", "--server", server, "--link", "-" + token.dropFirst()], env: env)
            #expect(r.code != 0 && r.err.contains("expired or was already used"), "\(r.out) \(r.err)")
            #expect(try await login(app, password: "third battery staple").status == .ok)
        }
    }

    @Test("The mail client refuses to send over a server without STARTTLS, and says why a server refused it")
    func mailerFailures() async throws {
        let plain = try SMTPSink(security: .none, auth: false)
        defer { plain.stop() }
        var settings = plain.settings(auth: false)
        settings.security = .startTLS
        await #expect { try await Mailer(settings: settings).send(MailMessage(to: "ann@example.com", subject: "s", body: "b")) } throws: { error in
            "\(error)".contains("doesn't offer STARTTLS")
        }
        #expect(plain.messages.isEmpty)

        let guarded = try SMTPSink(security: .starttls, auth: true)
        defer { guarded.stop() }
        var wrong = guarded.settings()
        wrong.password = "not the password"
        await #expect { try await Mailer(settings: wrong).send(MailMessage(to: "ann@example.com", subject: "s", body: "b")) } throws: { error in
            "\(error)".contains("AUTH") && "\(error)".contains("535")
        }
        // A header can't be smuggled through the recipient.
        await #expect(throws: Mailer.Failure.self) {
            try await Mailer(settings: guarded.settings()).send(MailMessage(to: "ann@example.com\r\nBcc: eve@example.com", subject: "s", body: "b"))
        }
        #expect(guarded.messages.isEmpty)
    }

    @Test("SMTP_URL: STARTTLS by default, smtps:// for TLS, ?tls=none only when asked; SMTP_FROM and PUBLIC_URL required with it")
    func configuration() throws {
        let starttls = try #require(try SMTPSettings.fromEnvironment(["SMTP_URL": "smtp://apikey:p%40ss@smtp.example.com", "SMTP_FROM": "Stitch <a@example.com>"]))
        #expect(starttls == SMTPSettings(host: "smtp.example.com", port: 587, security: .startTLS, username: "apikey", password: "p@ss", from: "Stitch <a@example.com>"))
        let tls = try #require(try SMTPSettings.fromEnvironment(["SMTP_URL": "smtps://me%40example.com:pw@mail.example.com"]))
        #expect(tls.security == .tls && tls.port == 465 && tls.from == "me@example.com")
        #expect(try SMTPSettings.fromEnvironment(["SMTP_URL": "smtp://localhost:25?tls=none", "SMTP_FROM": "a@b.c"])?.security == SMTPSettings.Security.none)
        #expect(try SMTPSettings.fromEnvironment([:]) == nil)
        #expect(throws: ConfigError.self) { try SMTPSettings.fromEnvironment(["SMTP_URL": "http://mail.example.com", "SMTP_FROM": "a@b.c"]) }
        #expect(throws: ConfigError.self) { try SMTPSettings.fromEnvironment(["SMTP_URL": "smtps://mail.example.com?tls=none", "SMTP_FROM": "a@b.c"]) }
        #expect(throws: ConfigError.self) { try SMTPSettings.fromEnvironment(["SMTP_URL": "smtp://user@mail.example.com"]) }
        let logger = Logger(label: "test")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-config-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ConfigError.self) {
            try AppConfig.fromEnvironment(.testing, variables: ["DATA_DIR": dir, "SMTP_URL": "smtp://mail.example.com", "SMTP_FROM": "a@b.c"], logger: logger)
        }
        let config = try AppConfig.fromEnvironment(.testing, variables: ["DATA_DIR": dir, "SMTP_URL": "smtp://mail.example.com", "SMTP_FROM": "a@b.c",
                                                                          "PUBLIC_URL": "https://stitch.example.com/"], logger: logger)
        #expect(config.publicURL == "https://stitch.example.com" && config.smtp?.host == "mail.example.com")
    }
}
