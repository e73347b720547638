import ServerCommon
import Crypto
import Fluent
import Foundation
import Vapor

/// Stitchuation's `web_sessions`: the cookie's SHA-256 in `token_hash`, the user in `user_id`.
enum WebSessionColumns: BrowserSessionTable {
    typealias Owner = UUID
    static let cookieHashColumn: FieldKey = "token_hash"
    static let ownerColumn: FieldKey = "user_id"
}

typealias WebSessionModel = BrowserSessionRow<WebSessionColumns>

/// Browser sessions: a row per signed-in browser naming its user, so any instance can serve any
/// request; the cookies and the CSRF token are `BrowserSession`'s (ServerCommon), the design both
/// web apps share.
enum WebSession {
    /// A session ends after this long unused: each day it is used, its end moves to this far
    /// from then ("the user stays logged in", SPEC) …
    static let lifetime: TimeInterval = 30 * 24 * 3600
    /// … but never later than this long after the sign-in, so a stolen cookie can't live for
    /// ever; sign-out and a password change end it everywhere at once, as before.
    static let absoluteLifetime = AppliedChanges.keptFor
    /// How often a used session's end is moved (one write a day at most, not one per page).
    static let slideEvery: TimeInterval = 24 * 3600

    /// Stitchuation's cookies, its CSRF key from the server's secret (every instance agrees).
    static func design(serverSecret: String) -> BrowserSession {
        BrowserSession(sessionCookie: "stitch_session", csrfCookie: "stitch_csrf", secret: serverSecret)
    }

    static func start(userId: UUID, req: Request, response: Response) async throws {
        try await req.browserSession.open(WebSessionModel(owner: userId), lifetime: lifetime, now: req.now, req: req, on: response)
    }

    static func end(req: Request, response: Response) async throws {
        try await req.browserSession.close(WebSessionModel.self, req: req, on: response)
    }

    static func user(for req: Request) async throws -> AuthenticatedUser? {
        guard let session = try await req.browserSession.liveRow(WebSessionModel.self, now: req.now, req: req) else { return nil }
        try await slide(session, req: req)
        return AuthenticatedUser(id: session.owner, sessionId: session.id!)
    }

    /// The end a session in use moves to: `lifetime` from now, capped at `absoluteLifetime` after the sign-in.
    static func slidExpiry(createdAt: Date, now: Date) -> Date {
        min(now.addingTimeInterval(lifetime), createdAt.addingTimeInterval(absoluteLifetime))
    }

    /// Moves a used session's end, at most once a day; the new cookie goes out with the response
    /// (`attachCSRF`). The update is guarded by the end it read, so two requests at once move it once.
    static func slide(_ session: WebSessionModel, req: Request) async throws {
        let next = slidExpiry(createdAt: session.createdAt, now: req.now)
        guard next.timeIntervalSince(session.expiresAt) >= slideEvery, let token = req.browserSession.session(req) else { return }
        try await WebSessionModel.query(on: req.db).filter(\.$id == session.id!).filter(\.$expiresAt == session.expiresAt)
            .set(\.$expiresAt, to: next).update()
        req.storage[SlidKey.self] = (token, next)
    }

    struct SlidKey: StorageKey { typealias Value = (token: String, expires: Date) }


    /// The token a page's forms carry (`BrowserSession.csrfToken`).
    static func csrfToken(for req: Request) -> String { req.browserSession.csrfToken(for: req) }

    /// The cookies this request's answer must carry: a session whose end moved, a new CSRF seed.
    static func attachCSRF(_ req: Request, to response: Response) {
        if let slid = req.storage[SlidKey.self], response.cookies[req.browserSession.cookieName(req.browserSession.sessionCookie, req)] == nil {
            req.browserSession.setSession(slid.token, expires: slid.expires, now: req.now, req: req, on: response)
        }
        req.browserSession.attachCSRFCookie(req, to: response)
    }

    /// Refuses a state-changing request whose form token wasn't made for this browser's cookies.
    static func verifyCSRF(_ req: Request, submitted: String?) throws {
        guard req.browserSession.acceptsCSRF(req, submitted: submitted) else { throw WebError.csrf }
    }

}

enum WebError: Error {
    case csrf
    case signInRequired
}
