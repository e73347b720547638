import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// A stranger who knows someone's address and keeps guessing: the stranger is refused, the owner
/// is not, and the owner hears of it. Clients are told apart by address (behind a trusted proxy
/// here, as in production behind a load balancer).
@Suite("Sign-in throttling without denial: per client, the owner still gets in and is told")
struct StrangerLockoutTests {
    func attempt(_ app: Application, from address: String, password: String, email: String = "ann@example.com") async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/auth/login", json: LoginRequest(email: email, password: password), headers: ["X-Forwarded-For": address])
    }

    @Test("A stranger's wrong passwords lock only the stranger out; the owner signs in from their own device meanwhile and gets one warning mail")
    func ownerStillSignsIn() async throws {
        let sink = try SMTPSink(security: .none, auth: false)
        defer { sink.stop() }
        try await withTestApp(adjust: { config in
            config.smtp = sink.settings(auth: false)
            config.publicURL = "https://stitch.test"
            config.trustedProxies = ["unknown"]  // the in-memory tester's peer, standing in for the load balancer
            config.clientAttemptLimit = 1000
        }) { app, _ in
            _ = try await register(app)
            var statuses: [UInt] = []
            for _ in 0..<12 { statuses.append(try await attempt(app, from: "203.0.113.9", password: "guess").status.code) }
            #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
            // The stranger is refused even with the right password now; the owner, elsewhere, is not.
            #expect(try await attempt(app, from: "203.0.113.9", password: "correct horse").status == .tooManyRequests)
            let owner = try await attempt(app, from: "198.51.100.20", password: "correct horse")
            #expect(owner.status == .ok, "\(owner.text)")
            // Another guesser from a third address gets only its own five.
            for _ in 0..<5 { #expect(try await attempt(app, from: "192.0.2.77", password: "guess").status == .unauthorized) }
            #expect(try await attempt(app, from: "192.0.2.77", password: "guess").status == .tooManyRequests)
            let mails = try await sink.waitFor(1)
            #expect(mails.count == 1 && mails[0].to.contains("ann@example.com") && mails[0].subject.contains("trying to sign in"))
            #expect(mails[0].body.contains("https://stitch.test/app/forgot-password"))
        }
    }

    @Test("Current-password checks (change password, delete account) count as sign-ins do")
    func currentPasswordChecksCount() async throws {
        try await withTestApp(adjust: { $0.clientAttemptLimit = 1000 }) { app, _ in
            let ann = try await TestUser.make(app)
            var statuses: [UInt] = []
            for _ in 0..<7 {
                let res = try await ann.send(.POST, "/auth/password", json: ChangePasswordRequest(currentPassword: "guess", newPassword: "a new long password"))
                statuses.append(res.status.code)
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 403 } && statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
            let deletion = try await app.send(.DELETE, "/auth/account", token: ann.token, json: DeleteAccountRequest(password: "guess", confirm: nil))
            #expect(deletion.status == .tooManyRequests)
        }
    }
}
