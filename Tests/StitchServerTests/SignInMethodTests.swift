import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// One person, one account, however they sign in: a provider's sign-in that meets an account's
/// address, the list of ways in, adding and removing one, and merging a second account.
@Suite("Ways into an account: link, unlink, merge", .serialized)
struct SignInMethodTests {
    func apple(_ app: Application, _ clock: TestClock, sub: String = "001234.apple-user", email: String? = nil, verified: Bool? = nil) async throws -> ProviderSignInRequest {
        let nonce = "n-\(UUID())"
        let token = try await FakeProviders.appleToken(sub: sub, expires: clock.now + 600, nonce: nonce, email: email, emailVerified: verified)
        return ProviderSignInRequest(provider: .apple, idToken: token, nonce: nonce)
    }

    func methods(_ user: TestUser) async throws -> [IdentityProvider] {
        try await user.get("/account/sign-in-methods", as: SignInMethods.self).methods.map(\.provider)
    }

    @Test("Apple vouching for an account's address: nothing created, and the account's password adds Apple to it")
    func clashThenLink() async throws {
        try await withFakeProviders { app, clock in
            let ann = try await register(app, email: "ann@example.com")
            let signIn = try await apple(app, clock, email: "Ann@Example.com", verified: true)
            let clash = try await app.send(.POST, "/auth/provider", json: signIn)
            #expect(clash.status == .conflict, "\(clash.text)")
            let error = try clash.decode(APIErrorBody.self)
            #expect(error.error.contains("ann@example.com") && error.error.contains("password"))
            let linkToken = try #require(error.linkToken)
            #expect(try await UserModel.query(on: app.db).count() == 1)

            // The wrong password adds nothing; a token changed by a byte is not this server's.
            let wrong = try await app.send(.POST, "/auth/provider/link", json: ProviderLinkRequest(linkToken: linkToken, password: "wrong horse"))
            #expect(wrong.status == .unauthorized)
            // (The last character swapped for another: "A" when it was not one, else "B".)
            let forgedToken = linkToken.dropLast() + (linkToken.hasSuffix("A") ? "B" : "A")
            let forged = try await app.send(.POST, "/auth/provider/link", json: ProviderLinkRequest(linkToken: String(forgedToken), password: "correct horse"))
            #expect(forged.status == .unauthorized && forged.error?.fields?["linkToken"] != nil)
            #expect(try await IdentityModel.query(on: app.db).filter(\.$provider == "apple").count() == 0)

            let linked = try await app.send(.POST, "/auth/provider/link", json: ProviderLinkRequest(linkToken: linkToken, password: "correct horse"))
            #expect(linked.status == .ok, "\(linked.text)")
            let auth = try linked.decode(AuthResponse.self)
            #expect(auth.user.id == ann.user.id && auth.user.providers == [.apple, .email])
            // From now on Apple opens Ann's account.
            let again = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, email: "ann@example.com", verified: true))
            #expect(try again.decode(AuthResponse.self).user.id == ann.user.id)
            #expect(try await UserModel.query(on: app.db).count() == 1)
        }
    }

    @Test("A link token expires after ten minutes; an account without a password is told how to set one")
    func clashEdges() async throws {
        try await withFakeProviders { app, clock in
            try await register(app, email: "ann@example.com")
            let clash = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, email: "ann@example.com", verified: true))
            let linkToken = try #require(try clash.decode(APIErrorBody.self).linkToken)
            clock.advance(by: 11 * 60)
            let late = try await app.send(.POST, "/auth/provider/link", json: ProviderLinkRequest(linkToken: linkToken, password: "correct horse"))
            #expect(late.status == .unauthorized && late.error?.fields?["linkToken"] != nil)

            // Bea signed up with Apple (a verified address), then removed nothing: no password.
            let bea = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, sub: "bea-apple", email: "bea@example.com", verified: true))
            #expect(try bea.decode(AuthResponse.self).user.email == "bea@example.com")
            let second = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, sub: "bea-second-apple-id", email: "bea@example.com", verified: true))
            #expect(second.status == .conflict)
            let body = try second.decode(APIErrorBody.self)
            #expect(body.error.contains("no password") && body.error.contains("link mailed"))
            let beaToken = try #require(body.linkToken)
            // No password proves it; this server sends no mail, and says so.
            #expect(try await app.send(.POST, "/auth/provider/link", json: ProviderLinkRequest(linkToken: beaToken, password: "")).status == .unauthorized)
            let noMail = try await app.send(.POST, "/auth/provider/link/mail", json: ProviderLinkMailRequest(linkToken: beaToken))
            #expect(noMail.status == .serviceUnavailable && noMail.text.contains("SMTP_URL"))
            #expect(try await UserModel.query(on: app.db).count() == 2)
        }
    }

    @Test("The account's mail proves it too: a mailed link adds Apple when its page's button is pressed (opening it changes nothing; it signs nobody in), for an hour, and not with the sign-in's own token")
    func mailedLink() async throws {
        let sink = try SMTPSink(security: .none, auth: false)
        defer { sink.stop() }
        try await withFakeProviders(adjust: { config in
            config.smtp = sink.settings(auth: false)
            config.publicURL = "https://stitch.test"
        }) { app, clock in
            let ann = try await register(app, email: "ann@example.com")
            let clash = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, email: "ann@example.com", verified: true))
            let linkToken = try #require(try clash.decode(APIErrorBody.self).linkToken)
            let sent = try await app.send(.POST, "/auth/provider/link/mail", json: ProviderLinkMailRequest(linkToken: linkToken))
            #expect(sent.status == .accepted, "\(sent.text)")
            #expect(try sent.decode(PasswordResetAccepted.self).message.contains("ann@example.com"))
            let mail = try #require(try await sink.waitFor(1).first)
            #expect(mail.rcpt_tos == ["ann@example.com"] && mail.subject == "Add Apple to your Stitchuation account")
            let marker = "https://stitch.test/app/link-sign-in/confirm?token="
            let start = try #require(mail.body.range(of: marker)).upperBound
            let mailed = String(mail.body[start...].prefix { !$0.isWhitespace })
            let apples = { try await IdentityModel.query(on: app.db).filter(\.$provider == "apple").all().map(\.$user.id) }

            // Opening the link shows what it will do, and does nothing yet.
            let web = WebClient(app: app)
            let page = try await web.request(.GET, "/app/link-sign-in/confirm?token=\(mailed)")
            #expect(page.status == .ok && page.text.contains("Add Apple") && page.text.contains("ann@example.com"))
            #expect(try await apples().isEmpty)
            // The sign-in's own token (what the 409 gave) is not a mailed link.
            let notMailed = try await web.post("/app/link-sign-in/confirm", from: "/app/signin", ["token": linkToken])
            let noneYet = try await apples()
            #expect(notMailed.status == .seeOther && noneYet.isEmpty)

            let added = try await web.post("/app/link-sign-in/confirm", from: "/app/link-sign-in/confirm?token=\(mailed)", ["token": mailed])
            #expect(added.status == .seeOther && added.headers.first(name: .location)?.hasPrefix("/app/signin") == true)
            #expect(try await apples() == [ann.user.id])
            #expect(web.cookies.keys.allSatisfy { !$0.contains("session") }, "the link signs nobody in")
            // Apple now opens Ann's account.
            let again = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, email: "ann@example.com", verified: true))
            #expect(try again.decode(AuthResponse.self).user.id == ann.user.id)

            // A link an hour and more old adds nothing.
            let late = try await app.send(.POST, "/auth/provider", json: try await apple(app, clock, sub: "second-apple", email: "ann@example.com", verified: true))
            _ = try await app.send(.POST, "/auth/provider/link/mail", json: ProviderLinkMailRequest(linkToken: try #require(try late.decode(APIErrorBody.self).linkToken)))
            let second = try #require(try await sink.waitFor(2).last)
            let lateToken = String(second.body[try #require(second.body.range(of: marker)).upperBound...].prefix { !$0.isWhitespace })
            clock.advance(by: 61 * 60)
            let expired = try await web.request(.GET, "/app/link-sign-in/confirm?token=\(lateToken)")
            #expect(expired.status == .seeOther)
            #expect(try await IdentityModel.query(on: app.db).filter(\.$providerUserId == "second-apple").count() == 0)

            // The web's page for an account without a password offers the mail only; with no mail either, it says what to do.
            let pending = AccountLinks.Pending(provider: .apple, providerUserId: "bea-apple", email: "bea@example.com", issued: 0)
            let noPassword = LinkSignInPage(token: "t", pending: pending, hasPassword: false, canMail: true).render(PageContext(csrf: "c")).render()
            #expect(noPassword.contains("Email me a link instead") && !noPassword.contains("name=\"password\""))
            let neither = LinkSignInPage(token: "t", pending: pending, hasPassword: false, canMail: false).render(PageContext(csrf: "c")).render()
            #expect(neither.contains("send email. Sign in to that account another way") && !neither.contains("Email me a link"))
        }
    }

    @Test("The ways in are listed, a provider added while signed in, the password removed, and the last way in kept")
    func listAddRemove() async throws {
        try await withFakeProviders { app, _ in
            let ann = try await TestUser.make(app)
            #expect(try await methods(ann) == [.email])
            let instagram = ProviderSignInRequest(provider: .instagram, code: "good-ig-code")
            let added = try await ann.send(.POST, "/account/sign-in-methods", json: instagram)
            #expect(added.status == .created, "\(added.text)")
            #expect(try added.decode(SignInMethods.self).methods.map(\.provider) == [.email, .instagram])
            #expect(try await ann.send(.POST, "/account/sign-in-methods", json: instagram).status == .ok)
            let viaInstagram = try await app.send(.POST, "/auth/provider", json: instagram)
            #expect(try viaInstagram.decode(AuthResponse.self).user.id == ann.id)

            // Not linked, not a provider: 404. The password goes; the address stays.
            #expect(try await ann.send(.DELETE, "/account/sign-in-methods/apple").status == .notFound)
            #expect(try await ann.send(.DELETE, "/account/sign-in-methods/myspace").status == .notFound)
            let removed = try await ann.send(.DELETE, "/account/sign-in-methods/email")
            #expect(removed.status == .ok, "\(removed.text)")
            #expect(try removed.decode(SignInMethods.self).hasPassword == false)
            #expect(try await methods(ann) == [.instagram])
            #expect(try await login(app).status == .unauthorized)
            #expect(try await UserModel.find(ann.id, on: app.db)?.email == "ann@example.com")

            // Instagram is now the only way in.
            let last = try await ann.send(.DELETE, "/account/sign-in-methods/instagram")
            #expect(last.status == .conflict && last.text.contains("only way"))
            #expect(try await methods(ann) == [.instagram])

            // A sign-in that opens another account isn't moved by adding it: that is a merge.
            _ = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .tiktok, code: "good-tt-code"))
            let elsewhere = try await ann.send(.POST, "/account/sign-in-methods", json: ProviderSignInRequest(provider: .tiktok, code: "good-tt-code"))
            #expect(elsewhere.status == .conflict && elsewhere.text.contains("merge"))
            #expect(try await methods(ann) == [.instagram])
            // A provider that doesn't vouch: 401, nothing added.
            #expect(try await ann.send(.POST, "/account/sign-in-methods", json: ProviderSignInRequest(provider: .tiktok, code: "stolen")).status == .unauthorized)
        }
    }

    @Test("A second account merges in: its records reach every device of this one, its sign-in opens this one, it is gone")
    func merge() async throws {
        try await withFakeProviders { app, _ in
            let ann = try await TestUser.make(app)
            try await ann.thread("DMC", "310", quantity: 2)
            let before = try await ann.sync(syncRequest([]))

            // The account Ann made by tapping TikTok, with a thread, a canvas and a project.
            let tiktok = ProviderSignInRequest(provider: .tiktok, code: "good-tt-code")
            let dup = TestUser(app: app, auth: try (try await app.send(.POST, "/auth/provider", json: tiktok)).decode(AuthResponse.self))
            try await dup.thread("DMC", "321", quantity: 1)
            let canvas = try await dup.canvas()
            let project = try await dup.project(canvas: canvas)

            #expect(try await ann.send(.POST, "/account/merge", json: AccountMergeRequest()).status == .badRequest)
            #expect(try await ann.send(.POST, "/account/merge", json: AccountMergeRequest(email: "ann@example.com", password: "correct horse")).status == .conflict)
            let merged = try await ann.send(.POST, "/account/merge", json: AccountMergeRequest(signIn: tiktok))
            #expect(merged.status == .ok, "\(merged.text)")
            let summary = try merged.decode(AccountMergeSummary.self)
            #expect(summary.records == ["thread": 1, "canvas": 1, "project": 1] && summary.signInMethods == [.tiktok] && summary.droppedEmail == nil)

            // Ann's phone, synced before, pulls what came in; the duplicate is gone and signed out.
            let after = try await ann.sync(syncRequest([], cursor: before.cursor))
            #expect(after.changes.map(\.type).sorted { $0.rawValue < $1.rawValue } == [.canvas, .project, .thread])
            #expect(Set(after.changes.map(\.id)).isSuperset(of: [canvas.id, project.project.id]))
            #expect(try await ann.get("/threads", as: [InventoryThread].self).map(\.number).sorted() == ["310", "321"])
            #expect(try await dup.send(.GET, "/threads").status == .unauthorized)
            #expect(try await UserModel.find(dup.id, on: app.db) == nil)
            #expect(try (try await app.send(.POST, "/auth/provider", json: tiktok)).decode(AuthResponse.self).user.id == ann.id)
            #expect(try await methods(ann) == [.email, .tiktok])
        }
    }

    @Test("A merge is refused, nothing moved, when both accounts hold the same thread; an email account's password stops opening it")
    func mergeRefusedAndEmail() async throws {
        try await withFakeProviders { app, _ in
            let ann = try await TestUser.make(app)
            try await ann.thread("DMC", "310", quantity: 2)
            let instagram = ProviderSignInRequest(provider: .instagram, code: "good-ig-code")
            let dup = TestUser(app: app, auth: try (try await app.send(.POST, "/auth/provider", json: instagram)).decode(AuthResponse.self))
            try await dup.thread("dmc", " 310 ", quantity: 1)
            let refused = try await ann.send(.POST, "/account/merge", json: AccountMergeRequest(signIn: instagram))
            #expect(refused.status == .conflict && refused.text.contains("DMC 310"), "\(refused.text)")
            #expect(try await dup.get("/threads", as: [InventoryThread].self).count == 1)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 1)

            // Another email account, proven by its password: merged, its address no longer signs in.
            let work = try await TestUser.make(app, email: "ann.work@example.com", name: "Ann at work")
            try await work.thread("Anchor", "403")
            let wrong = try await ann.send(.POST, "/account/merge", json: AccountMergeRequest(email: "ann.work@example.com", password: "nope nope"))
            #expect(wrong.status == .unauthorized)
            let merged = try await ann.send(.POST, "/account/merge", json: AccountMergeRequest(email: "ann.work@example.com", password: "correct horse"))
            #expect(merged.status == .ok, "\(merged.text)")
            #expect(try merged.decode(AccountMergeSummary.self).droppedEmail == "ann.work@example.com")
            #expect(try await login(app, email: "ann.work@example.com").status == .unauthorized)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 2)
        }
    }
}
