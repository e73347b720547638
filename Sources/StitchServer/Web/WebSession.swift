import ServerCommon
import Crypto
import Fluent
import Foundation
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
/// the database, so any instance can serve any request. Forms carry a CSRF token that must match
/// a second cookie (double submit), checked on every state-changing request.
enum WebSession {
    static let cookie = "stitch_session"
    static let csrfCookie = "stitch_csrf"
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
        response.cookies[cookie] = HTTPCookies.Value(
            string: token, expires: session.expiresAt, maxAge: Int(lifetime), path: "/", isSecure: isSecure(req),
            isHTTPOnly: true, sameSite: .lax)
    }

    static func end(req: Request, response: Response) async throws {
        if let token = req.cookies[cookie]?.string {
            try await WebSessionModel.query(on: req.db).filter(\.$tokenHash == TokenService.hash(token)).delete()
        }
        response.cookies[cookie] = HTTPCookies.Value(string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/",
                                                     isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    static func user(for req: Request) async throws -> AuthenticatedUser? {
        guard let token = req.cookies[cookie]?.string, !token.isEmpty else { return nil }
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
        guard next.timeIntervalSince(session.expiresAt) >= slideEvery, let token = req.cookies[cookie]?.string else { return }
        try await WebSessionModel.query(on: req.db).filter(\.$id == session.id!).filter(\.$expiresAt == session.expiresAt)
            .set(\.$expiresAt, to: next).update()
        req.storage[SlidKey.self] = (token, next)
    }

    struct SlidKey: StorageKey { typealias Value = (token: String, expires: Date) }

    static func isSecure(_ req: Request) -> Bool {
        req.url.scheme == "https" || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// The CSRF token for this browser: the cookie's, or a new one (set on the response).
    static func csrfToken(for req: Request) -> String {
        if let existing = req.cookies[csrfCookie]?.string, existing.count >= 32 { return existing }
        if let made = req.storage[CSRFKey.self] { return made }
        let token = TokenService.base64URL([UInt8].random(count: 32))
        req.storage[CSRFKey.self] = token
        return token
    }

    static func attachCSRF(_ req: Request, to response: Response) {
        if let slid = req.storage[SlidKey.self], response.cookies[cookie] == nil {
            response.cookies[cookie] = HTTPCookies.Value(
                string: slid.token, expires: slid.expires, maxAge: max(0, Int(slid.expires.timeIntervalSince(req.now))), path: "/",
                isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
        if let made = req.storage[CSRFKey.self] {
            response.cookies[csrfCookie] = HTTPCookies.Value(string: made, path: "/", isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
    }

    struct CSRFKey: StorageKey { typealias Value = String }

    /// Refuses a state-changing request whose form token does not match the cookie.
    static func verifyCSRF(_ req: Request, submitted: String?) throws {
        guard let cookie = req.cookies[csrfCookie]?.string, let submitted, !submitted.isEmpty,
              cookie.count >= 32, constantTimeEquals(cookie, submitted)
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
