import ServerCommon
import Crypto
import Foundation
import StitchCore
import Vapor

/// Sign in with Apple in the browser: a redirect to Apple's authorize page, and Apple's
/// `form_post` back to the callback with an identity token. The callback arrives as a cross-site
/// POST (no SameSite=Lax cookies), so the flow's `state` carries its own proof: a timestamp and a
/// nonce signed with the server's secret. The token must carry that nonce (hashed, as Apple does).
enum AppleWebSignIn {
    static let stateLifetime: TimeInterval = 10 * 60

    static func makeState(now: Date, secret: String) -> (state: String, nonce: String) {
        let nonce = TokenService.base64URL([UInt8].random(count: 16))
        let payload = "\(Int(now.timeIntervalSince1970)).\(nonce)"
        return ("\(payload).\(sign(payload, secret: secret))", nonce)
    }

    /// The nonce of a state this server made in the last ten minutes, or nil.
    static func verifyState(_ state: String, now: Date, secret: String) -> String? {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let issued = Double(parts[0]) else { return nil }
        let payload = "\(parts[0]).\(parts[1])"
        guard WebSession.constantTimeEquals(sign(payload, secret: secret), parts[2]) else { return nil }
        let age = now.timeIntervalSince1970 - issued
        guard age >= -60, age <= stateLifetime else { return nil }
        return parts[1]
    }

    static func sign(_ payload: String, secret: String) -> String {
        TokenService.base64URL(HMAC<SHA256>.authenticationCode(for: Data("apple-web-state:\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    static func authorizeURL(apple: AppConfig.Apple, state: String, nonce: String) -> String {
        var c = URLComponents(string: apple.authorizeURL)!
        c.queryItems = [
            URLQueryItem(name: "client_id", value: apple.clientId),
            URLQueryItem(name: "redirect_uri", value: apple.webRedirectURI),
            URLQueryItem(name: "response_type", value: "code id_token"),
            URLQueryItem(name: "response_mode", value: "form_post"),
            URLQueryItem(name: "scope", value: "name email"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: SHA256.hash(data: Data(nonce.utf8)).hex),
        ]
        return c.string!
    }
}

extension WebController {
    /// The "Sign in with Apple" button: off to Apple.
    @Sendable func appleStart(req: Request) async throws -> Response {
        guard let apple = req.config.apple, apple.webRedirectURI != nil else { throw Abort(.notFound) }
        let (state, nonce) = AppleWebSignIn.makeState(now: req.now, secret: req.config.jwtSecret)
        return req.redirect(to: AppleWebSignIn.authorizeURL(apple: apple, state: state, nonce: nonce), redirectType: .normal)
    }

    /// Apple's form post: verify the state and the identity token, then start a web session.
    @Sendable func appleCallback(req: Request) async throws -> Response {
        guard req.config.apple?.webRedirectURI != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        let failed = { (why: String) async throws -> Response in
            req.logger.info("Apple web sign-in refused: \(why)")
            let page = SignInPage(mode: .signIn, message: "We couldn't verify that sign-in with Apple. Please try again.")
            return self.html(page.render(try await self.context(req)), status: .unauthorized)
        }
        guard let state = form["state"], let nonce = AppleWebSignIn.verifyState(state, now: req.now, secret: req.config.jwtSecret) else {
            return try await failed("bad or expired state")
        }
        guard let token = form["id_token"] else { return try await failed(form["error"] ?? "no identity token") }
        let identity: ProviderIdentity
        do {
            identity = try await AppleSignIn.verify(idToken: token, nonce: nonce, app: req.application)
        } catch let error as ProviderError {
            return try await failed(error.reason)
        }
        // Apple sends the name once, on the first sign-in, beside the token.
        var name: String?
        if let user = form["user"], let data = user.data(using: .utf8),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let parts = object["name"] as? [String: String] {
            name = [parts["firstName"], parts["lastName"]].compactMap { $0 }.joined(separator: " ")
        }
        let (user, _) = try await AuthController.findOrCreate(identity, displayName: name, req: req) { _, _ in () }
        let response = redirect(.inventory)
        try await WebSession.start(userId: user.id!, req: req, response: response)
        return response
    }
}
