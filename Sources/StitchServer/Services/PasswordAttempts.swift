import Fluent
import Foundation
import StitchCore
import Vapor

/// Password attempts, counted per account and per (account, client) in `login_throttles` (the
/// pair's key is `email|address`). See `AuthController.checkPassword`.
struct PasswordAttempts {
    let pairKey: String

    /// How long a check waits while its account is under attack: a guesser's rate drops, the
    /// owner signing in barely notices.
    static let underAttackDelay: Duration = .seconds(1)

    static func pairKey(email: String, client: String) -> String { "\(email)|\(client)" }

    /// Counts this attempt; throws 429 for a client past its share for this account.
    static func admit(email: String, user: UserModel?, req: Request) async throws -> PasswordAttempts {
        let config = req.config
        let now = req.now
        let client = ClientThrottle.clientAddress(req, trusted: config.trustedProxies)
        let key = pairKey(email: email, client: client)
        let pair = try await AttemptCounter.count(table: LoginThrottleModel.schema, key: "email", key, count: "failures", now: now,
                                                  window: config.loginFailureWindow, extra: ", locked_until = NULL", on: req.db)
        if pair.number > config.loginMaxFailures {
            throw APIError.tooManyRequests("Too many sign-in attempts", until: pair.windowStart.addingTimeInterval(config.loginFailureWindow), now: now)
        }
        let account = try await LoginThrottle.count(email: email, now: now, window: config.loginFailureWindow, on: req.db)
        if account.number > config.loginMaxFailures {
            if account.number == config.loginMaxFailures + 1, let user { warnOwner(user, req: req) }
            try await Task.sleep(for: underAttackDelay)
        }
        return PasswordAttempts(pairKey: key)
    }

    /// The right password: this client's count starts again (the account's stays, so an attack
    /// still shows).
    func succeeded(on db: any Database) async throws {
        try await LoginThrottleModel.query(on: db).filter(\.$email == pairKey).delete()
    }

    /// Every count of an account (a new password was chosen).
    static func clear(email: String, on db: any Database) async throws {
        try await LoginThrottleModel.query(on: db).group(.or) { $0.filter(\.$email == email).filter(\.$email, .custom("LIKE"), email + "|%") }.delete()
    }

    /// One mail a window to the owner of an account someone keeps failing to sign in to.
    static func warnOwner(_ user: UserModel, req: Request) {
        guard let smtp = req.config.smtp, let email = user.email else { return }
        let site = req.config.publicURL ?? ""
        let minutes = Int(req.config.loginFailureWindow / 60)
        let message = MailMessage(to: email, subject: "Someone is trying to sign in to your Stitchuation account", body: """
            Hello \(user.displayName),

            In the last \(minutes) minutes there were more than \(req.config.loginMaxFailures) sign-ins to your Stitchuation account \
            with a wrong password. If that was you, there's nothing to do. If not, someone may be guessing your password: \
            you can still sign in as usual (their attempts are refused, yours are not), and a long password that you use \
            nowhere else keeps them out. To choose a new one: \(site)\(SiteURL.forgotPassword.path)
            """)
        let logger = req.logger
        let mailer = Mailer(settings: smtp)
        let userId = user.id
        req.application.mailQueue.run {
            do {
                try await mailer.send(message)
                logger.notice("sign-in attack warning sent", metadata: ["user": "\(userId.map { "\($0)" } ?? "?")"])
            } catch {
                logger.error("sign-in attack warning was not sent: \(error)")
            }
        }
    }
}
