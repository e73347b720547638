import Fluent
import SQLKit

/// Threads of thought. The centroid (mean of its notes' embeddings, float32) is kept so a new
/// note is compared with each thread once, not with all of its notes.
struct CreateThreads: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("threads")
            .field("id", .int, .identifier(auto: true))
            .field("name", .string, .required)
            .field("summary", .string, .required)
            .field("status", .string, .required)
            .field("momentum", .double, .required)
            .field("last_activity_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            .field("centroid", .data)
            .field("centroid_model", .string)
            .create()
        try await database.sql.create(index: "threads_status_momentum").on("threads").column("status").column("momentum").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("threads").delete()
    }
}
