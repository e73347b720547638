import Foundation
import StitchCore
import Vapor

extension Application {
    private struct ConfigKey: StorageKey { typealias Value = AppConfig }
    private struct ClockKey: StorageKey { typealias Value = AppClock }

    public var config: AppConfig {
        get {
            guard let config = storage[ConfigKey.self] else { fatalError("configure(_:) has not run") }
            return config
        }
        set { storage[ConfigKey.self] = newValue }
    }

    public var clock: AppClock {
        get { storage[ClockKey.self] ?? .live }
        set { storage[ClockKey.self] = newValue }
    }
}

