import Fluent
import Foundation
import StitchCore
import Vapor

/// A painted canvas's colours read from its photo, reviewed beside it, then a project's thread
/// list (`CanvasPalettes`).
extension WebController {
    @Sendable func canvasPalettePage(req: Request) async throws -> Response {
        let asked: CanvasPalettes.Asked
        var errors: [String: String] = [:]
        do {
            asked = try CanvasPalettes.Asked.parse { req.queryText($0) }
        } catch {
            // A hand-edited address: read it as usual, and say what was wrong.
            asked = CanvasPalettes.Asked()
            errors = fieldErrors(error) ?? [:]
        }
        return try await canvasPaletteView(req, asked: asked, errors: errors)
    }

    private func canvasPaletteView(_ req: Request, asked: CanvasPalettes.Asked, errors: [String: String] = [:],
                                   status: HTTPStatus = .ok) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard let canvas = try await Records.find(CanvasModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        guard canvas.imageKey != nil else {
            return redirect(.editCanvas(id.wireText), flash: "Add a photo of the painted canvas: its colours are read from it.")
        }
        let answer: CanvasPaletteAnswer
        do {
            answer = try await CanvasPalettes.answer(canvasId: id, userId: userId, asked: asked, app: req.application, db: req.db)
        } catch let error as APIError where error.status.code < 500 && error.status != .notFound {
            return redirect(.canvas(id.wireText), flash: error.reason)
        }
        let targets = try await paletteTargets(canvas: canvas, userId: userId, db: req.db)
        return html(CanvasPalettePage(canvas: canvas, answer: answer, asked: asked, targets: targets, brands: try req.application.threadCatalog.brands,
                                      errors: errors).render(try await context(req)), status: status)
    }

    /// The stitcher's live projects, the canvas's own first, each with its sections in order.
    private func paletteTargets(canvas: Canvas, userId: UUID, db: any Database) async throws -> [CanvasPalettePage.Target] {
        let canvases = try await ProjectService.canvases(userId: userId, db: db)
        let sections = Dictionary(grouping: try await Records.list(SectionModel.self, userId: userId, on: db), by: \.projectId)
        return try await Records.list(ProjectModel.self, userId: userId, on: db)
            .map { project in
                CanvasPalettePage.Target(project: project, title: project.title(canvas: project.canvasId.flatMap { canvases[$0] }),
                                         sections: (sections[project.id] ?? []).sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) })
            }
            .sorted { ($0.project.canvasId == canvas.id ? 0 : 1, $0.title.lowercased()) < ($1.project.canvasId == canvas.id ? 0 : 1, $1.title.lowercased()) }
    }

    /// The ticked rows (`take-N`, their thread from `thread-N`, `other-N` or the row `merge-N`
    /// names, `quantity-N` skeins), a thread added by hand (`add-*`), to the project (and
    /// section) `target` names or a new one; back to the project with what was added.
    @Sendable func confirmCanvasPalette(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        let asked = (try? CanvasPalettes.Asked.parse { form["read-" + $0] }) ?? CanvasPalettes.Asked()
        let brands = try req.application.threadCatalog.brands
        var errors: [String: String] = [:]
        let rows = Self.paletteRows(form, brands: brands, errors: &errors)
        let target = (form["target"] ?? "").split(separator: "/").map(String.init)
        var confirmation = CanvasPaletteConfirmation(rows: rows)
        if target != [CanvasPalettePage.newProject] {
            guard (1...2).contains(target.count), let project = UUID(text: target[0]) else {
                return try await canvasPaletteView(req, asked: asked, errors: ["target": "Choose a project"], status: .badRequest)
            }
            confirmation.projectId = project
            confirmation.sectionId = target.count == 2 ? UUID(text: target[1]) : nil
            if target.count == 2 && confirmation.sectionId == nil { errors["target"] = "Choose a section of the project" }
        }
        if !errors.isEmpty { return try await canvasPaletteView(req, asked: asked, errors: errors, status: .badRequest) }
        do {
            let result = try await CanvasPalettes.addToProject(confirmation, canvasId: id, userId: userId, now: req.now, app: req.application, db: req.db)
            var flash = result.added.isEmpty ? "Nothing added." : "Added \(result.added.count) thread\(result.added.count == 1 ? "" : "s") from the canvas’s colours."
            if result.createdProject { flash = "Started a project from the canvas. " + flash }
            if !result.alreadyRequired.isEmpty { flash += " Already on the list: \(result.alreadyRequired.joined(separator: ", "))." }
            return redirect(to: SiteURL.project(result.projectId.wireText).path + "#threads", flash: flash)
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            let status: HTTPStatus = (error as? APIError)?.status ?? .badRequest
            return try await canvasPaletteView(req, asked: asked, errors: ChartKeyPage.formFields(fields), status: status)
        }
    }

    /// The review form's rows as threads: a merged row takes the thread of the row it names
    /// (followed along, so merging into a merged row works); "another thread" is "BRAND NUMBER".
    static func paletteRows(_ form: FormData, brands: [String], errors: inout [String: String]) -> [CanvasPaletteConfirmation.Row] {
        var hexes: [String] = []
        while hexes.count < CanvasPalettes.maxRows, let hex = form["row-\(hexes.count)"] { hexes.append(hex) }
        func own(_ index: Int) -> (brand: String, number: String)? {
            if let other = form["other-\(index)"], !other.trimmedWhitespace.isEmpty {
                guard let thread = Self.namedThread(other, brands: brands) else {
                    errors["other-\(index)"] = "Write the brand and number, like DMC 3865"
                    return nil
                }
                return thread
            }
            let parts = (form["thread-\(index)"] ?? "").split(separator: "|", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { errors["thread-\(index)"] = "Choose a thread"; return nil }
            return (parts[0], parts[1])
        }
        func thread(_ index: Int) -> (brand: String, number: String)? {
            var at = index, seen: Set<Int> = [index]
            while let next = form["merge-\(at)"].flatMap({ Int($0) }), hexes.indices.contains(next), seen.insert(next).inserted { at = next }
            return own(at)
        }
        var rows: [CanvasPaletteConfirmation.Row] = []
        for (index, hex) in hexes.enumerated() where form["take-\(index)"] == "on" {
            guard let text = form["quantity-\(index)"], let quantity = Int(text), quantity >= 1 else {
                errors["quantity-\(index)"] = "\(CanvasPalettePage.name(index)): skeins as a whole number from 1"
                continue
            }
            guard let t = thread(index) else { continue }
            rows.append(.init(brand: t.brand, number: t.number, quantityNeeded: quantity, colours: Lab(hex: hex) == nil ? nil : [hex.uppercased()]))
        }
        if let number = form["add-number"], !number.trimmedWhitespace.isEmpty {
            let quantity = form["add-quantity"].flatMap { Int($0) } ?? 0
            if quantity < 1 { errors["add-quantity"] = "Skeins of the added thread: a whole number from 1" }
            rows.append(.init(brand: form["add-brand"] ?? brands.first ?? "DMC", number: number.trimmedWhitespace, quantityNeeded: max(1, quantity)))
        }
        return rows
    }

    /// "DMC 3865", "anchor 403": a brand the catalogs know (spelt as they do) and a number.
    static func namedThread(_ text: String, brands: [String]) -> (brand: String, number: String)? {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count >= 2 else { return nil }
        let brand = words.dropLast().joined(separator: " ")
        return (brands.first { $0.caseInsensitiveCompare(brand) == .orderedSame } ?? brand, words.last!)
    }

    /// The canvas's size and mesh, asked on the palette page when the amounts need them; back
    /// to the palette as it was read.
    @Sendable func saveCanvasPaletteSize(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        guard try await Records.find(CanvasModel.self, id, userId: req.user.id, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        let asked = (try? CanvasPalettes.Asked.parse { form["read-" + $0] }) ?? CanvasPalettes.Asked()
        var body: RecordPatch = ["size": .text(form["size"])]
        var errors: [String: String] = [:]
        if let raw = form["meshCount"] {
            if let mesh = Int(raw) { body["meshCount"] = .number(mesh) } else { errors["meshCount"] = "The mesh as a whole number, like 18" }
        } else { body["meshCount"] = .null }
        if Amounts.inches(form["size"]) == nil { errors["size"] = "The design's width and height, like 10 x 12 (inches) or 25 x 30 cm" }
        if errors.isEmpty {
            do {
                _ = try await CanvasService.update(try req.writer, id: id, body, app: req.application)
                let query = CanvasPalettePage.query(asked).mapValues { Optional($0) }.merging(Flash.query("Saved the canvas’s size and mesh.")) { a, _ in a }
                let response = Response(status: .seeOther)
                response.headers.replaceOrAdd(name: .location, value: SiteURL.canvasPalette(id.wireText).path(query: query) + "#palette-rows")
                return response
            } catch {
                guard let fields = fieldErrors(error) else { throw error }
                errors = fields
            }
        }
        return try await canvasPaletteView(req, asked: asked, errors: errors, status: .badRequest)
    }
}
