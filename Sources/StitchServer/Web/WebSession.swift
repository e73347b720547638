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
    static let lifetime: TimeInterval = 30 * 24 * 3600

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
        return AuthenticatedUser(id: session.userId, sessionId: session.id!)
    }

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
