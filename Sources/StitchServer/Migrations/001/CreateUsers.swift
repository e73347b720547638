import Fluent
import SQLKit

struct CreateUsers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("users")
            .id()
            .field("email", .string)
            .field("display_name", .string, .required)
            .field("password_hash", .string)
            .field("sync_version", .int64, .required, .sql(.default(0)))
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        // Emails are stored lower-cased; the expression index makes the rule hold in the database too.
        try await database.sql.raw("CREATE UNIQUE INDEX users_email_unique ON users (lower(email))").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "users_email_unique").run()
        try await database.schema("users").delete()
    }
}
