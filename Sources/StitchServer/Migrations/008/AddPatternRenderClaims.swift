import Fluent
import SQLKit

/// Who is drawing a pattern's pages, until when: one instance draws a file however many poll it;
/// a claim that runs out (its instance stopped) is taken over where the drawing got to.
struct AddPatternRenderClaims: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("pattern_renders").field("claimed_by", .string).update()
        try await database.schema("pattern_renders").field("claimed_until", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("pattern_renders").deleteField("claimed_until").update()
        try await database.schema("pattern_renders").deleteField("claimed_by").update()
    }
}
