import Foundation
import SeleneShared
import TestDatabases
import Testing

/// The real `selene` binary, as a person runs it.
@Suite("The selene executable")
struct ExecutableTests {
    static func binary() throws -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("selene").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug/selene").path,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestDatabaseError("build the selene executable first (swift build)")
        }
        return found
    }

    struct Run { var status: Int32; var out: String; var err: String }

    static func run(_ arguments: [String], env: [String: String], timeout: TimeInterval = 60) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try binary())
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SELENE_") && $0.key != "HOST" && $0.key != "PORT" }
        for (k, v) in env { environment[k] = v }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    func tempDir() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("selene-exe-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("Without a token it refuses to listen beyond loopback and says why")
    func refusesOpenNetwork() throws {
        let data = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data) }
        for args in [["serve", "--hostname", "0.0.0.0", "--port", "0"], ["serve"]] {
            let env = args.count == 1 ? ["SELENE_DATA_DIR": data, "HOST": "192.168.1.5", "PORT": "0"] : ["SELENE_DATA_DIR": data]
            let run = try Self.run(args, env: env)
            #expect(run.status != 0)
            #expect(run.err.contains("Refusing to listen") && run.err.contains("SELENE_API_TOKEN"), "\(run.err)")
        }
        let short = try Self.run(["serve"], env: ["SELENE_DATA_DIR": data, "SELENE_API_TOKEN": "too-short"])
        #expect(short.status != 0 && short.err.contains("at least 32"))
    }

    @Test("selene token new prints a usable token")
    func tokenNew() throws {
        let run = try Self.run(["token", "new"], env: [:])
        let token = run.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.status == 0 && token.count >= 32 && !token.contains(" "))
    }

    @Test("selene import: a summary of what was imported and what was skipped and why; exit 3 when something was")
    func importCommand() throws {
        let data = try tempDir(), folder = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: folder) }
        try Data("# One\nfirst".utf8).write(to: URL(fileURLWithPath: folder + "/one.md"))
        try Data("second".utf8).write(to: URL(fileURLWithPath: folder + "/two.txt"))
        try Data([0xC3, 0x28]).write(to: URL(fileURLWithPath: folder + "/bad.md"))
        let env = ["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": "off", "LOG_LEVEL": "error"]
        let run = try Self.run(["import", folder], env: env)
        #expect(run.status == 3, "\(run.out)\(run.err)")
        #expect(run.out.contains("Imported 2 notes; 0 already there."), "\(run.out)")
        #expect(run.out.contains("bad.md: is not UTF-8 text"), "\(run.out)")
        #expect(run.err.contains("Importing: 3/3"), "\(run.err)")
        try FileManager.default.removeItem(atPath: folder + "/bad.md")
        let again = try Self.run(["import", folder], env: env)
        #expect(again.status == 0 && again.out.contains("Imported 0 notes; 2 already there."), "\(again.out)")
        let missing = try Self.run(["import", folder + "/nope"], env: env)
        #expect(missing.status != 0 && missing.err.contains("is not a folder"))
    }
}
