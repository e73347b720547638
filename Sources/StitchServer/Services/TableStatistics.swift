import Fluent
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Fresh planner statistics after bulk writes (PostgreSQL). A pull page is a range scan of the
/// `(user_id, version, id)` index that stops after one page. Right after a bulk write (a device's
/// first upload of thousands of records) the table's statistics still describe the table as it
/// was, and the planner, expecting a handful of rows for that user, picks another index or reads
/// and sorts every remaining row of the user for each page: each page costs more the more is left
/// (measured: 8 ms instead of 1 ms for a page of 500 out of 10,000). Autovacuum analyzes the table
/// eventually, about a minute later, which is just when a second device signs in and pulls. A
/// push that wrote many rows to a table asks for `ANALYZE` of it at once, in the background (the
/// push doesn't wait); one runs per table at a time, and bulk writes during it make it run once
/// more when it ends. PostgreSQL's own advice after bulk loads; SQLite's planner needs no
/// statistics for these queries (it always walks the covering index).
public final class TableStatistics: Sendable {
    /// Rows written to one table by one push that make its statistics worth refreshing.
    public static let bulkRows = 1000

    private struct State {
        /// Tables being analyzed, and whether more bulk writes came in meanwhile.
        var running: [String: Bool] = [:]
        var tasks: [String: Task<Void, Never>] = [:]
    }
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    /// Starts `ANALYZE` of each table that just took at least `bulkRows` rows (PostgreSQL only).
    func refresh(afterWriting rows: [String: Int], on db: any Database) {
        guard db.sql.dialect.name == "postgresql" else { return }
        for (table, count) in rows where count >= Self.bulkRows {
            let start = state.withLockedValue { state -> Bool in
                if state.running[table] != nil {
                    state.running[table] = true
                    return false
                }
                state.running[table] = false
                return true
            }
            if start { run(table, on: db) }
        }
    }

    private func run(_ table: String, on db: any Database) {
        let logger = self.logger
        // Made under the lock, so the task is on record before it can finish and take itself off.
        state.withLockedValue { state in
            state.tasks[table] = Task {
                while true {
                    do {
                        try await db.sql.raw("ANALYZE \(ident: table)").run()
                    } catch {
                        logger.warning("ANALYZE \(table) failed: \(error)")
                    }
                    let again = self.state.withLockedValue { state -> Bool in
                        if state.running[table] == true {
                            state.running[table] = false
                            return true
                        }
                        state.running[table] = nil
                        state.tasks[table] = nil
                        return false
                    }
                    if !again { return }
                }
            }
        }
    }

    /// Waits for the refreshes under way (tests, and shutdown: the pool must outlive them).
    public func settle() async {
        while let task = state.withLockedValue({ $0.tasks.values.first }) {
            await task.value
        }
    }
}

extension Application {
    private struct TableStatisticsKey: StorageKey { typealias Value = TableStatistics }

    public var tableStatistics: TableStatistics {
        get {
            if let statistics = storage[TableStatisticsKey.self] { return statistics }
            let statistics = TableStatistics(logger: logger)
            storage[TableStatisticsKey.self] = statistics
            return statistics
        }
        set { storage[TableStatisticsKey.self] = newValue }
    }
}

/// Lets refreshes in flight finish before the databases close.
struct TableStatisticsLifecycle: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        await application.tableStatistics.settle()
    }
}
