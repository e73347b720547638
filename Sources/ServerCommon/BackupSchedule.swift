import Foundation
import NIOConcurrencyHelpers
import Vapor

/// Scheduled backups, the same for both products: into `directory`, one when the newest there
/// is `every` old (so a restart doesn't take another), the newest `keep` kept. Only the serving
/// process schedules them; on PostgreSQL with several instances, set the directory on one.
public struct BackupSettings: Sendable, Equatable {
    public var directory: String
    public var every: TimeInterval
    public var keep: Int

    public init(directory: String, every: TimeInterval = 24 * 3600, keep: Int = 7) {
        self.directory = directory; self.every = every; self.keep = keep
    }

    /// From `<prefix>BACKUP_DIR` (unset: no scheduled backups), `<prefix>BACKUP_EVERY_HOURS` (24)
    /// and `<prefix>BACKUP_KEEP` (7). A value that can't be used is refused by name.
    public static func fromEnvironment(_ env: [String: String], prefix: String = "") throws -> BackupSettings? {
        guard let directory = env[prefix + "BACKUP_DIR"], !directory.isEmpty else { return nil }
        var settings = BackupSettings(directory: directory)
        if let raw = env[prefix + "BACKUP_EVERY_HOURS"], !raw.isEmpty {
            guard let hours = Double(raw), hours >= 0.01, hours <= 24 * 366 else {
                throw BackupError("\(prefix)BACKUP_EVERY_HOURS must be a number of hours (24 is daily; 0.5 every half hour)")
            }
            settings.every = hours * 3600
        }
        if let raw = env[prefix + "BACKUP_KEEP"], !raw.isEmpty {
            guard let keep = Int(raw), (1...10_000).contains(keep) else { throw BackupError("\(prefix)BACKUP_KEEP must be a whole number of backups to keep, from 1") }
            settings.keep = keep
        }
        return settings
    }
}

/// Runs `take(app, folder, previous)` on `settings`' schedule until the server stops. A backup
/// that fails is logged (an error: the operator's backups have stopped) and tried at the next check.
public final class BackupSchedule: LifecycleHandler, Sendable {
    public typealias Take = @Sendable (Application, _ folder: String, _ previous: String?) async throws -> Void
    let settings: BackupSettings
    let product: String
    let take: Take
    /// How often the schedule looks whether a backup is due.
    let check: Duration
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    public init(settings: BackupSettings, product: String, check: Duration = .seconds(60), take: @escaping Take) {
        self.settings = settings; self.product = product; self.check = check; self.take = take
    }

    /// When the newest finished backup in `directory` finished, if there is one.
    public static func lastFinished(in directory: String, product: String) -> Date? {
        guard let newest = BackupFolders.newest(directory, product: product) else { return nil }
        return (try? BackupManifest.read(from: newest, product: product))?.finished
    }

    /// One round: a backup when due, then the old ones removed. Returns the folder taken, if any.
    @discardableResult
    public func round(_ app: Application, now: Date = Date()) async throws -> String? {
        if let last = Self.lastFinished(in: settings.directory, product: product), now.timeIntervalSince(last) < settings.every { return nil }
        try FileManager.default.createDirectory(atPath: settings.directory, withIntermediateDirectories: true)
        let folder = (settings.directory as NSString).appendingPathComponent(BackupFolders.name(product: product, at: now))
        try await take(app, folder, BackupFolders.newest(settings.directory, product: product))
        let removed = try BackupFolders.prune(settings.directory, product: product, keep: settings.keep)
        app.logger.info("Backup taken into \(folder)\(removed.isEmpty ? "" : "; removed the oldest: \(removed.joined(separator: ", "))")")
        return folder
    }

    public func didBootAsync(_ application: Application) async throws {
        let running = Task { [self] in
            while !Task.isCancelled {
                do { try await round(application) } catch { application.logger.error("Scheduled backup into \(settings.directory) failed: \(error)") }
                try? await Task.sleep(for: check)
            }
        }
        task.withLockedValue { $0 = running }
    }

    public func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { task in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
    }
}
