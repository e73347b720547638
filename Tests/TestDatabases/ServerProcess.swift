import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A built server (`stitchuation serve`, `selene serve`) as a child process of a test on a fixed
/// loopback port (so its clients keep their address across restarts), its log in a file: started,
/// SIGKILLed (a crash or a power cut), stopped gracefully, started again on the same data. The fault
/// suites of both products run their servers through it.
public final class ServerProcess: @unchecked Sendable {
    public let binary: String
    public let arguments: [String]
    public let port: Int
    public let logPath: String
    /// The process's environment besides the test's own (`unset` names what it must not inherit).
    public var environment: [String: String]
    public let unset: [String]
    private let lock = NSLock()
    private var process: Process?
    /// Set by `kill()`, cleared by the next `start()`.
    public private(set) var wasKilled = false

    public var base: String { "http://127.0.0.1:\(port)" }

    /// A session with no cache for the health checks.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        return URLSession(configuration: configuration)
    }()
    /// The running server's process id.
    public var pid: Int32? { lock.withLock { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } } }

    public init(binary: String, arguments: [String], port: Int, environment: [String: String], unset: [String] = [], logPath: String) {
        self.binary = binary
        self.arguments = arguments
        self.port = port
        self.environment = environment
        self.unset = unset
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
    }

    /// Starts it and waits until `health` answers 200 (at most `seconds`).
    public func start(health: String = "/health", seconds: Int = 60) async throws {
        let process = try launch(arguments)
        lock.withLock {
            wasKilled = false
            self.process = process
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw TestDatabaseError("\(binary) exited on start:\n\(logTail())") }
            // Never from a cache: a restart on the same port would be "up" on the last process's answer.
            var request = URLRequest(url: URL(string: base + health)!, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: 10)
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            if let (_, response) = try? await Self.session.data(for: request), (response as? HTTPURLResponse)?.statusCode == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestDatabaseError("\(binary) did not come up in \(seconds) s:\n\(logTail())")
    }

    /// The binary run with `arguments` (the server, or a one-off command such as `selene import`)
    /// in the server's environment, its output added to the log.
    public func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !unset.contains($0.key) }
        env.merge(environment) { _, set in set }
        process.environment = env
        let log = FileHandle(forWritingAtPath: logPath)
        log?.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// SIGKILL: no chance to finish anything (`waitUntilDead()` waits until it is gone).
    public func kill() {
        guard let process = lock.withLock({ process }), process.isRunning else { return }
        lock.withLock { wasKilled = true }
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    public func waitUntilDead() async throws {
        guard let process = lock.withLock({ process }) else { return }
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// SIGTERM, wait for a clean exit, start again.
    public func restartGracefully() async throws {
        stop()
        try await start()
    }

    /// SIGTERM and wait for the exit (SIGKILL after 30 s).
    public func stop() {
        guard let process = lock.withLock({ process }), process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public func logTail(_ characters: Int = 4000) -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(characters))
    }
}
