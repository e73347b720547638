import Fluent
import Foundation
import StitchCore
import Vapor

struct JournalController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let entries = routes.grouped("projects", ":id", "entries")
        entries.get(use: list)
        entries.post(use: create)
        entries.put(":entryId", use: update)
        entries.delete(":entryId", use: delete)
        entries.on(.POST, ":entryId", "images", body: .collect(maxSize: "100mb"), use: addImages)
        entries.delete(":entryId", "images", ":imageId", use: deleteImage)
    }

    /// Entries newest first, each with its images in sort order.
    @Sendable
    func list(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        let entries = try await Records.list(JournalEntryModel.self, userId: userId, where: "project_id", equals: project.id!, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        let images = try await JournalService.images(of: entries.map(\.id), userId: userId, db: req.db)
        return try respond(entries.map { JournalEntryDetail(entry: $0, images: images[$0.id] ?? []) })
    }

    @Sendable
    func create(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        let entry = try await RecordWrites<JournalEntryModel>.create(
            req, defaults: ["notes": ""], overrides: ["projectId": project.id!.text], clientMayDate: true)
        return try respond(JournalEntryDetail(entry: entry, images: []), status: .created)
    }

    @Sendable
    func update(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (_, id) = try await ProjectService.child(JournalEntryModel.self, req, param: "entryId", projectColumn: \.projectId)
        let entry = try await RecordWrites<JournalEntryModel>.update(req, id: id, immutable: ["projectId"], clientMayDate: true)
        let images = try await JournalService.images(of: [id], userId: userId, db: req.db)
        return try respond(JournalEntryDetail(entry: entry, images: images[id] ?? []))
    }

    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await JournalService.deleteEntry(req: req)
    }

    /// Appends one or more pictures (multipart, field `image` repeated) after the entry's last one.
    @Sendable
    func addImages(req: Request) async throws -> Response {
        try respond(try await JournalService.addImages(req: req), status: .created)
    }

    @Sendable
    func deleteImage(req: Request) async throws -> HTTPStatus {
        try await JournalService.deleteImage(req: req)
    }

}
