import Fluent
import Foundation
import StitchCore
import Vapor

struct ProjectController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let projects = routes.grouped("projects")
        projects.get(use: list)
        projects.post(use: create)
        projects.get(":id", use: show)
        projects.put(":id", use: update)
        projects.delete(":id", use: delete)
        projects.get(":id", "readiness", use: readiness)

        let sections = projects.grouped(":id", "sections")
        sections.get(use: listSections)
        sections.post(use: createSection)
        sections.put(":sectionId", use: updateSection)
        sections.delete(":sectionId", use: deleteSection)

        let requirements = projects.grouped(":id", "threads")
        requirements.get(use: listRequirements)
        requirements.post(use: createRequirement)
        requirements.put(":reqId", use: updateRequirement)
        requirements.delete(":reqId", use: deleteRequirement)
    }

    // MARK: Projects

    /// Newest first, each with its canvas; `status` narrows the list.
    @Sendable
    func list(req: Request) async throws -> Response {
        let userId = try req.user.id
        var status: ProjectStatus?
        if let raw = req.queryText("status") {
            guard let parsed = ProjectStatus(rawValue: raw) else {
                throw APIError.validation(["status": "Choose one of \(ProjectStatus.allCases.map(\.rawValue).joined(separator: ", "))"])
            }
            status = parsed
        }
        let projects = try await Records.list(ProjectModel.self, userId: userId, on: req.db)
            .filter { status == nil || $0.status == status }
            .sorted { ($0.startedAt, $0.createdAt, $0.id.text) > ($1.startedAt, $1.createdAt, $1.id.text) }
        let canvases = try await ProjectService.canvases(userId: userId, db: req.db)
        return try respond(projects.map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) })
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db).record
        let canvas = try await ProjectService.canvas(of: project, userId: userId, db: req.db)
        return try respond(ProjectDetail(project: project, canvas: canvas))
    }

    /// Starts (or plans) a project: from a canvas of the stash that has no live project, or
    /// without one (a chart, or nothing yet) under a name of its own.
    @Sendable
    func create(req: Request) async throws -> Response {
        let project = try await ProjectService.create(try req.writer, try req.patch())
        let canvas = try await ProjectService.canvas(of: project, userId: try req.user.id, db: req.db)
        return try respond(ProjectDetail(project: project, canvas: canvas), status: .created)
    }

    /// Partial update. A status change stamps `finishingAt` / `completedAt`; moving back clears them.
    @Sendable
    func update(req: Request) async throws -> Response {
        let record = try await ProjectService.update(try req.writer, id: req.uuid("id"), try req.patch())
        let canvas = try await ProjectService.canvas(of: record, userId: try req.user.id, db: req.db)
        return try respond(ProjectDetail(project: record, canvas: canvas))
    }

    /// Deleting a project deletes its journal, sections, requirements and patterns with it.
    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await ProjectService.delete(try req.writer, id: req.uuid("id"))
        return .noContent
    }

    @Sendable
    func readiness(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db).record
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: project.id, on: req.db)
        let requirements = try await Records.list(RequirementModel.self, userId: userId, where: "project_id", equals: project.id, on: req.db)
        let inventory = InventoryIndex(try await Records.list(ThreadModel.self, userId: userId, on: req.db))
        return try respond(Readiness.project(project.id, sections: sections, requirements: requirements, inventory: inventory))
    }

    // MARK: Sections

    @Sendable
    func listSections(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: project.id!, on: req.db)
            .sorted { ($0.sortOrder, $0.createdAt, $0.id.text) < ($1.sortOrder, $1.createdAt, $1.id.text) }
        return try respond(sections)
    }

    @Sendable
    func createSection(req: Request) async throws -> Response {
        try respond(try await ProjectService.addSection(try req.writer, to: req.uuid("id"), try req.patch()), status: .created)
    }

    @Sendable
    func updateSection(req: Request) async throws -> Response {
        let (_, id) = try await req.projectChild(SectionModel.self, "sectionId", \.projectId)
        return try respond(try await ProjectService.updateSection(try req.writer, id: id, try req.patch()))
    }

    /// A deleted section's requirements stay with the project, without a section.
    @Sendable
    func deleteSection(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await req.projectChild(SectionModel.self, "sectionId", \.projectId)
        try await ProjectService.deleteSection(try req.writer, id: id)
        return .noContent
    }

    // MARK: Requirements

    @Sendable
    func listRequirements(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        let requirements = try await Records.list(RequirementModel.self, userId: userId, where: "project_id", equals: project.id!, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
        return try respond(requirements)
    }

    @Sendable
    func createRequirement(req: Request) async throws -> Response {
        try respond(try await ProjectService.addRequirement(try req.writer, to: req.uuid("id"), try req.patch()), status: .created)
    }

    @Sendable
    func updateRequirement(req: Request) async throws -> Response {
        let (_, id) = try await req.projectChild(RequirementModel.self, "reqId", \.projectId)
        return try respond(try await ProjectService.updateRequirement(try req.writer, id: id, try req.patch()))
    }

    @Sendable
    func deleteRequirement(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await req.projectChild(RequirementModel.self, "reqId", \.projectId)
        try await RecordWrites<RequirementModel>.delete(try req.writer, id: id)
        return .noContent
    }

}

extension ProjectThread { typealias Model = RequirementModel }
