import ServerCommon
import Crypto
import Fluent
import Foundation
import NIOConcurrencyHelpers
import Vapor

final class WebSessionModel: Model, @unchecked Sendable {
    static let schema = "web_sessions"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    /// SHA-256 of the cookie's value; the value itself is never stored.
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}

/// Browser sessions: an opaque cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) naming a row in
/// the database, so any instance can serve any request. Forms carry a CSRF token, checked on every
/// state-changing request: an HMAC (with a key from the server's secret) of a second cookie's
/// random value and the session it was given to, so a token is good only beside the cookies it was
/// made for, and one planted by a neighbouring site (cookie tossing) or carried over from another
/// session is refused. Over HTTPS both cookies carry the `__Host-` prefix: Secure, path /, no
/// domain, so no other host can set them.
enum WebSession {
    static let baseCookie = "stitch_session"
    static let baseCSRFCookie = "stitch_csrf"
    /// The cookies' names for this request: `__Host-` before them over HTTPS.
    static func cookieName(_ base: String, _ req: Request) -> String { isSecure(req) ? "__Host-" + base : base }
    static let csrfField = "_csrf"
    static let csrfHeader = "X-CSRF-Token"
    /// A session ends after this long unused: each day it is used, its end moves to this far
    /// from then ("the user stays logged in", SPEC) …
    static let lifetime: TimeInterval = 30 * 24 * 3600
    /// … but never later than this long after the sign-in, so a stolen cookie can't live for
    /// ever; sign-out and a password change end it everywhere at once, as before.
    static let absoluteLifetime: TimeInterval = 180 * 24 * 3600
    /// How often a used session's end is moved (one write a day at most, not one per page).
    static let slideEvery: TimeInterval = 24 * 3600

    static func start(userId: UUID, req: Request, response: Response) async throws {
        let token = TokenService.base64URL([UInt8].random(count: 32))
        let session = WebSessionModel()
        session.userId = userId
        session.tokenHash = TokenService.hash(token)
        session.createdAt = req.now
        session.expiresAt = req.now.addingTimeInterval(lifetime)
        try await session.create(on: req.db)
        response.cookies[cookieName(baseCookie, req)] = HTTPCookies.Value(
            string: token, expires: session.expiresAt, maxAge: Int(lifetime), path: "/", isSecure: isSecure(req),
            isHTTPOnly: true, sameSite: .lax)
    }

    static func end(req: Request, response: Response) async throws {
        if let token = req.cookies[cookieName(baseCookie, req)]?.string {
            try await WebSessionModel.query(on: req.db).filter(\.$tokenHash == TokenService.hash(token)).delete()
        }
        response.cookies[cookieName(baseCookie, req)] = HTTPCookies.Value(string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/",
                                                     isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    static func user(for req: Request) async throws -> AuthenticatedUser? {
        guard let token = req.cookies[cookieName(baseCookie, req)]?.string, !token.isEmpty else { return nil }
        guard let session = try await WebSessionModel.query(on: req.db).filter(\.$tokenHash == TokenService.hash(token)).first(),
              session.expiresAt > req.now
        else { return nil }
        try await slide(session, req: req)
        return AuthenticatedUser(id: session.userId, sessionId: session.id!)
    }

    /// The end a session in use moves to: `lifetime` from now, capped at `absoluteLifetime` after the sign-in.
    static func slidExpiry(createdAt: Date, now: Date) -> Date {
        min(now.addingTimeInterval(lifetime), createdAt.addingTimeInterval(absoluteLifetime))
    }

    /// Moves a used session's end, at most once a day; the new cookie goes out with the response
    /// (`attachCSRF`). The update is guarded by the end it read, so two requests at once move it once.
    static func slide(_ session: WebSessionModel, req: Request) async throws {
        let next = slidExpiry(createdAt: session.createdAt, now: req.now)
        guard next.timeIntervalSince(session.expiresAt) >= slideEvery, let token = req.cookies[cookieName(baseCookie, req)]?.string else { return }
        try await WebSessionModel.query(on: req.db).filter(\.$id == session.id!).filter(\.$expiresAt == session.expiresAt)
            .set(\.$expiresAt, to: next).update()
        req.storage[SlidKey.self] = (token, next)
    }

    struct SlidKey: StorageKey { typealias Value = (token: String, expires: Date) }

    static func isSecure(_ req: Request) -> Bool {
        req.url.scheme == "https" || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// The CSRF cookie's random value for this browser: the cookie's, or a new one (set on the response).
    static func csrfSeed(for req: Request) -> String {
        if let existing = req.cookies[cookieName(baseCSRFCookie, req)]?.string, existing.count >= 32 { return existing }
        if let made = req.storage[CSRFKey.self] { return made }
        let token = TokenService.base64URL([UInt8].random(count: 32))
        req.storage[CSRFKey.self] = token
        return token
    }

    /// The token a page's forms carry: the seed bound to this browser's session (none before sign-in).
    static func csrfToken(for req: Request) -> String {
        bound(seed: csrfSeed(for: req), session: req.cookies[cookieName(baseCookie, req)]?.string)
    }

    static let csrfKey = NIOLockedValueBox(SymmetricKey(size: .bits256))

    /// Set from the server's secret by `configure`, so every instance makes and checks the same tokens.
    static func use(serverSecret: String) {
        csrfKey.withLockedValue { $0 = SymmetricKey(data: SHA256.hash(data: Data("csrf:\(serverSecret)".utf8))) }
    }

    static func bound(seed: String, session: String?) -> String {
        let key = csrfKey.withLockedValue { $0 }
        let sessionPart = session.map { TokenService.hash($0) } ?? "-"
        return TokenService.base64URL(HMAC<SHA256>.authenticationCode(for: Data("\(seed)|\(sessionPart)".utf8), using: key))
    }

    static func attachCSRF(_ req: Request, to response: Response) {
        if let slid = req.storage[SlidKey.self], response.cookies[cookieName(baseCookie, req)] == nil {
            response.cookies[cookieName(baseCookie, req)] = HTTPCookies.Value(
                string: slid.token, expires: slid.expires, maxAge: max(0, Int(slid.expires.timeIntervalSince(req.now))), path: "/",
                isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
        if let made = req.storage[CSRFKey.self] {
            response.cookies[cookieName(baseCSRFCookie, req)] = HTTPCookies.Value(string: made, path: "/", isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
    }

    struct CSRFKey: StorageKey { typealias Value = String }

    /// Refuses a state-changing request whose form token wasn't made for this browser's cookies.
    static func verifyCSRF(_ req: Request, submitted: String?) throws {
        guard let seed = req.cookies[cookieName(baseCSRFCookie, req)]?.string, let submitted, !submitted.isEmpty, seed.count >= 32,
              constantTimeEquals(bound(seed: seed, session: req.cookies[cookieName(baseCookie, req)]?.string), submitted)
        else { throw WebError.csrf }
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

enum WebError: Error {
    case csrf
    case signInRequired
}
