import Crypto
import Fluent
import Foundation
import ServerCommon
import SQLKit
import StitchCore
import Vapor

/// The ways into an account (its linked provider sign-ins and its password), and bringing a
/// person's second account into the first. Shared by the API and the web app.
enum AccountLinks {
    // MARK: A sign-in that belongs to an account it isn't linked to

    /// A verified provider identity whose verified address belongs to an account, waiting for
    /// the person to prove that account. Travels signed (`token`), never stored.
    struct Pending: Codable, Equatable, Sendable {
        var provider: IdentityProvider
        var providerUserId: String
        var email: String
        var issued: Int

        static let lifetime: TimeInterval = 600

        var identity: ProviderIdentity {
            ProviderIdentity(provider: provider, userId: providerUserId, email: email, displayName: nil, emailVerified: true)
        }

        /// A mailed link's: the same sign-in, signed for the mail, and good for an hour.
        static let mailedLifetime: TimeInterval = 3600

        func token(secret: String, purpose: String = "pending-link") -> String {
            let payload = TokenService.base64URL(Array((try? JSONEncoder().encode(self)) ?? Data()))
            return payload + "." + AccountLinks.sign(payload, purpose: purpose, secret: secret)
        }

        static func verify(_ token: String, now: Date, secret: String, purpose: String = "pending-link", lifetime: TimeInterval = lifetime) -> Pending? {
            guard let (data, _) = AccountLinks.verified(token, purpose: purpose, secret: secret),
                  let pending = try? JSONDecoder().decode(Pending.self, from: data) else { return nil }
            let age = now.timeIntervalSince1970 - Double(pending.issued)
            return age >= -60 && age <= lifetime ? pending : nil
        }

        /// The mailed link's token: issued now, for the mail only (a `pending-link` token is not one).
        func mailedToken(now: Date, secret: String) -> String {
            var mailed = self
            mailed.issued = Int(now.timeIntervalSince1970)
            return mailed.token(secret: secret, purpose: "mailed-link")
        }

        static func verifyMailed(_ token: String, now: Date, secret: String) -> Pending? {
            verify(token, now: now, secret: secret, purpose: "mailed-link", lifetime: mailedLifetime)
        }
    }

    /// `findOrCreate` met an account with the identity's verified address: nothing was created.
    struct Clash: Error {
        var pending: Pending
        /// Whether that account has a password to prove it with (else: the reset mail sets one).
        var accountHasPassword: Bool

        func message(providerName: String) -> String {
            accountHasPassword
                ? "An account with \(pending.email) already exists. Enter its password to add \(providerName) to it as a way to sign in, or have a link mailed to \(pending.email) that adds it."
                : "An account with \(pending.email) already exists and has no password. Have a link mailed to \(pending.email) that adds \(providerName) to it."
        }

        /// 409 with the token that proves the provider's sign-in: given back with the account's
        /// password (`/auth/provider/link`), or to have a link mailed (`/auth/provider/link/mail`).
        func apiError(secret: String) -> APIError {
            APIError(.conflict, message(providerName: AccountLinks.name(pending.provider)), linkToken: pending.token(secret: secret))
        }
    }

    static func name(_ provider: IdentityProvider) -> String {
        switch provider {
        case .apple: "Apple"
        case .instagram: "Instagram"
        case .tiktok: "TikTok"
        case .email: "email and password"
        }
    }

    static func sign(_ payload: String, purpose: String, secret: String) -> String {
        TokenService.base64URL(HMAC<SHA256>.authenticationCode(for: Data("\(purpose):\(payload)".utf8), using: SymmetricKey(data: Data(secret.utf8))))
    }

    /// The payload of a token this server signed for `purpose`, and the payload's text.
    static func verified(_ token: String, purpose: String, secret: String) -> (Data, String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, BrowserSession.constantTimeEquals(sign(parts[0], purpose: purpose, secret: secret), parts[1]),
              let data = TokenService.base64URLDecode(parts[0]) else { return nil }
        return (data, parts[0])
    }

    /// 401: the token is the proof of the provider's sign-in, and it no longer proves it.
    static let expiredLink = APIError(.unauthorized, "This sign-in waited too long to be added. Sign in with the provider again.",
                                      fields: ["linkToken": "Expired or not from this server"])

    /// Proves the account with its password (counted as a sign-in is) and links the pending
    /// sign-in to it. Answers the account.
    static func link(token: String, password: String, caller: Caller) async throws -> UserModel {
        guard let pending = Pending.verify(token, now: caller.now, secret: caller.config.jwtSecret) else { throw expiredLink }
        let user = try await AuthService.checkPassword(email: pending.email, password: password, caller: caller)
        let now = caller.now
        try await caller.db.writeTransaction { db in
            try await link(pending.identity, to: user.id!, now: now, db: db)
            // The provider verified the address, and its password proves the account.
            try await UserModel.query(on: db).set(\.$emailProvenAt, to: now).filter(\.$id == user.id!).filter(\.$emailProvenAt == nil).update()
        }
        return user
    }

    /// Proves the account by its mail instead: a link to the account's address (counted against
    /// the address as a password-reset link is) that adds the pending sign-in when opened. The
    /// link adds; it signs nobody in, so a link opened twice, or by whoever reads the mail, gives
    /// no session — the person then signs in with the provider, which now opens the account.
    static func mailLink(token: String, caller: Caller) async throws -> PasswordResetAccepted {
        guard let pending = Pending.verify(token, now: caller.now, secret: caller.config.jwtSecret) else { throw expiredLink }
        let config = caller.config
        guard let smtp = config.smtp, let site = config.publicURL else {
            throw APIError(.serviceUnavailable, "This server can't send email. Enter the account's password instead, or ask whoever runs it to set SMTP_URL.")
        }
        let now = caller.now
        try await PasswordReset.countMailedLink(to: pending.email, refusal: "Too many links mailed to this address", caller: caller)
        guard let user = try await UserModel.query(on: caller.db).filter(\.$email == pending.email).first(), let userId = user.id else { throw expiredLink }
        let name = name(pending.provider)
        let link = "\(site)\(SiteURL.confirmLinkSignIn.path)?token=\(pending.mailedToken(now: now, secret: config.jwtSecret))"
        let message = MailMessage(to: pending.email, subject: "Add \(name) to your Stitchuation account", body: """
            Hello \(user.displayName),

            Someone (we hope you) signed in with \(name) using this address, which is already your Stitchuation \
            account's. To add \(name) as a way to sign in to it, open this link within an hour:

            \(link)

            Then sign in with \(name) again: it opens your account.
            If you didn't ask, you can ignore this message: nothing changes.
            """)
        caller.application.mailQueue.send(message, with: smtp, what: "sign-in link", userId: userId, logger: caller.logger)
        return PasswordResetAccepted(message: "We've sent a link to \(pending.email). Open it within an hour to add \(name), then sign in with \(name) again.")
    }

    static let invalidMailedLink = APIError(.badRequest, "This link has expired. Sign in with the provider again to have a new one mailed.",
                                            fields: ["token": "Expired or not from this server"])

    /// A mailed link opened: the sign-in it carries, and the account of its address (still there).
    static func mailed(token: String, caller: Caller) async throws -> (Pending, UserModel) {
        guard let pending = Pending.verifyMailed(token, now: caller.now, secret: caller.config.jwtSecret),
              let user = try await UserModel.query(on: caller.db).filter(\.$email == pending.email).first() else { throw invalidMailedLink }
        return (pending, user)
    }

    /// The mailed link confirmed: the sign-in added to the account of its address, which the
    /// mail proved. If nothing had proved that address before, whoever registered it may not be
    /// its owner (a stranger can register anyone's address first and wait): the account is taken
    /// back first (`takeBack`), and `tookBack` says so.
    static func confirmMailed(token: String, caller: Caller) async throws -> (pending: Pending, tookBack: Bool) {
        let (pending, user) = try await mailed(token: token, caller: caller)
        let now = caller.now
        let tookBack = try await caller.db.writeTransaction { db in
            _ = try await SyncService.lockUser(user.id!, db: db)
            guard let account = try await UserModel.find(user.id!, on: db) else { throw invalidMailedLink }
            let unproven = account.emailProvenAt == nil
            if unproven { try await takeBack(account, now: now, db: db) }
            account.emailProvenAt = account.emailProvenAt ?? now
            try await account.save(on: db)
            try await link(pending.identity, to: account.id!, now: now, db: db)
            return unproven
        }
        if tookBack { caller.application.responseCache.forget(userId: user.id!) }
        return (pending, tookBack)
    }

    /// An account whose address was never proven, now proven by its owner: every way in that
    /// someone else may have set goes. Its password is removed (the owner sets one by the reset
    /// mail, which reaches only them), and every session and refresh token ends, the browser's
    /// and the apps', with unused reset links and the failed sign-in counts. Its records stay:
    /// the owner reviews them (a stranger who got there first could have added some, nothing more).
    static func takeBack(_ account: UserModel, now: Date, db: any Database) async throws {
        let userId = account.id!
        account.passwordHash = nil
        account.updatedAt = now
        try await IdentityModel.query(on: db).filter(\.$user.$id == userId).filter(\.$provider == IdentityProvider.email.rawValue).delete()
        try await AccountService.endSessions(userId: userId, except: nil, now: now, on: db)
        try await PasswordResetModel.query(on: db).set(\.$usedAt, to: now).filter(\.$userId == userId).filter(\.$usedAt == nil).update()
        if let email = account.email { try await PasswordAttempts.clear(email: email, on: db) }
    }

    // MARK: Linking while signed in

    struct LinkedElsewhere: Error {
        var otherUserId: UUID
    }

    /// Adds the identity to the account; nothing if it is this account's already. An identity of
    /// another account throws `LinkedElsewhere` (the way to it is a merge).
    static func link(_ identity: ProviderIdentity, to userId: UUID, now: Date, db: any Database) async throws {
        if let owner = try await owner(of: identity, db: db) {
            guard owner == userId else { throw LinkedElsewhere(otherUserId: owner) }
            return
        }
        do {
            try await IdentityModel(userId: userId, provider: identity.provider, providerUserId: identity.userId, now: now).create(on: db)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // The same sign-in linked at the same moment elsewhere: the unique index decides.
            if let owner = try await owner(of: identity, db: db), owner != userId { throw LinkedElsewhere(otherUserId: owner) }
        }
    }

    static func owner(of identity: ProviderIdentity, db: any Database) async throws -> UUID? {
        try await IdentityModel.query(on: db).filter(\.$provider == identity.provider.rawValue)
            .filter(\.$providerUserId == identity.userId).first()?.$user.id
    }

    static func linkedElsewhereError(_ provider: IdentityProvider) -> APIError {
        APIError(.conflict, "This \(name(provider)) sign-in opens another account here. To bring that account and everything in it into this one, merge it (it takes the same sign-in again).")
    }

    // MARK: The list, and removing one

    static func methods(of userId: UUID, db: any Database) async throws -> SignInMethods {
        guard let user = try await UserModel.find(userId, on: db) else { throw APIError.unauthorized }
        let rows = try await IdentityModel.query(on: db).filter(\.$user.$id == userId).sort(\.$createdAt).all()
        var methods: [SignInMethod] = []
        if user.passwordHash != nil {
            let since = rows.first { $0.provider == IdentityProvider.email.rawValue }?.createdAt ?? user.createdAt
            methods.append(SignInMethod(provider: .email, linkedAt: since, detail: user.email))
        }
        for row in rows where row.provider != IdentityProvider.email.rawValue {
            guard let provider = IdentityProvider(rawValue: row.provider) else { continue }
            methods.append(SignInMethod(provider: provider, linkedAt: row.createdAt))
        }
        return SignInMethods(methods: methods, hasPassword: user.passwordHash != nil)
    }

    /// Removes a way in (for `email`, the password: the address stays, and the reset mail can set
    /// a password again). Never the last one. Other sessions stay signed in.
    static func unlink(_ provider: IdentityProvider, userId: UUID, now: Date, db: any Database) async throws -> SignInMethods {
        try await db.writeTransaction { db in
            _ = try await SyncService.lockUser(userId, db: db)
            let current = try await methods(of: userId, db: db)
            guard current.methods.contains(where: { $0.provider == provider }) else {
                throw APIError(.notFound, "This account doesn't sign in with \(name(provider))")
            }
            guard current.methods.contains(where: { $0.provider != provider }) else {
                throw APIError(.conflict, "\(name(provider).prefix(1).uppercased() + name(provider).dropFirst()) is the only way into this account: add another before removing it")
            }
            if provider == .email, let user = try await UserModel.find(userId, on: db) {
                user.passwordHash = nil
                user.updatedAt = now
                try await user.save(on: db)
            }
            try await IdentityModel.query(on: db).filter(\.$user.$id == userId).filter(\.$provider == provider.rawValue).delete()
            return try await methods(of: userId, db: db)
        }
    }

    // MARK: Merge

    /// Moves everything of `otherId` into `userId` in one transaction: every record (live and
    /// deleted) with one new sync version of this account, so every device of it pulls them;
    /// pictures, pattern pages and web purchases; the other's provider sign-ins. The other
    /// account's sessions end and it is deleted. Refused (nothing moved) when both accounts hold
    /// the same thread, which one account can't hold twice.
    static func merge(_ otherId: UUID, into userId: UUID, app: Application, db: any Database) async throws -> AccountMergeSummary {
        guard otherId != userId else { throw APIError(.conflict, "That sign-in opens this account: there is nothing to merge") }
        let summary: AccountMergeSummary = try await db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            _ = try await SyncService.lockUser(otherId, db: db)
            guard let other = try await UserModel.find(otherId, on: db) else {
                throw APIError(.conflict, "That account is no longer here")
            }
            let mine = Set(try await Records.all(ThreadModel.self, userId: userId, on: db).map { ThreadKey(brand: $0.record.brand, number: $0.record.number) })
            let both = try await Records.all(ThreadModel.self, userId: otherId, on: db)
                .map { ThreadKey(brand: $0.record.brand, number: $0.record.number) }.filter(mine.contains)
            guard both.isEmpty else {
                let names = both.prefix(5).map { "\($0.brand.uppercased()) \($0.number)" }.joined(separator: ", ")
                throw APIError(.conflict, "Both accounts have \(names)\(both.count > 5 ? " and \(both.count - 5) more" : ""): an account holds each thread once. Delete them from one account (or add their skeins to the other's) and merge again.")
            }
            var records: [String: Int] = [:]
            for type in EntityType.allCases {
                let rows = try await db.sql.update(SyncService.table(type))
                    .set("user_id", to: SQLUUID(userId)).set("version", to: SQLBind(version))
                    .where("user_id", .equal, SQLUUID(otherId)).returning("id").all()
                if !rows.isEmpty { records[type.rawValue] = rows.count }
            }
            let pictures = try await db.sql.update(ImageModel.schema).set("user_id", to: SQLUUID(userId))
                .where("user_id", .equal, SQLUUID(otherId)).returning("key").all().count
            for table in [PatternRenderModel.schema, AppliedChanges.table] {
                try await db.sql.update(table).set("user_id", to: SQLUUID(userId)).where("user_id", .equal, SQLUUID(otherId)).run()
            }
            let moved = try await IdentityModel.query(on: db).filter(\.$user.$id == otherId)
                .filter(\.$provider != IdentityProvider.email.rawValue).all()
            try await IdentityModel.query(on: db).set(\.$user.$id, to: userId).filter(\.$user.$id == otherId)
                .filter(\.$provider != IdentityProvider.email.rawValue).update()
            for table in [WebSessionModel.schema, RefreshTokenModel.schema, IdentityModel.schema, PasswordResetModel.schema] {
                try await db.sql.delete(from: table).where("user_id", .equal, SQLUUID(otherId)).run()
            }
            if let email = other.email { try await PasswordAttempts.clear(email: email, on: db) }
            try await db.sql.delete(from: UserModel.schema).where("id", .equal, SQLUUID(otherId)).run()
            return AccountMergeSummary(
                records: records, pictures: pictures,
                signInMethods: Array(Set(moved.compactMap { IdentityProvider(rawValue: $0.provider) })).sorted { $0.rawValue < $1.rawValue },
                droppedEmail: other.passwordHash != nil ? other.email : nil)
        }
        app.responseCache.forget(userId: otherId)
        app.responseCache.forget(userId: userId)
        return summary
    }

    /// The other account a merge request proves: its provider sign-in, or its email and password.
    static func proven(_ body: AccountMergeRequest, caller: Caller) async throws -> UUID {
        if let signIn = body.signIn {
            let identity = try await AuthService.verifiedIdentity(signIn, caller: caller)
            guard let owner = try await owner(of: identity, db: caller.db) else {
                throw APIError(.conflict, "That \(name(identity.provider)) sign-in has no account here: add it as a way in instead")
            }
            return owner
        }
        guard let email = body.email, let password = body.password else {
            throw APIError.validation(["signIn": "Sign in to the other account: a provider's sign-in, or its email and password"])
        }
        return try await AuthService.checkPassword(email: email, password: password, caller: caller).id!
    }
}
