import Fluent

/// A project without a canvas has a size and a mesh of its own (#81), as a canvas has. One
/// column a statement: SQLite's ALTER TABLE adds one at a time.
struct ProjectSize: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(ProjectModel.schema).field("size", .string).update()
        try await database.schema(ProjectModel.schema).field("mesh_count", .int).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(ProjectModel.schema).deleteField("mesh_count").update()
        try await database.schema(ProjectModel.schema).deleteField("size").update()
    }
}
