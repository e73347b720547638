import Fluent
import Foundation
import SQLKit

/// The ids of the changes the web app sends at most once (a purchase, a −/+ step), each with the
/// account that sent it: its table (`applied_web_changes`) is written, moved and pruned here alone.
enum AppliedChanges {
    static let table = "applied_web_changes"
    /// An id is kept as long as a page that could send it again can stay signed in
    /// (`WebSession.absoluteLifetime` is this).
    static let keptFor: TimeInterval = 180 * 24 * 3600

    /// Records a once-only change's id as applied (inside the caller's write transaction, with the
    /// change itself): false when it was already, and the change must add nothing.
    static func claim(_ id: UUID, userId: UUID, now: Date, on db: any Database) async throws -> Bool {
        try await db.sql.raw("""
            INSERT INTO \(unsafeRaw: table) (id, user_id, created_at) VALUES (\(bind: id), \(bind: userId), \(bind: now)) \
            ON CONFLICT DO NOTHING RETURNING id
            """).first() != nil
    }

    /// Deletes the ids no signed-in page can send again. Answers how many went.
    static func prune(now: Date, on db: any Database) async throws -> Int {
        try await db.sql.delete(from: table)
            .where("created_at", .lessThanOrEqual, SQLBind(now.addingTimeInterval(-keptFor)))
            .returning("id").all().count
    }
}
