import Crypto
import Fluent
import Foundation
import Vapor

final class WebSessionModel: Model, @unchecked Sendable {
    static let schema = "web_sessions"
    @ID(key: .id) var id: UUID?
    @Field(key: "cookie_hash") var cookieHash: String
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date
    init() {}
}

/// The web app's sign-in: the API token once (then an `HttpOnly`, `SameSite=Lax` cookie naming
/// a row, `Secure` over HTTPS), or — on a server without tokens, which only listens on
/// loopback — the set-up screen's "continue on this computer". Every form carries a CSRF token
/// that must match a second cookie.
enum WebSession {
    static let cookie = "selene_session"
    static let csrfCookie = "selene_csrf"
    static let csrfField = "_csrf"
    static let lifetime: TimeInterval = 30 * 86_400
    /// What a session opened on a server without tokens records as its token.
    static let openMode = "open"

    static func hash(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func start(tokenHash: String, req: Request, response: Response) async throws {
        let value = random()
        let session = WebSessionModel()
        session.cookieHash = hash(value)
        session.tokenHash = tokenHash
        session.createdAt = req.now
        session.expiresAt = req.now.addingTimeInterval(lifetime)
        try await session.create(on: req.db)
        response.cookies[cookie] = HTTPCookies.Value(string: value, expires: session.expiresAt, maxAge: Int(lifetime), path: "/",
                                                     isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    static func end(req: Request, response: Response) async throws {
        if let value = req.cookies[cookie]?.string {
            try await WebSessionModel.query(on: req.db).filter(\.$cookieHash == hash(value)).delete()
        }
        response.cookies[cookie] = HTTPCookies.Value(string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/",
                                                     isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    /// Whether this browser is signed in: a live session opened with a token that is still one
    /// of the server's (or in open mode while the server still has none).
    static func isSignedIn(_ req: Request) async throws -> Bool {
        guard let value = req.cookies[cookie]?.string, !value.isEmpty,
              let session = try await WebSessionModel.query(on: req.db).filter(\.$cookieHash == hash(value)).first(),
              session.expiresAt > req.now else { return false }
        let tokens = req.selene.config.apiTokens
        if tokens.isEmpty { return session.tokenHash == openMode }
        return tokens.contains { hash($0) == session.tokenHash }
    }

    static func isSecure(_ req: Request) -> Bool {
        req.url.scheme == "https" || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// This browser's CSRF token: its cookie's, or a new one set on the response.
    static func csrfToken(for req: Request) -> String {
        if let existing = req.cookies[csrfCookie]?.string, existing.count >= 32 { return existing }
        if let made = req.storage[CSRFKey.self] { return made }
        let token = random()
        req.storage[CSRFKey.self] = token
        return token
    }

    static func attachCSRF(_ req: Request, to response: Response) {
        if let made = req.storage[CSRFKey.self] {
            response.cookies[csrfCookie] = HTTPCookies.Value(string: made, path: "/", isSecure: isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
    }

    struct CSRFKey: StorageKey { typealias Value = String }

    static func verifyCSRF(_ req: Request, submitted: String?) throws {
        guard let cookie = req.cookies[csrfCookie]?.string, let submitted, cookie.count >= 32,
              APITokens([cookie]).accepts(submitted) else { throw WebError.csrf }
    }
}

enum WebError: Error {
    case csrf
    case signInRequired
}
