import Fluent
import Foundation
import SQLKit

/// Writes many records of one kind with one `INSERT … ON CONFLICT (id) DO UPDATE` per chunk: a
/// sync push of thousands of changes costs a handful of statements, not one per row.
enum BatchWriter {
    static func upsert<M: RecordModel>(_ records: [M.Record], as type: M.Type, userId: UUID, version: Int64, on db: any Database) async throws {
        guard !records.isEmpty else { return }
        let columns = M.columns
        let updatable = columns.filter { $0 != "id" && $0 != "user_id" }
        // Stay well under both databases' bind-parameter limits.
        let chunkSize = max(1, 30_000 / columns.count)
        var index = 0
        while index < records.count {
            let chunk = records[index..<min(index + chunkSize, records.count)]
            var insert = db.sql.insert(into: M.schema).columns(columns)
            for record in chunk {
                insert = insert.values(M.values(record, userId: userId, version: version))
            }
            insert = insert.onConflict(with: ["id"]) { conflict in
                var conflict = conflict
                for column in updatable { conflict = conflict.set(excludedValueOf: column) }
                // Belt and braces: a row of another user is never overwritten, even in a race.
                return conflict.where(SQLColumn("user_id", table: M.schema), .equal, SQLExcludedColumn("user_id"))
            }
            try await insert.run()
            index += chunkSize
        }
    }
}
