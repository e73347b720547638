import Crypto
import Foundation
import Vapor

/// `/api/*` and the webhooks: `Authorization: Bearer TOKEN` when tokens are configured.
/// A missing or malformed header is 401, a token that isn't one of them 403. With no tokens the
/// server is open, which `ListenGuard` only allows on loopback.
struct TokenAuthMiddleware: Middleware {
    let tokens: APITokens

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        do {
            try tokens.check(request)
        } catch {
            return request.eventLoop.makeFailedFuture(error)
        }
        return next.respond(to: request)
    }
}

/// The configured API tokens, kept as SHA-256 digests and compared in constant time.
public struct APITokens: Sendable {
    private let digests: [[UInt8]]

    init(_ tokens: [String]) { digests = tokens.map { Array(SHA256.hash(data: Data($0.utf8))) } }

    var isEmpty: Bool { digests.isEmpty }

    func check(_ request: Request) throws {
        guard !digests.isEmpty else { return }
        guard let header = request.headers.first(name: .authorization) else {
            throw SeleneError(.unauthorized, "Send the API token as Authorization: Bearer <token>", headers: ["WWW-Authenticate": "Bearer"])
        }
        guard let token = Self.bearer(header) else {
            throw SeleneError(.unauthorized, "The Authorization header must be Bearer <token>", headers: ["WWW-Authenticate": "Bearer"])
        }
        guard accepts(token) else { throw SeleneError(.forbidden, "That API token is not accepted") }
    }

    /// Whether `token` is one of the configured ones. Every digest is compared whole, whichever
    /// matches, so the time taken says nothing about the tokens.
    func accepts(_ token: String) -> Bool {
        let given = Array(SHA256.hash(data: Data(token.utf8)))
        var matched: UInt8 = 0
        for digest in digests {
            var diff: UInt8 = 0
            for i in 0..<digest.count { diff |= digest[i] ^ given[i] }
            matched |= diff == 0 ? 1 : 0
        }
        return matched == 1
    }

    /// The token of `Bearer <token>` (scheme in any case, one or more spaces), or nil.
    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty,
              parts[1].allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
        return String(parts[1])
    }

    /// A fresh token: 32 random bytes, base64url (43 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// Without tokens the API is open, so it may only be reached from this machine.
public enum ListenGuard {
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return h == "localhost" || h == "::1" || h.hasPrefix("127.")
    }

    /// Throws a clear refusal when the server would listen beyond loopback without a token.
    public static func check(host: String, config: SeleneConfig) throws {
        guard config.apiTokens.isEmpty, !isLoopback(host) else { return }
        throw SeleneConfigError("""
            Refusing to listen on \(host) without an API token: anyone who can reach it could read your notes. \
            Set SELENE_API_TOKEN (run `selene token new` for one), or listen on 127.0.0.1.
            """)
    }
}
