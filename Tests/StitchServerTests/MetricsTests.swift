import Foundation
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

@Suite("Metrics")
struct MetricsTests {
    static let token = "stitch-metrics-token-0123456789-abcdefghij"

    @Test("/metrics: Prometheus text to loopback; requests by route and status with latencies, sync pages and pushed changes move; refused from elsewhere without the token")
    func metrics() async throws {
        try await withTestApp(adjust: { $0.metricsToken = Self.token }) { app, clock in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            let before = try await MetricsScrape.get(app, port: port)
            #expect(before.status == .ok && before.contentType.hasPrefix("text/plain"), "\(before.status) \(before.contentType)")

            for _ in 0..<3 { #expect(try await app.send(.GET, "/health").status == .ok) }
            #expect(try await app.send(.GET, "/threads").status == .unauthorized)
            let ann = try await TestUser.make(app)
            let thread = InventoryThread(brand: "DMC", number: "310", quantity: 2, createdAt: clock.now, updatedAt: clock.now)
            let canvas = Canvas(designer: "Melissa Shirley", designName: "Nutcracker", createdAt: clock.now, updatedAt: clock.now)
            _ = try await ann.sync(syncRequest([try SyncChange(record: thread), try SyncChange(record: canvas)]))
            _ = try await ann.pullAll()

            // Other tests run alongside in this process, so counts only ever grow by at least this much.
            let after = try await MetricsScrape.get(app, port: port)
            let health = ["method": "GET", "path": "/health", "status": "200"]
            #expect(after.value("http_requests_total", health) >= before.value("http_requests_total", health) + 3)
            #expect(after.value("http_request_duration_seconds_count", health) >= before.value("http_request_duration_seconds_count", health) + 3)
            #expect(after.value("http_request_duration_seconds_bucket", health.merging(["le": "+Inf"]) { $1 }) >= 3)
            #expect(after.value("http_requests_total", ["path": "/threads", "status": "401"]) >= 1)
            #expect(after.value("stitch_sync_changes_pushed_total") >= before.value("stitch_sync_changes_pushed_total") + 2)
            #expect(after.value("stitch_sync_pages_total", ["kind": "push"]) >= before.value("stitch_sync_pages_total", ["kind": "push"]) + 1)
            #expect(after.value("stitch_sync_pages_total", ["kind": "pull"]) >= before.value("stitch_sync_pages_total", ["kind": "pull"]) + 1)
            #expect(!after.text.contains("ann@example.com") && !after.text.contains(thread.id.uuidString), "metrics carry no one's data")

            // Through a proxy (or from another machine) it takes the token.
            let relayed: HTTPHeaders = ["X-Forwarded-For": "203.0.113.7"]
            #expect(try await MetricsScrape.get(app, port: port, headers: relayed).status == .forbidden)
            var wrong = relayed
            wrong.bearerAuthorization = BearerAuthorization(token: "not-the-metrics-token-0123456789-abcdef")
            #expect(try await MetricsScrape.get(app, port: port, headers: wrong).status == .forbidden)
            var right = relayed
            right.bearerAuthorization = BearerAuthorization(token: Self.token)
            #expect(try await MetricsScrape.get(app, port: port, headers: right).status == .ok)
            // A request with no loopback peer at all (the in-memory tester has none) is refused too.
            #expect(try await app.send(.GET, "/metrics").status == .forbidden)
            #expect(try await app.send(.GET, "/metrics", token: Self.token).status == .ok)
            await app.server.shutdown()
        }
    }

    @Test("METRICS_TOKEN is checked at start: too short is an error")
    func tokenSetting() throws {
        let logger = Logger(label: "test")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-metrics-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = ["DATA_DIR": dir, "JWT_SECRET": testSecret]
        #expect(try AppConfig.fromEnvironment(.testing, variables: base, logger: logger).metricsToken == nil)
        #expect(try AppConfig.fromEnvironment(.testing, variables: base.merging(["METRICS_TOKEN": Self.token]) { $1 }, logger: logger).metricsToken == Self.token)
        #expect(throws: ConfigError.self) { try AppConfig.fromEnvironment(.testing, variables: base.merging(["METRICS_TOKEN": "short"]) { $1 }, logger: logger) }
    }
}
