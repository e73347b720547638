import Fluent
import SQLKit

struct CreateCanvases: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("canvases")
            .id()
            .field("designer", .string, .required)
            .field("design_name", .string, .required)
            .field("acquired_at", .datetime)
            .field("image_key", .string)
            .field("size", .string)
            .field("mesh_count", .int)
            .field("notes", .string)
            .syncedRecordColumns()
            .create()
        try await database.createSyncIndexes(on: "canvases")
    }

    func revert(on database: any Database) async throws {
        try await database.dropSyncIndexes(on: "canvases")
        try await database.schema("canvases").delete()
    }
}
