import Crypto
import Fluent
import Foundation
import ServerCommon
import StitchCore
import Vapor

/// "Add Apple / Instagram / TikTok" from Settings: the provider's flow is started as a sign-in is,
/// with a cookie that says which signed-in account the browser asked to add it to. It names the
/// flow's nonce and the account, signed with the server's secret, so it can't be made for another
/// account or carried to another flow; it is HttpOnly and lives as long as the flow.
enum WebLinkIntent {
    static let cookie = "stitch_link"

    static func value(nonce: String, userId: UUID, secret: String) -> String {
        let payload = "\(nonce).\(userId.uuidString.lowercased())"
        return payload + "." + AccountLinks.sign(payload, purpose: "web-link-intent", secret: secret)
    }

    /// The account this browser asked to add the flow `nonce`'s sign-in to, if it did.
    static func account(_ req: Request, nonce: String) -> UUID? {
        guard let value = req.cookies[cookie]?.string else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, BrowserSession.constantTimeEquals(parts[0], nonce),
              BrowserSession.constantTimeEquals(AccountLinks.sign("\(parts[0]).\(parts[1])", purpose: "web-link-intent", secret: req.config.jwtSecret), parts[2])
        else { return nil }
        return UUID(uuidString: parts[1])
    }

    /// Apple's post back is cross-site: like Apple's flow cookie, SameSite=None over HTTPS.
    static func set(_ value: String, on response: Response, req: Request, maxAge: Int) {
        let secure = BrowserSession.isSecure(req)
        response.cookies[cookie] = HTTPCookies.Value(
            string: value, expires: maxAge > 0 ? nil : Date(timeIntervalSince1970: 0), maxAge: maxAge, path: "/app/signin",
            isSecure: secure, isHTTPOnly: true, sameSite: secure ? HTTPCookies.SameSitePolicy.none : .lax)
    }

    /// A signed "merge that account into this one" offer, good for ten minutes and only for `into`.
    static func offer(other: UUID, into: UUID, now: Date, secret: String) -> String {
        let payload = "\(Int(now.timeIntervalSince1970)).\(other.uuidString.lowercased()).\(into.uuidString.lowercased())"
        return payload + "." + AccountLinks.sign(payload, purpose: "web-merge-offer", secret: secret)
    }

    static func other(inOffer offer: String, into: UUID, now: Date, secret: String) -> UUID? {
        let parts = offer.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let issued = Double(parts[0]),
              BrowserSession.constantTimeEquals(AccountLinks.sign(parts[0...2].joined(separator: "."), purpose: "web-merge-offer", secret: secret), parts[3]),
              UUID(uuidString: parts[2]) == into else { return nil }
        let age = now.timeIntervalSince1970 - issued
        return age >= -60 && age <= AccountLinks.Pending.lifetime ? UUID(uuidString: parts[1]) : nil
    }
}

extension WebController {
    /// Marks a provider flow started from Settings' "Add …" as adding to the signed-in account.
    func markLinkIntent(_ req: Request, nonce: String, on response: Response) throws {
        guard (try? FormData.parse(req)["intent"]) == "link", let user = req.auth.get(AuthenticatedUser.self) else { return }
        WebLinkIntent.set(WebLinkIntent.value(nonce: nonce, userId: user.id, secret: req.config.jwtSecret), on: response, req: req,
                          maxAge: Int(OAuthWebSignIn.stateLifetime))
    }

    /// The end of every provider flow in the browser, once the provider has vouched for the
    /// identity: added to the account that asked (Settings), or signed in — to its account, a
    /// new one, or, when its verified address is an account's, to the page that adds it there.
    func finishProviderFlow(_ identity: ProviderIdentity, displayName: String?, nonce: String, req: Request) async throws -> Response {
        let name = AccountLinks.name(identity.provider)
        if let userId = WebLinkIntent.account(req, nonce: nonce), try await UserModel.find(userId, on: req.db) != nil {
            let response: Response
            do {
                try await AccountLinks.link(identity, to: userId, now: req.now, db: req.db)
                response = redirect(.settings, flash: "\(name) is now a way to sign in to this account.")
            } catch let elsewhere as AccountLinks.LinkedElsewhere {
                let offer = WebLinkIntent.offer(other: elsewhere.otherUserId, into: userId, now: req.now, secret: req.config.jwtSecret)
                response = req.redirect(to: SiteURL.mergeAccount.path + "?offer=" + offer + "&provider=" + identity.provider.rawValue)
            }
            WebLinkIntent.set("", on: response, req: req, maxAge: 0)
            return response
        }
        do {
            let (user, _) = try await AuthService.findOrCreate(identity, displayName: displayName, caller: req.caller) { _, _ in () }
            let response = redirect(.inventory)
            try await WebSession.start(userId: user.id!, req: req, response: response)
            return response
        } catch let clash as AccountLinks.Clash {
            return req.redirect(to: SiteURL.linkSignIn.path + "?token=" + clash.pending.token(secret: req.config.jwtSecret))
        }
    }

    // MARK: A sign-in meeting an account's address

    @Sendable func linkSignInPage(req: Request) async throws -> Response {
        let token = req.queryText("token") ?? ""
        guard let pending = AccountLinks.Pending.verify(token, now: req.now, secret: req.config.jwtSecret) else {
            return redirect(.signIn, flash: AccountLinks.expiredLink.reason)
        }
        return html(try await linkSignInPage(token: token, pending: pending, req: req).render(try await context(req)))
    }

    /// The page for a pending sign-in: the password form if the account has one, the mailed link if this server mails.
    func linkSignInPage(token: String, pending: AccountLinks.Pending, error: String? = nil, req: Request) async throws -> LinkSignInPage {
        let hasPassword = try await UserModel.query(on: req.db).filter(\.$email == pending.email).first()?.passwordHash != nil
        return LinkSignInPage(token: token, pending: pending, hasPassword: hasPassword, canMail: req.config.smtp != nil && req.config.publicURL != nil, error: error)
    }

    /// "Email me a link instead": mailed, and the sign-in page says where to look.
    @Sendable func mailLinkSignIn(req: Request) async throws -> Response {
        let token = try FormData.parse(req)["token"] ?? ""
        do {
            return redirect(.signIn, flash: try await AccountLinks.mailLink(token: token, caller: req.caller).message)
        } catch let error as APIError {
            guard let pending = AccountLinks.Pending.verify(token, now: req.now, secret: req.config.jwtSecret) else {
                return redirect(.signIn, flash: AccountLinks.expiredLink.reason)
            }
            return html(try await linkSignInPage(token: token, pending: pending, error: error.reason, req: req).render(try await context(req)),
                        status: error.status, headers: error.headers)
        }
    }

    /// The mailed link opened: a button to add the sign-in (a mail scanner's visit adds nothing).
    @Sendable func confirmLinkSignInPage(req: Request) async throws -> Response {
        let token = req.queryText("token") ?? ""
        do {
            let (pending, user) = try await AccountLinks.mailed(token: token, caller: req.caller)
            return html(ConfirmLinkSignInPage(token: token, pending: pending, takesBack: user.emailProvenAt == nil).render(try await context(req)))
        } catch let error as APIError {
            return redirect(.signIn, flash: error.reason)
        }
    }

    @Sendable func confirmLinkSignIn(req: Request) async throws -> Response {
        let token = try FormData.parse(req)["token"] ?? ""
        do {
            let (pending, tookBack) = try await AccountLinks.confirmMailed(token: token, caller: req.caller)
            let name = AccountLinks.name(pending.provider)
            guard !tookBack else {
                return redirect(.signIn, flash: "\(name) now opens your account. Its address had never been confirmed, so the password set on it was removed and every device signed out: sign in with \(name), and choose a password from Forgot password if you want one.")
            }
            return redirect(.signIn, flash: "\(name) now opens your account. Sign in with \(name).")
        } catch let error as APIError {
            return redirect(.signIn, flash: error.reason)
        } catch is AccountLinks.LinkedElsewhere {
            return redirect(.signIn, flash: "That sign-in was added to another account meanwhile.")
        }
    }

    @Sendable func linkSignIn(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let token = form["token"] ?? ""
        do {
            let user = try await AccountLinks.link(token: token, password: form.fields["password"] ?? "", caller: req.caller)
            let provider = AccountLinks.Pending.verify(token, now: req.now, secret: req.config.jwtSecret).map { AccountLinks.name($0.provider) } ?? "It"
            let response = redirect(.inventory, flash: "\(provider) is now a way to sign in to your account.")
            try await WebSession.start(userId: user.id!, req: req, response: response)
            return response
        } catch let error as APIError {
            guard let pending = AccountLinks.Pending.verify(token, now: req.now, secret: req.config.jwtSecret) else {
                return redirect(.signIn, flash: AccountLinks.expiredLink.reason)
            }
            return html(try await linkSignInPage(token: token, pending: pending, error: error.reason, req: req).render(try await context(req)),
                        status: error.status, headers: error.headers)
        } catch is AccountLinks.LinkedElsewhere {
            return redirect(.signIn, flash: "That sign-in was added to another account meanwhile.")
        }
    }

    // MARK: Settings

    @Sendable func removeSignIn(req: Request) async throws -> Response {
        guard let provider = req.parameters.get("provider").flatMap(IdentityProvider.init(rawValue:)) else { throw Abort(.notFound) }
        do {
            _ = try await AccountLinks.unlink(provider, userId: try req.user.id, now: req.now, db: req.db)
        } catch let error as APIError {
            return redirect(.settings, flash: error.reason)
        }
        return redirect(.settings, flash: provider == .email
            ? "Your password is removed: sign in with the other ways listed. “Forgot password” can set one again."
            : "\(AccountLinks.name(provider)) no longer signs in to this account.")
    }

    @Sendable func mergePage(req: Request) async throws -> Response {
        let userId = try req.user.id
        var page = MergeAccountPage()
        if let offer = req.queryText("offer") {
            guard let other = WebLinkIntent.other(inOffer: offer, into: userId, now: req.now, secret: req.config.jwtSecret),
                  let model = try await UserModel.find(other, on: req.db) else {
                return redirect(.settings, flash: "That offer to merge has expired. Add the sign-in again.")
            }
            page.offer = offer
            page.provider = req.queryText("provider").flatMap(IdentityProvider.init(rawValue:)).map(AccountLinks.name)
            page.other = (model.displayName, try await Self.counts(other, db: req.db))
        }
        return html(page.render(try await context(req)))
    }

    @Sendable func merge(req: Request) async throws -> Response {
        let userId = try req.user.id
        let form = try FormData.parse(req)
        do {
            let other: UUID
            if let offer = form["offer"] {
                guard let proven = WebLinkIntent.other(inOffer: offer, into: userId, now: req.now, secret: req.config.jwtSecret) else {
                    return redirect(.settings, flash: "That offer to merge has expired. Add the sign-in again.")
                }
                other = proven
            } else {
                other = try await AccountLinks.proven(AccountMergeRequest(email: form["email"] ?? "", password: form.fields["password"] ?? ""), caller: req.caller)
            }
            let summary = try await AccountLinks.merge(other, into: userId, app: req.application, db: req.db)
            let moved = summary.records.values.reduce(0, +)
            var said = "The other account is merged into this one: \(moved) record\(moved == 1 ? "" : "s") and \(summary.pictures) picture\(summary.pictures == 1 ? "" : "s") moved."
            if !summary.signInMethods.isEmpty {
                said += " " + summary.signInMethods.map(AccountLinks.name).joined(separator: " and ") + " now sign\(summary.signInMethods.count == 1 ? "s" : "") in here."
            }
            if let dropped = summary.droppedEmail { said += " \(dropped) and its password no longer sign in." }
            return redirect(.settings, flash: said)
        } catch let error as APIError {
            var page = MergeAccountPage(error: error.reason)
            page.email = form["email"] ?? ""
            return html(page.render(try await context(req)), status: error.status, headers: error.headers)
        }
    }
}
