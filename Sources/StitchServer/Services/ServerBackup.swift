import BuildStamp
import Foundation
import ServerCommon
import StitchCore
import Vapor

/// The operator's backup of a whole Stitchuation server (every account), beside each person's
/// own export: `stitchuation backup --to PATH` while the server runs, `stitchuation restore PATH`
/// on a new machine, and scheduled backups (`BACKUP_DIR`). A backup is a folder: the database's
/// copy (`database.sqlite` or `database.pgdump`), the stored files under `images/` (or, when they
/// live in a bucket, `bucket-objects.tsv` listing them for copying with the bucket's tools) and
/// `manifest.json`, written last.
public enum ServerBackup {
    public static let product = "stitchuation"

    /// Takes a backup of the running server into `folder` (new or empty). The database is copied
    /// first, as of one moment; then the files, which are never changed under a name and are
    /// removed only long after no row names them, so every file the copy names is there. Files
    /// the `previous` backup holds are hard-linked from it.
    @discardableResult
    public static func take(_ app: Application, to folder: String, previous: String? = nil) async throws -> BackupManifest {
        try await WholeBackup.take(
            product: product, version: StitchVersion.current, commit: BuildStamp.commit, database: app.config.database, db: app.db.sql, to: folder
        ) { partial in
            if let storage = app.imageStorage as? S3ImageStorage {
                let objects = try await storage.client.listDetailed(under: "")
                let lines = ["key\tsize\tetag"] + objects.map { "\($0.key)\t\($0.size)\t\($0.etag)" }
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: (partial as NSString).appendingPathComponent("bucket-objects.tsv")))
                return WholeBackup.Files(copied: 0, bucketObjects: objects.count)
            }
            return WholeBackup.Files(copied: try BackupFolders.copyFiles(
                from: imagesFolder(app.config), to: (partial as NSString).appendingPathComponent("images"),
                linkingFrom: previous.map { ($0 as NSString).appendingPathComponent("images") }))
        }
    }

    /// Brings the backup in `folder` back into the database and data folder `config` names,
    /// with the server stopped. Refuses a database that holds accounts unless `replace`. The
    /// server migrates a backup from an earlier version when it starts. `say` gets what the
    /// operator still has to do (pictures that belong in a bucket).
    @discardableResult
    public static func restore(from folder: String, config: AppConfig, replace: Bool, say: @Sendable (String) -> Void = { _ in }) async throws -> BackupManifest {
        let manifest = try await WholeBackup.restore(product: product, from: folder, into: config.database, occupiedBy: "users", replace: replace)
        let images = (folder as NSString).appendingPathComponent("images")
        if FileManager.default.fileExists(atPath: images) {
            let copied = try BackupFolders.copyFiles(from: images, to: imagesFolder(config))
            say("Restored the database and \(copied) stored files into \(imagesFolder(config)).")
            if config.objectStorage != nil {
                say("STORAGE_URL is set: copy the files into its bucket with `stitchuation storage to-bucket` before starting the server.")
            }
        } else if let listed = manifest.bucketObjects {
            say("Restored the database. Its \(listed) stored files were in a bucket: bucket-objects.tsv lists them; copy them into STORAGE_URL's bucket with the bucket's own tools (or `stitchuation storage to-folder` from the old bucket).")
        }
        return manifest
    }

    static func imagesFolder(_ config: AppConfig) -> String {
        (config.dataDirectory as NSString).appendingPathComponent("images")
    }
}

/// `stitchuation backup --to PATH`: a backup of the running server (run beside it, with the same
/// environment: DATA_DIR or DATABASE_URL, STORAGE_URL).
struct BackupCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "to", help: "A new or empty folder for the backup (default: BACKUP_DIR/stitchuation-<time>)")
        var to: String?
    }

    var help: String { "Takes a consistent backup of the whole server while it runs (database, stored files)" }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let folder: String
        if let to = signature.to, !to.isEmpty {
            folder = to
        } else if let directory = app.config.backups?.directory {
            folder = (directory as NSString).appendingPathComponent(BackupFolders.name(product: ServerBackup.product, at: Date()))
        } else {
            throw BackupError("Say where: backup --to PATH (or set BACKUP_DIR)")
        }
        // Files an earlier backup beside it holds are linked, not copied again.
        let previous = BackupFolders.newest((folder as NSString).deletingLastPathComponent, product: ServerBackup.product)
        let manifest = try await ServerBackup.take(app, to: folder, previous: previous)
        let files = manifest.bucketObjects.map { "\($0) bucket objects listed in bucket-objects.tsv" } ?? "\(manifest.files) stored files"
        context.console.print("Backup of Stitchuation \(manifest.version) (\(manifest.database), \(files)) in \(folder)")
    }
}

/// `stitchuation restore PATH [--replace]`, run with the server stopped; its environment names
/// where to restore to (DATA_DIR, or DATABASE_URL for PostgreSQL).
public enum RestoreCommand {
    public static let usage = "stitchuation restore PATH [--replace]: brings a backup back into DATA_DIR (or DATABASE_URL) with the server stopped"

    /// Parses `restore PATH [--replace]` and runs it.
    public static func run(arguments: [String], config: AppConfig, say: @Sendable (String) -> Void) async throws {
        let replace = arguments.contains("--replace")
        let rest = arguments.filter { $0 != "--replace" }
        if let unknown = rest.first(where: { $0.hasPrefix("-") }) { throw BackupError("\(unknown) is not an option of restore. \(usage)") }
        guard rest.count == 1, let folder = rest.first else { throw BackupError(usage) }
        let manifest = try await ServerBackup.restore(from: folder, config: config, replace: replace, say: say)
        say("Restored the backup of \(manifest.began.formatted(.iso8601)) (Stitchuation \(manifest.version), commit \(manifest.commit)). Start the server: it migrates the data to this version (\(StitchVersion.current)) first.")
    }
}
