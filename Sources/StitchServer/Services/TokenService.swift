import ServerCommon
import Crypto
import Fluent
import Foundation
import JWT
import NIOConcurrencyHelpers
import SQLKit
import StitchCore
import Vapor

/// The claims of an access token. Every claim is checked by `TokenService.authenticate`
/// before any of them is trusted.
struct AccessTokenPayload: JWTPayload {
    var sub: SubjectClaim
    var iss: IssuerClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var jti: IDClaim
    /// The sign-in (refresh-token family) this token belongs to; logging out ends it at once.
    var sid: String
    var typ: String

    // Time-based checks use the application's clock, in `authenticate`.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

struct AuthenticatedUser: Authenticatable, Sendable {
    let id: UUID
    let sessionId: UUID
    /// The user's sync version when the request was authenticated: every write bumps it, so
    /// anything derived from the user's data at this version can be reused until it changes.
    var syncVersion: Int64? = nil
}

enum TokenService {
    static let keyId: JWKIdentifier = "stitch-hs256"
    static let algorithm = "HS256"
    static let accessType = "access"

    static func makeAccessToken(userId: UUID, familyId: UUID, app: Application) async throws -> (String, Date) {
        let now = app.clock.now()
        let expires = now.addingTimeInterval(app.config.accessTokenLifetime)
        let payload = AccessTokenPayload(
            sub: .init(value: userId.text), iss: .init(value: app.config.jwtIssuer),
            aud: .init(value: [app.config.jwtAudience]), exp: .init(value: expires), iat: .init(value: now),
            jti: .init(value: UUID().text), sid: familyId.text, typ: accessType)
        let token = try await app.jwt.keys.sign(payload, kid: keyId, header: ["alg": .string(algorithm), "typ": "JWT"])
        return (token, expires)
    }

    /// Checks the header's algorithm against the allow-list, the signature, then `exp`, `iss`,
    /// `aud` and the token type, and that the sign-in has not ended. The checks that can't change
    /// for a given token (all but `exp` and the sign-in) run once per token (`VerifiedTokens`).
    /// On the request's event loop: a token seen before is checked without a Swift task.
    static func authenticate(_ token: String, app: Application, on eventLoop: any EventLoop) -> EventLoopFuture<AuthenticatedUser> {
        let verified: EventLoopFuture<VerifiedTokens.Entry>
        if let known = app.verifiedTokens.get(token) {
            verified = eventLoop.makeSucceededFuture(known)
        } else {
            verified = eventLoop.makeFutureWithTask {
                let entry = try await verifySignatureAndClaims(token, app: app)
                app.verifiedTokens.put(token, entry)
                return entry
            }
        }
        return verified.flatMap { verified in
            guard verified.expires > app.clock.now() else { return eventLoop.makeFailedFuture(APIError.unauthorized) }
            // One indexed query: the sign-in is still live, and the user's change counter as of
            // now (what cached list pages are keyed by).
            return SessionCheck.version(sessionId: verified.sessionId, userId: verified.userId, app: app, on: eventLoop)
                .flatMapThrowing { version in
                    guard let version else { throw APIError.unauthorized }
                    return AuthenticatedUser(id: verified.userId, sessionId: verified.sessionId, syncVersion: version)
                }
        }
    }

    /// Checks the header's algorithm against the allow-list, the signature, and the claims that
    /// never change (`iss`, `aud`, the token type, the ids); `exp` is checked by the caller.
    static func verifySignatureAndClaims(_ token: String, app: Application) async throws -> VerifiedTokens.Entry {
        guard let header = decodeHeader(token), header["alg"] as? String == algorithm else { throw APIError.unauthorized }
        let payload: AccessTokenPayload
        do {
            payload = try await app.jwt.keys.verify(token, as: AccessTokenPayload.self)
        } catch {
            throw APIError.unauthorized
        }
        let config = app.config
        guard payload.typ == accessType,
              payload.iss.value == config.jwtIssuer,
              payload.aud.value.contains(config.jwtAudience),
              let userId = UUID(text: payload.sub.value),
              let sessionId = UUID(text: payload.sid)
        else { throw APIError.unauthorized }
        return VerifiedTokens.Entry(userId: userId, sessionId: sessionId, expires: payload.exp.value)
    }

    private static func decodeHeader(_ token: String) -> [String: Any]? {
        guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first,
              let data = base64URLDecode(String(first)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String { BrowserSession.base64URL(bytes) }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hex
    }

    // MARK: Refresh tokens

    /// A new sign-in: a fresh family and its first refresh token (256 random bits).
    static func startFamily(userId: UUID, on db: any Database, app: Application) async throws -> (token: String, familyId: UUID) {
        let token = base64URL([UInt8].random(count: 32))
        let familyId = UUID()
        let now = app.clock.now()
        try await RefreshTokenModel(
            userId: userId, familyId: familyId, tokenHash: hash(token),
            expiresAt: now.addingTimeInterval(app.config.refreshTokenLifetime), now: now
        ).create(on: db)
        return (token, familyId)
    }

    /// The successor of a refresh token is derived from it with the server's secret, so a retry
    /// within the grace window can be answered with the very same successor without the server
    /// ever storing a token in the clear.
    static func successor(of token: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("refresh-rotation:\(token)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return base64URL(mac)
    }

    enum RotationError: Error { case invalid, reused }

    /// Rotates a refresh token: marks it used (and by which client) and issues its successor. An
    /// already-used token is a lost response retried within the grace window by the same client
    /// (same successor), or a replay — from anywhere else, or later — which revokes the whole family.
    static func rotate(_ presented: String, client: String, app: Application, db: any Database) async throws -> (userId: UUID, familyId: UUID, token: String) {
        let usedBy = hash("client:\(client)")
        enum Outcome { case rotated(UUID, UUID, String), reused(UUID) }
        let now = app.clock.now()
        let config = app.config
        let outcome: Outcome = try await db.writeTransaction { db in
            guard let row = try await RefreshTokenModel.query(on: db).filter(\.$tokenHash == hash(presented)).first(),
                  let rowId = row.id
            else { throw RotationError.invalid }
            guard row.revokedAt == nil, row.expiresAt > now else { throw RotationError.invalid }

            let next = successor(of: presented, secret: config.jwtSecret)
            // Claim the token atomically: of two concurrent refreshes only one sees it unused.
            let claimed = try await db.sql.update(RefreshTokenModel.schema)
                .set("used_at", to: SQLBind(now)).set("used_by", to: SQLBind(usedBy))
                .where("id", .equal, SQLBind(rowId)).where("used_at", .is, SQLLiteral.null)
                .returning("id")
                .all()
            if !claimed.isEmpty {
                let successorId = UUID()
                try await RefreshTokenModel(
                    id: successorId, userId: row.$user.id, familyId: row.familyId, tokenHash: hash(next),
                    expiresAt: now.addingTimeInterval(config.refreshTokenLifetime), now: now
                ).create(on: db)
                try await db.sql.update(RefreshTokenModel.schema).set("replaced_by", to: SQLBind(successorId))
                    .where("id", .equal, SQLBind(rowId)).run()
                return .rotated(row.$user.id, row.familyId, next)
            }

            let fresh = try await RefreshTokenModel.find(rowId, on: db)
            let usedByRow = try await db.sql.select().column("used_by").from(RefreshTokenModel.schema).where("id", .equal, SQLBind(rowId)).first()
            let sameClient = (try usedByRow?.decode(column: "used_by", as: String?.self)) == usedBy
            if sameClient, let usedAt = fresh?.usedAt, now.timeIntervalSince(usedAt) <= config.refreshGraceWindow,
               let successorRow = try await RefreshTokenModel.query(on: db).filter(\.$tokenHash == hash(next)).first(),
               successorRow.usedAt == nil, successorRow.revokedAt == nil {
                return .rotated(row.$user.id, row.familyId, next)
            }
            return .reused(row.familyId)
        }
        switch outcome {
        case let .rotated(userId, familyId, token):
            return (userId, familyId, token)
        case let .reused(familyId):
            // Committed on its own: the refusal must not roll the revocation back.
            try await revokeFamily(familyId, at: now, on: db)
            app.logger.warning("Refresh token reuse detected; revoked family \(familyId)")
            throw RotationError.reused
        }
    }

    static func revokeFamily(_ familyId: UUID, at now: Date, on db: any Database) async throws {
        try await RefreshTokenModel.query(on: db)
            .set(\.$revokedAt, to: now)
            .filter(\.$familyId == familyId).filter(\.$revokedAt == nil)
            .update()
    }
}

/// Access tokens whose signature and fixed claims have been checked, by their exact text. A
/// session sends the same token with every request for its 15 minutes; checking the HMAC and
/// parsing the claims (Foundation's JSON decoder) once per token instead of once per request took
/// a sixth of a cached list request. Only tokens that passed every check get in; the expiry and
/// the sign-in's liveness (logout, reuse detection) are still checked on every request. Bounded:
/// when full it starts over.
final class VerifiedTokens: Sendable {
    struct Entry: Sendable {
        let userId: UUID
        let sessionId: UUID
        let expires: Date
    }

    static let capacity = 10_000
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    func get(_ token: String) -> Entry? { entries.withLockedValue { $0[token] } }

    func put(_ token: String, _ entry: Entry) {
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = entry
        }
    }

    var count: Int { entries.withLockedValue { $0.count } }
}

extension Application {
    private struct VerifiedTokensKey: StorageKey { typealias Value = VerifiedTokens }

    var verifiedTokens: VerifiedTokens {
        get {
            if let cache = storage[VerifiedTokensKey.self] { return cache }
            let cache = VerifiedTokens()
            storage[VerifiedTokensKey.self] = cache
            return cache
        }
        set { storage[VerifiedTokensKey.self] = newValue }
    }
}
