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
        let canvases = try await Self.canvases(userId: userId, db: req.db)
        return try respond(projects.map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) })
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let userId = try req.user.id
        let project = try await Records.require(ProjectModel.self, req.uuid("id"), userId: userId, on: req.db).record
        let canvas = try await Self.canvas(of: project, userId: userId, db: req.db)
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
            check: { project, db in try await Self.checkReferences(project, userId: userId, db: db) })
        let canvas = try await Self.canvas(of: project, userId: userId, db: req.db)
        return try respond(ProjectDetail(project: project, canvas: canvas), status: .created)
    }

    /// Partial update. A status change stamps `finishingAt` / `completedAt`; moving back clears them.
    @Sendable
    func update(req: Request) async throws -> Response {
        let userId = try req.user.id
        let record = try await RecordWrites<ProjectModel>.update(req, id: req.uuid("id"), immutable: ["canvasId"], transform: Self.stampStatus,
                                                                 check: { project, db in try await Self.checkPicture(project, userId: userId, db: db) })
        let canvas = try await Self.canvas(of: record, userId: userId, db: req.db)
        return try respond(ProjectDetail(project: record, canvas: canvas))
    }

    /// A status change stamps `finishingAt` / `completedAt`; moving back clears them.
    @Sendable
    static func stampStatus(old: Project, new: Project, now: Date) -> Project {
        guard new.status != old.status else { return new }
        var project = new
        project.status = old.status
        project.setStatus(new.status, at: now)
        // A start date given with the change (a WIP begun months ago) is the one kept.
        if new.startedAt != old.startedAt { project.startedAt = new.startedAt }
        return project
    }

    /// Deleting a project deletes its journal, sections, requirements and patterns with it.
    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await RecordWrites<ProjectModel>.delete(req, id: req.uuid("id"), cascade: { project, userId, version, now, db in
            try await Self.cascadeDelete(projectIds: [project.id], userId: userId, version: version, now: now, db: db)
        })
    }

    static func cascadeDelete(projectIds: [UUID], userId: UUID, version: Int64, now: Date, db: any Database) async throws {
        let entries = try await Records.matching(JournalEntryModel.self, userId: userId, on: db) { $0.where(SQLUUIDIn("project_id", projectIds)) }
            .map(\.record.id)
        try await Records.softDelete(JournalImageModel.self, where: "entry_id", in: entries, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(JournalEntryModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(RequirementModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(SectionModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(PatternModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
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

    static func canvases(userId: UUID, db: any Database) async throws -> [UUID: Canvas] {
        let canvases = try await Records.list(CanvasModel.self, userId: userId, on: db)
        return Dictionary(canvases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The project's canvas, when it has one.
    static func canvas(of project: Project, userId: UUID, db: any Database) async throws -> Canvas? {
        guard let canvasId = project.canvasId else { return nil }
        return try await Records.find(CanvasModel.self, canvasId, userId: userId, on: db)?.record
    }

    /// What a project names: its canvas and its picture.
    static func checkReferences(_ project: Project, userId: UUID, db: any Database) async throws {
        try await checkCanvas(project, userId: userId, db: db)
        try await checkPicture(project, userId: userId, db: db)
    }

    /// A project's own picture, when it has one, is one of the user's pictures.
    static func checkPicture(_ project: Project, userId: UUID, db: any Database) async throws {
        guard let key = project.imageKey else { return }
        guard try await Images.owned(key, userId: userId, on: db) != nil else {
            throw APIError.missingReference(["imageKey": "No such image"])
        }
    }

    /// A project's canvas, when it names one, is one of the user's with no other live project.
    static func checkCanvas(_ project: Project, userId: UUID, db: any Database) async throws {
        guard let canvasId = project.canvasId else { return }
        guard try await Records.find(CanvasModel.self, canvasId, userId: userId, on: db) != nil else {
            throw APIError.missingReference(["canvasId": "Choose a canvas from your stash"])
        }
        let live = try await Records.matching(ProjectModel.self, on: db) {
            $0.where("canvas_id", .equal, SQLUUID(canvasId)).where("id", .notEqual, SQLUUID(project.id))
        }
        if !live.isEmpty {
            throw APIError(.conflict, "This canvas already has a project", fields: ["canvasId": "Already has a project"])
        }
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
        let (_, id) = try await Self.child(SectionModel.self, req, param: "sectionId", projectColumn: \.projectId)
        return try respond(try await RecordWrites<SectionModel>.update(req, id: id, immutable: ["projectId"]))
    }

    /// A deleted section's requirements stay with the project, without a section.
    @Sendable
    func deleteSection(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await Self.child(SectionModel.self, req, param: "sectionId", projectColumn: \.projectId)
        return try await RecordWrites<SectionModel>.delete(req, id: id, cascade: { section, userId, version, now, db in
            let orphans = try await Records.matching(RequirementModel.self, userId: userId, on: db) {
                $0.where("section_id", .equal, SQLUUID(section.id))
            }
            for model in orphans {
                var record = model.record
                record.sectionId = nil
                record.updatedAt = writeTimestamp(now: now, after: record.updatedAt)
                try await Records.update(model, to: record, version: version, on: db)
            }
        })
    }

    /// Resolves a record nested under a project in the path: both must be the user's, and the
    /// child must belong to that project, or it is a 404.
    static func child<M: RecordModel>(
        _ type: M.Type, _ req: Request, param: String, projectColumn: KeyPath<M, UUID>
    ) async throws -> (project: UUID, id: UUID) {
        let userId = try req.user.id
        let projectId = try req.uuid("id")
        let id = try req.uuid(param)
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: req.db)
        let model = try await Records.require(M.self, id, userId: userId, on: req.db)
        guard model[keyPath: projectColumn] == projectId else { throw APIError.notFound }
        return (projectId, id)
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
            check: { requirement, db in try await Self.checkReferences(requirement, userId: userId, db: db) })
        return try respond(record, status: .created)
    }

    @Sendable
    func updateRequirement(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (_, id) = try await Self.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        let record = try await RecordWrites<RequirementModel>.update(req, id: id, immutable: ["projectId"], check: { requirement, db in
            try await Self.checkReferences(requirement, userId: userId, db: db)
        })
        return try respond(record)
    }

    @Sendable
    func deleteRequirement(req: Request) async throws -> HTTPStatus {
        let (_, id) = try await Self.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        return try await RecordWrites<RequirementModel>.delete(req, id: id)
    }

    /// A requirement may only point at the user's own thread and at a section of its own project.
    static func checkReferences(_ requirement: ProjectThread, userId: UUID, db: any Database) async throws {
        var fields: [String: String] = [:]
        if let threadId = requirement.threadId, try await Records.find(ThreadModel.self, threadId, userId: userId, on: db) == nil {
            fields["threadId"] = "No such thread in your inventory"
        }
        if let sectionId = requirement.sectionId {
            let section = try await Records.find(SectionModel.self, sectionId, userId: userId, on: db)
            if section?.projectId != requirement.projectId { fields["sectionId"] = "No such section in this project" }
        }
        if !fields.isEmpty { throw APIError.missingReference(fields) }
    }
}

extension ProjectThread { typealias Model = RequirementModel }
