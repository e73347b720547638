import Fluent
import Foundation
import SQLKit
import StitchCore

final class UserModel: Model, @unchecked Sendable {
    static let schema = "users"

    @ID(key: .id) var id: UUID?
    /// Stored trimmed and lower-cased: one account per address, whatever its case. Accounts made
    /// by a provider that shares no address (Instagram, TikTok) have none.
    @OptionalField(key: "email") var email: String?
    @Field(key: "display_name") var displayName: String
    @OptionalField(key: "password_hash") var passwordHash: String?
    /// The per-user change counter: every write takes the next value, so sync cursors follow
    /// commit order instead of anyone's clock.
    @Field(key: "sync_version") var syncVersion: Int64
    /// When the address was proven its owner's (`EmailProven`); nil while nothing proved it.
    @OptionalField(key: "email_proven_at") var emailProvenAt: Date?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @Children(for: \.$user) var identities: [IdentityModel]

    init() {}

    init(id: UUID = UUID(), email: String?, displayName: String, passwordHash: String?, now: Date) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.syncVersion = 0
        self.createdAt = now
        self.updatedAt = now
    }

    func profile(providers: [IdentityProvider]) -> UserProfile {
        UserProfile(id: id!, email: email, displayName: displayName, providers: providers,
                    createdAt: createdAt.roundedToMilliseconds)
    }
}

final class IdentityModel: Model, @unchecked Sendable {
    static let schema = "identities"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: UserModel
    @Field(key: "provider") var provider: String
    @Field(key: "provider_user_id") var providerUserId: String
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(userId: UUID, provider: IdentityProvider, providerUserId: String, now: Date) {
        self.id = UUID()
        self.$user.id = userId
        self.provider = provider.rawValue
        self.providerUserId = providerUserId
        self.createdAt = now
    }
}

final class RefreshTokenModel: Model, @unchecked Sendable {
    static let schema = "refresh_tokens"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: UserModel
    /// Every token descended from one sign-in shares a family; reuse revokes all of it.
    @Field(key: "family_id") var familyId: UUID
    /// SHA-256 of the token; the token itself is never stored.
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?
    @OptionalField(key: "replaced_by") var replacedBy: UUID?
    @OptionalField(key: "revoked_at") var revokedAt: Date?
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(id: UUID = UUID(), userId: UUID, familyId: UUID, tokenHash: String, expiresAt: Date, now: Date) {
        self.id = id
        self.$user.id = userId
        self.familyId = familyId
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
        self.createdAt = now
    }
}

/// Sign-in attempts per account in the current window, kept in the database so every instance
/// sees them. `locked_until` is no longer written: an account is locked while its window holds
/// more attempts than `loginMaxFailures` (older rows that have it are pruned as before).
final class LoginThrottleModel: Model, @unchecked Sendable {
    static let schema = "login_throttles"

    @ID(key: .id) var id: UUID?
    /// `PasswordAttempts.accountKey` or `pairKey`: hashes, never the typed address.
    @Field(key: "email") var email: String
    /// A pair's account (its `accountKey`), so that every count of an account is found.
    @OptionalField(key: "account") var account: String?
    @Field(key: "failures") var failures: Int
    @Field(key: "window_start") var windowStart: Date
    @OptionalField(key: "locked_until") var lockedUntil: Date?

    init() {}

    init(email: String, now: Date) {
        self.id = UUID()
        self.email = email
        self.failures = 0
        self.windowStart = now
    }
}

/// Attempts counted atomically per key in a window: one `INSERT … ON CONFLICT (key) DO UPDATE …
/// RETURNING` (SQLite and PostgreSQL), so attempts sent at once never overwrite each other's
/// counts nor collide on the first insert. A window older than `window` starts again at 1.
enum AttemptCounter {
    /// `group`: a column and value stored with a new row, which finds the rows of one group
    /// (`PasswordAttempts`: an account's per-client rows).
    static func count(table: String, key column: String, _ key: String, count countColumn: String, now: Date, window: TimeInterval,
                      group: (column: String, value: String)? = nil,
                      extra: SQLQueryString = "", on db: any Database) async throws -> (number: Int, windowStart: Date) {
        let expired = now.addingTimeInterval(-window)
        let groupColumn: SQLQueryString = group.map { ", \(ident: $0.column)" } ?? ""
        let groupValue: SQLQueryString = group.map { ", \(bind: $0.value)" } ?? ""
        let row = try await db.sql.raw("""
            INSERT INTO \(ident: table) (id, \(ident: column), \(ident: countColumn), window_start\(groupColumn)) \
            VALUES (\(bind: UUID()), \(bind: key), 1, \(bind: now)\(groupValue)) \
            ON CONFLICT (\(ident: column)) DO UPDATE SET \
            \(ident: countColumn) = CASE WHEN \(ident: table).window_start <= \(bind: expired) THEN 1 ELSE \(ident: table).\(ident: countColumn) + 1 END, \
            window_start = CASE WHEN \(ident: table).window_start <= \(bind: expired) THEN \(bind: now) ELSE \(ident: table).window_start END\(extra) \
            RETURNING \(ident: countColumn), window_start
            """).first()
        guard let row else { throw APIError(.internalServerError, "The attempt could not be counted") }
        return (try row.decode(column: countColumn, as: Int.self), try row.decode(column: "window_start", as: Date.self))
    }
}

/// The count of sign-in attempts per account.
enum LoginThrottle {
    static func count(key: String, now: Date, window: TimeInterval, on db: any Database) async throws -> (number: Int, windowStart: Date) {
        try await AttemptCounter.count(table: LoginThrottleModel.schema, key: "email", key, count: "failures", now: now, window: window,
                                       extra: ", locked_until = NULL", on: db)
    }
}

/// Sign-in, sign-up and refresh attempts per client address, kept in the database so every
/// instance behind a load balancer counts them together.
final class ClientThrottleModel: Model, @unchecked Sendable {
    static let schema = "client_throttles"

    @ID(key: .id) var id: UUID?
    @Field(key: "address") var address: String
    @Field(key: "attempts") var attempts: Int
    @Field(key: "window_start") var windowStart: Date

    init() {}
}
