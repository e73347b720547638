import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Signing in with the API token, the first-run set-up, signing out.
extension WebController {
    @Sendable func home(req: Request) async throws -> Response {
        try await WebSession.isSignedIn(req) ? Self.redirect(SiteURL.chat.path)
            : Self.redirect(req.selene.config.apiTokens.isEmpty ? SiteURL.setup.path : SiteURL.signIn.path)
    }

    /// The sign-in page; with `?token=` (the link `selene serve` prints on its first start, and
    /// `selene token show`) it signs this browser in at once and leaves the token out of the
    /// address bar and history by redirecting.
    @Sendable func signInPage(req: Request) async throws -> Response {
        if req.selene.config.apiTokens.isEmpty { return Self.redirect(SiteURL.setup.path) }
        if let token = req.query[String.self, at: "token"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            guard req.selene.tokens.accepts(token) else {
                return Self.render(req, Pages.signIn(context: Self.context(req), error: "That link's token isn't one of this server's API tokens."), status: .unauthorized)
            }
            let response = Self.redirect(SiteURL.chat.path)
            response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
            try await WebSession.start(tokenHash: BrowserSession.hash(token), req: req, response: response)
            return response
        }
        return Self.render(req, Pages.signIn(context: Self.context(req), error: nil))
    }

    @Sendable func signIn(req: Request) async throws -> Response {
        struct Form: Decodable { var token: String? }
        let form = try Self.form(req, Form.self)
        let token = (form.token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.setup.path) }
        guard !token.isEmpty, req.selene.tokens.accepts(token) else {
            return Self.render(req, Pages.signIn(context: Self.context(req), error: "That isn't one of this server's API tokens."), status: .unauthorized)
        }
        let response = Self.redirect(SiteURL.chat.path)
        try await WebSession.start(tokenHash: BrowserSession.hash(token), req: req, response: response)
        return response
    }

    @Sendable func setupPage(req: Request) async throws -> Response {
        guard req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.signIn.path) }
        return Self.render(req, Pages.setup(context: Self.context(req), suggestedToken: APITokens.newToken()))
    }

    @Sendable func setup(req: Request) async throws -> Response {
        try Self.verify(req)
        guard req.selene.config.apiTokens.isEmpty else { return Self.redirect(SiteURL.signIn.path) }
        let response = Self.redirect(SiteURL.chat.path)
        try await WebSession.start(tokenHash: WebSession.openMode, req: req, response: response)
        return response
    }

    @Sendable func signOut(req: Request) async throws -> Response {
        try Self.verify(req)
        let response = Self.redirect(SiteURL.signIn.path)
        try await WebSession.end(req: req, response: response)
        // The pictures and pages the browser keeps in its HTTP cache go with the session.
        response.headers.replaceOrAdd(name: "Clear-Site-Data", value: BrowserSession.clearCache)
        return response
    }
}
