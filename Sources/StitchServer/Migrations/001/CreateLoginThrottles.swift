import Fluent

struct CreateLoginThrottles: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("login_throttles")
            .id()
            .field("email", .string, .required)
            .field("failures", .int, .required)
            .field("window_start", .datetime, .required)
            .field("locked_until", .datetime)
            .unique(on: "email")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("login_throttles").delete()
    }
}
