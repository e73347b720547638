import BuildStamp
import Foundation
import SeleneShared
import Vapor

struct HealthController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("health", use: health)
        routes.get("openapi.json", use: openAPI)
    }

    /// Liveness including the database, and the version and commit that run. Never needs a token.
    @Sendable
    func health(req: Request) async throws -> Response {
        do {
            try await req.db.sql.raw("SELECT 1").run()
            return try json(HealthStatus(status: "ok", timestamp: req.now, version: SeleneVersion.current, commit: BuildStamp.commit))
        } catch {
            req.logger.error("Health check failed: \(String(reflecting: error))")
            return try json(HealthStatus(status: "unavailable", timestamp: req.now, version: SeleneVersion.current, commit: BuildStamp.commit), status: .serviceUnavailable)
        }
    }

    @Sendable
    func openAPI(req: Request) async throws -> Response {
        let response = Response(status: .ok, body: .init(data: SeleneOpenAPI.data))
        response.headers.contentType = .json
        return response
    }
}
