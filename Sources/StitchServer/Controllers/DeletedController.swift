import Foundation
import StitchCore
import Vapor

/// "Recently deleted" over the API (`Deletions`): the list, and a restore.
struct DeletedController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("deleted", use: list)
        routes.post("deleted", ":type", ":id", "restore", use: restore)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        try respond(try await Deletions.list(userId: req.user.id, now: req.now, db: req.db))
    }

    /// Restores it and answers what is still recently deleted.
    @Sendable
    func restore(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let type = req.parameters.get("type").flatMap(EntityType.init(rawValue:)) else {
            throw APIError.validation(["type": "Restore a thread, a canvas, a project or a journal entry"])
        }
        try await Deletions.restore(type, try req.uuid("id"), userId: userId, now: req.now, app: req.application, db: req.db)
        return try respond(try await Deletions.list(userId: userId, now: req.now, db: req.db))
    }
}
