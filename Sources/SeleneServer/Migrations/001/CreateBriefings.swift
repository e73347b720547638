import Fluent

/// Morning briefings, one per day, with the ids of what each drew on (JSON lists).
struct CreateBriefings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("briefings")
            .field("id", .int, .identifier(auto: true))
            .field("date", .string, .required)
            .field("text", .string, .required)
            .field("author", .string, .required)
            .field("note_ids", .string, .required)
            .field("thread_ids", .string, .required)
            // JSON: [[noteA, noteB, similarity], …]
            .field("associations", .string, .required)
            .field("task_ids", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "date")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("briefings").delete()
    }
}
