import Foundation
import Vapor

/// bcrypt, run on the thread pool so hashing never stalls an event loop.
struct PasswordService: Sendable {
    let cost: Int
    let threadPool: NIOThreadPool

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await threadPool.runIfActive { try Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await threadPool.runIfActive { (try? Bcrypt.verify(password, created: hash)) ?? false }
    }
}

extension Application {
    private struct DummyHashKey: StorageKey { typealias Value = String }

    var passwords: PasswordService { PasswordService(cost: config.bcryptCost, threadPool: threadPool) }

    /// A hash of nothing in particular at the configured cost: checked against when the email is
    /// unknown, so an unknown address takes as long to refuse as a wrong password.
    var dummyPasswordHash: String {
        get { storage[DummyHashKey.self] ?? "" }
        set { storage[DummyHashKey.self] = newValue }
    }
}
