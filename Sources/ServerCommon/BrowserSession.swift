import Crypto
import Foundation
import Vapor

/// The one design of both web apps' browser sign-in, from the cookies' side: an opaque session
/// cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) whose value the server keeps only as a
/// SHA-256 hash, and a CSRF token every form and script carries, checked on every state-changing
/// request. The token is an HMAC, with this application's key, of a second cookie's random value
/// and the session it was given to: it is good only beside the cookies it was made for, so one
/// planted by a neighbouring site (cookie tossing) or carried over from another session is
/// refused. Over HTTPS both cookies carry the `__Host-` prefix (Secure, path /, no domain), so no
/// other host can set them. What a session row holds (a user, an API token) is each product's.
public final class BrowserSession: Sendable {
    /// The session cookie's and the CSRF cookie's names, before any `__Host-`.
    public let sessionCookie: String
    public let csrfCookie: String
    /// The form field and the header (scripts) the CSRF token travels in.
    public static let csrfField = "_csrf"
    public static let csrfHeader = "X-CSRF-Token"
    private let key: SymmetricKey

    /// - Parameter secret: the server's secret, so every instance of a product makes and checks the
    ///   same tokens; nil for a key of this process only (forms from before a restart are refused).
    public init(sessionCookie: String, csrfCookie: String, secret: String?) {
        self.sessionCookie = sessionCookie
        self.csrfCookie = csrfCookie
        key = secret.map { SymmetricKey(data: SHA256.hash(data: Data("csrf:\($0)".utf8))) } ?? SymmetricKey(size: .bits256)
    }

    // MARK: Values

    /// 32 random bytes, base64url: a session's or a CSRF cookie's value.
    public static func randomValue() -> String { base64URL([UInt8].random(count: 32)) }

    public static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// What the server keeps of a cookie's value: its SHA-256, in hex.
    public static func hash(_ value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    // MARK: The session cookie

    public static func isSecure(_ req: Request) -> Bool {
        req.url.scheme == "https" || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
    }

    /// A cookie's name for this request: `__Host-` before it over HTTPS.
    public func cookieName(_ base: String, _ req: Request) -> String { Self.isSecure(req) ? "__Host-" + base : base }

    /// This browser's session cookie, if it sent one.
    public func session(_ req: Request) -> String? {
        guard let value = req.cookies[cookieName(sessionCookie, req)]?.string, !value.isEmpty else { return nil }
        return value
    }

    /// Sets the session cookie (a new session, or one whose end moved) on the response.
    public func setSession(_ value: String, expires: Date, now: Date, req: Request, on response: Response) {
        response.cookies[cookieName(sessionCookie, req)] = HTTPCookies.Value(
            string: value, expires: expires, maxAge: max(0, Int(expires.timeIntervalSince(now))), path: "/",
            isSecure: Self.isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    /// `Clear-Site-Data`'s value on signing out, and on a page whose session the server ended:
    /// the browser's HTTP cache of this site (pictures are kept there for a year) goes. Storage
    /// stays: changes kept offline belong to their account's next sign-in.
    public static let clearCache = "\"cache\""

    /// Tells the browser to forget its session cookie.
    public func clearSession(req: Request, on response: Response) {
        response.cookies[cookieName(sessionCookie, req)] = HTTPCookies.Value(
            string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/",
            isSecure: Self.isSecure(req), isHTTPOnly: true, sameSite: .lax)
    }

    // MARK: CSRF

    struct SeedKey: StorageKey { typealias Value = String }

    /// The CSRF cookie's random value for this browser: the cookie's, or a new one (set on the
    /// response by `attachCSRFCookie`).
    public func csrfSeed(for req: Request) -> String {
        if let existing = req.cookies[cookieName(csrfCookie, req)]?.string, existing.count >= 32 { return existing }
        if let made = req.storage[SeedKey.self] { return made }
        let seed = Self.randomValue()
        req.storage[SeedKey.self] = seed
        return seed
    }

    /// The token a page's forms carry: the seed bound to this browser's session (none before
    /// sign-in), masked with a fresh one-time pad each time it is printed. A page that echoes what
    /// someone typed (a search's `q`) and is compressed would otherwise give the same secret in
    /// every response, which BREACH reads byte by byte from the compressed sizes; masked, no two
    /// responses share it. Every masking of the session's token is accepted.
    public func csrfToken(for req: Request) -> String {
        Self.mask(boundBytes(seed: csrfSeed(for: req), session: session(req)))
    }

    public func bound(seed: String, session: String?) -> String {
        Self.base64URL(boundBytes(seed: seed, session: session))
    }

    private func boundBytes(seed: String, session: String?) -> [UInt8] {
        let sessionPart = session.map(Self.hash) ?? "-"
        return Array(HMAC<SHA256>.authenticationCode(for: Data("\(seed)|\(sessionPart)".utf8), using: key))
    }

    /// The pad and the secret xor the pad, base64url (64 bytes in all).
    static func mask(_ secret: [UInt8]) -> String {
        let pad = [UInt8].random(count: secret.count)
        return base64URL(pad + zip(secret, pad).map { $0 ^ $1 })
    }

    /// A masked token's secret, in the unmasked form's base64url; an unmasked token as it came.
    static func unmask(_ token: String) -> String {
        var text = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard token.count > 43, let data = Data(base64Encoded: text), data.count == 64 else { return token }
        let bytes = Array(data)
        return base64URL(zip(bytes[32...], bytes[..<32]).map { $0 ^ $1 })
    }

    /// Sets the CSRF cookie when this request made its seed.
    public func attachCSRFCookie(_ req: Request, to response: Response) {
        if let made = req.storage[SeedKey.self] {
            response.cookies[cookieName(csrfCookie, req)] = HTTPCookies.Value(
                string: made, path: "/", isSecure: Self.isSecure(req), isHTTPOnly: true, sameSite: .lax)
        }
    }

    /// Whether a state-changing request's token was made for this browser's cookies.
    public func acceptsCSRF(_ req: Request, submitted: String?) -> Bool {
        guard let seed = req.cookies[cookieName(csrfCookie, req)]?.string, let submitted, !submitted.isEmpty, seed.count >= 32 else { return false }
        return Self.constantTimeEquals(bound(seed: seed, session: session(req)), Self.unmask(submitted))
    }
}

extension Application {
    private struct BrowserSessionKey: StorageKey { typealias Value = BrowserSession }

    /// This application's browser-session design (its cookies' names and CSRF key), set by its `configure`.
    public var browserSession: BrowserSession {
        get {
            guard let design = storage[BrowserSessionKey.self] else { fatalError("configure sets app.browserSession before serving pages") }
            return design
        }
        set { storage[BrowserSessionKey.self] = newValue }
    }
}

extension Request {
    public var browserSession: BrowserSession { application.browserSession }
}
