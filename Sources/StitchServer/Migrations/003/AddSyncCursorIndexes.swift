import Fluent
import SQLKit

/// A pull pages through `(version, id)` after its cursor. One push writes thousands of rows at a
/// single version, so an index on `(user_id, version)` alone left every page sorting all of them
/// by id; `(user_id, version, id)` makes each page a range scan. It replaces the narrower index.
struct AddSyncCursorIndexes: AsyncMigration {
    static let tables = ["threads", "canvases", "projects", "project_sections", "project_threads", "journal_entries", "journal_images"]

    func prepare(on database: any Database) async throws {
        for table in Self.tables {
            try await database.sql.create(index: "\(table)_user_version_id").on(table).column("user_id").column("version").column("id").run()
            try await database.sql.drop(index: "\(table)_user_version").run()
        }
    }

    func revert(on database: any Database) async throws {
        for table in Self.tables {
            try await database.sql.create(index: "\(table)_user_version").on(table).column("user_id").column("version").run()
            try await database.sql.drop(index: "\(table)_user_version_id").run()
        }
    }
}
