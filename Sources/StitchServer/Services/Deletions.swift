import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// "Recently deleted" (`RecentlyDeleted` in StitchCore): what a person deleted in the last 30 days,
/// restored on request, and the files of what is gone for good. Shared by the API, the web app and,
/// through the API, the stitch CLI.
///
/// A restore is one change on the server — the record (and what was deleted with it) live again,
/// at the account's next sync version — so every device pulls it, as it pulls any write. Deletes
/// win over edits (`ConflictRule`); a restore is the one way back.
enum Deletions {
    static var window: TimeInterval { TimeInterval(RecentlyDeleted.days) * 86_400 }

    /// The account's recently deleted threads, canvases, projects and journal entries (of live
    /// projects: an entry deleted with its project comes back with it), newest first.
    static func list(userId: UUID, now: Date, db: any Database) async throws -> RecentlyDeleted {
        let since = now.addingTimeInterval(-window)
        func deleted<M: RecordModel>(_ type: M.Type) async throws -> [M.Record] {
            try await Records.matching(M.self, userId: userId, includingDeleted: true, on: db) {
                $0.where("deleted_at", .greaterThan, SQLBind(since))
            }.map(\.record)
        }
        func item(_ type: EntityType, _ id: UUID, _ title: String, _ at: Date?, photo: String? = nil) -> RecentlyDeleted.Item? {
            at.map { RecentlyDeleted.Item(type: type, id: id, title: title, deletedAt: $0, restorableUntil: $0.addingTimeInterval(window),
                                          hasPhoto: photo == nil ? nil : true) }
        }
        var items: [RecentlyDeleted.Item] = []
        items += try await deleted(ThreadModel.self).compactMap { item(.thread, $0.id, "\($0.brand.uppercased()) \($0.number)", $0.deletedAt) }
        let canvases = try await deleted(CanvasModel.self)
        items += canvases.compactMap { item(.canvas, $0.id, $0.designName, $0.deletedAt, photo: $0.imageKey) }
        let allCanvases = Dictionary(try await Records.matching(CanvasModel.self, userId: userId, includingDeleted: true, on: db) { $0 }
            .map { ($0.record.id, $0.record) }, uniquingKeysWith: { a, _ in a })
        items += try await deleted(ProjectModel.self).compactMap {
            item(.project, $0.id, $0.title(canvas: $0.canvasId.flatMap { allCanvases[$0] }), $0.deletedAt, photo: $0.imageKey)
        }
        let liveProjects = Set(try await Records.list(ProjectModel.self, userId: userId, on: db).map(\.id))
        items += try await deleted(JournalEntryModel.self).filter { liveProjects.contains($0.projectId) }.compactMap {
            let words = $0.notes.trimmingCharacters(in: .whitespacesAndNewlines)
            return item(.journalEntry, $0.id, words.isEmpty ? "A journal entry" : String(words.prefix(60)), $0.deletedAt)
        }
        return RecentlyDeleted(items: items.sorted { ($0.deletedAt, $0.id.uuidString) > ($1.deletedAt, $1.id.uuidString) })
    }

    /// The photo of a canvas or a project listed in "Recently deleted": served there alone, until
    /// the record is restored (then the usual address serves it) or gone for good. Nil for
    /// anything else.
    static func photo(_ type: EntityType, _ id: UUID, userId: UUID, now: Date, db: any Database) async throws -> ImageModel? {
        func key<M: RecordModel>(_ model: M.Type, _ imageKey: (M.Record) -> String?) async throws -> String? {
            guard let found = try await Records.find(M.self, id, userId: userId, includeDeleted: true, on: db),
                  let at = found.record.deletedAt, at > now.addingTimeInterval(-window) else { return nil }
            return imageKey(found.record)
        }
        let imageKey: String? = switch type {
        case .canvas: try await key(CanvasModel.self) { $0.imageKey }
        case .project: try await key(ProjectModel.self) { $0.imageKey }
        default: nil
        }
        guard let imageKey else { return nil }
        return try await Images.owned(imageKey, userId: userId, on: db)
    }

    static let notRestorable = APIError(.notFound, "Nothing like that was deleted in the last \(RecentlyDeleted.days) days: it may be back already, or gone for good.")

    /// Brings a recently deleted record back, with what was deleted with it (a project's journal,
    /// sections, requirements and patterns; an entry's photos). Refused, with the reason, when it
    /// can't stand as it was: a thread the account holds again, a project whose canvas is deleted
    /// or has another project, an entry whose project is deleted. Answers the record's title.
    @discardableResult
    static func restore(_ type: EntityType, _ id: UUID, userId: UUID, now: Date, app: Application, db: any Database) async throws -> String {
        guard RecentlyDeleted.kinds.contains(type) else { throw notAKindToRestore }
        let title: String = try await db.writeTransaction { db in
            let restoring = Restoring(id: id, userId: userId, now: now, since: now.addingTimeInterval(-window),
                                      version: try await SyncVersion.next(for: userId, on: db), db: db)
            switch type {
            case .thread: return try await restoring.thread()
            case .canvas: return try await restoring.canvas()
            case .project: return try await restoring.project()
            case .journalEntry: return try await restoring.journalEntry()
            default: throw notAKindToRestore
            }
        }
        app.responseCache.forget(userId: userId)
        return title
    }

    static let notAKindToRestore = APIError.validation(["type": "Restore a thread, a canvas, a project or a journal entry"])

    /// One restore, inside its transaction at one sync version: each kind's checks (what came
    /// back in its place, what it needs alive), then the record and what was deleted with it.
    /// Each step answers the title the person is told was restored.
    private struct Restoring {
        let id: UUID
        let userId: UUID
        let now: Date
        /// Deleted before this is gone for good (`RecentlyDeleted.days`).
        let since: Date
        let version: Int64
        let db: any Database

        func thread() async throws -> String {
            let model = try await deleted(ThreadModel.self)
            let thread = model.record
            let again = try await Records.matching(ThreadModel.self, userId: userId, on: db) {
                $0.where("brand", .equal, SQLBind(thread.brand)).where("number", .equal, SQLBind(thread.number))
            }
            guard again.isEmpty else {
                throw APIError(.conflict, "You have \(thread.brand.uppercased()) \(thread.number) again: change that one instead.")
            }
            try await undelete(model)
            return "\(thread.brand.uppercased()) \(thread.number)"
        }

        func canvas() async throws -> String {
            let model = try await deleted(CanvasModel.self)
            try await undelete(model)
            return model.record.designName
        }

        func project() async throws -> String {
            let model = try await deleted(ProjectModel.self)
            let project = model.record
            let canvas = try await canvasFree(for: project)
            let moment = project.deletedAt ?? now
            try await undelete(model)
            let entries = try await Records.matching(JournalEntryModel.self, userId: userId, includingDeleted: true, on: db) {
                $0.where("project_id", .equal, SQLUUID(project.id))
            }.map(\.record.id)
            try await alongside(JournalImageModel.self, where: "entry_id", in: entries, at: moment)
            try await alongside(JournalEntryModel.self, where: "project_id", in: [project.id], at: moment)
            try await alongside(RequirementModel.self, where: "project_id", in: [project.id], at: moment)
            try await alongside(SectionModel.self, where: "project_id", in: [project.id], at: moment)
            try await alongside(PatternModel.self, where: "project_id", in: [project.id], at: moment)
            return project.title(canvas: canvas)
        }

        /// A project's canvas, which must be alive and have no other project now; nil without one.
        private func canvasFree(for project: Project) async throws -> Canvas? {
            guard let canvasId = project.canvasId else { return nil }
            guard let live = try await Records.find(CanvasModel.self, canvasId, userId: userId, on: db) else {
                throw APIError(.conflict, "Its canvas is deleted too: restore the canvas first.")
            }
            let other = try await Records.matching(ProjectModel.self, userId: userId, on: db) { $0.where("canvas_id", .equal, SQLUUID(canvasId)) }
            guard other.isEmpty else {
                throw APIError(.conflict, "Its canvas has another project now: a canvas is stitched as one project at a time.")
            }
            return live.record
        }

        func journalEntry() async throws -> String {
            let model = try await deleted(JournalEntryModel.self)
            let entry = model.record
            guard try await Records.find(ProjectModel.self, entry.projectId, userId: userId, on: db) != nil else {
                throw APIError(.conflict, "Its project is deleted: restore the project, and its journal comes back with it.")
            }
            try await undelete(model)
            try await alongside(JournalImageModel.self, where: "entry_id", in: [entry.id], at: entry.deletedAt ?? now)
            return "the journal entry"
        }

        /// The record, deleted within the window; else "can't be restored".
        private func deleted<M: RecordModel>(_ type: M.Type) async throws -> M {
            guard let model = try await Records.find(M.self, id, userId: userId, includeDeleted: true, on: db),
                  let at = model.record.deletedAt, at > since else { throw notRestorable }
            return model
        }

        private func undelete<M: RecordModel>(_ model: M) async throws {
            var record = model.record
            record.deletedAt = nil
            record.updatedAt = writeTimestamp(now: now, after: record.updatedAt)
            try await Records.update(model, to: record, version: version, on: db)
        }

        /// What was deleted with a parent: the same moment (a few seconds either way, for a
        /// device's delete pushed record by record).
        private func alongside<M: RecordModel>(_ type: M.Type, where column: String, in ids: [UUID], at moment: Date) async throws {
            guard !ids.isEmpty else { return }
            try await db.sql.update(M.schema)
                .set("deleted_at", to: SQLLiteral.null)
                .set("updated_at", to: SQLBind(now))
                .set("version", to: SQLBind(version))
                .where("user_id", .equal, SQLUUID(userId))
                .where(SQLUUIDIn(column, ids))
                .where("deleted_at", .greaterThanOrEqual, SQLBind(moment.addingTimeInterval(-5)))
                .where("deleted_at", .lessThanOrEqual, SQLBind(moment.addingTimeInterval(5)))
                .run()
        }
    }

    /// The files of records gone for good (deleted more than `RecentlyDeleted.days` days ago):
    /// each picture or pattern file that no live or recently deleted record names any more is
    /// removed from the folder or the bucket with its sizes and drawn pages, and its row. Answers
    /// how many files went.
    static func removeFilesGoneForGood(now: Date, app: Application, db: any Database) async throws -> Int {
        let cutoff = now.addingTimeInterval(-window)
        var candidates: Set<String> = []
        for (table, column) in Images.references {
            let rows = try await db.sql.raw("""
                SELECT DISTINCT \(ident: column) AS k FROM \(ident: table) WHERE deleted_at IS NOT NULL AND deleted_at <= \(bind: cutoff) \
                AND \(ident: column) IS NOT NULL
                """).all()
            for row in rows { if let key = try? row.decode(column: "k", as: String.self) { candidates.insert(key) } }
        }
        var removed = 0
        for key in candidates.sorted() {
            var kept = false
            for (table, column) in Images.references where !kept {
                kept = try await db.sql.raw("""
                    SELECT 1 AS one FROM \(ident: table) WHERE \(ident: column) = \(bind: key) AND (deleted_at IS NULL OR deleted_at > \(bind: cutoff)) LIMIT 1
                    """).first() != nil
            }
            guard !kept, try await ImageModel.find(key, on: db) != nil else { continue }
            try await ImageModel.query(on: db).filter(\._$id == key).delete()
            try await Images.deleteFiles(key, app: app)
            removed += 1
        }
        return removed
    }

    /// Removes tombstones older than the horizon (`AppConfig.tombstoneDays`, counted from the
    /// delete and from the tombstone's last change): the rows go, children before parents, and each
    /// account notes the greatest sync version it lost (`tombstones_removed_through`), in the same
    /// transaction. A device whose cursor lies before that may have missed one of those deletes:
    /// it is told to sync from the start (`SyncService.horizon`). Run after
    /// `removeFilesGoneForGood`, which needs the rows to find the files. Answers how many rows went.
    static func removeTombstones(now: Date, days: Int, db: any Database) async throws -> Int {
        let cutoff = now.addingTimeInterval(-TimeInterval(days) * 86_400)
        return try await db.writeTransaction { db in
            var through: [UUID: Int64] = [:]
            var removed = 0
            for type in EntityType.allCases.sorted(by: { $0.dependencyRank > $1.dependencyRank }) {
                let rows = try await db.sql.raw("""
                    DELETE FROM \(ident: SyncService.table(type)) \
                    WHERE deleted_at IS NOT NULL AND deleted_at <= \(bind: cutoff) AND updated_at <= \(bind: cutoff) \
                    RETURNING user_id, version
                    """).all()
                for row in rows {
                    let user = try row.decode(column: "user_id", as: UUID.self)
                    let version = try row.decode(column: "version", as: Int64.self)
                    through[user] = max(through[user] ?? 0, version)
                }
                removed += rows.count
            }
            for (user, version) in through {
                try await db.sql.raw("""
                    UPDATE users SET tombstones_removed_through = \(bind: version) \
                    WHERE id = \(bind: user) AND tombstones_removed_through < \(bind: version)
                    """).run()
            }
            return removed
        }
    }
}
