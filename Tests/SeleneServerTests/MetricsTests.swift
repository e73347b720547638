import Foundation
import SeleneShared
@testable import SeleneServer
import TestDatabases
import Testing
import VaporTesting

@Suite("Selene metrics")
struct SeleneMetricsTests {
    static let token = "selene-metrics-token-0123456789-abcdefghij"

    @Test("/metrics: requests by route and status, the queue's depth, processing outcomes and model-call latency move; refused from elsewhere without the token")
    func metrics() async throws {
        try await withLiveSelene(adjust: { $0.metricsToken = Self.token }) { live in
            let port = try #require(live.url.port)
            let before = try await MetricsScrape.get(live.app, port: port)
            #expect(before.status == .ok && before.contentType.hasPrefix("text/plain"), "\(before.status) \(before.contentType)")

            let notes = try await live.notes(["Planted tomatoes and basil in the raised bed", "The roofer says the chimney flashing needs replacing"])
            _ = try await live.data.note(id: notes[0].id)
            #expect(try await live.app.send(.GET, "/api/notes").status == .unauthorized)

            // Other tests run alongside in this process, so counts only ever grow by at least this much.
            let after = try await MetricsScrape.get(live.app, port: port)
            let created = ["method": "POST", "path": "/api/notes", "status": "201"]
            #expect(after.value("http_requests_total", created) >= before.value("http_requests_total", created) + 2)
            #expect(after.value("http_request_duration_seconds_count", created) >= before.value("http_request_duration_seconds_count", created) + 2)
            #expect(after.value("http_requests_total", ["path": "/api/notes/:id", "status": "200"]) >= 1)
            #expect(after.value("http_requests_total", ["path": "/api/notes", "status": "401"]) >= 1)
            let done = ["outcome": "done"]
            #expect(after.value("selene_notes_processed_total", done) >= before.value("selene_notes_processed_total", done) + 2)
            // The gauges are this server's queue, read at the scrape.
            #expect(after.value("selene_queue_notes", ["status": "done"]) == 2)
            #expect(after.value("selene_queue_notes", ["status": "pending"]) == 0)
            let analyses = ["operation": "structured", "provider": "ollama", "outcome": "ok"]
            #expect(after.value("selene_llm_request_duration_seconds_count", analyses) >= before.value("selene_llm_request_duration_seconds_count", analyses) + 2)
            #expect(after.value("selene_llm_request_duration_seconds_count", ["operation": "embed"]) >= 2)
            #expect(!after.text.contains("tomatoes") && !after.text.contains(testToken), "metrics carry no note and no token")

            // Through a proxy (or from another machine) it takes the metrics token; the API token won't do.
            let relayed: HTTPHeaders = ["X-Forwarded-For": "203.0.113.7"]
            #expect(try await MetricsScrape.get(live.app, port: port, headers: relayed).status == .forbidden)
            var apiToken = relayed
            apiToken.bearerAuthorization = BearerAuthorization(token: testToken)
            #expect(try await MetricsScrape.get(live.app, port: port, headers: apiToken).status == .forbidden)
            var right = relayed
            right.bearerAuthorization = BearerAuthorization(token: Self.token)
            #expect(try await MetricsScrape.get(live.app, port: port, headers: right).status == .ok)
            #expect(try await live.app.send(.GET, "/metrics").status == .forbidden)
        }
    }

    @Test("SELENE_METRICS_TOKEN is checked at start: too short is an error")
    func tokenSetting() throws {
        #expect(try SeleneConfig.fromEnvironment(["SELENE_METRICS_TOKEN": Self.token]).metricsToken == Self.token)
        #expect(try SeleneConfig.fromEnvironment([:]).metricsToken == nil)
        #expect(throws: SeleneConfigError.self) { try SeleneConfig.fromEnvironment(["SELENE_METRICS_TOKEN": "short"]) }
    }
}
