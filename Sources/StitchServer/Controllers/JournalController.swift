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
        let entry = try await JournalService.addEntry(try req.writer, to: req.uuid("id"), try req.patch())
        return try respond(JournalEntryDetail(entry: entry, images: []), status: .created)
    }

    @Sendable
    func update(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (_, id) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        let entry = try await JournalService.updateEntry(try req.writer, id: id, try req.patch())
        let images = try await JournalService.images(of: [id], userId: userId, db: req.db)
        return try respond(JournalEntryDetail(entry: entry, images: images[id] ?? []))
    }

    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        try await JournalService.deleteEntry(try req.writer, id: id)
        return .noContent
    }

    /// Appends one or more pictures (multipart, field `image` repeated) after the entry's last one.
    @Sendable
    func addImages(req: Request) async throws -> Response {
        let (_, id) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        return try respond(try await JournalService.addImages(try Images.parts(of: req), to: id, writer: try req.writer, app: req.application), status: .created)
    }

    @Sendable
    func deleteImage(req: Request) async throws -> HTTPStatus {
        let (_, entryId) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        try await JournalService.deleteImage(try req.writer, id: req.uuid("imageId"), of: entryId)
        return .noContent
    }

}
