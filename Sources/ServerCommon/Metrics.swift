import Foundation
import Metrics
import NIOCore
import Prometheus
import Vapor

/// Both servers' metrics in Prometheus's text format. swift-metrics is the API (Vapor reports
/// every request to it: `http_requests_total`, `http_request_errors_total` and the
/// `http_request_duration_seconds` histogram, labelled by method, route pattern and status), and
/// swift-prometheus its backend, bootstrapped once per process the first time a server is
/// configured.
public enum ServerMetrics {
    /// The process's registry.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // A model's answer takes seconds to minutes: its histogram reaches further than a request's.
        factory.durationHistogramBuckets["selene_llm_request_duration_seconds"] = [
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
            .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Makes sure swift-metrics reports into `registry` (idempotent).
    public static func bootstrap() { _ = registry }

    /// The exposition: every metric of the process.
    public static func exposition() -> String { registry.emitToString() }

    /// Whether a request may read `/metrics`: from loopback (and not relayed by a proxy, which
    /// would make every caller look local), or anywhere with the metrics token.
    public static func allowed(_ req: Request, token: String?) -> Bool {
        if let token, !token.isEmpty, let given = req.headers.bearerAuthorization?.token {
            return constantTimeEqual(Array(given.utf8), Array(token.utf8))
        }
        let relayed = !req.headers[.xForwardedFor].isEmpty || !req.headers[.forwarded].isEmpty || !req.headers["X-Real-IP"].isEmpty
        guard !relayed, let address = req.remoteAddress else { return false }
        return isLoopback(address)
    }

    /// Compares without returning early, so the time taken says nothing about the token.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) { difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return difference == 0
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4: return address.ipAddress?.hasPrefix("127.") == true
        case .v6: let ip = address.ipAddress?.lowercased() ?? ""; return ip == "::1" || ip.hasPrefix("::ffff:127.")
        case .unixDomainSocket: return true
        }
    }
}

/// `GET /metrics`. `refresh` sets the gauges read from the database (queue depth) just before
/// they are written out.
public struct MetricsController: RouteCollection, Sendable {
    let token: String?
    let refresh: @Sendable (Request) async throws -> Void

    public init(token: String?, refresh: @escaping @Sendable (Request) async throws -> Void = { _ in }) {
        self.token = token
        self.refresh = refresh
        ServerMetrics.bootstrap()
    }

    public func boot(routes: any RoutesBuilder) throws {
        routes.get("metrics", use: metrics)
    }

    @Sendable
    func metrics(req: Request) async throws -> Response {
        guard ServerMetrics.allowed(req, token: token) else {
            throw Abort(.forbidden, reason: "Metrics are served to loopback only; from elsewhere send the metrics token as a Bearer token.")
        }
        try await refresh(req)
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "text", subType: "plain", parameters: ["version": "0.0.4", "charset": "utf-8"])
        headers.cacheControl = .init(noStore: true)
        return Response(status: .ok, headers: headers, body: .init(string: ServerMetrics.exposition()))
    }
}
