import Fluent
import Foundation
import StitchCore

/// A project and its parts written, for the API (`ProjectController`) and the web app alike.
extension ProjectService {
    /// Starts (or plans) a project: from a canvas of the stash that has no live project, or
    /// without one under a name of its own. In progress unless the body says otherwise; a project
    /// created straight into a later stage gets that stage's date.
    static func create(_ writer: Writer, _ body: RecordPatch) async throws -> Project {
        let userId = writer.userId
        return try await RecordWrites<ProjectModel>.create(
            writer, body, defaults: ["status": .string(ProjectStatus.wip.rawValue), "startedAt": .time(writer.now)],
            transform: { project, now in
                var stamped = project
                stamped.status = .wip
                stamped.setStatus(project.status, at: now)
                return stamped
            },
            check: { project, db in try await checkReferences(project, userId: userId, db: db) })
    }

    /// A partial update. Its canvas stays (and whatever else `keeping` names); a status change
    /// stamps `finishingAt` / `completedAt` (moving back clears them); its picture is the user's.
    static func update(_ writer: Writer, id: UUID, _ body: RecordPatch, keeping: Set<String> = []) async throws -> Project {
        let userId = writer.userId
        return try await RecordWrites<ProjectModel>.update(
            writer, id: id, body, immutable: keeping.union(["canvasId"]), transform: stampStatus,
            check: { project, db in try await checkPicture(project, userId: userId, db: db) })
    }

    /// A section after the project's last one, not started unless the body says otherwise.
    static func addSection(_ writer: Writer, to projectId: UUID, _ body: RecordPatch) async throws -> ProjectSection {
        _ = try await Records.require(ProjectModel.self, projectId, userId: writer.userId, on: writer.db)
        let existing = try await Records.all(SectionModel.self, userId: writer.userId, where: "project_id", equals: projectId, on: writer.db)
        let nextOrder = (existing.map(\.sortOrder).max() ?? -1) + 1
        return try await RecordWrites<SectionModel>.create(
            writer, body, defaults: ["name": "", "sortOrder": .number(nextOrder), "status": .string(SectionStatus.notStarted.rawValue)],
            overrides: ["projectId": .id(projectId)])
    }

    /// (`id` is a section of its project: see `child`.) Its project stays.
    static func updateSection(_ writer: Writer, id: UUID, _ body: RecordPatch) async throws -> ProjectSection {
        try await RecordWrites<SectionModel>.update(writer, id: id, body, immutable: ["projectId"])
    }

    /// A thread the project needs. Linked to a thread of the inventory (`threadId`), it takes that
    /// thread's brand, number and colour unless the body gives them; typed (`linkingTyped`, the
    /// web app's form: a big inventory has no list to pick from), the owned thread with that brand
    /// and number, however it is spelled, is linked.
    static func addRequirement(_ writer: Writer, to projectId: UUID, _ given: RecordPatch, linkingTyped: Bool = false) async throws -> ProjectThread {
        let userId = writer.userId
        _ = try await Records.require(ProjectModel.self, projectId, userId: userId, on: writer.db)
        var body = given
        var defaults: RecordPatch = ["brand": "", "number": "", "quantityNeeded": 1]
        if case .string(let raw)? = given["threadId"], let threadId = UUID(text: raw) {
            guard let thread = try await Records.find(ThreadModel.self, threadId, userId: userId, on: writer.db) else {
                throw APIError.missingReference(["threadId": "No such thread in your inventory"])
            }
            defaults = defaults.merging(thread.record.requirementFields)
        } else if linkingTyped, given["threadId"] == nil || given["threadId"] == .null,
                  case .string(let brand)? = given["brand"], case .string(let number)? = given["number"] {
            let key = ThreadKey(brand: brand, number: number)
            if let thread = try await Records.list(ThreadModel.self, userId: userId, on: writer.db).first(where: { ThreadKey(brand: $0.brand, number: $0.number) == key }) {
                body = body.merging(thread.requirementFields).merging(["threadId": .id(thread.id)])
            }
        }
        return try await RecordWrites<RequirementModel>.create(
            writer, body, defaults: defaults, overrides: ["projectId": .id(projectId)],
            check: { requirement, db in try await checkReferences(requirement, userId: userId, db: db) })
    }

    /// (`id` is a requirement of its project: see `child`.) Its project stays; its thread and
    /// section are the user's.
    static func updateRequirement(_ writer: Writer, id: UUID, _ body: RecordPatch) async throws -> ProjectThread {
        let userId = writer.userId
        return try await RecordWrites<RequirementModel>.update(writer, id: id, body, immutable: ["projectId"], check: { requirement, db in
            try await checkReferences(requirement, userId: userId, db: db)
        })
    }
}

extension InventoryThread {
    /// What a requirement linked to this thread takes from it.
    var requirementFields: RecordPatch {
        var fields: RecordPatch = ["brand": .string(brand), "number": .string(number)]
        if let colorName { fields["colorName"] = .string(colorName) }
        return fields
    }
}
