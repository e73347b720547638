import BuildStamp
import Fluent
import SQLKit
import StitchCore
import Vapor

struct HealthController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("health", use: health)
        routes.get("openapi.json", use: openAPI)
    }

    /// The API's OpenAPI 3.1 document, kept in the repository beside the code it describes.
    @Sendable
    func openAPI(req: Request) async throws -> Response {
        Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: .init(data: try OpenAPIDocument.data()))
    }

    /// Liveness that includes the database: a load balancer should stop sending traffic to an
    /// instance that cannot reach it. Says the version and commit that run, in every answer.
    @Sendable
    func health(req: Request) async throws -> Response {
        do {
            try await req.db.sql.raw("SELECT 1").run()
        } catch {
            req.logger.error("Health check failed: \(String(reflecting: error))")
            return try jsonResponse(HealthResponse(status: "unavailable", failing: "database", version: StitchVersion.current, commit: BuildStamp.commit), status: .serviceUnavailable)
        }
        // The bucket too, when files live in one: which part fails is said (to the operator's
        // log in full; the answer names the storage, not its words).
        if let storage = req.application.imageStorage as? S3ImageStorage {
            do {
                try await storage.client.check()
            } catch {
                req.logger.error("Health check failed: \(error)")
                return try jsonResponse(HealthResponse(status: "unavailable", failing: "storage", version: StitchVersion.current, commit: BuildStamp.commit), status: .serviceUnavailable)
            }
        }
        return try jsonResponse(HealthResponse(status: "ok", version: StitchVersion.current, commit: BuildStamp.commit), status: .ok)
    }
}

/// Encodes a wire value with the shared encoder.
func jsonResponse<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]) throws -> Response {
    let response = Response(status: status, headers: headers)
    response.body = .init(buffer: ByteBuffer(bytes: try StitchJSON.encodeBytes(value)))
    response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
    return response
}

enum OpenAPIDocument {
    /// The document, read from the bundle once, not on every request.
    static func data() throws -> Data {
        guard let data = bundled else { throw APIError(.internalServerError, "The OpenAPI document is missing from the build") }
        return data
    }

    private static let bundled: Data? = Bundle.module.url(forResource: "openapi", withExtension: "json").flatMap { try? Data(contentsOf: $0) }
}
