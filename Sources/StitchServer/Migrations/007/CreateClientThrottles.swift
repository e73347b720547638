import Fluent

struct CreateClientThrottles: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("client_throttles")
            .id()
            .field("address", .string, .required)
            .field("attempts", .int, .required)
            .field("window_start", .datetime, .required)
            .unique(on: "address")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("client_throttles").delete()
    }
}
