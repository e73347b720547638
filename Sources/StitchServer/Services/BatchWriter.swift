import Fluent
import Foundation
import SQLKit

/// Writes many rows of one model with one `INSERT … ON CONFLICT (id) DO UPDATE` per chunk: a
/// sync push of thousands of changes costs a handful of statements, not one per row.
enum BatchWriter {
    /// Reads a model's column values through Fluent's own property wrappers.
    private final class Collector: DatabaseInput {
        var values: [String: DatabaseQuery.Value] = [:]
        var wantsUnmodifiedKeys: Bool { true }
        func set(_ value: DatabaseQuery.Value, at key: FieldKey) { values[key.description] = value }
    }

    static func columns<M: Model>(of model: M) -> [String: DatabaseQuery.Value] {
        let collector = Collector()
        model.input(to: collector)
        return collector.values
    }

    static func upsert<M: Model>(_ models: [M], on db: any Database) async throws {
        guard let first = models.first else { return }
        let columns = columns(of: first).keys.sorted()
        let updatable = columns.filter { $0 != "id" && $0 != "user_id" }
        // Stay well under both databases' bind-parameter limits.
        let chunkSize = max(1, 30_000 / max(1, columns.count))
        var index = 0
        while index < models.count {
            let chunk = models[index..<min(index + chunkSize, models.count)]
            var insert = db.sql.insert(into: M.schema).columns(columns)
            for model in chunk {
                let values = Self.columns(of: model)
                insert = insert.values(columns.map { column -> any SQLExpression in
                    switch values[column] {
                    case .bind(let value)?: return SQLBind(value)
                    default: return SQLLiteral.null
                    }
                })
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
