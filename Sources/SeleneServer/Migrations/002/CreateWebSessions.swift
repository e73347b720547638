import Fluent
import SQLKit

/// Browser sign-ins of the web app: an opaque cookie names a row here (its SHA-256, never the
/// value), with the API token it was opened with (its hash), so changing the tokens ends them.
struct CreateWebSessions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("web_sessions")
            .id()
            .field("cookie_hash", .string, .required)
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "cookie_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("web_sessions").delete()
    }
}
