import ServerCommon
import Crypto
import Foundation
import StitchCore
import Vapor

/// Instagram and TikTok in the browser: the OAuth authorization-code flow. The button sends the
/// browser to the provider with a `state` this server signed (a timestamp, a nonce and the
/// provider) and, for TikTok, a PKCE challenge; the provider sends it back to the callback with a
/// code, which is exchanged exactly as the API does (`OAuthSignIn`). The nonce is also kept in a
/// short-lived cookie of this browser (HttpOnly, SameSite=Lax: sent on the provider's top-level
/// redirect back), so a code and state made in someone else's browser can't sign this one in. The
/// PKCE verifier is derived from the nonce with the server's secret: nothing is stored.
enum OAuthWebSignIn {
    static let stateLifetime: TimeInterval = 10 * 60
    static let cookie = "stitch_oauth"

    /// The providers with a web flow, by the name in their paths.
    static func provider(_ name: String?) -> IdentityProvider? {
        switch name {
        case "instagram": .instagram
        case "tiktok": .tiktok
        default: nil
        }
    }

    static func config(_ provider: IdentityProvider, _ config: AppConfig) -> AppConfig.OAuthProvider? {
        let found: AppConfig.OAuthProvider? = switch provider {
        case .instagram: config.instagram
        case .tiktok: config.tiktok
        default: nil
        }
        return found.flatMap { $0.webRedirectURI == nil ? nil : $0 }
    }

    static func name(_ provider: IdentityProvider) -> String { provider == .tiktok ? "TikTok" : "Instagram" }

    static func makeState(_ provider: IdentityProvider, now: Date, secret: String) -> (state: String, nonce: String) {
        let nonce = TokenService.base64URL([UInt8].random(count: 16))
        let payload = "\(Int(now.timeIntervalSince1970)).\(nonce).\(provider.rawValue)"
        return ("\(payload).\(sign(payload, secret: secret))", nonce)
    }

    /// The nonce of a state this server made for `provider` in the last ten minutes, or nil.
    static func verifyState(_ state: String, provider: IdentityProvider, now: Date, secret: String) -> String? {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let issued = Double(parts[0]), parts[2] == provider.rawValue else { return nil }
        guard BrowserSession.constantTimeEquals(sign(parts[0...2].joined(separator: "."), secret: secret), parts[3]) else { return nil }
        let age = now.timeIntervalSince1970 - issued
        guard age >= -60, age <= stateLifetime else { return nil }
        return parts[1]
    }

    static func sign(_ payload: String, secret: String) -> String {
        TokenService.base64URL(HMAC<SHA256>.authenticationCode(for: Data("oauth-web-state:\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    /// PKCE (RFC 7636): a 43-character verifier, and its S256 challenge.
    static func codeVerifier(nonce: String, secret: String) -> String {
        TokenService.base64URL(HMAC<SHA256>.authenticationCode(for: Data("oauth-web-pkce:\(nonce)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    static func codeChallenge(_ verifier: String) -> String { TokenService.base64URL(SHA256.hash(data: Data(verifier.utf8))) }

    /// Instagram's Business Login takes `client_id` and no PKCE; TikTok's Login Kit takes
    /// `client_key` and a PKCE challenge.
    static func authorizeURL(_ provider: IdentityProvider, config: AppConfig.OAuthProvider, state: String, verifier: String) -> String {
        var c = URLComponents(string: config.authorizeURL)!
        var items = c.queryItems ?? []
        switch provider {
        case .tiktok:
            items += [URLQueryItem(name: "client_key", value: config.clientId), URLQueryItem(name: "scope", value: "user.info.basic"),
                      URLQueryItem(name: "code_challenge", value: codeChallenge(verifier)), URLQueryItem(name: "code_challenge_method", value: "S256")]
        default:
            items += [URLQueryItem(name: "client_id", value: config.clientId), URLQueryItem(name: "scope", value: "instagram_business_basic")]
        }
        items += [URLQueryItem(name: "redirect_uri", value: config.webRedirectURI), URLQueryItem(name: "response_type", value: "code"),
                  URLQueryItem(name: "state", value: state)]
        c.queryItems = items
        return c.string!
    }
}

extension WebController {
    /// "Continue with Instagram / TikTok": off to the provider.
    @Sendable func oauthStart(req: Request) async throws -> Response {
        guard let provider = OAuthWebSignIn.provider(req.parameters.get("provider")),
              let config = OAuthWebSignIn.config(provider, req.config) else { throw Abort(.notFound) }
        let (state, nonce) = OAuthWebSignIn.makeState(provider, now: req.now, secret: req.config.jwtSecret)
        let verifier = OAuthWebSignIn.codeVerifier(nonce: nonce, secret: req.config.jwtSecret)
        let response = req.redirect(to: OAuthWebSignIn.authorizeURL(provider, config: config, state: state, verifier: verifier), redirectType: .normal)
        response.cookies[OAuthWebSignIn.cookie] = HTTPCookies.Value(
            string: nonce, maxAge: Int(OAuthWebSignIn.stateLifetime), path: "/app/signin", isSecure: BrowserSession.isSecure(req),
            isHTTPOnly: true, sameSite: .lax)
        try markLinkIntent(req, nonce: nonce, on: response)
        return response
    }

    /// The provider's redirect back: check the state against this browser's cookie, exchange the
    /// code, and start a web session (a new account, or the one this identity already has).
    @Sendable func oauthCallback(req: Request) async throws -> Response {
        guard let provider = OAuthWebSignIn.provider(req.parameters.get("provider")),
              let config = OAuthWebSignIn.config(provider, req.config) else { throw Abort(.notFound) }
        let name = OAuthWebSignIn.name(provider)
        let failed = { (why: String) async throws -> Response in
            req.logger.info("\(name) web sign-in refused: \(why)")
            let page = SignInPage(mode: .signIn, message: "We couldn't complete the sign-in with \(name). Please try again.")
            var ctx = try await self.context(req)
            ctx.appleSignIn = req.config.apple?.webRedirectURI != nil
            ctx.oauthSignIn = self.oauthProviders(req)
            let response = self.html(page.render(ctx), status: .unauthorized)
            response.cookies[OAuthWebSignIn.cookie] = HTTPCookies.Value(string: "", maxAge: 0, path: "/app/signin")
            return response
        }
        if let error = req.queryText("error") { return try await failed("the provider answered \(error)") }
        guard let state = req.queryText("state"),
              let nonce = OAuthWebSignIn.verifyState(state, provider: provider, now: req.now, secret: req.config.jwtSecret) else {
            return try await failed("bad or expired state")
        }
        guard let cookie = req.cookies[OAuthWebSignIn.cookie]?.string, BrowserSession.constantTimeEquals(cookie, nonce) else {
            return try await failed("the state was not made in this browser")
        }
        guard let code = req.queryText("code") else { return try await failed("no code") }
        let identity: ProviderIdentity
        do {
            identity = try await OAuthSignIn.verify(provider: provider, code: code, redirectUri: config.webRedirectURI,
                                                    codeVerifier: OAuthWebSignIn.codeVerifier(nonce: nonce, secret: req.config.jwtSecret),
                                                    app: req.application)
        } catch let error as ProviderError {
            return try await failed(error.reason)
        }
        let response = try await finishProviderFlow(identity, displayName: identity.displayName, nonce: nonce, req: req)
        response.cookies[OAuthWebSignIn.cookie] = HTTPCookies.Value(string: "", maxAge: 0, path: "/app/signin")
        return response
    }

    /// The providers whose button the sign-in page shows: (path name, label).
    func oauthProviders(_ req: Request) -> [(String, String)] {
        [IdentityProvider.instagram, .tiktok].compactMap { provider in
            OAuthWebSignIn.config(provider, req.config).map { _ in (provider.rawValue, OAuthWebSignIn.name(provider)) }
        }
    }
}
