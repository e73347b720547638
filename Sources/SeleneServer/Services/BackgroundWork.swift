import Foundation
import Logging
import NIOConcurrencyHelpers
import SeleneShared
import Vapor

/// What `selene serve` runs besides answering requests: the processing worker, the thread
/// maintenance pass (unthreaded notes placed, momentum and status refreshed) and the daily
/// briefing. Each stops at shutdown; none runs in tests unless a test starts it.
public struct BackgroundWork: LifecycleHandler {
    /// Thread maintenance this often.
    let maintenanceInterval: TimeInterval
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])

    public init(maintenanceInterval: TimeInterval = 600) { self.maintenanceInterval = maintenanceInterval }

    public func didBootAsync(_ app: Application) async throws {
        let services = app.selene
        let logger = app.logger
        var started: [Task<Void, Never>] = []
        logger.notice("\(services.pushStatus)")
        if services.config.processing.enabled, services.llm != nil {
            let queue = ProcessingQueue(db: app.writeDB, services: services, owner: Self.workerName(), logger: logger)
            started.append(Task { await Self.work(queue, services: services, logger: logger) })
        } else if services.llm == nil {
            logger.notice("No LLM configured: notes are kept and searchable by keyword, and wait in the queue as pending")
        }
        // Thread maintenance and the briefing run in one process of all those sharing the
        // database: each round goes to whoever takes its lease (`JobLease`).
        let owner = Self.workerName()
        let interval = maintenanceInterval
        started.append(Task {
            while !Task.isCancelled {
                do {
                    let now = services.clock.now()
                    if try await JobLease(db: app.writeDB).claim("thread-maintenance", owner: owner, now: now, until: now.addingTimeInterval(interval * 0.9)) {
                        let threads = ThreadService(db: app.writeDB, services: services, logger: logger)
                        _ = try await threads.placeUnthreaded()
                        try await threads.refresh(now: services.clock.now())
                        try await threads.rewriteSummaries()
                    }
                } catch {
                    logger.warning("Thread maintenance failed (retried next pass): \(error)")
                }
                try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            }
        })
        started.append(Task {
            let briefings = BriefingService(db: app.writeDB, services: services, logger: logger)
            while !Task.isCancelled, let next = briefings.nextRun(after: services.clock.now()) {
                let wait = max(1, next.timeIntervalSince(services.clock.now()))
                guard (try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))) != nil else { return }
                do {
                    if try await briefings.scheduled(owner: owner) {
                        logger.info("Morning briefing written")
                    } else {
                        logger.info("Morning briefing: another process is writing today's")
                    }
                } catch {
                    logger.error("The morning briefing could not be written: \(error)")
                }
            }
        })
        tasks.withLockedValue { $0 = started }
    }

    public func shutdownAsync(_ app: Application) async {
        let running = tasks.withLockedValue { t in defer { t = [] }; return t }
        for task in running { task.cancel() }
        app.selene.queueSignal.wake()
        for task in running { await task.value }
    }

    /// The processing loop: work while there is work, wait for a capture or the poll interval
    /// when there is none. When the model server can't serve, pause: probe its model list after
    /// `probeInterval`, doubling to `maxProbeInterval`, and resume on the first good answer.
    /// Captures during a pause don't touch it (they are kept and wait their turn).
    static func work(_ queue: ProcessingQueue, services: SeleneServices, logger: Logger) async {
        let settings = services.config.processing
        while !Task.isCancelled {
            do {
                _ = try await queue.reclaimOrphans(now: services.clock.now())
                let summary = try await queue.runOnce(limit: 100)
                if let outage = summary.outage {
                    await pause(reason: outage, services: services, logger: logger)
                    continue
                }
                if summary.claimed == 0 { await services.queueSignal.wait(timeout: settings.pollInterval) }
            } catch {
                logger.error("The processing queue could not be read: \(error)")
                await services.queueSignal.wait(timeout: settings.pollInterval)
            }
        }
    }

    /// Waits until the model server answers its health probe (or the task is cancelled).
    static func pause(reason: String, services: SeleneServices, logger: Logger) async {
        let settings = services.config.processing
        guard let llm = services.llm else { return }
        let since = services.clock.now()
        var interval = settings.probeInterval
        var why = reason
        logger.warning("Processing paused: \(why). Checking the model server again in \(Int(interval)) s")
        while !Task.isCancelled {
            services.pause.set(ProcessingPause(since: since, reason: why, nextCheckAt: Date().addingTimeInterval(interval)))
            guard (try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))) != nil else { break }
            let health = await llm.health()
            if health.available {
                logger.notice("The model server answers again: processing resumes (paused \(Int(services.clock.now().timeIntervalSince(since))) s)")
                break
            }
            why = health.reason ?? why
            interval = min(interval * 2, settings.maxProbeInterval)
        }
        services.pause.set(nil)
    }

    static func workerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
    }
}
