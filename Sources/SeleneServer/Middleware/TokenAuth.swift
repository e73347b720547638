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

extension SeleneConfig {
    /// With no `SELENE_API_TOKEN` set, the token kept in `tokenFile` becomes the server's: read
    /// when it is there, made (32 random bytes, the file 0600 in a folder only its owner reads)
    /// on the first start. Returns whether it was made now, so the one who started Selene is told
    /// once how to use it. Does nothing when a token is set or tokens are off.
    @discardableResult
    public mutating func loadTokenFile() throws -> Bool {
        guard let path = tokenFile, apiTokens.isEmpty else { return false }
        let manager = FileManager.default
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let parsed = try? Self.parseTokens(token), parsed.count == 1 else {
                throw SeleneConfigError("\(path) doesn't hold an API token (one line of at least \(Self.minimumTokenLength) characters): delete it and Selene makes a new one, or set SELENE_API_TOKEN")
            }
            apiTokens = parsed
            return false
        }
        let folder = (path as NSString).deletingLastPathComponent
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let token = APITokens.generate()
        // Made exclusively, so two processes starting at once can't both write one.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 {
            if errno == EEXIST { return try loadTokenFile() }
            throw SeleneConfigError("The API token could not be kept in \(path): \(String(cString: strerror(errno)))")
        }
        let line = Array((token + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard written == line.count else { throw SeleneConfigError("The API token could not be written to \(path)") }
        apiTokens = [token]
        return true
    }

    /// What `selene serve` says about the token at start: how to sign in the first time, where
    /// the token is every other time (never the token itself in a log but on the first start).
    public func tokenBanner(created: Bool, base: String) -> String? {
        if apiTokens.isEmpty {
            return "SELENE_API_TOKEN=off: no token, so anyone who can reach \(base) from this computer can read your notes. Selene answers on loopback only."
        }
        guard let path = tokenFile else { return nil }
        guard created, let token = apiTokens.first else {
            return "The API token is in \(path) (`selene token show` prints it and the web app's sign-in link)."
        }
        return """
            Selene made an API token and kept it in \(path) (only you can read it).
              Web app:  open \(base)/app/signin?token=\(token)
              Terminal: selene login --server \(base)   (reads the token from the data folder)
              Drafts:   paste the token into the Selene credential; `selene token show` prints it again.
            """
    }
}
