import Fluent
import SQLKit

/// Helpers every migration uses, so the shape of a synced table is written once.
extension SchemaBuilder {
    /// The columns every synced record carries.
    func syncedRecordColumns() -> Self {
        self.field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("version", .int64, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("deleted_at", .datetime)
    }
}

extension Database {
    var sql: any SQLDatabase {
        guard let sql = self as? any SQLDatabase else { fatalError("Stitchuation needs an SQL database") }
        return sql
    }

    /// Indexes for a synced table: the per-user pull by version, the issue's `(user_id, updated_at)`.
    func createSyncIndexes(on table: String) async throws {
        try await sql.create(index: "\(table)_user_version").on(table).column("user_id").column("version").run()
        try await sql.create(index: "\(table)_user_updated").on(table).column("user_id").column("updated_at").run()
    }

    func dropSyncIndexes(on table: String) async throws {
        try await sql.drop(index: "\(table)_user_version").run()
        try await sql.drop(index: "\(table)_user_updated").run()
    }
}
