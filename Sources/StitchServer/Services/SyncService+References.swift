import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A pushed record's references checked against the state after the push.
extension SyncService {
    struct ReferenceProblem {
        var message: String
        var fields: [String: String]
    }

    /// Checks a live record's references against the state after this push: the user's rows
    /// (deleted ones included: offline edits may refer to them) and what this push accepted.
    static func referenceProblem(_ record: any SyncRecord, state: PushState, db: any Database) async throws -> ReferenceProblem? {
        func owns(_ type: EntityType, _ id: UUID) async throws -> Bool {
            if state.accepted[type]?[id] != nil || state.owned[type]?.contains(id) == true { return true }
            let table = Self.table(type)
            let rows = try await db.sql.select().column("id").from(table)
                .where("id", .equal, SQLUUID(id)).where("user_id", .equal, SQLUUID(state.userId)).all()
            if !rows.isEmpty { state.owned[type, default: []].insert(id) }
            return !rows.isEmpty
        }
        switch record {
        case let project as Project:
            if let key = project.imageKey, try await Images.owned(key, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the picture first", fields: ["imageKey": "No such image"])
            }
            // A project from a chart, or from nothing yet, has no canvas to check.
            guard let canvasId = project.canvasId else { break }
            guard try await owns(.canvas, canvasId) else { return .init(message: "No such canvas", fields: ["canvasId": "No such canvas"]) }
            // One live project per canvas, counting what this push changes.
            let pushed = (state.accepted[.project] ?? [:]).values.compactMap { $0 as? Project }
            if pushed.contains(where: { $0.id != project.id && $0.canvasId == project.canvasId && $0.deletedAt == nil }) {
                return .init(message: "This canvas already has a project", fields: ["canvasId": "Already has a project"])
            }
            let rows = try await Records.matching(ProjectModel.self, on: db) {
                $0.where("canvas_id", .equal, SQLUUID(canvasId)).where("id", .notEqual, SQLUUID(project.id))
            }
            let stillLive = rows.filter { row in
                guard let replaced = state.accepted[.project]?[row.id!] as? Project else { return true }
                return replaced.deletedAt == nil && replaced.canvasId == project.canvasId
            }
            if !stillLive.isEmpty {
                return .init(message: "This canvas already has a project", fields: ["canvasId": "Already has a project"])
            }
        case let section as ProjectSection:
            if !(try await owns(.project, section.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
        case let requirement as ProjectThread:
            if !(try await owns(.project, requirement.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
            if let threadId = requirement.threadId, !(try await owns(.thread, threadId)) {
                return .init(message: "No such thread", fields: ["threadId": "No such thread in your inventory"])
            }
            if let sectionId = requirement.sectionId {
                var sectionProject = (state.accepted[.projectSection]?[sectionId] as? ProjectSection)?.projectId
                if sectionProject == nil {
                    let sections = try await Records.matching(SectionModel.self, userId: state.userId, includingDeleted: true, on: db) {
                        $0.where("id", .equal, SQLUUID(sectionId))
                    }
                    sectionProject = sections.first?.projectId
                }
                if sectionProject != requirement.projectId {
                    return .init(message: "No such section in this project", fields: ["sectionId": "No such section in this project"])
                }
            }
        case let entry as JournalEntry:
            if !(try await owns(.project, entry.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
        case let image as JournalImage:
            if !(try await owns(.journalEntry, image.entryId)) { return .init(message: "No such journal entry", fields: ["entryId": "No such journal entry"]) }
            if try await Images.owned(image.imageKey, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the picture first", fields: ["imageKey": "No such image"])
            }
        case let pattern as Pattern:
            if !(try await owns(.project, pattern.projectId)) { return .init(message: "No such project", fields: ["projectId": "No such project"]) }
            if try await Images.owned(pattern.fileKey, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the pattern's file first", fields: ["fileKey": "No such file"])
            }
        case let canvas as Canvas:
            if let key = canvas.imageKey, try await Images.owned(key, userId: state.userId, on: db) == nil {
                return .init(message: "Upload the picture first", fields: ["imageKey": "No such image"])
            }
        default:
            break
        }
        return nil
    }

    static func table(_ type: EntityType) -> String {
        switch type {
        case .thread: ThreadModel.schema
        case .canvas: CanvasModel.schema
        case .project: ProjectModel.schema
        case .projectSection: SectionModel.schema
        case .projectThread: RequirementModel.schema
        case .journalEntry: JournalEntryModel.schema
        case .journalImage: JournalImageModel.schema
        case .pattern: PatternModel.schema
        case .shoppingLine: ShoppingLineModel.schema
        }
    }
}
