import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A project's patterns added and listed, for the API (`PatternController`) and the web app.
extension Patterns {

    /// Stores the file and creates its pattern record (one sync version); a failure keeps nothing.
    static func add(_ data: Data, filename: String?, title given: String?, to projectId: UUID, writer: Writer, app: Application) async throws -> PatternDetail {
        let userId = writer.userId
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: writer.db)
        let title = given ?? filename.map { ($0 as NSString).deletingPathExtension }.flatMap(Rules.clean) ?? "Pattern"
        // The record's own rules, before anything is stored.
        _ = try Pattern(projectId: projectId, title: title, fileKey: "k", createdAt: Date(), updatedAt: Date()).normalized.validated()
        let stored = try await Patterns.store(data, userId: userId, app: app, db: writer.db)
        do {
            let pattern = try await RecordWrites<PatternModel>.create(
                writer, ["projectId": .id(projectId), "title": .string(title), "fileKey": .string(stored.key), "lastPage": 1])
            return PatternDetail(pattern: pattern, contentType: stored.format.contentType, pages: stored.pages)
        } catch {
            try? await Images.removeIfUnreferenced(stored.key, app: app, db: writer.db)
            throw error
        }
    }

    /// `title` and `lastPage` (where its reader left off: another device opens there), never past
    /// the file's last page.
    static func update(_ writer: Writer, id: UUID, _ body: RecordPatch, app: Application) async throws -> Pattern {
        let userId = writer.userId
        return try await RecordWrites<PatternModel>.update(writer, id: id, body, immutable: ["projectId", "fileKey"], check: { pattern, db in
            let (_, pages) = try await Patterns.pages(of: pattern.fileKey, userId: userId, app: app, db: db)
            if pages.pageCount > 0, pattern.lastPage > pages.pageCount {
                throw APIError.validation(["lastPage": "This pattern has \(pages.pageCount) page\(pages.pageCount == 1 ? "" : "s")"])
            }
        })
    }

    /// Deletes the pattern; its file goes once nothing else refers to it.
    static func delete(_ writer: Writer, id: UUID, app: Application) async throws {
        let pattern = try await Records.require(PatternModel.self, id, userId: writer.userId, on: writer.db).record
        try await RecordWrites<PatternModel>.delete(writer, id: id)
        try await Images.removeIfUnreferenced(pattern.fileKey, app: app, db: writer.db)
    }

    static func patterns(of projectId: UUID, userId: UUID, db: any Database) async throws -> [Pattern] {
        try await Records.list(PatternModel.self, userId: userId, where: "project_id", equals: projectId, on: db)
            .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
    }
}
