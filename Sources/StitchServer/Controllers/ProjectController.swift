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
        let userId = try req.user.id
        let now = req.now
        let project = try await RecordWrites<ProjectModel>.create(
            req, defaults: ["status": ProjectStatus.wip.rawValue, "startedAt": ts(now)],
            transform: { project, now in
                // A project created straight into a later stage gets that stage's date.
                var stamped = project
                stamped.status = .wip
                stamped.setStatus(project.status, at: now)
                return stamped
            },
            check: { project, db in try await ProjectService.checkReferences(project, userId: userId, db: db) })
        let canvas = try await ProjectService.canvas(of: project, userId: userId, db: req.db)
        return try respond(ProjectDetail(project: project, canvas: canvas), status: .created)
    }

    /// Partial update. A status change stamps `finishingAt` / `completedAt`; moving back clears them.
    @Sendable
    func update(req: Request) async throws -> Response {
        let userId = try req.user.id
        let record = try await RecordWrites<ProjectModel>.update(req, id: req.uuid("id"), immutable: ["canvasId"], transform: ProjectService.stampStatus,
                                                                 check: { project, db in try await ProjectService.checkPicture(project, userId: userId, db: db) })
        let canvas = try await ProjectService.canvas(of: record, userId: userId, db: req.db)
        return try respond(ProjectDetail(project: record, canvas: canvas))
    }

    /// Deleting a project deletes its journal, sections, requirements and patterns with it.
    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await ProjectService.delete(req: req)
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
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        let existing = try await Records.all(SectionModel.self, userId: userId, where: "project_id", equals: project.id!, on: req.db)
        let nextOrder = (existing.map(\.sortOrder).max() ?? -1) + 1
        let record = try await RecordWrites<SectionModel>.create(
            req, defaults: ["name": "", "sortOrder": nextOrder, "status": SectionStatus.notStarted.rawValue],
            overrides: ["projectId": project.id!.text])
        return try respond(record, status: .created)
    }

    @Sendable
    func updateSection(req: Request) async throws -> Response {
        let (_, id) = try await ProjectService.child(SectionModel.self, req, param: "sectionId", projectColumn: \.projectId)
        return try respond(try await RecordWrites<SectionModel>.update(req, id: id, immutable: ["projectId"]))
    }

    /// A deleted section's requirements stay with the project, without a section.
    @Sendable
    func deleteSection(req: Request) async throws -> HTTPStatus {
        try await ProjectService.deleteSection(req: req)
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
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db)
        // A linked requirement may leave brand, number and colour to the inventory thread.
        var defaults: [String: Any] = ["brand": "", "number": "", "quantityNeeded": 1]
        let body = try JSONMerge.object(from: req)
        if let raw = body["threadId"] as? String, let threadId = UUID(text: raw) {
            guard let thread = try await Records.find(ThreadModel.self, threadId, userId: userId, on: req.db) else {
                throw APIError.missingReference(["threadId": "No such thread in your inventory"])
            }
            defaults["brand"] = thread.brand
            defaults["number"] = thread.number
            if let color = thread.colorName { defaults["colorName"] = color }
        }
        let projectId = project.id!
        let record = try await RecordWrites<ProjectThread.Model>.create(
            req, defaults: defaults, overrides: ["projectId": projectId.text],
            check: { requirement, db in try await ProjectService.checkReferences(requirement, userId: userId, db: db) })
        return try respond(record, status: .created)
    }

    @Sendable
    func updateRequirement(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (_, id) = try await ProjectService.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        let record = try await RecordWrites<RequirementModel>.update(req, id: id, immutable: ["projectId"], check: { requirement, db in
            try await ProjectService.checkReferences(requirement, userId: userId, db: db)
        })
        return try respond(record)
    }

    @Sendable
    func deleteRequirement(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await ProjectService.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        return try await RecordWrites<RequirementModel>.delete(req, id: id)
    }

}

extension ProjectThread { typealias Model = RequirementModel }
