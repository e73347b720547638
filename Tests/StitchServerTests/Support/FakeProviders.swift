import Foundation
import JWTKit
import NIOCore
@testable import StitchServer
import Vapor

/// Test-only RSA keys (generated for this suite; they protect nothing).
enum TestKeys {
    static let applePEM = """
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
    static let strangerPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC2Yrh3Y132676U
EBlZ3b8B3F4SJbg2vCgq91qYE5Hj+kiugskHpmWT9GXkcTCy3jb9tnu8K+WcenY8
cwpuPtsDugoRsUZEUSYjyHd5lp4Q/pAXBOUIC1WtODgdxU2SzWPR4TIXHfMk5Xqh
eL5mZIoxmibq5qsPoVI/pW+pDOYSXtjZVUwuX3EKCT6T6liDo+ixzgcErlnwwT5j
dHWp4vMYqdCEEpF4WQHO6XZyjlaUDtwL4dV0vXP+tmZ58GQn4CO3XmdV5RrUbQYW
mFV3MTXsY3f0zXVbe7e7Oz2GAgLaY4hnaXPJO27RAUWMnLPDnuSRxc22rlTkIoDl
Q6P4ViCTAgMBAAECggEABBOSY+vvC1HOYXWd23BYkJLh8PqyDCcjqEvKO2C6/6MP
qAOsUpg/6Cqr2STehC2+gbU01spBLsCRKMPsrvVT5KVuP2IvwkWK2knkwbooFkeN
f0/Qsd+7yBj1lO5cz+csHMjK9QSD84ZdhoMx99mCoGrKa+QNkFZFH4vaQkEGwDcf
8iGcH9h+A1c+TE/4QTBNuf5NvAVDUfdtOP04NMhHxnAHwJR53kZ9wrq7l94MkwNM
Rz8SiWaoTqGO3DPk3NzFJyfbsplugIpjCcVVTItdL4Ty7YryLtiIUorFLGf18LTn
yEYpTLdl4Z+ycUnpBuwVj7MWB08Uz9QtUHVk0+AyoQKBgQD2QW45I2z4x3AXPD1Q
ldhyOL6boa7iZsImFnvNv0yjdzonCOdHGSFqUwpTUwzDwn87hec3P3NktFKD9ich
YhUT876jjgpdQQqbNxpeEuEC8JTenAxeDKunmanVqTuY4RQFjh5oRrMM08MTI46L
NhITSQEcA+BlM7l7tXRkB8rphwKBgQC9mkmHZL1vV1nPneLCqH03b0SYsyWcla4k
83uXxHj+EDP/gAXP1UwjXU5Nl3WcsxqWJuD//tUn88x8JIK/fp86JA8eFzYgXACe
/wZyqNiinFw4/6UJSvuNAdlR6msf5T0/84SnLfaFmmXkgFe3KGjwx78URLdns1A2
kefFqOtjlQKBgQDw6ZQevCSYwexMHvfRRbdqD0+STDwea+9WebqGz7b3WOYAWDqD
GPfS4AiC+gXL4hS9M8O/DgkjJTJwvTkM9LqwOU5xDb3f+4iXzvGxxQBy8tCBc+K5
g+XO4or/Zz/R0ajXwnDHDRuP2f/HUoracHyAd3RpZvV5rH+yohOK5QDDMwKBgBpZ
muZqJbmXli+4bY9IAz71A7+FBjEgzDbub7rD31zPu6pCjIw5xH8VtJAsAHhqm8NK
W/K347/NrhmCqXkbi910rXUtHKSapKt0Hd1JgfH3cQmq3bDQ7uzF2QH9Zi3kmgKN
QV5KkPw4XPjIrWgTAaKU4AVdF3AeB4PN+zwJIc2RAoGBAMsU7xZ+rBKXcXmIPS65
mkd+jAi3uR+AE/dgcDmSM5i8He9PqQ9sT7/OWBSFMtIvhV/KWMPd7g0CIq3F9LBF
Uucp2JZhFgmo8OFOAuU+Zfauv5US7YUHOINcJfx0XYtMOcCioNw1OVxMXxbsLhiz
xaM3XFHWvi4cwl5Iq/C+BsOG
-----END PRIVATE KEY-----
"""
}

/// A local HTTP server speaking the real protocols of Apple's key endpoint and of Instagram's and
/// TikTok's OAuth token and user-info endpoints, so sign-in is tested over the wire.
final class FakeProviders: @unchecked Sendable {
    let app: Application
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static let appleKid = "apple-test-kid"
    static let instagramClient = (id: "ig-client", secret: "ig-secret")
    static let tiktokClient = (key: "tt-client", secret: "tt-secret")
    static let instagramCodes = ["good-ig-code": (id: "17841400000000001", username: "stitchy_ig")]
    static let tiktokCodes = ["good-tt-code": (openId: "tt-open-id-1", name: "Stitchy TT")]

    private init(app: Application, port: Int) {
        self.app = app
        self.port = port
    }

    static func start() async throws -> FakeProviders {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let key = try Insecure.RSA.PrivateKey(pem: TestKeys.applePEM)
        let (n, e) = try key.publicKey.getKeyPrimitives()
        let jwks = #"{"keys":[{"kty":"RSA","kid":"\#(appleKid)","use":"sig","alg":"RS256","n":"\#(TokenService.base64URL(n))","e":"\#(TokenService.base64URL(e))"}]}"#

        app.get("apple", "auth", "keys") { _ in
            Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string: jwks))
        }

        struct IGForm: Content {
            var client_id: String
            var client_secret: String
            var grant_type: String
            var redirect_uri: String
            var code: String
        }
        app.post("instagram", "oauth", "access_token") { req -> Response in
            guard let form = try? req.content.decode(IGForm.self), form.client_id == instagramClient.id,
                  form.client_secret == instagramClient.secret, form.grant_type == "authorization_code",
                  let user = instagramCodes[form.code]
            else {
                return Response(status: .badRequest, headers: ["Content-Type": "application/json"], body: .init(string:
                    #"{"error_type":"OAuthException","code":400,"error_message":"Invalid authorization code"}"#))
            }
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string:
                #"{"access_token":"IGQV-\#(form.code)","user_id":\#(user.id),"permissions":["instagram_business_basic"]}"#))
        }
        app.get("instagram", "me") { req -> Response in
            let token = req.query[String.self, at: "access_token"] ?? ""
            guard token.hasPrefix("IGQV-"), let user = instagramCodes[String(token.dropFirst(5))] else {
                return Response(status: .badRequest, body: .init(string: #"{"error":{"message":"Invalid OAuth access token","type":"OAuthException","code":190}}"#))
            }
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string:
                #"{"id":"\#(user.id)","username":"\#(user.username)"}"#))
        }

        struct TTForm: Content {
            var client_key: String
            var client_secret: String
            var code: String
            var grant_type: String
            var redirect_uri: String
        }
        app.post("tiktok", "v2", "oauth", "token") { req -> Response in
            guard req.headers.contentType == .urlEncodedForm, let form = try? req.content.decode(TTForm.self),
                  form.client_key == tiktokClient.key, form.client_secret == tiktokClient.secret,
                  form.grant_type == "authorization_code", let user = tiktokCodes[form.code]
            else {
                return Response(status: .badRequest, headers: ["Content-Type": "application/json"], body: .init(string:
                    #"{"error":"invalid_grant","error_description":"Authorization code is expired.","log_id":"x"}"#))
            }
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string:
                #"{"access_token":"act.\#(form.code)","expires_in":86400,"open_id":"\#(user.openId)","refresh_expires_in":31536000,"refresh_token":"rft.x","scope":"user.info.basic","token_type":"Bearer"}"#))
        }
        app.get("tiktok", "v2", "user", "info") { req -> Response in
            guard let bearer = req.headers.bearerAuthorization?.token, bearer.hasPrefix("act."),
                  let user = tiktokCodes[String(bearer.dropFirst(4))]
            else {
                return Response(status: .unauthorized, headers: ["Content-Type": "application/json"], body: .init(string:
                    #"{"data":{},"error":{"code":"access_token_invalid","message":"The access token is invalid or not found in the request.","log_id":"x"}}"#))
            }
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string:
                #"{"data":{"user":{"open_id":"\#(user.openId)","union_id":"u-1","display_name":"\#(user.name)"}},"error":{"code":"ok","message":"","log_id":"x"}}"#))
        }

        try await app.asyncBoot()
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port else { throw ConfigError("fake provider did not bind") }
        return FakeProviders(app: app, port: port)
    }

    func stop() async throws {
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    /// Points an app's configuration at this server.
    func configure(_ config: inout AppConfig) {
        config.apple = .init(clientId: "com.stitchuation.app", jwksURL: baseURL + "/apple/auth/keys")
        config.instagram = .init(
            clientId: Self.instagramClient.id, clientSecret: Self.instagramClient.secret,
            redirectURI: "https://stitchuation.app/oauth/instagram", tokenURL: baseURL + "/instagram/oauth/access_token",
            userInfoURL: baseURL + "/instagram/me?fields=id,username")
        config.tiktok = .init(
            clientId: Self.tiktokClient.key, clientSecret: Self.tiktokClient.secret,
            redirectURI: "https://stitchuation.app/oauth/tiktok", tokenURL: baseURL + "/tiktok/v2/oauth/token/",
            userInfoURL: baseURL + "/tiktok/v2/user/info/?fields=open_id,union_id,display_name")
    }

    /// Signs an identity token the way Apple does (RS256, kid in the header).
    static func appleToken(
        sub: String = "001234.apple-user", aud: String = "com.stitchuation.app", iss: String = AppConfig.Apple.issuer,
        expires: Date, nonce: String? = nil, email: String? = nil, emailVerified: Bool? = nil, pem: String = TestKeys.applePEM, kid: String = appleKid
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let claims = AppleIdentityClaims(
            iss: .init(value: iss), aud: .init(value: [aud]), exp: .init(value: expires), sub: .init(value: sub),
            nonce: nonce, email: email, email_verified: emailVerified.map(AppleFlag.init))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }
}

/// A test app whose Apple, Instagram and TikTok are the stand-ins on this machine (`FakeProviders`),
/// with `adjust` after them (the web flows' redirect addresses).
func withFakeProviders(adjust: (inout AppConfig) -> Void = { _ in }, _ body: (Application, TestClock) async throws -> Void) async throws {
    let fake = try await FakeProviders.start()
    do {
        try await withTestApp(adjust: { config in
            fake.configure(&config)
            adjust(&config)
        }) { app, clock in try await body(app, clock) }
    } catch {
        try? await fake.stop()
        throw error
    }
    try await fake.stop()
}
