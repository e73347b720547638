import Fluent
import SQLKit

/// How far an account's tombstones have been removed (#79): the greatest sync version of a
/// tombstone `Deletions.removeTombstones` took away, 0 while none was. A device whose cursor lies
/// before it may have missed a delete, and is told to sync from the start (`SyncService.horizon`).
struct TombstonesRemoved: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserModel.schema)
            .field("tombstones_removed_through", .int64, .required, .sql(.default(0)))
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserModel.schema).deleteField("tombstones_removed_through").update()
    }
}
