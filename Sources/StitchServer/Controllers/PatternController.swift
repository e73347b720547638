import Fluent
import Foundation
import StitchCore
import Vapor

/// A project's patterns: PDF charts or pictures, uploaded once, read page by page. Owner-only
/// like every record; the file itself is served by `GET /images/{fileKey}` (devices keep it).
struct PatternController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let perProject = routes.grouped("projects", ":id", "patterns")
        perProject.get(use: list)
        perProject.on(.POST, body: .collect(maxSize: "60mb"), use: upload)
        let patterns = routes.grouped("patterns", ":patternId")
        patterns.get(use: show)
        patterns.put(use: update)
        patterns.delete(use: delete)
        patterns.get("pages", ":page", use: page)
        patterns.get("thumbnails", ":page", use: thumbnail)
        patterns.get("key", use: key)
        patterns.post("key", use: confirmKey)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db).record
        var details: [PatternDetail] = []
        for pattern in try await Patterns.patterns(of: project.id, userId: userId, db: req.db) {
            details.append(try await Patterns.detail(pattern, userId: userId, app: req.application, db: req.db))
        }
        return try respond(details)
    }

    /// multipart/form-data: `file` (a PDF, JPEG, PNG, HEIC or WebP) and optionally `title`.
    /// Answers at once; a PDF's pages are drawn in the background (`pages` shows how far).
    @Sendable
    func upload(req: Request) async throws -> Response {
        let userId = try req.user.id
        let projectId = try req.uuid("id")
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: req.db)
        guard req.headers.contentType?.type == "multipart" else {
            throw APIError(.unsupportedMediaType, "Send the pattern as multipart/form-data in a field named file")
        }
        let form = try FormData.parse(req)
        if let problem = form.malformed { throw APIError(.badRequest, problem) }
        guard let file = form.files.first(where: { ["file", "pattern", "image"].contains($0.name) }) else {
            throw APIError.validation(["file": "Choose a PDF or a picture of the pattern"])
        }
        let detail = try await Patterns.add(file.data, filename: form.filenames[file.name], title: form["title"], to: projectId,
                                        writer: try req.writer, app: req.application)
        return try respond(detail, status: .created)
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let userId = try req.user.id
        let pattern = try await Records.require(PatternModel.self, req.uuid("patternId"), userId: userId, on: req.db).record
        return try respond(try await Patterns.detail(pattern, userId: userId, app: req.application, db: req.db))
    }

    /// `title` and `lastPage` (where its reader left off: another device opens there).
    @Sendable
    func update(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("patternId")
        let pattern = try await Patterns.update(try req.writer, id: id, try req.patch(), app: req.application)
        return try respond(try await Patterns.detail(pattern, userId: userId, app: req.application, db: req.db))
    }

    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await Patterns.delete(try req.writer, id: req.uuid("patternId"), app: req.application)
        return .noContent
    }

    /// The chart's colour key read from its PDF's text: the threads it names beside the
    /// inventory and the project's list, and the lines it couldn't read.
    @Sendable
    func key(req: Request) async throws -> Response {
        let userId = try req.user.id
        let pattern = try await Records.require(PatternModel.self, req.uuid("patternId"), userId: userId, on: req.db).record
        return try respond(try await ChartKeys.proposal(for: pattern, userId: userId, app: req.application, db: req.db))
    }

    /// Adds the chosen threads of the key to the project's requirements (one sync version); 201
    /// when any was added, 200 when the project already needed them all.
    @Sendable
    func confirmKey(req: Request) async throws -> Response {
        let userId = try req.user.id
        let pattern = try await Records.require(PatternModel.self, req.uuid("patternId"), userId: userId, on: req.db).record
        let confirmation = try req.decodeJSON(ChartKeyConfirmation.self)
        let result = try await ChartKeys.confirm(confirmation, pattern: pattern, userId: userId, now: req.now, app: req.application, db: req.db)
        return try respond(result, status: result.added.isEmpty ? .ok : .created)
    }

    @Sendable
    func page(req: Request) async throws -> Response {
        try await pageImage(req, thumbnail: false)
    }

    @Sendable
    func thumbnail(req: Request) async throws -> Response {
        try await pageImage(req, thumbnail: true)
    }

    private func pageImage(_ req: Request, thumbnail: Bool) async throws -> Response {
        let userId = try req.user.id
        let pattern = try await Records.require(PatternModel.self, req.uuid("patternId"), userId: userId, on: req.db).record
        guard let text = req.parameters.get("page"), text.utf8.allSatisfy({ (48...57).contains($0) }), text.count <= 6, let number = Int(text) else {
            throw APIError.notFound
        }
        return pageResponse(try await Patterns.page(pattern, number: number, thumbnail: thumbnail, userId: userId, app: req.application, db: req.db))
    }

}
