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
        let http = try respond(response)
        // The page's cursor where a client finds it before decoding the body: it can ask for
        // the next page while it reads this one (StitchKit does).
        http.headers.replaceOrAdd(name: SyncPage.cursorHeader, value: response.cursor)
        http.headers.replaceOrAdd(name: SyncPage.hasMoreHeader, value: response.hasMore ? "true" : "false")
        return http
    }
}
