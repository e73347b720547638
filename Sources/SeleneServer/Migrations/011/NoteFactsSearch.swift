import Fluent
import SQLKit

/// #85: what processing understood about a note (`NoteFacts`: its concepts and themes, its
/// thread's name, the days it mentions as dates) in a column of its own, searched beside its
/// title and words. SQLite's FTS5 table gets a third column (made again, and filled from the
/// notes); PostgreSQL's `search_vector` weighs the facts as C, under the title (A) and the words
/// (B), and its index keeps no pending list (`FullTextWithoutPendingList`). Processing writes the
/// facts; until a note is processed (or after its words are edited) it has none. (This step
/// filled the facts of notes processed before until #85 added people and places; the next step
/// does it now, with the same end: a database this step ran on is filled again there, unchanged.)
struct NoteFactsSearch: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("ALTER TABLE notes ADD COLUMN facts TEXT").run()
        if database.isPostgres {
            try await sql.raw("ALTER TABLE notes DROP COLUMN search_vector").run()
            try await sql.raw("""
                ALTER TABLE notes ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
                  setweight(to_tsvector('english', left(content, \(unsafeRaw: String(CreateNoteSearch.postgresIndexedCharacters)))), 'B') ||
                  setweight(to_tsvector('english', coalesce(facts, '')), 'C')) STORED
                """).run()
            try await sql.raw("CREATE INDEX notes_search ON notes USING GIN (search_vector) WITH (fastupdate = off)").run()
        } else {
            for trigger in ["notes_fts_insert", "notes_fts_delete", "notes_fts_update"] {
                try await sql.raw("DROP TRIGGER IF EXISTS \(ident: trigger)").run()
            }
            try await sql.raw("DROP TABLE notes_fts").run()
            try await Self.createSQLiteIndex(sql)
            try await sql.raw("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')").run()
        }
        // The notes processed before get their facts from what is stored in the next step
        // (`PeopleAndPlaces`), once the columns the facts are read from all exist.
    }

    /// The FTS5 table over title, words and facts, kept by triggers.
    static func createSQLiteIndex(_ sql: any SQLDatabase) async throws {
        try await sql.raw("""
            CREATE VIRTUAL TABLE notes_fts USING fts5(title, content, facts, content='notes', content_rowid='id',
              tokenize='porter unicode61 remove_diacritics 2')
            """).run()
        try await sql.raw("""
            CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
              INSERT INTO notes_fts(rowid, title, content, facts) VALUES (new.id, coalesce(new.title, ''), new.content, coalesce(new.facts, ''));
            END
            """).run()
        try await sql.raw("""
            CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
              INSERT INTO notes_fts(notes_fts, rowid, title, content, facts) VALUES ('delete', old.id, coalesce(old.title, ''), old.content, coalesce(old.facts, ''));
            END
            """).run()
        try await sql.raw("""
            CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, content, facts ON notes BEGIN
              INSERT INTO notes_fts(notes_fts, rowid, title, content, facts) VALUES ('delete', old.id, coalesce(old.title, ''), old.content, coalesce(old.facts, ''));
              INSERT INTO notes_fts(rowid, title, content, facts) VALUES (new.id, coalesce(new.title, ''), new.content, coalesce(new.facts, ''));
            END
            """).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        if database.isPostgres {
            try await sql.raw("ALTER TABLE notes DROP COLUMN search_vector").run()
            try await sql.raw("""
                ALTER TABLE notes ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
                  setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
                  setweight(to_tsvector('english', left(content, \(unsafeRaw: String(CreateNoteSearch.postgresIndexedCharacters)))), 'B')) STORED
                """).run()
            try await sql.raw("CREATE INDEX notes_search ON notes USING GIN (search_vector) WITH (fastupdate = off)").run()
            try await sql.raw("ALTER TABLE notes DROP COLUMN facts").run()
        } else {
            for trigger in ["notes_fts_insert", "notes_fts_delete", "notes_fts_update"] {
                try await sql.raw("DROP TRIGGER IF EXISTS \(ident: trigger)").run()
            }
            try await sql.raw("DROP TABLE notes_fts").run()
            try await sql.raw("ALTER TABLE notes DROP COLUMN facts").run()
            try await CreateNoteSearch().prepare(on: database)
            try await sql.raw("INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')").run()
        }
    }
}
