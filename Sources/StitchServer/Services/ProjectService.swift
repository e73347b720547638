import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A project's rules on the server — its canvas and picture checked, its status dated, its
/// children deleted with it — for the API (`ProjectController`), the web app and other services.
enum ProjectService {
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

    static func cascadeDelete(projectIds: [UUID], userId: UUID, version: Int64, now: Date, db: any Database) async throws {
        let entries = try await Records.matching(JournalEntryModel.self, userId: userId, on: db) { $0.where(SQLUUIDIn("project_id", projectIds)) }
            .map(\.record.id)
        try await Records.softDelete(JournalImageModel.self, where: "entry_id", in: entries, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(JournalEntryModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(RequirementModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(SectionModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
        try await Records.softDelete(PatternModel.self, where: "project_id", in: projectIds, userId: userId, at: now, version: version, on: db)
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

    /// Resolves a record nested under a project in the path: both must be the user's, and the
    /// child must belong to that project, or it is a 404.
    static func child<M: RecordModel>(
        _ type: M.Type, _ id: UUID, of projectId: UUID, projectColumn: KeyPath<M, UUID>, userId: UUID, db: any Database
    ) async throws -> (project: UUID, id: UUID) {
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: db)
        let model = try await Records.require(M.self, id, userId: userId, on: db)
        guard model[keyPath: projectColumn] == projectId else { throw APIError.notFound }
        return (projectId, id)
    }

    /// Deleting a project deletes its journal, sections, requirements and patterns with it.
    static func delete(_ writer: Writer, id: UUID) async throws {
        try await RecordWrites<ProjectModel>.delete(writer, id: id, cascade: { project, userId, version, now, db in
            try await ProjectService.cascadeDelete(projectIds: [project.id], userId: userId, version: version, now: now, db: db)
        })
    }

    /// A deleted section's requirements stay with the project, without a section.
    /// (`id` is a section of its project: see `child`.)
    static func deleteSection(_ writer: Writer, id: UUID) async throws {
        try await RecordWrites<SectionModel>.delete(writer, id: id, cascade: { section, userId, version, now, db in
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
}
