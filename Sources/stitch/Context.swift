import Foundation
import StitchCore
import StitchKit
import TerminalExchange
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes scripts can rely on.
enum ExitCode32: Int32 {
    case ok = 0
    case failure = 1
    case usage = 2
    case invalid = 3
    case offline = 4
    case signedOut = 5
    case notFound = 6
    /// It is there already (a thread of the same brand and number).
    case conflict = 7
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    var code: ExitCode32
    init(_ description: String, code: ExitCode32 = .failure) {
        self.description = description
        self.code = code
    }
}

/// Where the CLI keeps its data: `$STITCH_HOME`, else the platform's per-user application-data folder.
enum Paths {
    static var home: String {
        let env = ProcessInfo.processInfo.environment
        if let home = env["STITCH_HOME"], !home.isEmpty { return home }
        #if os(macOS)
        return NSHomeDirectory() + "/Library/Application Support/Stitchuation"
        #else
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.local/share"
        return base + "/stitchuation"
        #endif
    }
}

/// The open local store, session and sync engine for one command.
struct Context {
    let store: LocalStore
    let tokens: FileTokenStore
    let api: APIClient
    let engine: SyncEngine

    static func open(server: String? = nil) throws -> Context {
        let home = Paths.home
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try LocalStore(path: home + "/stitch.sqlite")
        let tokens = FileTokenStore(path: home + "/session.json")
        let savedServer = try? tokens.load()?.server
        let api = APIClient(tokens: tokens, server: server ?? savedServer ?? (try? store.setting("server")).flatMap { $0 }, timeout: requestTimeout, exchange: TerminalHTTP.exchange)
        return Context(store: store, tokens: tokens, api: api, engine: SyncEngine(store: store, api: api))
    }

    /// Seconds a request may take before the server counts as unreachable: 15, or `STITCH_TIMEOUT`
    /// (1–600) on a slow link or a busy server.
    static var requestTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["STITCH_TIMEOUT"].flatMap(TimeInterval.init).map { min(600, max(1, $0)) } ?? 15
    }

    var signedIn: Bool { (try? tokens.load()) != nil }

    /// After a local change: try to sync once, quietly. Offline (or signed out) is fine: the
    /// change is kept and pushed by the next `stitch sync`.
    func syncSoon(quiet: Bool = false) async -> String {
        guard signedIn, ProcessInfo.processInfo.environment["STITCH_OFFLINE"] == nil else {
            return "Saved on this device (\((try? store.pendingCount()) ?? 0) change(s) waiting to sync)."
        }
        do {
            try await engine.sync()
            return "Saved and synced."
        } catch let error as ClientError {
            return "Saved on this device; not synced: \(error.description)"
        } catch {
            return "Saved on this device; not synced: \(error)"
        }
    }
}

enum Terminal {
    static var isInteractive: Bool { isatty(STDERR_FILENO) != 0 }

    /// A new password, typed twice, or STITCH_NEW_PASSWORD for scripts.
    static func newPassword() throws -> String {
        if let given = ProcessInfo.processInfo.environment["STITCH_NEW_PASSWORD"] { return given }
        let new = try password(prompt: "New password (at least \(Limits.passwordMinCharacters) characters): ", fromEnvironment: false)
        guard try password(prompt: "New password again: ", fromEnvironment: false) == new else {
            throw CLIError("The two new passwords are not the same; nothing changed", code: .invalid)
        }
        return new
    }

    /// Reads a password without echo, or from STITCH_PASSWORD for scripts.
    static func password(prompt: String, fromEnvironment: Bool = true) throws -> String {
        if fromEnvironment, let env = ProcessInfo.processInfo.environment["STITCH_PASSWORD"] { return env }
        guard isatty(STDIN_FILENO) != 0 else {
            guard let line = readLine() else { throw CLIError("No password given (set STITCH_PASSWORD)", code: .usage) }
            return line
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var old = termios()
        tcgetattr(STDIN_FILENO, &old)
        var silent = old
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &old)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine() ?? ""
    }

    /// A yes/no question on the terminal; without one (a script), no.
    static func confirm(_ question: String) -> Bool {
        guard isatty(STDIN_FILENO) != 0 else { return false }
        FileHandle.standardError.write(Data(question.utf8))
        return ["y", "yes"].contains(readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
    }

    static func progress(_ done: Int, of total: Int, label: String) {
        guard isInteractive, total > 0 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(done)/\(total)".utf8))
        if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Plain-text tables for people; `--json` gives scripts the records.
enum Output {
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([line(headers), line(widths.map { String(repeating: "─", count: $0) })] + rows.map(line)).joined(separator: "\n")
    }

    /// Ids lower-case, as on the wire.
    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try StitchJSON.encodePretty(value).dropLast(), as: UTF8.self)
    }

    static func short(_ id: UUID) -> String { String(id.wireText.prefix(8)) }
}
