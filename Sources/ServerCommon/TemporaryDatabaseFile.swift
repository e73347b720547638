import Foundation
import Vapor

/// An SQLite scratch file private to one application and removed when it shuts down. SQLiteKit
/// fakes a shared in-memory database with a file it never removes; tests use this instead.
public struct TemporaryDatabaseFile: LifecycleHandler {
    public init() {}

    public let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("scratch-\(UUID().uuidString).sqlite").path

    public func shutdownAsync(_ application: Application) async {
        // Open connections keep the unlinked file readable until the databases close after this.
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
