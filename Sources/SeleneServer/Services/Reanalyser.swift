import Fluent
import Foundation
import Logging
import SeleneShared
import ServerCommon
import SQLKit

/// `selene reprocess`: notes read again by the model with today's analysis prompt — after an
/// upgrade that asks it for more than it did (the people and places a note names, #85) — their
/// new reading stored in place of the old, and their facts (what is searched beside their words)
/// written again from it. What else processing made of a note stays as it is: its thread (a note
/// the person moved stays moved), its links, its embedding and the tasks it yielded.
///
/// By default the notes read before people and places were asked for (their columns empty); a
/// note among them with no name in it (`ProperNames`) has nothing new to be read, so it is marked
/// as naming nobody without asking the model. Each note is stored as it is read, so a run stopped
/// (the model server gone, Ctrl-C) goes on where it stopped the next time. `all` reads every
/// processed note again. A note edited while it is being read keeps its edit (it is in the queue
/// again and gets a whole new processing); one the model can't give a valid reading of keeps its
/// earlier one, and the report says which and why.
public struct Reanalyser {
    let db: any Database
    let services: SeleneServices
    let logger: Logger

    public struct Report: Sendable {
        /// Notes the model read again, and the new reading stored.
        public var read = 0
        /// Notes with no name in them, marked as naming nobody without asking the model.
        public var nameless = 0
        /// Notes that kept their earlier reading: the note and why.
        public var kept: [(id: Int, reason: String)] = []
        /// Notes edited while being read (their edit kept; they are processed again from the queue).
        public var edited = 0
        /// Notes deleted while being read (nothing written for them).
        public var deleted = 0
    }

    /// What became of a note's new reading.
    enum Stored { case stored, edited, deleted }

    /// The notes to read: every processed one with `all`, else those read before people and places were asked for.
    func candidates(all: Bool) async throws -> [Int] {
        let query: SQLQueryString = all
            ? "SELECT n.id FROM notes n JOIN processed_notes p ON p.note_id = n.id WHERE n.status = 'done' ORDER BY n.id"
            : "SELECT n.id FROM notes n JOIN processed_notes p ON p.note_id = n.id WHERE n.status = 'done' AND (p.people IS NULL OR p.places IS NULL) ORDER BY n.id"
        return try await db.sql.raw(query).all().map { try $0.decode(column: "id", as: Int.self) }
    }

    /// Reads the notes again; `progress` is called with the notes done and the notes to do. A
    /// model server that can't be reached stops the run with its error (what was read is kept).
    public func run(all: Bool, progress: (Int, Int) -> Void) async throws -> Report {
        let llm = try services.requireLLM()
        let ids = try await candidates(all: all)
        var report = Report()
        progress(0, ids.count)
        for (done, id) in ids.enumerated() {
            defer { progress(done + 1, ids.count) }
            guard let note = try await NoteModel.find(id, on: db), note.status == ProcessingStatus.done.rawValue else { continue }
            let text = [note.title ?? "", note.content].joined(separator: "\n")
            let analysis: NoteAnalysis?
            if !all && !ProperNames.any(in: text) {
                analysis = nil
            } else {
                do {
                    analysis = try await llm.analyse(title: note.title, content: note.content)
                } catch LLMError.invalidAnswer(let reason) {
                    report.kept.append((id, reason))
                    logger.notice("Note \(id) keeps its earlier reading: \(reason)")
                    continue
                }
            }
            switch try await store(id, analysis: analysis, readFrom: note.contentHash, model: llm.settings.chatModel) {
            case .edited: report.edited += 1
            case .deleted: report.deleted += 1
            case .stored: if analysis == nil { report.nameless += 1 } else { report.read += 1 }
            }
        }
        logger.info("Read \(report.read) notes again, \(report.nameless) without a name marked as naming nobody, \(report.kept.count) kept their reading")
        return report
    }

    /// Stores a note's new reading (or, for nil, that it names nobody) and its facts, if its
    /// words are still those read and it is still processed; else says whether it was edited or deleted meanwhile.
    private func store(_ id: Int, analysis: NoteAnalysis?, readFrom hash: String, model: String) async throws -> Stored {
        let now = services.clock.now()
        return try await db.writeTransaction { db in
            let sql = db.sql
            guard let row = try await sql.raw("SELECT status, content_hash FROM notes WHERE id = \(bind: id)").first() else { return .deleted }
            guard try row.decode(column: "status", as: String.self) == ProcessingStatus.done.rawValue,
                  try row.decode(column: "content_hash", as: String.self) == hash else { return .edited }
            if let analysis {
                try await AnalysisStore(db: db).save(noteId: id, analysis: analysis, model: model, now: now)
            } else {
                let none = JSONColumn.write([String]())
                try await sql.raw("UPDATE processed_notes SET people = \(bind: none), places = \(bind: none) WHERE note_id = \(bind: id)").run()
            }
            try await NoteFactsStore(db: db).refresh(noteIds: [id])
            return .stored
        }
    }
}
