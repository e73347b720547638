import Fluent
import Foundation
import SeleneShared
import SQLKit

/// Full-text ranking over notes: SQLite FTS5 with BM25 (title counts twice, what processing
/// understood — `NoteFacts` — half), PostgreSQL `tsvector` with `ts_rank_cd` normalised by length
/// (title weighted A, words B, facts C), both stemming English. A query's content
/// words are OR'd, so notes matching more of them rank higher (`all: true` wants every one: a
/// name). Answers note ids, best first.
public struct KeywordSearch: Sendable {
    let db: any Database

    public init(db: any Database) { self.db = db }

    public struct Filter: Sendable, Hashable {
        public var noteType: NoteType?
        public var actionability: Actionability?
        /// Written in this interval.
        public var created: DateInterval?
        public init(noteType: NoteType? = nil, actionability: Actionability? = nil, created: DateInterval? = nil) {
            self.noteType = noteType
            self.actionability = actionability
            self.created = created
        }
        var isEmpty: Bool { noteType == nil && actionability == nil }
    }

    /// `andAnyOf`: notes must also have one of these words. `wordsOnly`: in the title and words,
    /// not what processing understood (`NoteFacts`).
    public func rank(_ query: String, limit: Int, filter: Filter = Filter(), all: Bool = false, andAnyOf others: [String]? = nil,
                     wordsOnly: Bool = false) async throws -> [Int] {
        let terms = TextTokens.searchTerms(query)
        guard !terms.isEmpty else { return [] }
        // Terms are letters and digits only, so neither query can be malformed.
        var sqlite = terms.map { "\"\($0)\"" }.joined(separator: all ? " AND " : " OR ")
        var postgres = terms.joined(separator: all ? " & " : " | ")
        if let others = others.map({ TextTokens.searchTerms($0.joined(separator: " ")) }), !others.isEmpty {
            sqlite = "(\(sqlite)) AND (\(others.map { "\"\($0)\"" }.joined(separator: " OR ")))"
            postgres = "(\(postgres)) & (\(others.joined(separator: " | ")))"
        }
        return try await rank(sqlite: wordsOnly ? "{title content} : (\(sqlite))" : sqlite, postgres: "to_tsquery('english', \(bind: postgres))",
                              limit: limit, filter: filter, wordsOnly: wordsOnly)
    }

    /// The facts of these notes (`NoteFacts`), by id; a note without any is left out.
    public func facts(of ids: [Int]) async throws -> [Int: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await db.sql.raw("SELECT id, facts FROM notes WHERE id IN (\(binds: ids)) AND facts IS NOT NULL").all()
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(column: "id", as: Int.self), try $0.decode(column: "facts", as: String.self)) })
    }

    /// The share of all notes that have every word of `query` (a name, say), counted up to `cap`
    /// of them: past that a word is common, and how common no longer matters.
    public func share(ofNotesWithAll query: String, cap: Double = 0.25) async throws -> Double {
        let terms = TextTokens.searchTerms(query)
        guard !terms.isEmpty else { return 0 }
        if db.isPostgres, let estimated = try await statisticsShare(terms) { return min(estimated, cap) }
        let sql = db.sql
        let total = try await sql.raw("SELECT count(*) AS n FROM notes").first()?.decode(column: "n", as: Int.self) ?? 0
        guard total > 0 else { return 0 }
        let limit = max(1, Int((cap * Double(total)).rounded(.up)))
        let hits: Int
        if db.isPostgres {
            hits = try await sql.raw("""
                SELECT count(*) AS n FROM (SELECT 1 FROM notes WHERE search_vector @@ to_tsquery('english', \(bind: terms.joined(separator: " & "))) LIMIT \(bind: limit)) h
                """).first()?.decode(column: "n", as: Int.self) ?? 0
        } else {
            hits = try await sql.raw("""
                SELECT count(*) AS n FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH \(bind: terms.map { "\"\($0)\"" }.joined(separator: " AND ")) LIMIT \(bind: limit)) h
                """).first()?.decode(column: "n", as: Int.self) ?? 0
        }
        return Double(hits) / Double(total)
    }

    /// Notes from which PostgreSQL's statistics say how common a word is, rather than counting:
    /// counting a name in a quarter of 100,000 notes reads 25,000 rows' `tsvector`s (some 30 ms).
    static let statisticsFrom = 20_000.0

    /// The share of notes with every word, from PostgreSQL's statistics of `search_vector`
    /// (ANALYZE, run by autovacuum, keeps the most common lexemes' frequencies; one it doesn't
    /// list is rarer than the rarest it does): the smallest of the words' shares. Nil for a
    /// smaller table, or before there are statistics (then the notes are counted).
    private func statisticsShare(_ terms: [String]) async throws -> Double? {
        // One statement: the table's size, and each word's frequency looked up in the list of
        // common ones read once (`pg_stats` is a view over several catalogues; reading it once a
        // word, and the size apart, took twice as long).
        let found = try await db.sql.raw("""
            WITH st AS (SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
                        WHERE schemaname = current_schema() AND tablename = 'notes' AND attname = 'search_vector')
            SELECT (SELECT reltuples FROM pg_class WHERE oid = to_regclass('notes'))::float8 AS n,
                   (SELECT freqs[array_position(elems, q.lexeme)] FROM st)::float8 AS f,
                   (SELECT freqs[array_length(freqs, 1) - 2] FROM st)::float8 AS floor
            FROM unnest(tsvector_to_array(to_tsvector('english', \(bind: terms.joined(separator: " "))))) AS q(lexeme)
            """).all()
        guard let first = found.first, let rows = try first.decode(column: "n", as: Double?.self), rows >= Self.statisticsFrom,
              let floor = try first.decode(column: "floor", as: Double?.self) else { return nil }
        return try found.map { try $0.decode(column: "f", as: Double?.self) ?? floor }.min()
    }

    /// Notes with every one of the phrases, their words in order ("kitchen sink"), best first.
    public func rank(phrases: [String], limit: Int, filter: Filter = Filter()) async throws -> [Int] {
        let phrases = phrases.map { TextTokens.words($0).joined(separator: " ") }.filter { !$0.isEmpty }
        guard !phrases.isEmpty else { return [] }
        var tsquery: SQLQueryString = ""
        for (index, phrase) in phrases.enumerated() {
            if index > 0 { tsquery += " && " }
            tsquery += "phraseto_tsquery('english', \(bind: phrase))"
        }
        // A phrase is the note's own words in that order: not two of the facts side by side.
        return try await rank(sqlite: "{title content} : (" + phrases.map { "\"\($0)\"" }.joined(separator: " AND ") + ")", postgres: tsquery,
                              limit: limit, filter: filter, wordsOnly: true)
    }

    /// An FTS5 MATCH expression or a PostgreSQL tsquery, ranked within the filter (`wordsOnly`:
    /// matched in the title and words, not the facts).
    private func rank(sqlite match: String, postgres tsquery: SQLQueryString, limit: Int, filter: Filter, wordsOnly: Bool = false) async throws -> [Int] {
        let sql = db.sql
        var filterClause: SQLQueryString = ""
        if let type = filter.noteType { filterClause += " AND p.note_type = \(bind: type.rawValue)" }
        if let actionability = filter.actionability { filterClause += " AND p.actionability = \(bind: actionability.rawValue)" }
        if let created = filter.created {
            filterClause += " AND n.created_at >= \(bind: created.start) AND n.created_at <= \(bind: created.end)"
        }
        let join: SQLQueryString = filter.isEmpty ? "" : " JOIN processed_notes p ON p.note_id = "
        let rows: [any SQLRow]
        if db.isPostgres {
            var query: SQLQueryString = "SELECT n.id FROM notes n"
            if !filter.isEmpty { query += join + "n.id" }
            query += ", " + tsquery + " q WHERE n.search_vector @@ q"
            if wordsOnly { query += " AND ts_filter(n.search_vector, '{a,b}') @@ q" }
            query += filterClause
            // Normalisation 1 divides by 1 + the log of the note's length, as BM25 weighs length.
            query += wordsOnly ? " ORDER BY ts_rank_cd(ts_filter(n.search_vector, '{a,b}'), q, 1) DESC, n.id DESC LIMIT \(bind: limit)"
                : " ORDER BY ts_rank_cd(n.search_vector, q, 1) DESC, n.id DESC LIMIT \(bind: limit)"
            rows = try await sql.raw(query).all()
        } else {
            var query: SQLQueryString = "SELECT f.rowid AS id FROM notes_fts f"
            if !filter.isEmpty { query += join + "f.rowid" }
            if filter.created != nil { query += " JOIN notes n ON n.id = f.rowid" }
            query += " WHERE notes_fts MATCH \(bind: match)"
            query += filterClause
            query += " ORDER BY bm25(notes_fts, 2.0, 1.0, 0.5), f.rowid DESC LIMIT \(bind: limit)"
            rows = try await sql.raw(query).all()
        }
        return try rows.map { try $0.decode(column: "id", as: Int.self) }
    }
}
