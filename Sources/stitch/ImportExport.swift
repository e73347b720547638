import ArgumentParser
import Foundation
import StitchCore
import StitchKit

extension DuplicateRule: ExpressibleByArgument {}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import threads or canvases from a CSV file, or restore a whole-account backup.",
        subcommands: [ImportThreads.self, ImportCanvases.self, ImportBackup.self])

    /// What the CSV commands share.
    struct CSVOptions: ParsableArguments {
        @Argument(help: "A CSV file with a header line: comma, semicolon or tab separated, UTF-8 (with or without a byte-order mark) or Windows-1252.")
        var file: String
        @Flag(help: "Show what would be added, merged and skipped, and write nothing.") var dryRun = false
        @Option(help: "When a row matches one you have: add (the quantities, and fill in empty fields), replace (with the file's values) or skip.")
        var onDuplicate: DuplicateRule = .add
        @Flag(name: .shortAndLong, help: "Don't ask before importing a file without quantities.") var yes = false

        func read() throws -> Data {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("Can't read \(file)", code: .notFound) }
            return data
        }

        /// Reads, reports, plans and (unless a dry run) saves and syncs.
        func run<R: LocalRecord & Importable>(_ type: R.Type, noun: String, read: (Data, Date) throws(StitchCore.ValidationError) -> ImportFile<R>) async throws {
            let ctx = try Context.open()
            let now = ctx.store.clock()
            let file = try read(try self.read(), now)
            for line in file.report.lines { print(line) }
            let plan = ImportPlan.make(file.rows, existing: try ctx.store.all(R.self), rule: onDuplicate, now: now)
            if dryRun {
                print(plan.summary(done: false, noun: noun) + " (dry run: nothing was saved)")
                for line in plan.lines { print(line) }
            } else {
                if file.report.quantitiesMissing && !plan.writes.isEmpty && !yes {
                    guard Terminal.confirm("Every \(noun.dropLast()) would have 0 in stock. Import anyway? [y/N] ") else {
                        throw CLIError("Nothing imported: the file gives no quantities (pass --yes to import it anyway)", code: .invalid)
                    }
                }
                try ctx.store.saveImported(plan.writes) { Terminal.progress($0, of: plan.writes.count, label: "Importing") }
                print(plan.summary(done: true, noun: noun))
                for line in plan.lines where !line.hasPrefix("  +") { print(line) }
                if !plan.writes.isEmpty { print(await ctx.syncSoon()) }
            }
            if !file.report.problems.isEmpty { throw ExitCode(ExitCode32.invalid.rawValue) }
        }
    }

    struct ImportThreads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "threads",
            abstract: "Import threads from a spreadsheet or another stash app's CSV export.",
            discussion: "Columns are found by their header, in the usual spellings: brand (manufacturer, make), number (no., code, #), colour name (color, name, shade), hex (rgb), fiber (fibre, type), quantity (qty, skeins, count, on hand), barcode (upc, ean), weight/length, notes. Columns it doesn't use, and values it can't read, are named with their line and column.")
        @OptionGroup var options: CSVOptions
        func run() async throws {
            try await Stitch.run { try await options.run(InventoryThread.self, noun: "threads", read: ThreadCSV.read) }
        }
    }

    struct ImportCanvases: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "canvases",
            abstract: "Import canvases from a CSV file (designer, design name, acquired date, size, mesh count, notes).")
        @OptionGroup var options: CSVOptions
        func run() async throws {
            try await Stitch.run { try await options.run(Canvas.self, noun: "canvases", read: CanvasCSV.read) }
        }
    }

    struct ImportBackup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Restore a whole-account JSON backup (stitch export --format json) into the signed-in account.",
            discussion: "Pictures go up first, then every record through the server's usual rules: what isn't in the account is added, older copies are brought back, and anything changed since the backup was made stays as it is now. Ids another account on the server uses are replaced. Works into an empty or an existing account.")
        @Argument(help: "The backup file") var file: String

        /// Pictures per request, by size: a request stays well under the server's limit.
        static let batchBytes = 24 * 1024 * 1024

        func run() async throws {
            try await Stitch.run { try await restore() }
        }

        func restore() async throws {
            let ctx = try Context.open()
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("Can't read \(file)", code: .notFound) }
            var document: BackupDocument
            do {
                document = try BackupDocument(json: data)
            } catch {
                throw CLIError("\(file) is not a Stitchuation backup: \(error.description)", code: .invalid)
            }
            guard ctx.signedIn else { throw CLIError("Sign in first (stitch login): a backup is restored into your account on the server", code: .signedOut) }

            var summary = RestoreSummary()
            var batch: [AccountBackup.Picture] = []
            var batchSize = 0
            var sent = 0
            func sendBatch() async throws {
                guard !batch.isEmpty else { return }
                let part = try await ctx.api.restore(document.json(pictures: batch, records: false))
                summary.pictureKeys.merge(part.pictureKeys) { a, _ in a }
                summary.pictures.stored += part.pictures.stored
                summary.pictures.alreadyHere += part.pictures.alreadyHere
                summary.issues += part.issues
                sent += batch.count
                Terminal.progress(sent, of: document.pictures.count, label: "Pictures")
                batch = []
                batchSize = 0
            }
            for picture in document.pictures {
                if batchSize + picture.data.utf8.count > Self.batchBytes { try await sendBatch() }
                batch.append(picture)
                batchSize += picture.data.utf8.count
            }
            try await sendBatch()

            document.replaceImageKeys(summary.pictureKeys)
            if Terminal.isInteractive { FileHandle.standardError.write(Data("Restoring \(document.recordCount) record(s)…\n".utf8)) }
            let result = try await ctx.api.restore(document.json(pictures: [], records: true))
            summary.records = result.records
            summary.renumbered = result.renumbered
            summary.pictures.missing = result.pictures.missing
            summary.issues += result.issues
            print("Restored \(file):")
            for line in summary.lines { print(line.hasPrefix("  ") ? line : "  " + line) }
            // Bring this device up to date with what the server now holds.
            print(await ctx.syncSoon())
            if !summary.issues.isEmpty { throw ExitCode(ExitCode32.invalid.rawValue) }
        }
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the whole account (JSON, with its pictures) or threads and canvases (CSV).",
        discussion: "The JSON file is a complete backup: every record and every picture (base64), so `stitch import backup` or Settings → Restore brings it all back on any server.")
    enum Format: String, ExpressibleByArgument { case json, csv }
    @Option var format: Format = .json
    @Option(help: "A folder to write into (default: print JSON to stdout)") var out: String?
    @Flag(help: "Leave the pictures out of the JSON (they are fetched from the server otherwise).") var withoutPictures = false

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            switch format {
            case .json:
                let backup: AccountBackup
                if withoutPictures {
                    backup = try AccountBackup.make(from: ctx.store)
                } else {
                    let total = try AccountBackup.make(from: ctx.store).imageKeys.count
                    var fetched = 0
                    backup = try await AccountBackup.make(from: ctx.store) { key in
                        guard ctx.signedIn else { throw CLIError("The pictures are on the server: sign in (stitch login) or pass --without-pictures", code: .signedOut) }
                        let picture = try await ctx.api.downloadImage(key)
                        fetched += 1
                        Terminal.progress(fetched, of: total, label: "Pictures")
                        return picture
                    }
                }
                let data = try StitchJSON.encodePretty(backup)
                if let out {
                    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                    try data.write(to: URL(fileURLWithPath: out + "/stitchuation-export.json"))
                    print("Wrote \(out)/stitchuation-export.json (\(backup.recordCount) records, \(backup.pictures.count) pictures\(withoutPictures ? " left out" : ""))")
                } else {
                    FileHandle.standardOutput.write(data)
                }
            case .csv:
                let backup = try AccountBackup.make(from: ctx.store)
                let dir = out ?? "."
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try ThreadCSV.write(backup.threads).write(to: URL(fileURLWithPath: dir + "/threads.csv"))
                try CanvasCSV.write(backup.canvases).write(to: URL(fileURLWithPath: dir + "/canvases.csv"))
                print("Wrote \(dir)/threads.csv (\(backup.threads.count)) and \(dir)/canvases.csv (\(backup.canvases.count))")
            }
        }
    }
}
