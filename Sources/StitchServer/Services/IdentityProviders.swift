import Crypto
import Foundation
import JWT
import StitchCore
import Vapor

/// A verified identity from a sign-in provider.
struct ProviderIdentity: Sendable {
    var provider: IdentityProvider
    var userId: String
    var email: String?
    var displayName: String?
    /// Whether the provider vouches that the person controls `email`: only such an address may
    /// lead to an existing account (and then only once the person proves that account).
    var emailVerified = false
}

struct ProviderError: Error {
    var reason: String
}

/// The claims of a Sign in with Apple identity token that we rely on.
struct AppleIdentityClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var sub: SubjectClaim
    var nonce: String?
    var email: String?
    var email_verified: AppleFlag? = nil

    // Checked against the application's clock and configuration in `AppleSignIn.verify`.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Apple writes its booleans as JSON booleans or as the strings "true" and "false".
struct AppleFlag: Codable, Sendable, Equatable {
    var value: Bool

    init(_ value: Bool) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            value = flag
        } else {
            value = try container.decode(String.self).lowercased() == "true"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value ? "true" : "false")
    }
}

/// Apple's public keys, fetched from the configured JWKS URL and kept for a while. An unknown
/// key id triggers one refetch (Apple rotates keys), at most once a minute.
actor AppleKeyCache {
    private var keys: JWTKeyCollection?
    private var kids: Set<String> = []
    private var fetchedAt: Date = .distantPast

    func collection(for kid: String, app: Application) async throws -> JWTKeyCollection {
        guard let apple = app.config.apple else { throw ProviderError(reason: "Sign in with Apple is not configured") }
        let now = Date()
        let stale = now.timeIntervalSince(fetchedAt) > apple.keyCacheLifetime
        let unknownKid = !kids.contains(kid) && now.timeIntervalSince(fetchedAt) > 60
        if keys == nil || stale || unknownKid {
            let response = try await app.client.get(URI(string: apple.jwksURL))
            guard response.status == .ok, let body = response.body else {
                throw ProviderError(reason: "Apple's keys could not be fetched (\(response.status.code))")
            }
            let jwks = try JSONDecoder().decode(JWKS.self, from: Data(buffer: body))
            let collection = JWTKeyCollection()
            try await collection.add(jwks: jwks)
            keys = collection
            kids = Set(jwks.keys.compactMap { $0.keyIdentifier?.string })
            fetchedAt = now
        }
        guard kids.contains(kid), let keys else { throw ProviderError(reason: "Unknown Apple key") }
        return keys
    }
}

enum AppleSignIn {
    static func verify(idToken: String, nonce: String?, app: Application) async throws -> ProviderIdentity {
        guard let apple = app.config.apple else { throw ProviderError(reason: "Sign in with Apple is not configured") }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = TokenService.base64URLDecode(String(parts[0])),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "RS256", let kid = header["kid"] as? String
        else { throw ProviderError(reason: "Not an Apple identity token") }

        let keys = try await app.appleKeys.collection(for: kid, app: app)
        let claims: AppleIdentityClaims
        do {
            claims = try await keys.verify(idToken, as: AppleIdentityClaims.self)
        } catch {
            throw ProviderError(reason: "Apple identity token signature is invalid")
        }
        guard claims.iss.value == AppConfig.Apple.issuer else { throw ProviderError(reason: "Wrong issuer") }
        guard claims.aud.value.contains(apple.clientId) else { throw ProviderError(reason: "Wrong audience") }
        guard claims.exp.value > app.clock.now() else { throw ProviderError(reason: "Apple identity token expired") }
        if let nonce {
            // Apple puts what the app sent it in the token: the raw nonce or, as Apple recommends,
            // its SHA-256. Either way the token must be bound to this nonce.
            let hashed = SHA256.hash(data: Data(nonce.utf8)).hex
            guard let claimed = claims.nonce, claimed == nonce || claimed == hashed else {
                throw ProviderError(reason: "Nonce mismatch")
            }
        }
        guard !claims.sub.value.isEmpty else { throw ProviderError(reason: "Apple identity token has no subject") }
        return ProviderIdentity(provider: .apple, userId: claims.sub.value, email: claims.email, displayName: nil,
                                emailVerified: claims.email != nil && claims.email_verified?.value == true)
    }
}

/// Instagram and TikTok: the app gets an authorization code; the server exchanges it at the
/// provider's token endpoint and asks the user-info endpoint who it belongs to.
enum OAuthSignIn {
    /// `codeVerifier`: the PKCE verifier, where the authorization asked with its challenge.
    static func verify(provider: IdentityProvider, code: String, redirectUri: String?, codeVerifier: String? = nil, app: Application) async throws -> ProviderIdentity {
        switch provider {
        case .instagram:
            guard let config = app.config.instagram else { throw ProviderError(reason: "Instagram sign-in is not configured") }
            return try await instagram(code: code, redirectUri: redirectUri ?? config.redirectURI, config: config, client: app.client)
        case .tiktok:
            guard let config = app.config.tiktok else { throw ProviderError(reason: "TikTok sign-in is not configured") }
            return try await tiktok(code: code, redirectUri: redirectUri ?? config.redirectURI, codeVerifier: codeVerifier, config: config, client: app.client)
        default:
            throw ProviderError(reason: "Not an OAuth provider")
        }
    }

    private struct InstagramToken: Decodable { var access_token: String }
    private struct InstagramUser: Decodable {
        var id: String
        var username: String?
    }

    static func instagram(code: String, redirectUri: String, config: AppConfig.OAuthProvider, client: any Client) async throws -> ProviderIdentity {
        let tokenResponse = try await client.post(URI(string: config.tokenURL)) { req in
            try req.content.encode([
                "client_id": config.clientId, "client_secret": config.clientSecret,
                "grant_type": "authorization_code", "redirect_uri": redirectUri, "code": code,
            ], as: .urlEncodedForm)
        }
        guard tokenResponse.status == .ok, let token = try? tokenResponse.content.decode(InstagramToken.self, using: JSONDecoder())
        else { throw ProviderError(reason: "Instagram refused the code") }
        var uri = URI(string: config.userInfoURL)
        let separator = (uri.query?.isEmpty ?? true) ? "" : "&"
        uri.query = (uri.query ?? "") + separator + "access_token=" + (token.access_token.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")
        let me = try await client.get(uri)
        guard me.status == .ok, let user = try? me.content.decode(InstagramUser.self, using: JSONDecoder()), !user.id.isEmpty
        else { throw ProviderError(reason: "Instagram did not say who signed in") }
        return ProviderIdentity(provider: .instagram, userId: user.id, email: nil, displayName: user.username)
    }

    private struct TikTokToken: Decodable {
        var access_token: String
        var open_id: String?
    }
    private struct TikTokUserInfo: Decodable {
        struct DataBody: Decodable { var user: User }
        struct User: Decodable {
            var open_id: String
            var display_name: String?
        }
        struct ErrorBody: Decodable { var code: String }
        var data: DataBody?
        var error: ErrorBody?
    }

    static func tiktok(code: String, redirectUri: String, codeVerifier: String? = nil, config: AppConfig.OAuthProvider, client: any Client) async throws -> ProviderIdentity {
        let tokenResponse = try await client.post(URI(string: config.tokenURL)) { req in
            var form = [
                "client_key": config.clientId, "client_secret": config.clientSecret, "code": code,
                "grant_type": "authorization_code", "redirect_uri": redirectUri,
            ]
            if let codeVerifier { form["code_verifier"] = codeVerifier }
            try req.content.encode(form, as: .urlEncodedForm)
        }
        guard tokenResponse.status == .ok, let token = try? tokenResponse.content.decode(TikTokToken.self, using: JSONDecoder())
        else { throw ProviderError(reason: "TikTok refused the code") }
        let me = try await client.get(URI(string: config.userInfoURL)) { req in
            req.headers.bearerAuthorization = BearerAuthorization(token: token.access_token)
        }
        guard me.status == .ok, let info = try? me.content.decode(TikTokUserInfo.self, using: JSONDecoder()),
              info.error.map({ $0.code == "ok" }) ?? true, let user = info.data?.user, !user.open_id.isEmpty
        else { throw ProviderError(reason: "TikTok did not say who signed in") }
        return ProviderIdentity(provider: .tiktok, userId: user.open_id, email: nil, displayName: user.display_name)
    }
}

extension Application {
    private struct AppleKeysKey: StorageKey { typealias Value = AppleKeyCache }

    /// Set once in `configure`, before any request can read it.
    var appleKeys: AppleKeyCache {
        get { storage[AppleKeysKey.self]! }
        set { storage[AppleKeysKey.self] = newValue }
    }
}
