import Fluent
import SQLKit

/// Which sizes of a picture have been made (`PictureSizes`): NULL until they are, so a restart
/// makes those of every picture stored before.
struct PictureWidths: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE images ADD COLUMN widths TEXT").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE images DROP COLUMN widths").run()
    }
}
