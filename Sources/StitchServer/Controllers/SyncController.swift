import Fluent
import StitchCore
import Vapor

struct SyncController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.on(.POST, "sync", body: .collect(maxSize: "64mb"), use: sync)
    }

    @Sendable
    func sync(req: Request) async throws -> Response {
        // The wire decoder, not Vapor's content decoder: a push of thousands of changes is
        // parsed straight into typed values (see StitchCore's FastJSON).
        guard req.headers.contentType?.type == "application", req.headers.contentType?.subType == "json" else {
            throw Abort(.unsupportedMediaType, reason: "Send the sync request as application/json")
        }
        guard let body = req.body.data else { throw APIError(.badRequest, "The request body is not valid: malformed JSON") }
        let request = try body.withUnsafeReadableBytes { try StitchJSON.decode(SyncRequest.self, from: $0) }
        let response = try await SyncService.sync(request, userId: req.user.id, app: req.application, db: req.db)
        return try respond(response)
    }
}
