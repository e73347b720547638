import Foundation
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers
import Vapor

/// Where pictures are decoded and PDF tools (pdfinfo, pdftoppm, pdftotext) run: a thread pool of
/// their own, never the one that carries SQLite's calls, so a few heavy PDFs can't stall everyone
/// else's queries. At most `perAccount` jobs of one account run or wait at once: a person's next
/// one is answered 429 with Retry-After while theirs are busy (work in the background — drawing a
/// pattern's pages — waits instead). Child processes run under `prlimit` (address space and CPU
/// seconds) where it is installed.
final class ToolWork: Sendable {
    let pool: NIOThreadPool
    let perAccount: Int
    let slots: Int
    private let state = NIOLockedValueBox(State())

    struct State {
        var byAccount: [UUID: Int] = [:]
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    init(threads: Int, perAccount: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.perAccount = max(1, perAccount)
        slots = max(1, threads)
    }

    /// How long a refused person is told to wait.
    static let retryAfter = 5

    /// Runs blocking tool work for `account` on the tools' pool. `background` work waits for its
    /// turn; a request over its account's share is refused with 429.
    func run<T: Sendable>(for account: UUID?, background: Bool = false, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        if let account {
            let admitted = state.withLockedValue { state -> Bool in
                let mine = state.byAccount[account, default: 0]
                if mine >= perAccount && !background { return false }
                state.byAccount[account] = mine + 1
                return true
            }
            guard admitted else {
                throw APIError(.tooManyRequests, "Your pictures and patterns are still being read; try again in a few seconds",
                               headers: ["Retry-After": "\(Self.retryAfter)"])
            }
        }
        defer {
            if let account {
                state.withLockedValue { state in
                    let left = state.byAccount[account, default: 1] - 1
                    state.byAccount[account] = left > 0 ? left : nil
                }
            }
        }
        await acquire()
        defer { release() }
        return try await pool.runIfActive(body)
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state -> Bool in
                if state.running < slots { state.running += 1; return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty { state.running -= 1; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Jobs of `account` running or waiting now.
    func load(of account: UUID) -> Int { state.withLockedValue { $0.byAccount[account, default: 0] } }

    func shutdown() async { try? await pool.shutdownGracefully() }
}

extension Application {
    struct ToolWorkKey: StorageKey { typealias Value = ToolWork }

    /// The tools' pool (made with the application, `AppConfig.toolThreads`).
    var tools: ToolWork {
        guard let tools = storage[ToolWorkKey.self] else { fatalError("configure(_:) makes the tools' pool") }
        return tools
    }
}

struct ToolWorkShutdown: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        await application.storage[Application.ToolWorkKey.self]?.shutdown()
    }
}

/// The limits a child process runs under: address space and CPU seconds (`prlimit` from
/// util-linux; the tool runs without them where it is missing).
enum ChildLimits {
    static let addressSpace = 2 * 1024 * 1024 * 1024
    static let prlimit: String? = ["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// `executable arguments` wrapped in prlimit, CPU seconds a little over the wall-clock timeout.
    static func wrap(_ executable: String, _ arguments: [String], timeout: TimeInterval) -> (String, [String]) {
        guard let prlimit else { return (executable, arguments) }
        return (prlimit, ["--as=\(addressSpace)", "--cpu=\(Int(timeout) + 5)", "--", executable] + arguments)
    }
}
