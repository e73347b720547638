import Fluent
import SQLKit

/// Scheduled work that must run once however many `selene` processes share the database: a row
/// per job held by one owner until a moment (`JobLease`).
struct JobLeases: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("job_leases")
            .field("job", .string, .identifier(auto: false))
            .field("owner", .string, .required)
            .field("held_until", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("job_leases").delete()
    }
}
