import Fluent
import SQLKit

/// Who used a refresh token (a hash of the client's address): a retry within the grace window is
/// answered with the same successor only when it comes from the same client, so a stolen token
/// replayed from elsewhere in those seconds is a reuse, which ends the family.
struct RefreshTokenUsedBy: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE refresh_tokens ADD COLUMN used_by TEXT").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE refresh_tokens DROP COLUMN used_by").run()
    }
}
