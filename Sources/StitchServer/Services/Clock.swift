import Foundation
import Vapor

/// The server's idea of "now", behind a value so tests can fix it.
public struct AppClock: Sendable {
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let live = AppClock { Date().roundedToMilliseconds }
}

/// A clock a test moves by hand.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public var now: Date { lock.withLock { current } }
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    public func set(_ date: Date) { lock.withLock { current = date } }

    public var clock: AppClock { AppClock { [self] in now.roundedToMilliseconds } }
}

import StitchCore
