import Fluent
import SQLKit

/// Full-text search over title and content: an FTS5 table kept by triggers on SQLite, a stored
/// `tsvector` column with a GIN index on PostgreSQL (English stemming on both).
struct CreateNoteSearch: AsyncMigration {
    /// PostgreSQL's tsvector holds at most 1 MB; a 1 MB note of distinct words would not fit,
    /// so its first 200,000 characters are indexed there (SQLite indexes everything).
    static let postgresIndexedCharacters = 200_000

    func prepare(on database: any Database) async throws {
        let sql = database.sql
        if database.isPostgres {
            try await sql.raw("""
                ALTER TABLE notes ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
                  setweight(to_tsvector('english', left(content, \(unsafeRaw: String(Self.postgresIndexedCharacters)))), 'B')) STORED
                """).run()
            try await sql.raw("CREATE INDEX notes_search ON notes USING GIN (search_vector)").run()
        } else {
            try await sql.raw("""
                CREATE VIRTUAL TABLE notes_fts USING fts5(title, content, content='notes', content_rowid='id',
                  tokenize='porter unicode61 remove_diacritics 2')
                """).run()
            try await sql.raw("""
                CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
                  INSERT INTO notes_fts(rowid, title, content) VALUES (new.id, coalesce(new.title, ''), new.content);
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
                  INSERT INTO notes_fts(notes_fts, rowid, title, content) VALUES ('delete', old.id, coalesce(old.title, ''), old.content);
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, content ON notes BEGIN
                  INSERT INTO notes_fts(notes_fts, rowid, title, content) VALUES ('delete', old.id, coalesce(old.title, ''), old.content);
                  INSERT INTO notes_fts(rowid, title, content) VALUES (new.id, coalesce(new.title, ''), new.content);
                END
                """).run()
        }
    }

    func revert(on database: any Database) async throws {
        if database.isPostgres {
            try await database.sql.raw("DROP INDEX notes_search").run()
            try await database.sql.raw("ALTER TABLE notes DROP COLUMN search_vector").run()
        } else {
            for trigger in ["notes_fts_insert", "notes_fts_delete", "notes_fts_update"] {
                try await database.sql.raw("DROP TRIGGER \(ident: trigger)").run()
            }
            try await database.sql.raw("DROP TABLE notes_fts").run()
        }
    }
}
