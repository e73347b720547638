import ServerCommon
import Crypto
import Foundation
import NIOConcurrencyHelpers
import StitchCore
import Vapor

/// Sign in with Apple in the browser: a redirect to Apple's authorize page, and Apple's
/// `form_post` back to the callback with an identity token. The flow's `state` is a timestamp and
/// a nonce signed with the server's secret, and the token must carry that nonce (hashed, as Apple
/// does). The state is bound to the browser that started: the nonce is also a cookie (`SameSite=None;
/// Secure` over HTTPS, since Apple's post is cross-site), which the callback must bring, and a state
/// is taken once. Without that, someone could start a sign-in with their own Apple ID and have a
/// victim's browser finish it: signed into the attacker's account, adding their stash to it.
enum AppleWebSignIn {
    static let stateLifetime: TimeInterval = 10 * 60
    static let cookie = "stitch_apple_flow"

    /// The states already taken, until they would have expired anyway (this instance's; another
    /// instance would still need the browser's cookie, which the callback clears).
    static let taken = NIOLockedValueBox<[String: Date]>([:])

    /// Takes a state once: false when it was taken before.
    static func take(_ nonce: String, now: Date) -> Bool {
        taken.withLockedValue { taken in
            taken = taken.filter { $0.value > now }
            guard taken[nonce] == nil else { return false }
            taken[nonce] = now.addingTimeInterval(stateLifetime + 60)
            return true
        }
    }

    static func flowCookie(_ value: String, req: Request, maxAge: Int) -> HTTPCookies.Value {
        let secure = BrowserSession.isSecure(req)
        return HTTPCookies.Value(string: value, expires: maxAge > 0 ? nil : Date(timeIntervalSince1970: 0), maxAge: maxAge, path: "/app/signin/apple",
                                 isSecure: secure, isHTTPOnly: true, sameSite: secure ? HTTPCookies.SameSitePolicy.none : .lax)
    }

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
        guard BrowserSession.constantTimeEquals(sign(payload, secret: secret), parts[2]) else { return nil }
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
        let response = req.redirect(to: AppleWebSignIn.authorizeURL(apple: apple, state: state, nonce: nonce), redirectType: .normal)
        response.cookies[AppleWebSignIn.cookie] = AppleWebSignIn.flowCookie(nonce, req: req, maxAge: Int(AppleWebSignIn.stateLifetime))
        try markLinkIntent(req, nonce: nonce, on: response)
        return response
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
        guard let started = req.cookies[AppleWebSignIn.cookie]?.string, BrowserSession.constantTimeEquals(started, nonce) else {
            return try await failed("the sign-in wasn't started in this browser")
        }
        guard AppleWebSignIn.take(nonce, now: req.now) else { return try await failed("the state was used already") }
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
        let response = try await finishProviderFlow(identity, displayName: name, nonce: nonce, req: req)
        response.cookies[AppleWebSignIn.cookie] = AppleWebSignIn.flowCookie("", req: req, maxAge: 0)
        return response
    }
}
