import Fluent
import SQLKit

/// PostgreSQL's full-text index takes each note's words straight into its tree. By default a GIN
/// index collects new entries in a pending list (up to `gin_pending_list_limit`, 4 MB) that every
/// search reads through in full until a vacuum merges it: with 100,000 notes some 450 pages and
/// 5 ms on each of a question's full-text lookups (`selene-bench --only retrieval`). A person
/// captures a few notes an hour, so each paying its own index update costs nothing that shows,
/// and every search stops paying for the list. SQLite's FTS5 has no such list.
struct FullTextWithoutPendingList: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard database.isPostgres else { return }
        try await database.sql.raw("ALTER INDEX notes_search SET (fastupdate = off)").run()
        // Turning it off keeps what is already listed: merge that now.
        try await database.sql.raw("SELECT gin_clean_pending_list('notes_search')").run()
    }

    func revert(on database: any Database) async throws {
        guard database.isPostgres else { return }
        try await database.sql.raw("ALTER INDEX notes_search RESET (fastupdate)").run()
    }
}
