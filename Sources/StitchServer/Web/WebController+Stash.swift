import ServerCommon
import Fluent
import Foundation
import StitchCore
import Vapor

/// The stash: canvases listed, added (with a photo), edited and deleted.
extension WebController {
    @Sendable func stash(req: Request) async throws -> Response {
        let all = try await Records.list(CanvasModel.self, userId: req.user.id, on: req.db)
        let q = req.queryText("q") ?? ""
        let shown = StashPage.order(all.filter { $0.matches(search: q) })
        return html(StashPage(canvases: shown, search: q, total: all.count).render(try await context(req)))
    }

    @Sendable func newCanvasPage(req: Request) async throws -> Response {
        // Batch entry keeps what repeats: the designer of the canvas just added.
        let designer = req.queryText("designer")
        return html(CanvasFormPage(canvas: nil, values: designer.map { ["designer": $0] } ?? [:], addAnother: req.queryText("another") == "on")
            .render(try await context(req)))
    }

    func canvasBody(_ form: FormData, errors: inout [String: String]) -> RecordPatch {
        var body: RecordPatch = [:]
        for key in ["size", "notes"] { body[key] = .text(form[key]) }
        body["designer"] = .string(form["designer"] ?? "")
        body["designName"] = .string(form["designName"] ?? "")
        if let raw = form["meshCount"] {
            if let mesh = Int(raw) { body["meshCount"] = .number(mesh) } else { errors["meshCount"] = "Enter a positive number" }
        } else { body["meshCount"] = .null }
        if let raw = form["acquiredAt"] {
            if let date = Timestamp.date(from: raw + "T00:00:00Z") ?? Timestamp.date(from: raw) { body["acquiredAt"] = .time(date) } else { errors["acquiredAt"] = "Use a date like 2026-05-01" }
        } else { body["acquiredAt"] = .null }
        return body
    }

    /// Stores an uploaded photo first (checked by its bytes); its key goes into the canvas.
    func storePhoto(_ form: FormData, req: Request) async throws -> String? {
        guard let file = form.files.first(where: { $0.name == "image" }) else { return nil }
        return try await Images.store(file.data, userId: req.user.id, app: req.application, db: req.db).id
    }

    @Sendable func createCanvas(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        var body = canvasBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            // Check the fields before storing the photo, so a bad form leaves no file behind.
            let checked: Canvas = try body.created(defaults: [:], protected: ["id": .id(UUID()), "createdAt": .time(req.now), "updatedAt": .time(req.now)])
            _ = try checked.normalized.validated()
            if let key = try await storePhoto(form, req: req) { body["imageKey"] = .string(key) }
            let canvas = try await CanvasService.create(try req.writer, body)
            if form["addAnother"] == "on" {
                let response = Response(status: .seeOther)
                response.headers.replaceOrAdd(name: .location, value: SiteURL.newCanvas.path(query: Flash.query("Added \(canvas.designName).").merging(["another": "on", "designer": canvas.designer]) { a, _ in a }))
                return response
            }
            return redirect(.canvas(canvas.id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return html(CanvasFormPage(canvas: nil, values: form.fields, errors: fields.merging(errors) { a, _ in a }, addAnother: form["addAnother"] == "on")
                .render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func canvasPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let canvases = try await Records.list(CanvasModel.self, userId: userId, on: req.db)
        guard let canvas = canvases.first(where: { $0.id == id }) else { throw Abort(.notFound) }
        let project = try await Records.list(ProjectModel.self, userId: userId, on: req.db).first { $0.canvasId == canvas.id }
        return html(CanvasDetailPage(canvas: canvas, project: project, split: StashPage.beside(canvases, current: canvas.id)).render(try await context(req)))
    }

    @Sendable func editCanvasPage(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let canvases = try await Records.list(CanvasModel.self, userId: req.user.id, on: req.db)
        guard let canvas = canvases.first(where: { $0.id == id }) else { throw Abort(.notFound) }
        return html(CanvasFormPage(canvas: canvas, values: CanvasFormPage.values(of: canvas), split: StashPage.beside(canvases, current: id))
            .render(try await context(req)))
    }

    @Sendable func updateCanvas(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard let before = try await Records.find(CanvasModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        var body = canvasBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            if let key = try await storePhoto(form, req: req) { body["imageKey"] = .string(key) }
            _ = try await CanvasService.update(try req.writer, id: id, body, app: req.application)
            return redirect(.canvas(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            let canvases = try await Records.list(CanvasModel.self, userId: userId, on: req.db)
            return html(CanvasFormPage(canvas: before, values: form.fields, errors: fields.merging(errors) { a, _ in a }, split: StashPage.beside(canvases, current: id))
                .render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func deleteCanvasPage(req: Request) async throws -> Response {
        guard let canvas = try await Records.find(CanvasModel.self, try req.uuid("id"), userId: req.user.id, on: req.db)?.record else { throw Abort(.notFound) }
        return html(DeleteCanvasPage(canvas: canvas).render(try await context(req)))
    }

    @Sendable func deleteCanvas(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        do {
            try await CanvasService.delete(try req.writer, id: id)
            return redirect(.stash, flash: "Canvas deleted.")
        } catch let error as APIError where error.status == .conflict {
            guard let canvas = try await Records.find(CanvasModel.self, id, userId: req.user.id, on: req.db)?.record else { throw Abort(.notFound) }
            return html(DeleteCanvasPage(canvas: canvas, error: error.reason).render(try await context(req)), status: .conflict)
        }
    }
}
