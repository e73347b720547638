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
        let request = try req.decodeJSON(SyncRequest.self)
        let response = try await SyncService.sync(request, userId: req.user.id, app: req.application, db: req.db)
        return try respond(response)
    }
}
