import Crypto
import Fluent
import Foundation
import JWTKit
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Accounts: register, login, me")
struct AccountTests {
    @Test("Register answers 201 with the user and both tokens; the access token opens /auth/me")
    func registerAndMe() async throws {
        try await withTestApp { app, _ in
            let auth = try await register(app, email: "  Ann@Example.COM ", name: " Ann Stitcher ")
            #expect(auth.user.email == "ann@example.com")
            #expect(auth.user.displayName == "Ann Stitcher")
            #expect(auth.user.providers == [.email])
            #expect(auth.tokenType == "Bearer")
            #expect(auth.refreshToken.count >= 43)  // 256 bits, base64url
            let me = try await app.send(.GET, "/auth/me", token: auth.accessToken)
            #expect(me.status == .ok)
            #expect(try me.decode(UserProfile.self).id == auth.user.id)
        }
    }

    @Test("Invalid registration: 400 naming every bad field, and no account is created")
    func registerInvalid() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.POST, "/auth/register", json: RegisterRequest(email: "nope", password: "short", displayName: ""))
            #expect(res.status == .badRequest)
            #expect(Set(res.error?.fields?.keys.map { $0 } ?? []) == ["email", "password", "displayName"])
            #expect(try await UserModel.query(on: app.db).count() == 0)
            let long = try await app.send(.POST, "/auth/register", json: RegisterRequest(
                email: "a@b.co", password: String(repeating: "x", count: 129), displayName: "A"))
            #expect(long.status == .badRequest && long.error?.fields?["password"] != nil)
            let missing = try await app.send(.POST, "/auth/register", rawBody: #"{"email":"a@b.co"}"#)
            #expect(missing.status == .badRequest)
            let garbage = try await app.send(.POST, "/auth/register", rawBody: "{not json")
            #expect(garbage.status == .badRequest)
            #expect(try await UserModel.query(on: app.db).count() == 0)
        }
    }

    @Test("A second account for the same address, in any case, is a 409")
    func duplicateEmail() async throws {
        try await withTestApp { app, _ in
            try await register(app, email: "ann@example.com")
            let res = try await app.send(.POST, "/auth/register", json: RegisterRequest(email: "ANN@example.com", password: "another pass", displayName: "Imposter"))
            #expect(res.status == .conflict)
            #expect(try await UserModel.query(on: app.db).count() == 1)
        }
    }

    @Test("Login works with any case; wrong password and unknown email give the same 401")
    func loginOutcomes() async throws {
        try await withTestApp { app, _ in
            try await register(app)
            let ok = try await login(app, email: "ANN@example.com")
            #expect(ok.status == .ok)
            #expect(try ok.decode(AuthResponse.self).user.email == "ann@example.com")
            let wrong = try await login(app, password: "wrong password")
            let unknown = try await login(app, email: "bob@example.com")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.error?.error == "Invalid email or password")
            #expect(unknown.error == wrong.error)
        }
    }

    @Test("Passwords and refresh tokens are stored only as hashes")
    func storedAsHashes() async throws {
        try await withTestApp { app, _ in
            let auth = try await register(app, password: "correct horse")
            let user = try #require(try await UserModel.query(on: app.db).first())
            let hash = try #require(user.passwordHash)
            #expect(hash.hasPrefix("$2b$04$") || hash.hasPrefix("$2a$04$") || hash.hasPrefix("$2y$04$"))
            #expect(!hash.contains("correct horse"))
            let tokens = try await RefreshTokenModel.query(on: app.db).all()
            #expect(tokens.count == 1)
            #expect(tokens[0].tokenHash == SHA256.hash(data: Data(auth.refreshToken.utf8)).hex)
            #expect(tokens[0].tokenHash != auth.refreshToken)
        }
    }

    @Test("The production cost is bcrypt 12: a real hash made with the default configuration")
    func productionCost() async throws {
        try await withTestApp(adjust: { $0.bcryptCost = AppConfig(database: .sqliteMemory, dataDirectory: "", jwtSecret: "").bcryptCost }) { app, _ in
            #expect(app.config.bcryptCost == 12)
            let hash = try await app.passwords.hash("correct horse")
            #expect(hash.dropFirst(4).hasPrefix("12$"))
            #expect(try await app.passwords.verify("correct horse", hash: hash))
        }
    }

    @Test("An unknown email costs what a wrong password costs: one bcrypt check each, against hashes of the same cost")
    func comparableCost() async throws {
        try await withTestApp(adjust: { $0.bcryptCost = 10 }) { app, _ in
            try await register(app)
            func checks(_ email: String) async throws -> Int {
                let before = app.passwordChecks.count.withLockedValue { $0 }
                #expect(try await login(app, email: email, password: "wrong password").status == .unauthorized)
                return app.passwordChecks.count.withLockedValue { $0 } - before
            }
            #expect(try await checks("ann@example.com") == 1)
            #expect(try await checks("nobody@example.com") == 1)
            let stored = try #require(try await UserModel.query(on: app.db).filter(\.$email == "ann@example.com").first()?.passwordHash)
            #expect(app.dummyPasswordHash.prefix(7) == stored.prefix(7) && stored.hasPrefix("$2b$10$"), "\(app.dummyPasswordHash.prefix(7)) vs \(stored.prefix(7))")
        }
    }
}

@Suite("Refresh tokens: rotation, reuse detection, grace window, logout")
struct RefreshTokenTests {
    @Test("Refresh returns a new access and refresh token; the old refresh token then stops working")
    func rotation() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            clock.advance(by: 5)
            let res = try await refresh(app, auth.refreshToken)
            #expect(res.status == .ok)
            let next = try res.decode(AuthResponse.self)
            #expect(next.refreshToken != auth.refreshToken)
            #expect(next.accessToken != auth.accessToken)
            #expect(try await app.send(.GET, "/auth/me", token: next.accessToken).status == .ok)
            clock.advance(by: 120)  // past the grace window
            let replay = try await refresh(app, auth.refreshToken)
            #expect(replay.status == .unauthorized)
        }
    }

    @Test("Reusing a rotated token after the grace window revokes the whole family")
    func reuseRevokesFamily() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            let second = try await refresh(app, auth.refreshToken).decode(AuthResponse.self)
            let third = try await refresh(app, second.refreshToken).decode(AuthResponse.self)
            clock.advance(by: 61)
            #expect(try await refresh(app, auth.refreshToken).status == .unauthorized)
            // The thief's replay ended the sign-in: the newest token and its access token are dead too.
            #expect(try await refresh(app, third.refreshToken).status == .unauthorized)
            #expect(try await app.send(.GET, "/auth/me", token: third.accessToken).status == .unauthorized)
            // Other sign-ins of the same account are untouched.
            let other = try await login(app).decode(AuthResponse.self)
            #expect(try await refresh(app, other.refreshToken).status == .ok)
        }
    }

    @Test("A retry within the grace window gets the same successor and signs nobody out")
    func graceWindowRetry() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            let first = try await refresh(app, auth.refreshToken).decode(AuthResponse.self)
            clock.advance(by: 10)
            let retry = try await refresh(app, auth.refreshToken)
            #expect(retry.status == .ok)
            #expect(try retry.decode(AuthResponse.self).refreshToken == first.refreshToken)
            #expect(try await refresh(app, first.refreshToken).status == .ok)
        }
    }

    @Test("Inside the grace window, the same token from another client is a replay: the family ends")
    func graceNeedsSameClient() async throws {
        try await withTestApp(adjust: { $0.trustedProxies = ["unknown"] }) { app, clock in
            let auth = try await register(app)
            func from(_ address: String, _ token: String) async throws -> TestingHTTPResponse {
                try await app.send(.POST, "/auth/refresh", json: RefreshRequest(refreshToken: token), headers: ["X-Forwarded-For": address])
            }
            let first = try await from("198.51.100.20", auth.refreshToken).decode(AuthResponse.self)
            clock.advance(by: 5)
            #expect(try await from("203.0.113.9", auth.refreshToken).status == .unauthorized)
            // The thief's try ended the family: the owner's successor is gone too.
            #expect(try await from("198.51.100.20", first.refreshToken).status == .unauthorized)
        }
    }

    @Test("Once the successor has been used, replaying its parent is reuse even inside the window")
    func retryAfterSuccessorUsed() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            let first = try await refresh(app, auth.refreshToken).decode(AuthResponse.self)
            let second = try await refresh(app, first.refreshToken).decode(AuthResponse.self)
            clock.advance(by: 5)
            #expect(try await refresh(app, auth.refreshToken).status == .unauthorized)
            #expect(try await refresh(app, second.refreshToken).status == .unauthorized)
        }
    }

    @Test("Expired and unknown refresh tokens are refused")
    func expiredAndUnknown() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            #expect(try await refresh(app, "not-a-token").status == .unauthorized)
            clock.advance(by: 31 * 24 * 3600)
            #expect(try await refresh(app, auth.refreshToken).status == .unauthorized)
        }
    }

    @Test("Logout revokes the refresh token family and ends the access token")
    func logout() async throws {
        try await withTestApp { app, _ in
            let auth = try await register(app)
            let out = try await app.send(.POST, "/auth/logout", token: auth.accessToken, json: LogoutRequest(refreshToken: auth.refreshToken))
            #expect(out.status == .noContent)
            #expect(try await refresh(app, auth.refreshToken).status == .unauthorized)
            #expect(try await app.send(.GET, "/auth/me", token: auth.accessToken).status == .unauthorized)
            #expect(try await app.send(.POST, "/auth/logout").status == .unauthorized)
        }
    }
}

@Suite("Login throttling")
struct ThrottleTests {
    @Test("Five failures in 15 minutes lock the account with 429 and Retry-After until the window passes")
    func lockout() async throws {
        try await withTestApp { app, clock in
            try await register(app)
            for _ in 0..<5 {
                #expect(try await login(app, password: "wrong password").status == .unauthorized)
                clock.advance(by: 10)
            }
            let locked = try await login(app)  // even the right password
            #expect(locked.status == .tooManyRequests)
            let retryAfter = try #require(locked.headers.first(name: "Retry-After").flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 15 * 60)
            clock.advance(by: TimeInterval(retryAfter) + 1)
            #expect(try await login(app).status == .ok)
        }
    }

    @Test("A success resets the counter; unknown addresses are throttled the same way")
    func successResets() async throws {
        try await withTestApp { app, _ in
            try await register(app)
            for _ in 0..<4 { _ = try await login(app, password: "wrong password") }
            #expect(try await login(app).status == .ok)
            for _ in 0..<4 { #expect(try await login(app, password: "wrong password").status == .unauthorized) }
            for _ in 0..<5 { _ = try await login(app, email: "ghost@example.com", password: "whatever1") }
            #expect(try await login(app, email: "ghost@example.com", password: "whatever1").status == .tooManyRequests)
        }
    }

    @Test("30 wrong passwords sent at once: 5 are checked and refused with 401, the rest 429, none 500; the account is then locked")
    func parallelAttempts() async throws {
        try await withTestApp { app, _ in
            try await register(app)
            let before = app.passwordChecks.count.withLockedValue { $0 }
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for _ in 0..<30 { group.addTask { try await login(app, password: "wrong password").status.code } }
                return try await group.reduce(into: [UInt]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count == 5, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 429 }.count == 25, "\(statuses.sorted())")
            #expect(app.passwordChecks.count.withLockedValue { $0 } - before == 5, "only the first five attempts run bcrypt")
            #expect(try await login(app).status == .tooManyRequests)
            #expect(try await LoginThrottleModel.query(on: app.db).filter(\.$email == PasswordAttempts.accountKey(email: "ann@example.com")).count() == 1)
        }
    }

    @Test("Failures spread over more than the window do not lock")
    func windowExpires() async throws {
        try await withTestApp { app, clock in
            try await register(app)
            for _ in 0..<4 { _ = try await login(app, password: "wrong password") }
            clock.advance(by: 16 * 60)
            for _ in 0..<4 { #expect(try await login(app, password: "wrong password").status == .unauthorized) }
            #expect(try await login(app).status == .ok)
        }
    }
}

/// Claims shaped like ours, for forging tokens.
struct ForgedClaims: JWTPayload {
    var sub: SubjectClaim
    var iss: IssuerClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var jti: IDClaim
    var sid: String
    var typ: String
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

@Suite("Access tokens")
struct AccessTokenTests {
    func forge(_ auth: AuthResponse, app: Application, secret: String = testSecret, alg: String = "HS256",
               change: (inout ForgedClaims) -> Void = { _ in }) async throws -> String {
        let original = try await app.jwt.keys.verify(auth.accessToken, as: ForgedClaims.self)
        var claims = original
        change(&claims)
        let keys = JWTKeyCollection()
        switch alg {
        // JWTKit wants an HS512 key at least as long as its digest; the header is what must be refused.
        case "HS512": await keys.add(hmac: HMACKey(from: secret + secret), digestAlgorithm: .sha512, kid: "stitch-hs256")
        default: await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "stitch-hs256")
        }
        return try await keys.sign(claims, kid: "stitch-hs256")
    }

    func status(_ app: Application, _ token: String?) async throws -> HTTPStatus {
        try await app.send(.GET, "/auth/me", token: token).status
    }

    @Test("Missing, malformed, forged, tampered, expired and misdirected tokens are all 401")
    func rejected() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            #expect(try await status(app, auth.accessToken) == .ok)
            #expect(try await app.send(.GET, "/auth/me").status == .unauthorized)
            #expect(try await status(app, "garbage") == .unauthorized)
            #expect(try await status(app, "a.b.c") == .unauthorized)

            // alg: none
            let parts = auth.accessToken.split(separator: ".")
            let noneHeader = TokenService.base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
            #expect(try await status(app, "\(noneHeader).\(parts[1]).") == .unauthorized)
            // A different algorithm with our own secret (not on the allow-list).
            #expect(try await status(app, try await forge(auth, app: app, alg: "HS512")) == .unauthorized)
            // Wrong key.
            #expect(try await status(app, try await forge(auth, app: app, secret: String(repeating: "z", count: 48))) == .unauthorized)
            // HS/RS confusion, both ways. RS256 (the algorithm of the Apple keys the server also
            // holds) with our key id, signed by an attacker's RSA key, with and without that key
            // embedded in the header as a `jwk`:
            let claims = try await app.jwt.keys.verify(auth.accessToken, as: ForgedClaims.self)
            let rsaKeys = JWTKeyCollection()
            let attacker = try Insecure.RSA.PrivateKey(pem: TestKeys.strangerPEM)
            await rsaKeys.add(rsa: attacker, digestAlgorithm: .sha256, kid: "stitch-hs256")
            let rs256 = try await rsaKeys.sign(claims, kid: "stitch-hs256")
            #expect(try await status(app, rs256) == .unauthorized)
            let rsParts = rs256.split(separator: ".")
            let publicPEM = attacker.publicKey.pemRepresentation
            let embedded = TokenService.base64URL(Array(#"{"alg":"RS256","typ":"JWT","kid":"stitch-hs256","jwk":{"kty":"RSA"}}"#.utf8))
            #expect(try await status(app, "\(embedded).\(rsParts[1]).\(rsParts[2])") == .unauthorized)
            // ...and HS256 with an RSA public key (what a server holding RS keys might be fooled into
            // using as an HMAC secret): the Apple key and the attacker's.
            let applePublic = try Insecure.RSA.PrivateKey(pem: TestKeys.applePEM).publicKey.pemRepresentation
            #expect(try await status(app, try await forge(auth, app: app, secret: applePublic)) == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app, secret: publicPEM)) == .unauthorized)
            // Tampered payload: another user's id with the original signature.
            var payload = try JSONSerialization.jsonObject(with: TokenService.base64URLDecode(String(parts[1]))!) as! [String: Any]
            payload["sub"] = UUID().uuidString
            let tampered = TokenService.base64URL(try JSONSerialization.data(withJSONObject: payload))
            #expect(try await status(app, "\(parts[0]).\(tampered).\(parts[2])") == .unauthorized)
            // Right key, wrong audience / issuer / type.
            #expect(try await status(app, try await forge(auth, app: app) { $0.aud = .init(value: ["someone-else"]) }) == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app) { $0.iss = .init(value: "evil") }) == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app) { $0.typ = "refresh" }) == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app) { $0.sub = .init(value: "not-a-uuid") }) == .unauthorized)
            // Properly signed with our key: accepted, which shows the rejections above are for their faults.
            #expect(try await status(app, try await forge(auth, app: app)) == .ok)
            // Expired: about 15 minutes of life.
            clock.advance(by: 14 * 60)
            #expect(try await status(app, auth.accessToken) == .ok)
            clock.advance(by: 2 * 60)
            #expect(try await status(app, auth.accessToken) == .unauthorized)
        }
    }

    @Test("A token is verified once and remembered; refused tokens never are, and a remembered one still expires and ends with its sign-in")
    func rememberedTokens() async throws {
        try await withTestApp { app, clock in
            let auth = try await register(app)
            let before = app.verifiedTokens.count
            #expect(try await status(app, auth.accessToken) == .ok)
            #expect(try await status(app, auth.accessToken) == .ok)
            #expect(app.verifiedTokens.count == before + 1)
            // Tampered and foreign tokens are refused and not remembered.
            let parts = auth.accessToken.split(separator: ".")
            #expect(try await status(app, "\(parts[0]).\(parts[1]).\(String(parts[2].reversed()))") == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app, secret: String(repeating: "z", count: 48))) == .unauthorized)
            #expect(try await status(app, try await forge(auth, app: app) { $0.iss = .init(value: "evil") }) == .unauthorized)
            #expect(app.verifiedTokens.count == before + 1)
            // A second sign-in's token works; the first ends with its logout even though it is remembered.
            let second = try await login(app).content.decode(AuthResponse.self)
            #expect(try await status(app, second.accessToken) == .ok)
            let out = try await app.send(.POST, "/auth/logout", token: auth.accessToken, json: LogoutRequest(refreshToken: auth.refreshToken))
            #expect(out.status == .noContent)
            #expect(try await status(app, auth.accessToken) == .unauthorized)
            #expect(try await status(app, second.accessToken) == .ok)
            // And a remembered token still expires on time.
            clock.advance(by: 16 * 60)
            #expect(try await status(app, second.accessToken) == .unauthorized)
        }
    }
}

@Suite("Sign in with Apple, Instagram and TikTok", .serialized)
struct ProviderTests {
    func withProviders(_ body: (Application, TestClock, FakeProviders) async throws -> Void) async throws {
        let fake = try await FakeProviders.start()
        do {
            try await withTestApp(adjust: fake.configure) { app, clock in try await body(app, clock, fake) }
        } catch {
            try? await fake.stop()
            throw error
        }
        try await fake.stop()
    }

    func apple(_ app: Application, _ token: String, nonce: String? = nil, name: String? = nil) async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .apple, idToken: token, nonce: nonce, displayName: name))
    }

    @Test("A valid Apple token creates an account once and signs into it after")
    func appleHappyPath() async throws {
        try await withProviders { app, clock, _ in
            let token = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: "n-123", email: "ann@privaterelay.appleid.com")
            let first = try await apple(app, token, nonce: "n-123", name: "Ann")
            #expect(first.status == .ok, "\(first.text)")
            let a = try first.decode(AuthResponse.self)
            #expect(a.user.providers == [.apple] && a.user.displayName == "Ann")
            let again = try await apple(app, try await FakeProviders.appleToken(expires: clock.now + 600, nonce: "n-456"), nonce: "n-456")
            #expect(try again.decode(AuthResponse.self).user.id == a.user.id)
            #expect(try await app.send(.GET, "/auth/me", token: a.accessToken).status == .ok)
            // Apple's recommended form: the token carries SHA-256 of the nonce the app holds.
            let hashed = SHA256.hash(data: Data("raw-nonce".utf8)).hex
            let hashedToken = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: hashed)
            #expect(try await apple(app, hashedToken, nonce: "raw-nonce").status == .ok)
        }
    }

    @Test("Wrong audience, wrong issuer, expired, wrong nonce, unknown key or a forged signature: 401")
    func appleRejections() async throws {
        try await withProviders { app, clock, _ in
            let exp = clock.now + 600
            let bad: [String] = [
                try await FakeProviders.appleToken(aud: "com.other.app", expires: exp),
                try await FakeProviders.appleToken(iss: "https://evil.example.com", expires: exp),
                try await FakeProviders.appleToken(expires: clock.now - 1),
                try await FakeProviders.appleToken(expires: exp, kid: "unknown-kid-\(UUID())"),
                try await FakeProviders.appleToken(expires: exp, pem: TestKeys.strangerPEM),
                "not.a.token",
            ]
            for token in bad {
                let res = try await apple(app, token, nonce: "n")
                #expect(res.status == .unauthorized, "\(token.prefix(20))")
            }
            let nonced = try await FakeProviders.appleToken(expires: exp, nonce: "expected")
            #expect(try await apple(app, nonced, nonce: "something else").status == .unauthorized)
            #expect(try await UserModel.query(on: app.db).count() == 0)
            let missing = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .apple))
            #expect(missing.status == .badRequest)
            // A token without the nonce it was issued for is refused: a token seen once can't sign in again.
            let unbound = try await apple(app, try await FakeProviders.appleToken(expires: exp, nonce: "n-9"))
            #expect(unbound.status == .badRequest && unbound.error?.fields?["nonce"] != nil)
        }
    }

    @Test("An Apple identity whose unverified email matches an existing account gets its own account, never a merge")
    func noMergeByEmail() async throws {
        try await withProviders { app, clock, _ in
            let existing = try await register(app, email: "ann@example.com")
            let token = try await FakeProviders.appleToken(expires: clock.now + 600, nonce: "n-1", email: "ann@example.com")
            let res = try await apple(app, token, nonce: "n-1")
            let a = try res.decode(AuthResponse.self)
            #expect(a.user.id != existing.user.id)
            #expect(a.user.email == nil)
            #expect(try await UserModel.query(on: app.db).count() == 2)
        }
    }

    @Test("Instagram: the code is exchanged at the token endpoint and the user read from user info")
    func instagram() async throws {
        try await withProviders { app, _, _ in
            let res = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .instagram, code: "good-ig-code"))
            #expect(res.status == .ok, "\(res.text)")
            let a = try res.decode(AuthResponse.self)
            #expect(a.user.providers == [.instagram] && a.user.displayName == "stitchy_ig")
            let identity = try #require(try await IdentityModel.query(on: app.db).filter(\.$provider == "instagram").first())
            #expect(identity.providerUserId == "17841400000000001")
            let again = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .instagram, code: "good-ig-code"))
            #expect(try again.decode(AuthResponse.self).user.id == a.user.id)
            let bad = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .instagram, code: "stolen"))
            #expect(bad.status == .unauthorized)
        }
    }

    @Test("TikTok: the code is exchanged (client_key form) and the user read with the bearer token")
    func tiktok() async throws {
        try await withProviders { app, _, _ in
            let res = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .tiktok, code: "good-tt-code"))
            #expect(res.status == .ok, "\(res.text)")
            let a = try res.decode(AuthResponse.self)
            #expect(a.user.providers == [.tiktok] && a.user.displayName == "Stitchy TT")
            let bad = try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .tiktok, code: "expired"))
            #expect(bad.status == .unauthorized)
            #expect(try await UserModel.query(on: app.db).count() == 1)
        }
    }

    @Test("Providers that are not configured refuse politely")
    func notConfigured() async throws {
        try await withTestApp { app, clock in
            let token = try await FakeProviders.appleToken(expires: clock.now + 600)
            #expect(try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .apple, idToken: token, nonce: "n")).status == .unauthorized)
            #expect(try await app.send(.POST, "/auth/provider", json: ProviderSignInRequest(provider: .tiktok, code: "x")).status == .unauthorized)
            let bogus = try await app.send(.POST, "/auth/provider", rawBody: #"{"provider":"myspace","code":"x"}"#)
            #expect(bogus.status == .badRequest)
        }
    }
}
