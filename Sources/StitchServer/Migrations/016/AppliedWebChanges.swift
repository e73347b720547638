import Fluent
import SQLKit

/// The ids of changes the web app sends at most once — a purchase ("Bought") and, now, an
/// inventory step — share one table: `applied_web_purchases` becomes `applied_web_changes`.
struct AppliedWebChanges: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE applied_web_purchases RENAME TO applied_web_changes").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE applied_web_changes RENAME TO applied_web_purchases").run()
    }
}
