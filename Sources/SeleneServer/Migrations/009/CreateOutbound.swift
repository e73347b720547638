import Fluent
import SQLKit

/// The ledger of what left the machine (`Outbound`): one row per request Selene sent out.
struct CreateOutbound: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("outbound")
            .field("id", .int64, .identifier(auto: true))
            .field("at", .datetime, .required)
            .field("purpose", .string, .required)
            .field("destination", .string, .required)
            .field("bytes_out", .int64, .required)
            .field("bytes_in", .int64, .required)
            .field("status", .int)
            .field("note_derived", .bool, .required)
            .field("reason", .string)
            .field("failure", .string)
            .create()
        try await database.sql.create(index: "outbound_at").on("outbound").column("at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("outbound").delete()
    }
}
