import Foundation
import SeleneShared
import Vapor

/// The administrative commands of `selene`, on a configured application.
public enum SeleneAdmin {
    public static func importFolder(_ app: Application, directory: String,
                                    progress: (Int, Int, String) -> Void) async throws -> NoteImporter.Report {
        let services = app.selene
        let report = try await NoteImporter(db: app.db, now: { services.clock.now() }).run(directory: directory, progress: progress)
        return report
    }

    public static func exportObsidian(_ app: Application, noteId: Int?) async throws -> ExportResult {
        guard let vault = app.selene.config.obsidianVault else {
            throw SeleneConfigError("Set SELENE_OBSIDIAN_VAULT to the vault's folder first")
        }
        let exporter = ObsidianExporter(db: app.db, vault: vault)
        if let noteId {
            guard let result = try await exporter.export(noteId: noteId) else { throw SeleneConfigError("There is no note \(noteId)") }
            return result
        }
        return try await exporter.exportAll()
    }

    public static func reindex(_ app: Application, all: Bool, progress: (Int, Int) -> Void) async throws -> Reindexer.Report {
        try await Reindexer(db: app.db, services: app.selene, logger: app.logger).run(all: all, progress: progress)
    }

    public static func reprocess(_ app: Application, all: Bool, progress: (Int, Int) -> Void) async throws -> Reanalyser.Report {
        try await Reanalyser(db: app.db, services: app.selene, logger: app.logger).run(all: all, progress: progress)
    }

    public static func processingCounts(_ app: Application) async throws -> [String: Int] {
        try await ProcessingQueue.status(on: app.db)
    }
}
