import Crypto
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// bcrypt, run on the thread pool so hashing never stalls an event loop.
struct PasswordService: Sendable {
    let cost: Int
    let threadPool: NIOThreadPool
    /// How many bcrypt checks this application has run: what makes an unknown address cost as
    /// much as a wrong password is that both run exactly one, at the same cost.
    let checks: PasswordChecks

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await threadPool.runIfActive { try Bcrypt.hash(Self.bcryptInput(password), cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        checks.count.withLockedValue { $0 += 1 }
        return try await threadPool.runIfActive { (try? Bcrypt.verify(Self.bcryptInput(password), created: hash)) ?? false }
    }

    /// What bcrypt is given. bcrypt ignores everything past 72 bytes, so a longer password is
    /// first reduced to its SHA-256 (51 bytes, prefixed so it can't equal a typed password): every
    /// character counts. Passwords of 72 bytes or fewer go in as they are (older hashes were made
    /// that way, and longer ones were refused before, so no stored hash changes meaning).
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 else { return password }
        return "sha256:" + Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}

final class PasswordChecks: Sendable {
    let count = NIOLockedValueBox(0)
}

extension Application {
    private struct DummyHashKey: StorageKey { typealias Value = String }
    private struct ChecksKey: StorageKey { typealias Value = PasswordChecks }

    var passwords: PasswordService { PasswordService(cost: config.bcryptCost, threadPool: threadPool, checks: passwordChecks) }

    var passwordChecks: PasswordChecks {
        if let checks = storage[ChecksKey.self] { return checks }
        let checks = PasswordChecks()
        storage[ChecksKey.self] = checks
        return checks
    }

    /// A hash of nothing in particular at the configured cost: checked against when the email is
    /// unknown, so an unknown address takes as long to refuse as a wrong password.
    var dummyPasswordHash: String {
        get { storage[DummyHashKey.self] ?? "" }
        set { storage[DummyHashKey.self] = newValue }
    }
}
