import Fluent
import SQLKit

/// Housekeeping deletes sign-in records that have run out (see `Housekeeping.prune`): these
/// indexes let it find them without reading every row of tables that hold a row per refresh,
/// per web sign-in and per address that failed to sign in.
struct AddExpiryIndexes: AsyncMigration {
    static let indexes = [
        ("refresh_tokens_expires", "refresh_tokens", "expires_at"),
        ("web_sessions_expires", "web_sessions", "expires_at"),
        ("login_throttles_window", "login_throttles", "window_start"),
    ]

    func prepare(on database: any Database) async throws {
        for (name, table, column) in Self.indexes {
            try await database.sql.create(index: name).on(table).column(column).run()
        }
    }

    func revert(on database: any Database) async throws {
        for (name, _, _) in Self.indexes {
            try await database.sql.drop(index: name).run()
        }
    }
}
