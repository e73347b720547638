import Fluent
import Foundation
import StitchCore
import Vapor

struct CanvasController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let canvases = routes.grouped("canvases")
        canvases.get(use: list)
        canvases.post(use: create)
        canvases.get(":id", use: show)
        canvases.put(":id", use: update)
        canvases.delete(":id", use: delete)
        canvases.on(.POST, ":id", "image", body: .collect(maxSize: "42mb"), use: uploadImage)
        canvases.get(":id", "palette", use: palette)
        canvases.post(":id", "palette", "project", use: paletteToProject)
    }

    /// The reviewed threads of the canvas's colours as a project's requirements (one sync
    /// change): 201 with what was added, when a project was started, and what was already there.
    @Sendable
    func paletteToProject(req: Request) async throws -> Response {
        let (canvasId, userId) = (try req.uuid("id"), try req.user.id)
        // Someone else's canvas is a 404 whatever the body says.
        _ = try await Records.require(CanvasModel.self, canvasId, userId: userId, on: req.db)
        let confirmation = try req.decodeJSON(CanvasPaletteConfirmation.self)
        let result = try await CanvasPalettes.addToProject(confirmation, canvasId: canvasId, userId: userId, now: req.now,
                                                           app: req.application, db: req.db)
        return try respond(result, status: result.added.isEmpty && !result.createdProject ? .ok : .created)
    }

    /// The canvas's painted colours read from its photo, with the threads and amounts they come
    /// to (`CanvasPalettes`): `detail` 1–5 (fewer to more colours), `ground` white or ecru, `spot`
    /// a bare spot on the photo as `x,y`, `stitch` basketweave or continental, `strands` 1–24.
    @Sendable
    func palette(req: Request) async throws -> Response {
        let asked = try CanvasPalettes.Asked.parse { req.queryText($0) }
        return try respond(try await CanvasPalettes.answer(canvasId: try req.uuid("id"), userId: try req.user.id, asked: asked,
                                                           app: req.application, db: req.db))
    }

    /// The stash, newest first, narrowed by `q` (designer or design name).
    @Sendable
    func list(req: Request) throws -> EventLoopFuture<Response> {
        let q = req.queryText("q")
        let userId = try req.user.id
        return try cachedList(req, kind: "canvases") {
            var canvases = try await Records.list(CanvasModel.self, userId: userId, on: req.db)
            if let q { canvases = canvases.filter { $0.matches(search: q) } }
            canvases.sort { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
            return try StitchJSON.encodeBytes(canvases)
        }
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        try respond(try await Records.require(CanvasModel.self, req.uuid("id"), userId: req.user.id, on: req.db).record)
    }

    @Sendable
    func create(req: Request) async throws -> Response {
        try respond(try await CanvasService.create(try req.writer, try req.patch()), status: .created)
    }

    @Sendable
    func update(req: Request) async throws -> Response {
        try respond(try await CanvasService.update(try req.writer, id: req.uuid("id"), try req.patch(), app: req.application))
    }

    /// A canvas with a live project cannot be deleted: the project would lose its title and picture.
    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await CanvasService.delete(try req.writer, id: req.uuid("id"))
        return .noContent
    }

    /// Sets (or replaces) the canvas's picture. The old file stays until nothing refers to it.
    @Sendable
    func uploadImage(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        _ = try await Records.require(CanvasModel.self, id, userId: userId, on: req.db)
        let data = try Images.parts(of: req)[0]
        let image = try await Images.store(data, userId: userId, app: req.application, db: req.db)
        let now = req.now
        let (record, previous): (Canvas, String?) = try await req.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let model = try await Records.require(CanvasModel.self, id, userId: userId, on: db)
            var record = model.record
            let previous = record.imageKey
            record.imageKey = image.id
            record.updatedAt = writeTimestamp(now: now, after: record.updatedAt)
            try await Records.update(model, to: record, version: version, on: db)
            return (record, previous)
        }
        if let previous, previous != record.imageKey {
            try await Images.removeIfUnreferenced(previous, app: req.application, db: req.db)
        }
        return try respond(record)
    }

}

struct ImageController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let images = routes.grouped(RequireUser())
        images.on(.POST, "images", body: .collect(maxSize: "42mb"), use: upload)
        // No token or a bad one: 401, like every other route. Someone else's key and a key that
        // was never issued look the same: 404.
        images.get("images", ":key", use: serve)
    }

    /// A bare upload, for clients that attach pictures offline and refer to the key when they sync.
    @Sendable
    func upload(req: Request) async throws -> Response {
        let data = try Images.parts(of: req)[0]
        let image = try await Images.store(data, userId: req.user.id, app: req.application, db: req.db)
        return try respond(ImageUploadResponse(key: image.id!, contentType: image.contentType, byteSize: image.byteSize), status: .created)
    }

    /// The owner's image with its type, an ETag and a private cache header; to anyone else, and
    /// once every record showing it is deleted, 404.
    /// As uploaded, or with `?w=` a JPEG of that width or the next made (`PictureSizes`).
    @Sendable
    func serve(req: Request) async throws -> Response {
        let key = req.parameters.get("key") ?? ""
        guard let image = try await Images.served(key, userId: req.user.id, on: req.db) else { throw APIError.notFound }
        return try await PictureSizes.response(for: image, derived: false, req: req)
    }
}
