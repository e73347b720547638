import Fluent
import Foundation
import StitchCore
import Vapor

extension WebController {
    // MARK: Patterns

    /// A project's pattern and the project, both the user's, or a 404.
    private func ownedPattern(_ req: Request) async throws -> (project: Project, pattern: Pattern) {
        let userId = try req.user.id
        guard let project = try await Records.find(ProjectModel.self, try req.uuid("id"), userId: userId, on: req.db)?.record,
              let pattern = try await Records.find(PatternModel.self, try req.uuid("patternId"), userId: userId, on: req.db)?.record,
              pattern.projectId == project.id
        else { throw Abort(.notFound) }
        return (project, pattern)
    }

    @Sendable func uploadPattern(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard try await Records.find(ProjectModel.self, id, userId: userId, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        guard let file = form.files.first(where: { $0.name == "file" }) else {
            return try await projectPage(req, id: id, errors: ["file": "Choose a PDF or a picture of the pattern"], status: .badRequest)
        }
        do {
            let detail = try await Patterns.add(file.data, filename: form.filenames["file"], title: form["title"], to: id,
                                                         writer: try req.writer, app: req.application)
            return redirect(.pattern(id.wireText, detail.pattern.id.wireText))
        } catch let error as APIError where error.status.code < 500 {
            return try await projectPage(req, id: id, errors: ["file": error.reason], status: error.status)
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    /// The viewer, at `?page=` or where the pattern's reader left off.
    @Sendable func patternViewer(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (project, pattern) = try await ownedPattern(req)
        let detail = try await Patterns.detail(pattern, userId: userId, app: req.application, db: req.db)
        let count = max(detail.pages.pageCount, 1)
        let asked = req.queryText("page").flatMap { Int($0) }
        let page = min(max(asked ?? pattern.lastPage, 1), count)
        let title = project.title(canvas: try await ProjectService.canvas(of: project, userId: userId, db: req.db))
        return html(PatternViewerPage(projectId: project.id.wireText, projectTitle: title, detail: detail, page: page).render(try await context(req)))
    }

    @Sendable func patternPageImage(req: Request) async throws -> Response {
        try await patternImage(req, thumbnail: false)
    }

    @Sendable func patternThumbImage(req: Request) async throws -> Response {
        try await patternImage(req, thumbnail: true)
    }

    private func patternImage(_ req: Request, thumbnail: Bool) async throws -> Response {
        let (_, pattern) = try await ownedPattern(req)
        guard let number = req.parameters.get("page").flatMap({ Int($0) }) else { throw Abort(.notFound) }
        return pageResponse(try await Patterns.page(pattern, number: number, thumbnail: thumbnail, userId: try req.user.id, app: req.application, db: req.db))
    }

    /// The pages' progress, for the viewer's script while a PDF is being drawn.
    @Sendable func patternStatus(req: Request) async throws -> Response {
        let (_, pattern) = try await ownedPattern(req)
        return try jsonResponse(try await Patterns.detail(pattern, userId: try req.user.id, app: req.application, db: req.db).pages)
    }

    /// Remembers the page shown (the viewer's script posts it as the page changes).
    @Sendable func savePatternPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (project, pattern) = try await ownedPattern(req)
        guard let page = try FormData.parse(req)["page"].flatMap({ Int($0) }) else { throw Abort(.badRequest) }
        let (_, pages) = try await Patterns.pages(of: pattern.fileKey, userId: userId, app: req.application, db: req.db)
        let clamped = min(max(page, 1), max(pages.pageCount, 1))
        if clamped != pattern.lastPage {
            _ = try await Patterns.update(try req.writer, id: pattern.id, ["lastPage": .number(clamped)], app: req.application)
        }
        if req.headers.accept.mediaTypes.contains(.json) { return try jsonResponse(["lastPage": clamped]) }
        return req.redirect(to: SiteURL.pattern(project.id.wireText, pattern.id.wireText).path(query: ["page": String(clamped)]))
    }

    /// The chart's colour key to review: each thread ticked unless the project already needs
    /// it, its quantity and section to change, the lines that couldn't be read.
    @Sendable func patternKey(req: Request) async throws -> Response {
        try await patternKeyPage(req)
    }

    private func patternKeyPage(_ req: Request, errors: [String: String] = [:], status: HTTPStatus = .ok) async throws -> Response {
        let userId = try req.user.id
        let (project, pattern) = try await ownedPattern(req)
        let proposal = try await ChartKeys.proposal(for: pattern, userId: userId, app: req.application, db: req.db)
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: project.id, on: req.db)
            .filter { $0.deletedAt == nil }.sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) }
        let title = project.title(canvas: try await ProjectService.canvas(of: project, userId: userId, db: req.db))
        return html(ChartKeyPage(projectId: project.id.wireText, projectTitle: title, pattern: pattern, proposal: proposal, sections: sections,
                                 errors: errors).render(try await context(req)), status: status)
    }

    /// The ticked rows (`take-N` = "brand|number", `quantity-N`, `section-N`) become the
    /// project's requirements; back to the project with what was added.
    @Sendable func confirmPatternKey(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (project, pattern) = try await ownedPattern(req)
        let form = try FormData.parse(req)
        var rows: [ChartKeyConfirmation.Row] = []
        var errors: [String: String] = [:]
        for index in 0..<1_000 {
            guard let taken = form["take-\(index)"] else {
                if form["row-\(index)"] == nil { break }
                continue
            }
            let parts = taken.split(separator: "|", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { errors["take-\(index)"] = "Not a thread of the key"; continue }
            guard let text = form["quantity-\(index)"], let quantity = Int(text) else { errors["quantity-\(index)"] = "A whole number"; continue }
            let section = form["section-\(index)"].flatMap { $0.isEmpty ? nil : UUID(text: $0) }
            rows.append(.init(brand: parts[0], number: parts[1], quantityNeeded: quantity, sectionId: section))
        }
        if !errors.isEmpty { return try await patternKeyPage(req, errors: errors, status: .badRequest) }
        do {
            let result = try await ChartKeys.confirm(ChartKeyConfirmation(rows: rows), pattern: pattern, userId: userId, now: req.now,
                                                     app: req.application, db: req.db)
            var flash = result.added.isEmpty ? "Nothing added." : "Added \(result.added.count) thread\(result.added.count == 1 ? "" : "s") from the chart's key."
            if !result.alreadyRequired.isEmpty { flash += " Already on the list: \(result.alreadyRequired.joined(separator: ", "))." }
            return redirect(to: SiteURL.project(project.id.wireText).path + "#threads", flash: flash)
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await patternKeyPage(req, errors: ChartKeyPage.formFields(fields), status: .badRequest)
        }
    }

    @Sendable func deletePattern(req: Request) async throws -> Response {
        let (project, pattern) = try await ownedPattern(req)
        try await Patterns.delete(try req.writer, id: pattern.id, app: req.application)
        return redirect(.project(project.id.wireText), flash: "Pattern deleted.")
    }
}
