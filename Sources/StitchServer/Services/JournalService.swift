import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A journal's entries and their photos, for the API (`JournalController`) and the web app.
enum JournalService {
    static func images(of entryIds: [UUID], userId: UUID, db: any Database) async throws -> [UUID: [JournalImage]] {
        guard !entryIds.isEmpty else { return [:] }
        let images = try await Records.matching(JournalImageModel.self, userId: userId, on: db) { $0.where(SQLUUIDIn("entry_id", entryIds)) }
            .map(\.record)
        return Dictionary(grouping: images, by: \.entryId).mapValues {
            $0.sorted { ($0.sortOrder, $0.createdAt, $0.id.text) < ($1.sortOrder, $1.createdAt, $1.id.text) }
        }
    }

    static func deleteEntry(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await ProjectService.child(JournalEntryModel.self, req, param: "entryId", projectColumn: \.projectId)
        return try await RecordWrites<JournalEntryModel>.delete(req, id: id, cascade: { entry, userId, version, now, db in
            try await Records.softDelete(JournalImageModel.self, where: "entry_id", in: [entry.id], userId: userId, at: now, version: version, on: db)
        })
    }

    /// Appends one or more pictures (multipart, field `image` repeated) after the entry's last one.
    static func addImages(req: Request) async throws -> JournalEntryDetail {
        let userId = try req.user.id
        let (_, id) = try await ProjectService.child(JournalEntryModel.self, req, param: "entryId", projectColumn: \.projectId)
        let parts = try Images.parts(of: req)
        // Check every picture before storing any, so a bad one leaves nothing behind.
        for data in parts { _ = try Images.checkPhoto(data, config: req.config) }
        var stored: [ImageModel] = []
        for data in parts { stored.append(try await Images.store(data, userId: userId, app: req.application, db: req.db)) }
        let now = req.now
        let storedKeys = stored.compactMap(\.id)
        let entry: JournalEntry = try await req.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let model = try await Records.require(JournalEntryModel.self, id, userId: userId, on: db)
            let existing = try await Records.all(JournalImageModel.self, userId: userId, where: "entry_id", equals: id, on: db)
            var order = (existing.map(\.sortOrder).max() ?? -1) + 1
            for key in storedKeys {
                let image = JournalImage(entryId: id, imageKey: key, sortOrder: order, createdAt: now, updatedAt: now)
                try await Records.create(image, as: JournalImageModel.self, userId: userId, version: version, on: db)
                order += 1
            }
            var entry = model.record
            entry.updatedAt = writeTimestamp(now: now, after: entry.updatedAt)
            try await Records.update(model, to: entry, version: version, on: db)
            return entry
        }
        let images = try await JournalService.images(of: [id], userId: userId, db: req.db)
        return JournalEntryDetail(entry: entry, images: images[id] ?? [])
    }

    static func deleteImage(req: Request) async throws -> HTTPStatus {
        let userId = try req.user.id
        let (_, entryId) = try await ProjectService.child(JournalEntryModel.self, req, param: "entryId", projectColumn: \.projectId)
        let image = try await Records.require(JournalImageModel.self, req.uuid("imageId"), userId: userId, on: req.db)
        guard image.entryId == entryId else { throw APIError.notFound }
        return try await RecordWrites<JournalImageModel>.delete(req, id: image.id!)
    }
}
