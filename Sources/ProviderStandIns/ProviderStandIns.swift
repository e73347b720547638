import Foundation
import JWTKit
import Vapor

/// Apple, Instagram and TikTok as Stitchuation meets them, on a loopback port, speaking each one's
/// real protocol — for the server's suites (in process, `start`) and the browser tests (as the
/// `provider-standins` executable). Never in production.
///
/// - **Apple**: its key endpoint (`/apple/auth/keys`, the JWKS the server checks RS256 identity
///   tokens with); its authorize page (a "Continue" button posting the identity token and the
///   state back to the site, as Apple's `form_post` does, for the Apple ID `ann-apple-id`); `mint`,
///   a token for any Apple ID and nonce (what an attacker gets by starting a sign-in of their own);
///   `lure`, an attacker's page finishing that sign-in in the visitor's browser.
/// - **Instagram and TikTok**: each authorize page ("Allow" sends the browser back with a code and
///   the state; "Cancel" with `access_denied`), token endpoint (form-encoded, client credentials
///   and the grant type checked, the code single-use and bound to its redirect address; TikTok
///   checks the PKCE verifier against the S256 challenge it was shown) and user-info endpoint.
///   `Settings.codes` are codes issued beforehand (a phone's SDK got them): no redirect or PKCE,
///   and not used up (each test of a suite runs the flow with them again).
public final class ProviderStandIns: @unchecked Sendable {
    public struct User: Sendable { public var id: String; public var name: String; public var unionId: String
        public init(id: String, name: String, unionId: String = "u-1") { self.id = id; self.name = name; self.unionId = unionId } }
    public struct Client: Sendable { public var id: String; public var secret: String
        public init(id: String, secret: String) { self.id = id; self.secret = secret } }

    public struct Settings: Sendable {
        public var appleClientId: String
        public var instagram: Client
        public var tiktok: Client
        public var instagramUser: User
        public var tiktokUser: User
        /// Codes issued beforehand, per provider ("instagram", "tiktok"): code → user.
        public var codes: [String: [String: User]]

        /// The server suites' stand-ins (the phone's flows: codes its SDK got).
        public static let suite = Settings(
            appleClientId: "com.stitchuation.app", instagram: .init(id: "ig-client", secret: "ig-secret"),
            tiktok: .init(id: "tt-client", secret: "tt-secret"),
            instagramUser: .init(id: "17841400000000001", name: "stitchy_ig"), tiktokUser: .init(id: "tt-open-id-1", name: "Stitchy TT"),
            codes: ["instagram": ["good-ig-code": .init(id: "17841400000000001", name: "stitchy_ig")],
                    "tiktok": ["good-tt-code": .init(id: "tt-open-id-1", name: "Stitchy TT")]])

        /// The web app's (the browser goes through each authorize page).
        public static let web = Settings(
            appleClientId: "com.stitchuation.web", instagram: .init(id: "ig-web-client", secret: "ig-web-secret"),
            tiktok: .init(id: "tt-web-client", secret: "tt-web-secret"),
            instagramUser: .init(id: "17841400000000009", name: "stitchy_ig"), tiktokUser: .init(id: "tt-open-id-9", name: "Stitchy TT", unionId: "u-9"),
            codes: [:])
    }

    public static let appleKid = "apple-test-kid"
    public static let appleIssuer = "https://appleid.apple.com"

    let app: Application
    public let port: Int
    public let settings: Settings
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    let state = Grants()

    private init(app: Application, port: Int, settings: Settings) {
        self.app = app
        self.port = port
        self.settings = settings
    }

    /// The stand-ins on a free loopback port (or `port`).
    public static func start(_ settings: Settings = .suite, port: Int = 0) async throws -> ProviderStandIns {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let grants = Grants()
        for (provider, codes) in settings.codes {
            for (code, user) in codes { await grants.issueStanding(code, .init(provider: provider, user: user)) }
        }
        try routeApple(app, settings)
        routeOAuth(app, settings, grants)
        try await app.asyncBoot()
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        guard let bound = app.http.server.shared.localAddress?.port else { throw Abort(.internalServerError, reason: "the stand-ins did not bind") }
        return ProviderStandIns(app: app, port: bound, settings: settings)
    }

    public func stop() async throws {
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    /// The Stitchuation server's settings pointing at these stand-ins; `{site}` stands for the
    /// site's own address (the web flows' redirect addresses).
    public var environment: [String: String] {
        [
            "APPLE_CLIENT_ID": settings.appleClientId, "APPLE_JWKS_URL": baseURL + "/apple/auth/keys",
            "APPLE_AUTHORIZE_URL": baseURL + "/apple/auth/authorize", "APPLE_WEB_REDIRECT_URI": "{site}/app/signin/apple/callback",
            "INSTAGRAM_CLIENT_ID": settings.instagram.id, "INSTAGRAM_CLIENT_SECRET": settings.instagram.secret,
            "INSTAGRAM_AUTHORIZE_URL": baseURL + "/instagram/oauth/authorize",
            "INSTAGRAM_TOKEN_URL": baseURL + "/instagram/oauth/access_token",
            "INSTAGRAM_USERINFO_URL": baseURL + "/instagram/me?fields=id,username",
            "INSTAGRAM_WEB_REDIRECT_URI": "{site}/app/signin/instagram/callback",
            "TIKTOK_CLIENT_ID": settings.tiktok.id, "TIKTOK_CLIENT_SECRET": settings.tiktok.secret,
            "TIKTOK_AUTHORIZE_URL": baseURL + "/tiktok/v2/auth/authorize/",
            "TIKTOK_TOKEN_URL": baseURL + "/tiktok/v2/oauth/token/",
            "TIKTOK_USERINFO_URL": baseURL + "/tiktok/v2/user/info/?fields=open_id,union_id,display_name",
            "TIKTOK_WEB_REDIRECT_URI": "{site}/app/signin/tiktok/callback",
        ]
    }

    // MARK: Apple

    /// Signs an identity token the way Apple does (RS256, kid in the header).
    public static func appleToken(
        sub: String, aud: String, iss: String = appleIssuer, expires: Date, nonce: String? = nil, email: String? = nil,
        emailVerified: Bool? = nil, pem: String = applePEM, kid: String = appleKid
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let claims = AppleClaims(iss: .init(value: iss), aud: .init(value: [aud]), exp: .init(value: expires), iat: .init(value: Date()),
                                 sub: .init(value: sub), nonce: nonce, email: email, email_verified: emailVerified.map { $0 ? "true" : "false" })
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    struct AppleClaims: JWTPayload {
        var iss: IssuerClaim; var aud: AudienceClaim; var exp: ExpirationClaim; var iat: IssuedAtClaim; var sub: SubjectClaim
        var nonce: String?; var email: String?; var email_verified: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func routeApple(_ app: Application, _ settings: Settings) throws {
        let key = try Insecure.RSA.PrivateKey(pem: applePEM)
        let (n, e) = try key.publicKey.getKeyPrimitives()
        let jwks = #"{"keys":[{"kty":"RSA","kid":"\#(appleKid)","use":"sig","alg":"RS256","n":"\#(base64URL(n))","e":"\#(base64URL(e))"}]}"#
        app.get("apple", "auth", "keys") { _ in json(.ok, jwks) }
        // The person signs in with their Apple ID; Apple posts back to the site.
        app.get("apple", "auth", "authorize") { req async throws -> Response in
            guard let redirect = req.query[String.self, at: "redirect_uri"], let state = req.query[String.self, at: "state"],
                  let nonce = req.query[String.self, at: "nonce"] else { return page(.badRequest, "<p>Invalid request</p>") }
            let token = try await appleToken(sub: "ann-apple-id", aud: settings.appleClientId, expires: Date().addingTimeInterval(600),
                                             nonce: nonce, email: "ann@privaterelay.appleid.com")
            return page(.ok, formPost(redirect, ["state": state, "id_token": token]))
        }
        app.get("apple", "mint") { req async throws -> Response in
            let token = try await appleToken(sub: req.query[String.self, at: "sub"] ?? "", aud: settings.appleClientId,
                                             expires: Date().addingTimeInterval(600), nonce: req.query[String.self, at: "nonce"])
            return Response(status: .ok, headers: ["Content-Type": "text/plain"], body: .init(string: token))
        }
        // An attacker's page: finishes the attacker's own sign-in in the visitor's browser.
        app.get("apple", "lure") { req -> Response in
            let fields = ["state": req.query[String.self, at: "state"] ?? "", "id_token": req.query[String.self, at: "id_token"] ?? ""]
            return page(.ok, formPost(req.query[String.self, at: "action"] ?? "", fields, auto: true))
        }
    }

    static func formPost(_ action: String, _ fields: [String: String], auto: Bool = false) -> String {
        let inputs = fields.sorted { $0.key < $1.key }.map { #"<input type="hidden" name="\#(escape($0.key))" value="\#(escape($0.value))">"# }.joined()
        return #"<!doctype html><title>Apple</title><h1>Apple ID</h1><form method="post" action="\#(escape(action))">\#(inputs)"#
            + #"<button id="allow" type="submit">Continue</button></form>"# + (auto ? "<script>document.forms[0].submit()</script>" : "")
    }

    // MARK: Instagram and TikTok

    /// A code's grant: whose it is, where it was sent, the PKCE challenge shown (web flows only).
    struct Grant: Sendable { var provider: String; var user: User; var redirectURI: String? = nil; var challenge: String? = nil }

    actor Grants {
        var codes: [String: Grant] = [:]
        var standing: [String: Grant] = [:]
        var tokens: [String: Grant] = [:]
        func issue(_ code: String, _ grant: Grant) { codes[code] = grant }
        /// A code of `Settings.codes`: it stands for each run of a suite's flow, so it is not used up.
        func issueStanding(_ code: String, _ grant: Grant) { standing[code] = grant }
        /// A code from an authorize page is single use.
        func redeem(_ code: String) -> Grant? { codes.removeValue(forKey: code) ?? standing[code] }
        func token(_ token: String, _ grant: Grant) { tokens[token] = grant }
        func holder(of token: String) -> Grant? { tokens[token] }
    }

    static func routeOAuth(_ app: Application, _ settings: Settings, _ grants: Grants) {
        for provider in ["instagram", "tiktok"] {
            let path: [PathComponent] = provider == "instagram" ? ["instagram", "oauth", "authorize"] : ["tiktok", "v2", "auth", "authorize"]
            app.get(path) { req async -> Response in await authorize(req, provider: provider, settings, grants) }
        }
        app.post("instagram", "oauth", "access_token") { req async -> Response in
            let form = (try? req.content.decode([String: String].self)) ?? [:]
            guard form["client_id"] == settings.instagram.id, form["client_secret"] == settings.instagram.secret,
                  form["grant_type"] == "authorization_code", let code = form["code"], let grant = await grants.redeem(code),
                  grant.provider == "instagram", grant.redirectURI == nil || grant.redirectURI == form["redirect_uri"] else {
                return json(.badRequest, #"{"error_type":"OAuthException","code":400,"error_message":"Invalid authorization code"}"#)
            }
            let token = "IGQV-" + code
            await grants.token(token, grant)
            return json(.ok, #"{"access_token":"\#(token)","user_id":\#(grant.user.id),"permissions":["instagram_business_basic"]}"#)
        }
        app.get("instagram", "me") { req async -> Response in
            guard let grant = await grants.holder(of: req.query[String.self, at: "access_token"] ?? ""), grant.provider == "instagram" else {
                return json(.badRequest, #"{"error":{"message":"Invalid OAuth access token","type":"OAuthException","code":190}}"#)
            }
            return json(.ok, #"{"id":"\#(grant.user.id)","username":"\#(grant.user.name)"}"#)
        }
        app.post("tiktok", "v2", "oauth", "token") { req async -> Response in
            let form = req.headers.contentType == .urlEncodedForm ? (try? req.content.decode([String: String].self)) ?? [:] : [:]
            guard form["client_key"] == settings.tiktok.id, form["client_secret"] == settings.tiktok.secret,
                  form["grant_type"] == "authorization_code", let code = form["code"], let grant = await grants.redeem(code),
                  grant.provider == "tiktok", grant.redirectURI == nil || grant.redirectURI == form["redirect_uri"],
                  grant.challenge == nil || grant.challenge == s256(form["code_verifier"] ?? "") else {
                return json(.badRequest, #"{"error":"invalid_grant","error_description":"Authorization code is expired or invalid","log_id":"x"}"#)
            }
            let token = "act." + code
            await grants.token(token, grant)
            return json(.ok, #"{"access_token":"\#(token)","expires_in":86400,"open_id":"\#(grant.user.id)","refresh_expires_in":31536000,"refresh_token":"rft.x","scope":"user.info.basic","token_type":"Bearer"}"#)
        }
        app.get("tiktok", "v2", "user", "info") { req async -> Response in
            guard let bearer = req.headers.bearerAuthorization?.token, let grant = await grants.holder(of: bearer), grant.provider == "tiktok" else {
                return json(.unauthorized, #"{"data":{},"error":{"code":"access_token_invalid","message":"The access token is invalid or not found in the request.","log_id":"x"}}"#)
            }
            return json(.ok, #"{"data":{"user":{"open_id":"\#(grant.user.id)","union_id":"\#(grant.user.unionId)","display_name":"\#(grant.user.name)"}},"error":{"code":"ok","message":"","log_id":"x"}}"#)
        }
    }

    /// The provider's page asking the person: "Allow" back to the site with a code, "Cancel" with
    /// `access_denied`. The code is the state's digest (so a test can tell it), single-use.
    static func authorize(_ req: Request, provider: String, _ settings: Settings, _ grants: Grants) async -> Response {
        let client = req.query[String.self, at: provider == "instagram" ? "client_id" : "client_key"]
        let expected = provider == "instagram" ? settings.instagram.id : settings.tiktok.id
        guard client == expected, req.query[String.self, at: "response_type"] == "code",
              let redirect = req.query[String.self, at: "redirect_uri"], !redirect.isEmpty,
              let state = req.query[String.self, at: "state"], !state.isEmpty else { return page(.badRequest, "<p>Invalid request</p>") }
        let challenge = req.query[String.self, at: "code_challenge"]
        if provider == "tiktok", req.query[String.self, at: "code_challenge_method"] != "S256" || (challenge ?? "").isEmpty {
            return page(.badRequest, "<p>PKCE required</p>")
        }
        let code = s256(state)
        let user = provider == "instagram" ? settings.instagramUser : settings.tiktokUser
        await grants.issue(code, Grant(provider: provider, user: user, redirectURI: redirect, challenge: challenge))
        let back = redirect + "?" + query(["code": code, "state": state])
        let deny = redirect + "?" + query(["error": "access_denied", "state": state])
        let name = provider == "instagram" ? "Instagram" : "TikTok"
        return page(.ok, "<!doctype html><title>\(name)</title><h1>\(name)</h1><p>Stitchuation wants to know who you are.</p>"
                    + "<a id='allow' href='\(escape(back))'>Allow</a> <a id='deny' href='\(escape(deny))'>Cancel</a>")
    }

    // MARK: Plumbing

    static func json(_ status: HTTPResponseStatus, _ body: String) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: .init(string: body))
    }

    static func page(_ status: HTTPResponseStatus, _ body: String) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: .init(string: body))
    }

    static func s256(_ text: String) -> String { base64URL(Data(SHA256.hash(data: Data(text.utf8)))) }

    public static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#x27;")
    }

    static func query(_ items: [String: String]) -> String {
        var components = URLComponents()
        components.queryItems = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        // A "+" in a value is a space to a form decoder: encode it.
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }
}

extension ProviderStandIns {
    /// Test-only RSA key (generated for these stand-ins; it protects nothing).
    public static let applePEM = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCsVZBC7suUFLHQ
oJi5m64cq+U0nNt0ICm7CSSy7rwShq5RO4AGJV7erKkjLGnPNWC/E+szrninnwAd
ojlvImTZH4noBGQBKNzfFajWsm2QekUGiVYwq5Jh+uY/MhNqgs/fP3PMJPdST1qK
QGJ0AbFPlOuTW/ofcj6Vo9s4oX5T7HM1yYcJw4xlWuLIbXtMJ+PjFuQ9sJBHxPD3
uHwgR6BFndm5hDEEtr6gRCJRMLfDW3PmsNLJ/9XVEYUT1C6EwL8MtRbJhiSJ2DZc
kfBx00a5T8vlAKYN2Wx4TAvcldr4WE7IDCvwxsMZFUTMVLonAgcyBBIsp4KoLTIY
XI6nF2DHAgMBAAECggEAGa4ubyryf0CONs6Xs6D1UyRyZWKyeR2J2mtEYr2cnQ4g
z84UB9ZtyrTkB2/I3K3Rmue29t6a8C+Lbt8Lu/neGVTP0hlFZb7XGw85N7UjCpKN
0qmIhHwsthkTUnt91TNlEpl8AgHIMSXOEigCA9N0vq0sZashHKqDlPzz3/6AurSU
sw4Xprp7cPYlN93S1+13DwdN2RVLhxq7snlTq6pTy0I2kYCA0mvvTUXWuUly15Yy
HRTmH9orYLGh9XxUCQslIVC7RbiV15E60BrkmfC+7v45MeKjal6GIfobsVlWh4Jy
DKrBOOQYYRU9YseMry6VKGhwkm6ADk6AiGOpDhsuoQKBgQDjSXbsreI1JGANl4OO
eAT3VEmliSgsu4vdYMdS28Wmk8ixFl6M6ePwB8kJgtBM6hOJ4QPaACvWd5Ywfj1W
309EzczTILjiBPZvN0haxJTRSWYqRrPodhGU7BxMysYAN9vxttwIJuqwASNWg+jD
zLzeyt45Nn2P8XkrI6Pw2iT8iQKBgQDCGujJhYDsbDC5CZ5pdCKH/YSBigmAAUj+
Rc+asXNcysmhHxu5UDn9fGcR6KNPgdu2jtmbmzaHE1LkagPZp6qrrBBAIopf7S7j
Q4ufuIho92fRUuoXennD7UZMbSowZSH9x0ww540WJ+SMt1UQ3IR7AGbiKnUq8kxA
p4s6uFY+zwKBgQDaQK1mUQMrLKbf5mJ56F48cj/WKYLekamZB1ngAxIlBzxscKKS
hfZPg+pUq70CXrQsblqYeBmgdG1QW6jjRsSDuWu6QW3H/CP4YAmmv6Z34hes+P/B
db8kViZGx2CizQDzdziKy3QJVs5sQXa+rlefSQdjwSOJmcNU3YCLw65IoQKBgHQG
79XedtVcSrehF09D+4w8r+NbJxicLAzKoDGBF0uFcIdeeA0K9s8eeOIMpOpW3oY+
17cbTbnqhCdDc++8ONoLrV8ZBowW1GtHKgQco3XTRfyrSoEkVfsXL2lp68kn+uyf
IF0vXHe8+vJeeHvuxUZdVCKnbIhyc8BGJoTAQdWjAoGBAL8NBw/xVFcDqTLz6HhS
r192kWB2eEcao/mJRgwWS277F2U3JrPWtihRINPMevTJaQ+mFudmxG1oifFzkR8a
4Df1aoZX2sjf0+2I7H8io50v4nAeEAt0rdvB/FycmC48aisUYO8TN/5jp3ZFuJH6
eD9dJIgBbXgabOj/9Az8ISym
-----END PRIVATE KEY-----
"""
}
