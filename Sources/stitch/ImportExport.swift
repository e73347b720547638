import ArgumentParser
import Foundation
import StitchCore
import StitchKit

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Import data.", subcommands: [ImportThreads.self])

    struct ImportThreads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "threads", abstract: "Import threads from a CSV file with a header line.")
        @Argument(help: "CSV with columns brand,number[,colorName,colorHex,fiberType,quantity,barcode,weightOrLength,notes]") var file: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("Can't read \(file)", code: .notFound) }
                let (threads, bad) = try ThreadCSV.read(String(decoding: data, as: UTF8.self), now: ctx.store.clock())
                try ctx.store.importThreads(threads) { Terminal.progress($0, of: threads.count, label: "Importing") }
                print("Imported \(threads.count) thread(s).")
                if !bad.isEmpty {
                    print("Skipped \(bad.count) row(s) that need fixing:")
                    for row in bad { print("  line \(row.line): \(row.message)") }
                }
                print(await ctx.syncSoon())
                if !bad.isEmpty { throw ExitCode(ExitCode32.invalid.rawValue) }
            }
        }
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Export the whole account (JSON) or threads and canvases (CSV).")
    enum Format: String, ExpressibleByArgument { case json, csv }
    @Option var format: Format = .json
    @Option(help: "A folder to write into (default: print JSON to stdout)") var out: String?

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            let export = try AccountExport.make(from: ctx.store)
            switch format {
            case .json:
                let encoder = StitchJSON.makeEncoder()
                encoder.outputFormatting.insert(.prettyPrinted)
                let data = try encoder.encode(export)
                if let out {
                    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                    try data.write(to: URL(fileURLWithPath: out + "/stitchuation-export.json"))
                    print("Wrote \(out)/stitchuation-export.json")
                } else {
                    print(String(decoding: data, as: UTF8.self))
                }
            case .csv:
                let dir = out ?? "."
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try Data(ThreadCSV.write(export.threads).utf8).write(to: URL(fileURLWithPath: dir + "/threads.csv"))
                try Data(CanvasCSV.write(export.canvases).utf8).write(to: URL(fileURLWithPath: dir + "/canvases.csv"))
                print("Wrote \(dir)/threads.csv (\(export.threads.count)) and \(dir)/canvases.csv (\(export.canvases.count))")
            }
        }
    }
}
