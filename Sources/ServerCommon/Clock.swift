import Foundation

/// A server's idea of "now", to the millisecond (what both APIs' timestamps carry), behind a
/// value so tests can fix it. Stitchuation calls it `AppClock`, Selene `SeleneClock`.
public struct ServerClock: Sendable {
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let live = ServerClock { ServerClock.millisecond(Date()) }

    /// `date` rounded to the nearest millisecond.
    public static func millisecond(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

/// A clock a test moves by hand (both servers' suites).
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public var now: Date { lock.withLock { current } }
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    public func set(_ date: Date) { lock.withLock { current = date } }

    /// The server clock reading this one.
    public var clock: ServerClock { ServerClock { [self] in ServerClock.millisecond(now) } }
}
