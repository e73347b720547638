import Fluent
import NIOConcurrencyHelpers
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A mailed link's token (its SHA-256; the token itself is only in the mail), single-use, for an hour.
final class PasswordResetModel: Model, @unchecked Sendable {
    static let schema = "password_resets"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?

    init() {}
}

/// Reset requests per address, counted whether or not an account has it.
final class ResetThrottleModel: Model, @unchecked Sendable {
    static let schema = "reset_throttles"

    @ID(key: .id) var id: UUID?
    @Field(key: "email") var email: String
    @Field(key: "requests") var requests: Int
    @Field(key: "window_start") var windowStart: Date

    init() {}
}

/// "Forgot password": a link by mail, then a new password that ends every session of the account.
/// Shared by the API (`/auth/password-reset`) and the web app (`/app/forgot-password`).
enum PasswordReset {
    static let accepted = PasswordResetAccepted(
        message: "If an account signs in with that address, we've sent it a link to choose a new password. The link works once, within an hour.")
    static let unconfigured = APIError(
        .serviceUnavailable,
        "This server can't send email, so it can't reset passwords. Ask whoever runs it to set SMTP_URL, or sign in another way.")
    static let invalidLink = APIError(
        .badRequest, "This link has expired or was already used. Ask for a new one.", fields: ["token": "Expired or already used"])

    /// Counts the request against the address and, for an account, stores a link's token and
    /// mails the link in the background, so the answer and its timing are the same for every address.
    static func request(_ body: PasswordResetRequest, caller: Caller) async throws -> PasswordResetAccepted {
        do { _ = try body.validated() } catch { throw APIError.validation(error.fields) }
        let config = caller.config
        guard let smtp = config.smtp, let site = config.publicURL else { throw unconfigured }
        let email = Rules.normalizedEmail(body.email)
        let now = caller.now
        try await countMailedLink(to: email, refusal: "Too many reset links asked for this address", caller: caller)
        guard let user = try await UserModel.query(on: caller.db).filter(\.$email == email).first(), let userId = user.id else { return accepted }

        let token = TokenService.base64URL([UInt8].random(count: 32))
        let row = PasswordResetModel()
        row.userId = userId
        row.tokenHash = TokenService.hash(token)
        row.createdAt = now
        row.expiresAt = now.addingTimeInterval(config.resetLinkLifetime)
        try await row.create(on: caller.db)
        let link = "\(site)\(SiteURL.resetPassword.path)?token=\(token)"
        let message: MailMessage
        if user.passwordHash == nil {
            // No password to reset: the account signs in with a provider. The link sets a first
            // one, which adds this address as a way in.
            let providers = try await AccountService.providerNames(userId, db: caller.db)
            message = MailMessage(to: email, subject: "A password for your Stitchuation account", body: """
                Hello \(user.displayName),

                Someone (we hope you) asked to reset the password of the Stitchuation account for this address. \
                It has no password yet: it signs in with \(providers), which keeps working. To also sign in with \
                this address and a password, choose one within an hour:

                \(link)

                It works once. Choosing a password signs you out everywhere else.
                If you didn't ask, you can ignore this message: nothing changes.
                """)
        } else {
            message = MailMessage(to: email, subject: "Choose a new Stitchuation password", body: """
                Hello \(user.displayName),

                Someone (we hope you) asked to reset the password of your Stitchuation account. To choose a new one, open this link \
                within an hour:

                \(link)

                It works once. Choosing a new password signs you out everywhere else.
                If you didn't ask, you can ignore this message: your password stays as it is.
                """)
        }
        caller.application.mailQueue.send(message, with: smtp, what: "password-reset", userId: userId, logger: caller.logger)
        return accepted
    }

    /// Counts one more link mailed to `email` (a reset, an added sign-in, an address confirmation:
    /// they share the address's count); past `resetRequestLimit` in the window, 429 saying `refusal`.
    static func countMailedLink(to email: String, refusal: String, caller: Caller) async throws {
        let config = caller.config, now = caller.now
        let attempt = try await AttemptCounter.count(table: ResetThrottleModel.schema, key: "email", email, count: "requests",
                                                     now: now, window: config.resetRequestWindow, on: caller.db)
        guard attempt.number <= config.resetRequestLimit else {
            throw APIError.tooManyRequests(refusal, until: attempt.windowStart.addingTimeInterval(config.resetRequestWindow), now: now)
        }
    }

    /// Whether a link's token can still be used (to say so when the link is opened, not only
    /// after a new password is typed).
    static func isUsable(_ token: String, caller: Caller) async throws -> Bool {
        try await PasswordResetModel.query(on: caller.db).filter(\.$tokenHash == TokenService.hash(token))
            .filter(\.$usedAt == nil).filter(\.$expiresAt > caller.now).first() != nil
    }

    /// Uses a link: claims its token (unused, unexpired) in one statement, so two uses at once
    /// can't both win; stores the new password; ends the account's other links, every session
    /// (apps and browsers) and its failed sign-in count.
    static func confirm(_ body: PasswordResetConfirmRequest, caller: Caller) async throws -> UserModel {
        do { _ = try body.validated() } catch { throw APIError.validation(error.fields) }
        let hash = try await caller.application.passwords.hash(body.newPassword)
        let now = caller.now
        return try await caller.db.writeTransaction { db in
            let claimed = try await db.sql.raw("""
                UPDATE \(ident: PasswordResetModel.schema) SET used_at = \(bind: now) \
                WHERE token_hash = \(bind: TokenService.hash(body.token)) AND used_at IS NULL AND expires_at > \(bind: now) \
                RETURNING user_id
                """).first()
            guard let userId = try claimed?.decode(column: "user_id", as: UUID.self),
                  let user = try await UserModel.find(userId, on: db) else { throw invalidLink }
            user.passwordHash = hash
            user.updatedAt = now
            // The link came by mail to the address: it is its owner's.
            if user.emailProvenAt == nil { user.emailProvenAt = now }
            try await user.save(on: db)
            // An account that signed in only with a provider gains its address as a way in.
            if let email = user.email, try await IdentityModel.query(on: db).filter(\.$user.$id == userId)
                .filter(\.$provider == IdentityProvider.email.rawValue).first() == nil {
                try await IdentityModel(userId: userId, provider: .email, providerUserId: email, now: now).create(on: db)
            }
            try await PasswordResetModel.query(on: db).set(\.$usedAt, to: now).filter(\.$userId == userId).filter(\.$usedAt == nil).update()
            try await AccountService.endSessions(userId: userId, except: nil, now: now, on: db)
            if let email = user.email { try await PasswordAttempts.clear(email: email, on: db) }
            return user
        }
    }
}

/// Mail being sent in the background, so shutting down waits for it instead of cutting it off.
final class MailQueue: Sendable {
    private let tasks = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])

    func run(_ work: @escaping @Sendable () async -> Void) {
        let id = UUID()
        tasks.withLockedValue { tasks in
            tasks[id] = Task { [weak self] in
                await work()
                _ = self?.tasks.withLockedValue { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Sends `message` in the background; the log says it went, or why not (`what`: its kind).
    func send(_ message: MailMessage, with smtp: SMTPSettings, what: String, userId: UUID, logger: Logger) {
        let mailer = Mailer(settings: smtp)
        run {
            do {
                try await mailer.send(message)
                logger.info("\(what) mail sent", metadata: ["user": "\(userId)"])
            } catch {
                logger.error("\(what) mail for user \(userId) was not sent: \(error)")
            }
        }
    }

    /// Waits for what is being sent.
    func drain() async {
        for task in tasks.withLockedValue({ Array($0.values) }) { await task.value }
    }
}

extension Application {
    struct MailQueueKey: StorageKey { typealias Value = MailQueue }

    /// Set by `configure`; drained when the application shuts down.
    var mailQueue: MailQueue { storage[MailQueueKey.self] ?? MailQueue() }
}

/// Waits at shutdown for mail still being sent.
struct MailQueueLifecycle: LifecycleHandler {
    func shutdownAsync(_ application: Application) async { await application.mailQueue.drain() }
}
