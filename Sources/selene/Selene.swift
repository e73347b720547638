import ArgumentParser
import BuildStamp
import Foundation
import Logging
import SeleneServer
import SeleneShared
import ServerCommon
import Vapor

@main
struct Selene: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selene",
        abstract: "Selene, a second brain on your own machine: the server, its admin commands, and a terminal client.",
        version: BuildStamp.describe(SeleneVersion.current),
        subcommands: [
            Serve.self, Migrate.self, Import.self, ExportObsidian.self, Reindex.self, Reprocess.self, TokenCommand.self, Backup.self, Restore.self,
        ] + ClientCommands.all,
        defaultSubcommand: Serve.self)
}

/// Options every server-side command shares.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: "Log level (trace, debug, info, notice, warning, error, critical); LOG_LEVEL also works.")
    var logLevel: String?
}

/// Processes sharing one PostgreSQL database migrate one at a time under this advisory lock ("SELENE").
let seleneMigrationLock: Int64 = 0x5345_4C45_4E45

/// Runs `body` on a configured application (migrated unless told not to), then shuts it down.
/// Failures print one clear line and exit 1.
func withApplication(_ options: ServerOptions, migrate: Bool = true, _ body: (Application) async throws -> Void) async throws {
    var env = Environment(name: ProcessInfo.processInfo.environment["SELENE_ENV"] ?? "production", arguments: ["selene"])
    bootstrapLogging(options, env: &env)
    let app = try await Application.make(env)
    do {
        let config = try SeleneConfig.fromEnvironment()
        try await configure(app, config: config)
        if migrate { try await app.migrateOneAtATime(lockKey: seleneMigrationLock) }
        try await body(app)
    } catch {
        app.logger.critical("\(error)")
        try? await app.asyncShutdown()
        throw ExitCode.failure
    }
    try await app.asyncShutdown()
}

private let loggingBootstrapped = NSLock()
nonisolated(unsafe) private var didBootstrapLogging = false

func bootstrapLogging(_ options: ServerOptions, env: inout Environment) {
    loggingBootstrapped.withLock {
        guard !didBootstrapLogging else { return }
        didBootstrapLogging = true
        let level = Logger.Level(rawValue: (options.logLevel ?? ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info").lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default).")

    @OptionGroup var options: ServerOptions
    @Option(name: [.customLong("hostname"), .customShort("H")], help: "Address to listen on (HOST; default 127.0.0.1).")
    var hostname: String?
    @Option(name: [.customLong("port"), .customShort("p")], help: "Port (PORT; default 5678).")
    var port: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let host = hostname ?? environment["HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        let port = self.port ?? environment["PORT"].flatMap(Int.init) ?? 5678
        var config: SeleneConfig
        let tokenCreated: Bool
        do {
            config = try SeleneConfig.fromEnvironment()
            tokenCreated = try config.loadTokenFile()
            try ListenGuard.check(host: host, config: config)
        } catch {
            FileHandle.standardError.write(Data("selene: \(error)\n".utf8))
            throw ExitCode.failure
        }
        var env = Environment(name: environment["SELENE_ENV"] ?? "production", arguments: ["selene", "serve"])
        bootstrapLogging(options, env: &env)
        let app = try await Application.make(env)
        do {
            try await configure(app, config: config)
            if environment["SELENE_AUTO_MIGRATE"]?.lowercased() != "false" { try await app.migrateOneAtATime(lockKey: seleneMigrationLock) }
            app.lifecycle.use(BackgroundWork())
            if let backups = config.backups {
                app.lifecycle.use(BackupSchedule(settings: backups, product: SeleneBackup.product) { app, folder, _ in
                    try await SeleneBackup.take(app, to: folder)
                })
            }
            app.http.server.configuration.hostname = host
            app.http.server.configuration.port = port
            app.logger.notice("Selene listening on http://\(host):\(port) (\(config.apiTokens.isEmpty ? "no API token: loopback only" : "API token required"))")
            if let banner = config.tokenBanner(created: tokenCreated, base: Self.browserBase(host: host, port: port)) {
                // Standard error, not the log: the first start's sign-in link is for the person who started it.
                FileHandle.standardError.write(Data((banner + "\n").utf8))
            }
            try await app.execute()
        } catch {
            app.logger.critical("\(error)")
            try? await app.asyncShutdown()
            throw ExitCode.failure
        }
        try await app.asyncShutdown()
    }

    /// The address a browser on this machine opens (a wildcard listener is reached on loopback).
    static func browserBase(host: String, port: Int) -> String {
        let name = ["0.0.0.0", "::", "[::]"].contains(host) ? "127.0.0.1" : host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "http://\(name):\(port)"
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run pending database migrations and stop.")
    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await withApplication(options) { app in
            app.logger.notice("Migrations are up to date")
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a folder of Markdown or text files (an Obsidian vault, a Drafts export) as notes.")
    @OptionGroup var options: ServerOptions
    @Argument(help: "The folder to import.") var directory: String

    func run() async throws {
        var failed = false
        try await withApplication(options) { app in
            let bar = ProgressBar(title: "Importing")
            let report = try await SeleneAdmin.importFolder(app, directory: directory) { done, total, path in bar.update(done, total, path) }
            bar.finish()
            print("Imported \(report.imported) note\(report.imported == 1 ? "" : "s"); \(report.alreadyThere) already there.")
            if !report.skipped.isEmpty {
                print("Skipped \(report.skipped.count) file\(report.skipped.count == 1 ? "" : "s"):")
                for skip in report.skipped { print("  \(skip.path): \(skip.reason)") }
                failed = true
            }
            if !report.otherFiles.isEmpty {
                let kinds = report.otherFiles.sorted { $0.key < $1.key }.map { "\($0.value) .\($0.key)" }.joined(separator: ", ")
                print("Not notes (left alone): \(kinds).")
            }
        }
        // Some files could not be imported: say so in the exit status too, for scripts.
        if failed { throw ExitCode(3) }
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take a consistent backup of the whole second brain while the server runs (database, token, Web Push key).")
    @OptionGroup var options: ServerOptions
    @Option(name: .long, help: "A new or empty folder for the backup (default: SELENE_BACKUP_DIR/selene-<time>).") var to: String?

    func run() async throws {
        try await withApplication(options, migrate: false) { app in
            let folder: String
            if let to, !to.isEmpty {
                folder = to
            } else if let directory = app.selene.config.backups?.directory {
                folder = (directory as NSString).appendingPathComponent(BackupFolders.name(product: SeleneBackup.product, at: Date()))
            } else {
                throw ValidationError("Say where: selene backup --to PATH (or set SELENE_BACKUP_DIR)")
            }
            let manifest = try await SeleneBackup.take(app, to: folder)
            print("Backup of Selene \(manifest.version) (\(manifest.database), \(manifest.files) data files) in \(folder)")
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup back, with the server stopped, into SELENE_DATA_DIR (or SELENE_DATABASE_URL).")
    @Argument(help: "The backup's folder.") var folder: String
    @Flag(name: .long, help: "Overwrite a second brain that already holds notes.") var replace = false

    func run() async throws {
        do {
            let config = try SeleneConfig.fromEnvironment()
            let manifest = try await SeleneBackup.restore(from: folder, config: config, replace: replace)
            print("Restored the backup of \(manifest.began.formatted(.iso8601)) (Selene \(manifest.version), commit \(manifest.commit)). Start the server: it migrates the data to this version (\(SeleneVersion.current)) first.")
        } catch {
            FileHandle.standardError.write(Data("selene: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

struct ExportObsidian: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-obsidian", abstract: "Write notes and threads into the Obsidian vault (SELENE_OBSIDIAN_VAULT).")
    @OptionGroup var options: ServerOptions
    @Option(name: .long, help: "Only this note.") var note: Int?

    func run() async throws {
        try await withApplication(options) { app in
            let result = try await SeleneAdmin.exportObsidian(app, noteId: note)
            print("Wrote \(result.notes) note\(result.notes == 1 ? "" : "s") and \(result.threads) thread\(result.threads == 1 ? "" : "s") into \(app.selene.config.obsidianVault ?? "the vault").")
        }
    }
}

struct Reindex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Embed every note again with the current embedding model (after SELENE_EMBED_MODEL changed).")
    @OptionGroup var options: ServerOptions
    @Flag(name: .long, help: "Re-embed every note, not only those embedded by another model.") var all = false

    func run() async throws {
        try await withApplication(options) { app in
            let bar = ProgressBar(title: "Embedding")
            let report = try await SeleneAdmin.reindex(app, all: all) { done, total in bar.update(done, total, "") }
            bar.finish()
            print("Embedded \(report.embedded) note\(report.embedded == 1 ? "" : "s"); rebuilt \(report.threads) thread centroid\(report.threads == 1 ? "" : "s").")
        }
    }
}

struct Reprocess: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Have the model read notes again with this version's analysis (after an upgrade that asks it for more: the people and places a note names).",
        discussion: """
            Each note's new reading replaces its old one, and what is searched beside its words is written again; its thread, \
            links, embedding and tasks stay as they are. Without --all: the notes read before people and places were asked for \
            (a note with no name in it is marked as naming nobody without asking the model). Safe beside a running server, and \
            stopped runs go on where they stopped.
            """)
    @OptionGroup var options: ServerOptions
    @Flag(name: .long, help: "Read every processed note again, not only those read before people and places were asked for.") var all = false

    func run() async throws {
        try await withApplication(options) { app in
            let bar = ProgressBar(title: "Reading")
            let report = try await SeleneAdmin.reprocess(app, all: all) { done, total in bar.update(done, total, "") }
            bar.finish()
            func notes(_ n: Int) -> String { "\(n) note\(n == 1 ? "" : "s")" }
            print("Read \(notes(report.read)) again; \(notes(report.nameless)) with no name in them marked as naming nobody (the model not asked).")
            if report.edited > 0 { print("\(notes(report.edited)) changed while being read: they keep the edit and are processed again from the queue.") }
            if report.deleted > 0 { print("\(notes(report.deleted)) deleted while being read: nothing was written for them.") }
            if !report.kept.isEmpty {
                print("\(notes(report.kept.count)) kept their earlier reading (the model's answer stayed invalid; run again to retry them):")
                for (id, reason) in report.kept { print("  note \(id): \(reason)") }
            }
        }
    }
}

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "API tokens.", subcommands: [New.self, Show.self])

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a fresh random token for SELENE_API_TOKEN.")
        func run() { print(APITokens.newToken()) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this server's API token (the one kept in the data folder, or SELENE_API_TOKEN's first) and the web app's sign-in link.")
        @Option(name: [.customLong("port"), .customShort("p")], help: "The port the link names (PORT; default 5678).") var port: Int?

        func run() throws {
            var config: SeleneConfig
            do {
                config = try SeleneConfig.fromEnvironment()
                try config.loadTokenFile()
            } catch {
                FileHandle.standardError.write(Data("selene: \(error)\n".utf8))
                throw ExitCode.failure
            }
            guard let token = config.apiTokens.first else {
                FileHandle.standardError.write(Data("selene: SELENE_API_TOKEN=off: this server has no token\n".utf8))
                throw ExitCode.failure
            }
            let port = self.port ?? ProcessInfo.processInfo.environment["PORT"].flatMap(Int.init) ?? 5678
            print(token)
            print("Web app sign-in: http://127.0.0.1:\(port)/app/signin?token=\(token)")
        }
    }
}

/// A progress bar on standard error when it is a terminal; a line every 10% otherwise.
final class ProgressBar {
    let title: String
    let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastDecile = -1

    init(title: String) { self.title = title }

    func update(_ done: Int, _ total: Int, _ item: String) {
        guard total > 0 else { return }
        let fraction = Double(done) / Double(total)
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let name = item.count > 40 ? "…" + item.suffix(39) : item
            let line = "\r\(title) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(done)/\(total) \(name)"
            FileHandle.standardError.write(Data((line.padding(toLength: max(line.count, 100), withPad: " ", startingAt: 0)).utf8))
        } else {
            let decile = Int(fraction * 10)
            if decile != lastDecile {
                lastDecile = decile
                FileHandle.standardError.write(Data("\(title): \(done)/\(total)\n".utf8))
            }
        }
    }

    func finish() { if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) } }
}
