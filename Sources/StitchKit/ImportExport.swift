import Foundation
import GRDB
import StitchCore

extension AccountBackup {
    /// Every live record on this device, and the pictures they show: `picture` gives each one's
    /// bytes and content type by key (from the server, say), after the ones still waiting on the
    /// device to be uploaded, which come from here. Nothing is left out without a word: a picture
    /// `picture` can't give is an error.
    public static func make(from store: LocalStore,
                            picture: (String) async throws -> (data: Data, contentType: String)) async throws -> AccountBackup {
        var backup = try make(from: store)
        let staged = try await store.writer.read { db in try PendingImage.fetchAll(db) }
        var pictures: [String: Picture] = [:]
        for image in staged { pictures[image.localKey] = Picture(key: image.localKey, contentType: ImageFormat.detect(image.data)?.contentType ?? "application/octet-stream", bytes: image.data) }
        for key in backup.imageKeys.sorted() where pictures[key] == nil {
            let (data, contentType) = try await picture(key)
            pictures[key] = Picture(key: key, contentType: contentType, bytes: data)
        }
        backup.pictures = Array(pictures.values)
        return backup.inCanonicalOrder()
    }

    /// Every live record on this device, without pictures.
    public static func make(from store: LocalStore) throws -> AccountBackup {
        AccountBackup(
            exportedAt: store.clock(),
            threads: try store.all(InventoryThread.self), canvases: try store.all(Canvas.self), projects: try store.all(Project.self),
            sections: try store.all(ProjectSection.self), requirements: try store.all(ProjectThread.self),
            journalEntries: try store.all(JournalEntry.self), journalImages: try store.all(JournalImage.self),
            patterns: try store.all(Pattern.self), shoppingLines: try store.all(ShoppingLine.self)).inCanonicalOrder()
    }
}

extension LocalStore {
    /// Saves what an import plan writes — new records and merged ones — in transactions of 500,
    /// each marked pending, reporting progress.
    public func saveImported<R: LocalRecord>(_ records: [R], progress: (Int) -> Void = { _ in }) throws {
        var done = 0
        for start in stride(from: 0, to: records.count, by: 500) {
            let chunk = records[start..<min(start + 500, records.count)]
            try writer.write { db in
                for record in chunk {
                    try record.save(db)
                    try SyncState.markPending(R.entityType, id: record.id, db: db)
                }
            }
            done += chunk.count
            progress(done)
        }
    }
}
