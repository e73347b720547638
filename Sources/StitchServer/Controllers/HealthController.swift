import Fluent
import SQLKit
import StitchCore
import Vapor

struct HealthController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("health", use: health)
    }

    /// Liveness that includes the database: a load balancer should stop sending traffic to an
    /// instance that cannot reach it.
    @Sendable
    func health(req: Request) async throws -> Response {
        do {
            try await req.db.sql.raw("SELECT 1").run()
            return try jsonResponse(HealthResponse(status: "ok"), status: .ok)
        } catch {
            req.logger.error("Health check failed: \(String(reflecting: error))")
            return try jsonResponse(HealthResponse(status: "unavailable"), status: .serviceUnavailable)
        }
    }
}

/// Encodes a wire value with the shared encoder.
func jsonResponse<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]) throws -> Response {
    let response = Response(status: status, headers: headers)
    response.body = .init(data: try StitchJSON.makeEncoder().encode(value))
    response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
    return response
}
