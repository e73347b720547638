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

    /// A new entry in the project's journal: dated now unless the stitcher gives its day.
    static func addEntry(_ writer: Writer, to projectId: UUID, _ body: RecordPatch) async throws -> JournalEntry {
        _ = try await Records.require(ProjectModel.self, projectId, userId: writer.userId, on: writer.db)
        return try await RecordWrites<JournalEntryModel>.create(
            writer, body, defaults: ["notes": ""], overrides: ["projectId": .id(projectId)], clientMayDate: true)
    }

    /// An entry as a person writes it in one go (the web app's form): its words, its photos or
    /// both, dated `day` (noon UTC) when written up later, else now; the entry and its photos at
    /// one sync version. Every photo is checked before any is stored.
    static func addEntry(_ writer: Writer, to projectId: UUID, notes: String?, day: Date?, photos: [Data], app: Application) async throws -> JournalEntry {
        let userId = writer.userId, now = writer.now
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: writer.db)
        for data in photos { _ = try Images.checkPhoto(data, config: app.config) }
        if notes == nil && photos.isEmpty { throw ValidationError(fields: ["notes": "Write a note or add a photo"]) }
        let today = Timestamp.string(from: now).prefix(10)
        let dated = day.map { Timestamp.string(from: $0).prefix(10) == today ? now : $0.addingTimeInterval(12 * 3600) } ?? now
        var keys: [String] = []
        for data in photos { keys.append(try await Images.store(data, userId: userId, app: app, db: writer.db).requireID()) }
        let storedKeys = keys
        return try await writer.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let entry = try JournalEntry(projectId: projectId, notes: notes ?? "", createdAt: dated, updatedAt: now).normalized.validated()
            try await Records.create(entry, as: JournalEntryModel.self, userId: userId, version: version, on: db)
            for (order, key) in storedKeys.enumerated() {
                try await Records.create(JournalImage(entryId: entry.id, imageKey: key, sortOrder: order, createdAt: now, updatedAt: now),
                                         as: JournalImageModel.self, userId: userId, version: version, on: db)
            }
            return entry
        }
    }

    /// (`id` is an entry of its project: see `ProjectService.child`.) Its project stays; its day
    /// is the stitcher's to change (an entry written up days later).
    static func updateEntry(_ writer: Writer, id: UUID, _ body: RecordPatch) async throws -> JournalEntry {
        try await RecordWrites<JournalEntryModel>.update(writer, id: id, body, immutable: ["projectId"], clientMayDate: true)
    }

    /// Deletes the entry (of its project: see `ProjectService.child`) and its photos.
    static func deleteEntry(_ writer: Writer, id: UUID) async throws {
        try await RecordWrites<JournalEntryModel>.delete(writer, id: id, cascade: { entry, userId, version, now, db in
            try await Records.softDelete(JournalImageModel.self, where: "entry_id", in: [entry.id], userId: userId, at: now, version: version, on: db)
        })
    }

    /// Appends one or more pictures (multipart, field `image` repeated) after the entry's last one.
    /// (`id` is an entry of its project: see `ProjectService.child`.)
    static func addImages(_ parts: [Data], to id: UUID, writer: Writer, app: Application) async throws -> JournalEntryDetail {
        let userId = writer.userId
        // Check every picture before storing any, so a bad one leaves nothing behind.
        for data in parts { _ = try Images.checkPhoto(data, config: app.config) }
        var stored: [ImageModel] = []
        for data in parts { stored.append(try await Images.store(data, userId: userId, app: app, db: writer.db)) }
        let now = writer.now
        let storedKeys = stored.compactMap(\.id)
        let entry: JournalEntry = try await writer.db.writeTransaction { db in
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
        let images = try await JournalService.images(of: [id], userId: userId, db: writer.db)
        return JournalEntryDetail(entry: entry, images: images[id] ?? [])
    }

    /// Deletes one photo of the entry (of its project: see `ProjectService.child`).
    static func deleteImage(_ writer: Writer, id imageId: UUID, of entryId: UUID) async throws {
        let image = try await Records.require(JournalImageModel.self, imageId, userId: writer.userId, on: writer.db)
        guard image.entryId == entryId else { throw APIError.notFound }
        try await RecordWrites<JournalImageModel>.delete(writer, id: imageId)
    }
}
