import Fluent
import SQLKit

/// A project without a canvas gets a picture of its own (`Project.imageKey`): one of its journal
/// photos, or its pattern's first page kept as a picture.
struct ProjectPicture: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE projects ADD COLUMN image_key TEXT").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE projects DROP COLUMN image_key").run()
    }
}
