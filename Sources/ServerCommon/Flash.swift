import Crypto
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// The message a page shows after a redirect (`?flash=`), for both web apps. Only the server's
/// own messages show: each carries its signature (`fs`, an HMAC with the product's key), so a link
/// someone else made with words of theirs ("your account is locked, call …") shows nothing.
/// Each product holds one signer of its own (a process may run both).
public final class FlashSigner: Sendable {
    private let key = NIOLockedValueBox(SymmetricKey(size: .bits256))

    public init() {}

    /// Derives the key from the server's secret, so every instance of a product signs alike
    /// (until then: a random key of this process).
    public func use(serverSecret: String) {
        key.withLockedValue { $0 = SymmetricKey(data: SHA256.hash(data: Data("flash:\(serverSecret)".utf8))) }
    }

    public func signature(_ text: String) -> String {
        let key = key.withLockedValue { $0 }
        return String(BrowserSession.base64URL(HMAC<SHA256>.authenticationCode(for: Data("flash:\(text)".utf8), using: key)).prefix(22))
    }

    /// The query items that carry `text` to the next page.
    public func query(_ text: String) -> [String: String] { ["flash": text, "fs": signature(text)] }

    /// The message this request carries, if this server signed it.
    public func read(_ req: Request) -> String? {
        guard let text = req.query[String.self, at: "flash"], !text.isEmpty, let given = req.query[String.self, at: "fs"],
              BrowserSession.constantTimeEquals(given, signature(text)) else { return nil }
        return text
    }
}
