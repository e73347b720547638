import ServerCommon
import Crypto
import Fluent
import Foundation
import Vapor

/// Selene's `web_sessions`: the cookie's SHA-256 in `cookie_hash`, in `token_hash` the hash of the
/// API token the session was opened with (`openMode` on a server without tokens).
enum WebSessionColumns: BrowserSessionTable {
    typealias Owner = String
    static let cookieHashColumn: FieldKey = "cookie_hash"
    static let ownerColumn: FieldKey = "token_hash"
}

typealias WebSessionModel = BrowserSessionRow<WebSessionColumns>

/// The web app's sign-in: the API token once (then a session cookie naming a row that records
/// which token opened it), or — on a server without tokens, which only listens on loopback — the
/// set-up screen's "continue on this computer". The cookies and the CSRF token every form and
/// script carries are `BrowserSession`'s (ServerCommon), the design both web apps share.
enum WebSession {
    static let lifetime: TimeInterval = 30 * 86_400
    /// What a session opened on a server without tokens records as its token.
    static let openMode = "open"

    /// Selene's cookies; the CSRF key comes from the API tokens (a key of this process in open mode).
    static func design(apiTokens: [String]) -> BrowserSession {
        BrowserSession(sessionCookie: "selene_session", csrfCookie: "selene_csrf",
                       secret: apiTokens.isEmpty ? nil : apiTokens.sorted().joined(separator: "\n"))
    }

    static func start(tokenHash: String, req: Request, response: Response) async throws {
        try await req.browserSession.open(WebSessionModel(owner: tokenHash), lifetime: lifetime, now: req.now, req: req, on: response)
    }

    static func end(req: Request, response: Response) async throws {
        try await req.browserSession.close(WebSessionModel.self, req: req, on: response)
    }

    /// Whether this browser is signed in: a live session opened with a token that is still one
    /// of the server's (or in open mode while the server still has none).
    static func isSignedIn(_ req: Request) async throws -> Bool {
        guard let session = try await req.browserSession.liveRow(WebSessionModel.self, now: req.now, req: req) else { return false }
        let tokens = req.selene.config.apiTokens
        if tokens.isEmpty { return session.owner == openMode }
        return tokens.contains { BrowserSession.hash($0) == session.owner }
    }

    /// The token a page's forms and scripts carry (`BrowserSession.csrfToken`).
    static func csrfToken(for req: Request) -> String { req.browserSession.csrfToken(for: req) }

    static func attachCSRF(_ req: Request, to response: Response) { req.browserSession.attachCSRFCookie(req, to: response) }

    static func verifyCSRF(_ req: Request, submitted: String?) throws {
        guard req.browserSession.acceptsCSRF(req, submitted: submitted) else { throw WebError.csrf }
    }
}

enum WebError: Error {
    case csrf
    case signInRequired
}
