import Fluent
import StitchCore
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Sign-in records that no longer mean anything, deleted on a schedule. Every token refresh adds
/// a row (the used token stays, for reuse detection), every web sign-in adds one, and every
/// address that fails to sign in adds one, unknown addresses included: without this those tables
/// grow for ever, and the last of them at the pace of anyone who cares to send wrong passwords.
/// Only rows the server already treats as absent are deleted, so no answer changes.
public enum Housekeeping {
    public struct Pruned: Equatable, Sendable {
        public var refreshTokens = 0
        public var webSessions = 0
        public var loginThrottles = 0
        public var clientThrottles = 0
        public var passwordResets = 0
        public var resetThrottles = 0
        public var webChanges = 0
    }

    /// Deletes, as of `now`:
    /// - refresh tokens that expired longer ago than an access token lives. Rotation refuses an
    ///   expired token exactly as it refuses an unknown one (no reuse detection past expiry), and
    ///   a live access token's sign-in keeps the refresh token issued with it, which outlives it;
    /// - web sessions past their expiry (their cookie is already refused);
    /// - login throttles whose failure window (and so their lock) is over: the next failure
    ///   starts a new window, exactly as with no row;
    /// - password-reset links past their hour, used or not, and reset counts whose window is over;
    /// - the ids of offline purchases applied longer ago than a web session can last (a page
    ///   re-sends one only while it is signed in; `AppliedChanges.keptFor`).
    public static func prune(now: Date, config: AppConfig, on db: any Database) async throws -> Pruned {
        var pruned = Pruned()
        pruned.refreshTokens = try await db.sql.delete(from: RefreshTokenModel.schema)
            .where("expires_at", .lessThanOrEqual, SQLBind(now.addingTimeInterval(-config.accessTokenLifetime)))
            .returning("id").all().count
        pruned.webSessions = try await db.sql.delete(from: WebSessionModel.schema)
            .where("expires_at", .lessThanOrEqual, SQLBind(now))
            .returning("id").all().count
        pruned.loginThrottles = try await db.sql.delete(from: LoginThrottleModel.schema)
            .where("window_start", .lessThanOrEqual, SQLBind(now.addingTimeInterval(-config.loginFailureWindow)))
            .where { $0.where("locked_until", .is, SQLLiteral.null).orWhere("locked_until", .lessThanOrEqual, SQLBind(now)) }
            .returning("id").all().count
        pruned.clientThrottles = try await db.sql.delete(from: ClientThrottleModel.schema)
            .where("window_start", .lessThanOrEqual, SQLBind(now.addingTimeInterval(-config.clientAttemptWindow)))
            .returning("id").all().count
        pruned.passwordResets = try await db.sql.delete(from: PasswordResetModel.schema)
            .where("expires_at", .lessThanOrEqual, SQLBind(now))
            .returning("id").all().count
        pruned.resetThrottles = try await db.sql.delete(from: ResetThrottleModel.schema)
            .where("window_start", .lessThanOrEqual, SQLBind(now.addingTimeInterval(-config.resetRequestWindow)))
            .returning("id").all().count
        pruned.webChanges = try await AppliedChanges.prune(now: now, on: db)
        return pruned
    }
}

extension Housekeeping {
    /// How long a file may go without its row before it counts as an orphan: far longer than an
    /// upload takes between its file and its row (`Images.store`).
    public static let orphanGrace: TimeInterval = 24 * 3600

    /// Files no `images` row names — left by an instance that stopped between storing a file
    /// and its row, or drawn for a file deleted meanwhile — deleted with what was drawn from them,
    /// in the folder or the bucket alike, once they are `orphanGrace` old. Answers how many.
    public static func removeOrphanFiles(now: Date, app: Application) async throws -> Int {
        let old = try await app.imageStorage.storedKeys().filter { $0.modified < now.addingTimeInterval(-orphanGrace) }.map(\.key)
        var removed = 0
        var start = 0
        while start < old.count {
            let chunk = Array(old[start..<min(old.count, start + 500)])
            start += chunk.count
            let named = Set(try await ImageModel.query(on: app.db).filter(\._$id ~~ chunk).all().compactMap(\.id))
            for key in chunk where !named.contains(key) {
                try await Images.deleteFiles(key, app: app)
                removed += 1
            }
        }
        return removed
    }
}

/// Runs `Housekeeping.prune` when the server has booted and then every `interval`, until it shuts
/// down. Only the serving process schedules it (`stitchuation serve`), so commands like `migrate`
/// and the test suite's applications never prune behind a test's back. A failed round (the
/// database briefly away, tables not yet migrated) is logged and tried again next time.
public final class HousekeepingSchedule: LifecycleHandler, Sendable {
    public let interval: Duration
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let rounds = NIOLockedValueBox(0)
    private let ended = NIOLockedValueBox(false)

    public init(interval: Duration = .seconds(3600)) { self.interval = interval }

    /// How many rounds have finished (tests wait on it).
    public var completedRounds: Int { rounds.withLockedValue { $0 } }
    /// The loop has returned (shutting down waits for it): no round can start after.
    public var loopEnded: Bool { ended.withLockedValue { $0 } }

    public func didBootAsync(_ application: Application) async throws {
        let interval = self.interval, rounds = self.rounds, ended = self.ended
        let logger = application.logger, config = application.config, clock = application.clock, db = application.db
        task.withLockedValue { task in
            task = Task {
                while !Task.isCancelled {
                    do {
                        let pruned = try await Housekeeping.prune(now: clock.now(), config: config, on: db)
                        if pruned != Housekeeping.Pruned() {
                            logger.info("Housekeeping removed \(pruned.refreshTokens) expired refresh tokens, \(pruned.webSessions) web sessions, \(pruned.loginThrottles) login throttles, \(pruned.clientThrottles) client throttles, \(pruned.passwordResets) password-reset links, \(pruned.resetThrottles) reset counts, \(pruned.webChanges) ids of purchases and steps sent from the web app")
                        }
                        let orphans = try await Housekeeping.removeOrphanFiles(now: clock.now(), app: application)
                        if orphans > 0 { logger.info("Housekeeping removed \(orphans) stored files no picture or pattern row named") }
                        let gone = try await Deletions.removeFilesGoneForGood(now: clock.now(), app: application, db: db)
                        if gone > 0 { logger.info("Housekeeping removed \(gone) pictures and pattern files of records deleted over \(RecentlyDeleted.days) days ago") }
                        let tombstones = try await Deletions.removeTombstones(now: clock.now(), days: config.tombstoneDays, db: db)
                        if tombstones > 0 { logger.info("Housekeeping removed \(tombstones) tombstones of records deleted over \(config.tombstoneDays) days ago") }
                    } catch {
                        logger.warning("Housekeeping failed, will try again: \(error)")
                    }
                    rounds.withLockedValue { $0 += 1 }
                    try? await Task.sleep(for: interval)
                }
                ended.withLockedValue { $0 = true }
            }
        }
    }

    public func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { task in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
    }
}
