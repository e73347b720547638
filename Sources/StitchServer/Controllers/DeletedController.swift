import Foundation
import StitchCore
import Vapor

/// "Recently deleted" over the API (`Deletions`): the list, and a restore.
struct DeletedController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("deleted", use: list)
        routes.post("deleted", ":type", ":id", "restore", use: restore)
        routes.get("deleted", ":type", ":id", "photo", use: photo)
    }

    /// A recently deleted canvas's or project's photo (as uploaded, or `?w=` a size), while it
    /// is listed; 404 otherwise.
    @Sendable
    func photo(req: Request) async throws -> Response {
        guard let type = req.parameters.get("type").flatMap(EntityType.init(rawValue:)),
              let image = try await Deletions.photo(type, try req.uuid("id"), userId: req.user.id, now: req.now, db: req.db)
        else { throw APIError.notFound }
        return try await PictureSizes.response(for: image, derived: false, req: req)
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
