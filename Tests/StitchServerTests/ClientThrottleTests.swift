import Fluent
import Foundation
import NIOCore
import StitchCore
@testable import StitchServer
import Testing
import Vapor
import VaporTesting

@Suite("Sign-in attempts per client address")
struct ClientThrottleTests {
    @Test("Sign-ins, sign-ups and refreshes from one address share one limit: past it 429 with Retry-After, the route doesn't run; the next window starts again")
    func limit() async throws {
        try await withTestApp(adjust: { $0.clientAttemptLimit = 6 }) { app, clock in
            let ann = try await register(app)                                          // 1
            #expect(try await login(app).status == .ok)                               // 2
            #expect(try await refresh(app, ann.refreshToken).status == .ok)           // 3
            for i in 0..<3 { #expect(try await login(app, email: "nobody\(i)@example.com").status == .unauthorized) }  // 4–6
            let refused = try await app.send(.POST, "/auth/register", json: RegisterRequest(email: "bob@example.com", password: "correct horse", displayName: "Bob"))
            #expect(refused.status == .tooManyRequests)
            let retryAfter = try #require(refused.headers.first(name: "Retry-After").flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 600)
            #expect(try await UserModel.query(on: app.db).filter(\.$email == "bob@example.com").count() == 0, "the route did not run")
            #expect(try await login(app).status == .tooManyRequests)
            clock.advance(by: TimeInterval(retryAfter) + 1)
            #expect(try await login(app).status == .ok)
        }
    }

    @Test("20 attempts at once with a limit of 10: exactly 10 get through, 10 are refused, none 500")
    func parallel() async throws {
        try await withTestApp(adjust: { $0.clientAttemptLimit = 10 }) { app, _ in
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for i in 0..<20 { group.addTask { try await login(app, email: "nobody\(i)@example.com").status.code } }
                return try await group.reduce(into: [UInt]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count == 10 && statuses.filter { $0 == 429 }.count == 10, "\(statuses.sorted())")
            #expect(try await ClientThrottleModel.query(on: app.db).count() == 1)
        }
    }

    @Test("X-Forwarded-For names the client only when the request comes from a trusted proxy")
    func forwardedFor() async throws {
        try await withTestApp { app, _ in
            func address(peer: String, forwarded: [String], trusted: Set<String>) throws -> String {
                var headers = HTTPHeaders()
                for value in forwarded { headers.add(name: .xForwardedFor, value: value) }
                let req = Request(application: app, method: .POST, url: URI(path: "/auth/login"), headers: headers,
                                  remoteAddress: try SocketAddress(ipAddress: peer, port: 40000), on: app.eventLoopGroup.next())
                return ClientThrottle.clientAddress(req, trusted: trusted)
            }
            let proxies: Set<String> = ["127.0.0.2", "127.0.0.3"]
            // From the load balancer: the nearest address that isn't one of ours.
            let a1 = try address(peer: "127.0.0.2", forwarded: ["127.0.0.9, 127.0.0.3"], trusted: proxies)
            #expect(a1 == "127.0.0.9")
            let a2 = try address(peer: "127.0.0.2", forwarded: ["127.0.0.7", "127.0.0.9"], trusted: proxies)
            #expect(a2 == "127.0.0.9")
            // A client can't pick its own address by sending the header itself.
            let a3 = try address(peer: "127.0.0.5", forwarded: ["127.0.0.9"], trusted: proxies)
            #expect(a3 == "127.0.0.5")
            let a4 = try address(peer: "127.0.0.2", forwarded: [], trusted: proxies)
            #expect(a4 == "127.0.0.2")
            let a5 = try address(peer: "127.0.0.2", forwarded: ["127.0.0.9"], trusted: [])
            #expect(a5 == "127.0.0.2")
        }
    }
}
