import Fluent
import SQLKit

/// Two changes of one release (#78).
///
/// When an account's address was proven to be its owner's (a confirmation or reset mail opened, or
/// a provider's verified claim): NULL while nothing proved it. A provider sign-in that meets an
/// unproven address doesn't join the account as it stands (`AccountLinks.takeBack`).
///
/// Accounts from before: one made by a provider (no password) got its address from that
/// provider's verified claim; one whose reset link was used proved it by that mail. Every other
/// email account is unproven, as nothing checked it at registration.
struct EmailProven: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserModel.schema).field("email_proven_at", .datetime).update()
        try await database.sql.raw("""
            UPDATE users SET email_proven_at = created_at \
            WHERE email IS NOT NULL AND (password_hash IS NULL OR id IN (SELECT user_id FROM password_resets WHERE used_at IS NOT NULL))
            """).run()
        // Counts keyed by the typed `email|address` end here; PasswordAttempts keys them anew by
        // hashes, a pair row naming its account in a column of its own.
        try await database.sql.raw("DELETE FROM login_throttles").run()
        try await database.schema(LoginThrottleModel.schema).field("account", .string).update()
        try await database.sql.raw("CREATE INDEX login_throttles_account ON login_throttles (account)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DROP INDEX login_throttles_account").run()
        try await database.schema(LoginThrottleModel.schema).deleteField("account").update()
        try await database.schema(UserModel.schema).deleteField("email_proven_at").update()
    }
}
