import Fluent
import SQLKit

struct CreateThreads: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("threads")
            .id()
            .field("brand", .string, .required)
            .field("number", .string, .required)
            .field("color_name", .string)
            .field("color_hex", .string)
            .field("fiber_type", .string, .required)
            .field("quantity", .int, .required)
            .field("barcode", .string)
            .field("weight_or_length", .string)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "threads")
        try await database.sql.create(index: "threads_user_brand").on("threads").column("user_id").column("brand").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "threads_user_brand").run()
        try await database.dropSyncIndexes(on: "threads")
        try await database.schema("threads").delete()
    }
}
