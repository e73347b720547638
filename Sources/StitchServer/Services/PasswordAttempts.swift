import Crypto
import Fluent
import Foundation
import StitchCore
import Vapor

/// Password attempts, counted per account and per (account, client) in `login_throttles`. See
/// `AuthService.checkPassword`.
///
/// A row's key is built from its parts' hashes, never from typed text: an account's is
/// `account:` and the SHA-256 of its address, a pair's `pair:` and the hash of the address's and
/// the client's hashes. Whatever someone types as an address (`|`, `%`, `_`, another row's key)
/// names only that address's own rows; a pair row's `account` column finds an account's pairs.
struct PasswordAttempts {
    let pairKey: String

    /// How long a check waits while its account is under attack: a guesser's rate drops, the
    /// owner signing in barely notices.
    static let underAttackDelay: Duration = .seconds(1)

    static func accountKey(email: String) -> String { "account:" + hex(email) }
    static func pairKey(email: String, client: String) -> String { "pair:" + hex(hex(email) + ":" + hex(client)) }
    private static func hex(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }

    /// Counts this attempt; throws 429 for a client past its share for this account.
    static func admit(email: String, user: UserModel?, caller: Caller) async throws -> PasswordAttempts {
        let config = caller.config
        let now = caller.now
        let client = caller.client
        let key = pairKey(email: email, client: client)
        let pair = try await AttemptCounter.count(table: LoginThrottleModel.schema, key: "email", key, count: "failures", now: now,
                                                  window: config.loginFailureWindow, group: ("account", accountKey(email: email)), extra: ", locked_until = NULL", on: caller.db)
        if pair.number > config.loginMaxFailures {
            throw APIError.tooManyRequests("Too many sign-in attempts", until: pair.windowStart.addingTimeInterval(config.loginFailureWindow), now: now)
        }
        let account = try await LoginThrottle.count(key: accountKey(email: email), now: now, window: config.loginFailureWindow, on: caller.db)
        if account.number > config.loginMaxFailures {
            if account.number == config.loginMaxFailures + 1, let user { warnOwner(user, caller: caller) }
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
        let account = accountKey(email: email)
        try await LoginThrottleModel.query(on: db).group(.or) { $0.filter(\.$email == account).filter(\.$account == account) }.delete()
    }

    /// One mail a window to the owner of an account someone keeps failing to sign in to.
    static func warnOwner(_ user: UserModel, caller: Caller) {
        guard let smtp = caller.config.smtp, let email = user.email else { return }
        let site = caller.config.publicURL ?? ""
        let minutes = Int(caller.config.loginFailureWindow / 60)
        let message = MailMessage(to: email, subject: "Someone is trying to sign in to your Stitchuation account", body: """
            Hello \(user.displayName),

            In the last \(minutes) minutes there were more than \(caller.config.loginMaxFailures) sign-ins to your Stitchuation account \
            with a wrong password. If that was you, there's nothing to do. If not, someone may be guessing your password: \
            you can still sign in as usual (their attempts are refused, yours are not), and a long password that you use \
            nowhere else keeps them out. To choose a new one: \(site)\(SiteURL.forgotPassword.path)
            """)
        let logger = caller.logger
        let mailer = Mailer(settings: smtp)
        let userId = user.id
        caller.application.mailQueue.run {
            do {
                try await mailer.send(message)
                logger.notice("sign-in attack warning sent", metadata: ["user": "\(userId.map { "\($0)" } ?? "?")"])
            } catch {
                logger.error("sign-in attack warning was not sent: \(error)")
            }
        }
    }
}
