import BuildStamp
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// A backup of the whole second brain: `selene backup [--to PATH]` while the server runs,
/// `selene restore PATH [--replace]` on a new machine, and nightly backups
/// (`SELENE_BACKUP_DIR`, `SELENE_BACKUP_KEEP`). One folder: the database's copy (notes and their
/// versions, embeddings and the model that made them, threads, conversations, memories, tasks,
/// devices, settings — all of it lives there), the data folder's own files under `data/` (the
/// API token and the Web Push key, so phones and subscriptions keep working) and `manifest.json`.
/// As private as the notes: keep it where they would be kept.
public enum SeleneBackup {
    public static let product = "selene"

    @discardableResult
    public static func take(_ app: Application, to folder: String) async throws -> BackupManifest {
        let config = app.selene.config
        return try await WholeBackup.take(
            product: product, version: SeleneVersion.current, commit: BuildStamp.commit, database: config.database, db: app.db.sql, to: folder
        ) { partial in
            WholeBackup.Files(copied: try copyDataFiles(from: config.dataDirectory, to: (partial as NSString).appendingPathComponent("data"), database: config.database))
        }
    }

    /// Brings a backup back, the server stopped. Refuses a second brain that holds notes unless
    /// `replace`. The data folder's files (token, Web Push key) are put back over any there.
    @discardableResult
    public static func restore(from folder: String, config: SeleneConfig, replace: Bool) async throws -> BackupManifest {
        let manifest = try await WholeBackup.restore(product: product, from: folder, into: config.database, occupiedBy: "notes", replace: replace)
        let data = (folder as NSString).appendingPathComponent("data")
        if FileManager.default.fileExists(atPath: data) {
            _ = try copyDataFiles(from: data, to: config.dataDirectory, database: config.database)
        }
        return manifest
    }

    /// The folder's own files (not its database, not folders such as a backup folder inside it),
    /// copied over what is there.
    static func copyDataFiles(from source: String, to target: String, database: ServerDatabase) throws -> Int {
        let manager = FileManager.default
        try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
        var skip = Set<String>()
        if case .sqliteFile(let path) = database {
            let name = (path as NSString).lastPathComponent
            skip = [name, name + "-wal", name + "-shm", name + ".restoring"]
        }
        var count = 0
        for name in try manager.contentsOfDirectory(atPath: source).sorted() where !skip.contains(name) {
            let from = (source as NSString).appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: from, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let to = (target as NSString).appendingPathComponent(name)
            try? manager.removeItem(atPath: to)
            try manager.copyItem(atPath: from, toPath: to)
            count += 1
        }
        return count
    }

    /// When the newest scheduled backup finished, for the Status page (nil: none, or off).
    public static func lastScheduled(_ config: SeleneConfig) -> Date? {
        config.backups.flatMap { BackupSchedule.lastFinished(in: $0.directory, product: product) }
    }
}
