import Fluent
import Foundation
import StitchCore
import Vapor

extension CanvasPalettes {
    /// Rows a confirmation may carry (a palette has at most 40 colours; a few added by hand).
    static let maxRows = 200

    /// The reviewed threads as requirements of a project, in one write at one sync version: the
    /// project named (any live project of the stitcher's) or, with none named, a new one (in
    /// progress, as "Start a project" makes it, so the shopping list counts it) from the canvas.
    /// Rows naming one thread are one requirement (their skeins added);
    /// one the project (section) already needs is left out and named. Bad rows are a 400, a
    /// project or section that isn't there a 409, a canvas that already has a project (when none
    /// is named) a 409; nothing is written then.
    static func addToProject(_ confirmation: CanvasPaletteConfirmation, canvasId: UUID, userId: UUID, now: Date, app: Application,
                             db: any Database) async throws -> CanvasPaletteResult {
        let canvas = try await Records.require(CanvasModel.self, canvasId, userId: userId, on: db).record
        let rows = try merged(confirmation.rows)
        let project: Project
        if let id = confirmation.projectId {
            guard let found = try await Records.find(ProjectModel.self, id, userId: userId, on: db)?.record else {
                throw APIError.missingReference(["projectId": "No such project"])
            }
            project = found
        } else {
            project = try Project(canvasId: canvas.id, status: .wip, startedAt: now, createdAt: now, updatedAt: now).normalized.validated()
        }
        if let section = confirmation.sectionId {
            let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: project.id, on: db)
            guard confirmation.projectId != nil, sections.contains(where: { $0.id == section }) else {
                throw APIError.missingReference(["sectionId": "No such section in this project"])
            }
        }
        let catalog = try app.threadCatalog
        let inventory = try await Records.list(ThreadModel.self, userId: userId, on: db)
        return try await db.writeTransaction { db in
            let created = confirmation.projectId == nil
            // Checked in the write, so two at once can't both start a project on the canvas.
            if created { try await ProjectService.checkCanvas(project, userId: userId, db: db) }
            let required = try await ChartKeys.requirements(of: project.id, userId: userId, db: db)
            let (present, toAdd) = rows.reduce(into: ([String](), [CanvasPaletteConfirmation.Row]())) { sum, row in
                if required.contains(where: { ChartKeys.same($0.brand, $0.number, row.brand, row.number) && $0.sectionId == confirmation.sectionId }) {
                    sum.0.append("\(row.brand) \(row.number)")
                } else {
                    sum.1.append(row)
                }
            }
            var result = CanvasPaletteResult(projectId: project.id, createdProject: created, added: [], alreadyRequired: present)
            guard created || !toAdd.isEmpty else { return result }
            let version = try await SyncVersion.next(for: userId, on: db)
            if created { try await Records.create(project, as: ProjectModel.self, userId: userId, version: version, on: db) }
            for row in toAdd {
                let owned = inventory.filter { $0.deletedAt == nil && ChartKeys.same($0.brand, $0.number, row.brand, row.number) }
                    .max { $0.quantity < $1.quantity }
                let requirement = try ProjectThread(projectId: project.id, sectionId: confirmation.sectionId, threadId: owned?.id,
                                                    brand: row.brand, number: row.number,
                                                    colorName: catalog.entry(brand: row.brand, number: row.number)?.name ?? owned?.colorName,
                                                    quantityNeeded: row.quantityNeeded, notes: note(row), createdAt: now, updatedAt: now)
                    .normalized.validated()
                try await Records.create(requirement, as: RequirementModel.self, userId: userId, version: version, on: db)
                result.added.append(requirement)
            }
            return result
        }
    }

    /// The rows checked, and those naming one thread made one (skeins added, colours joined).
    static func merged(_ rows: [CanvasPaletteConfirmation.Row]) throws -> [CanvasPaletteConfirmation.Row] {
        var errors: [String: String] = [:]
        if rows.isEmpty { errors["rows"] = "Choose at least one thread" }
        if rows.count > maxRows { errors["rows"] = "At most \(maxRows) threads at once" }
        var merged: [CanvasPaletteConfirmation.Row] = []
        for (index, row) in rows.enumerated() where rows.count <= maxRows {
            let field = "rows[\(index)]"
            let brand = row.brand.trimmedWhitespace, number = row.number.trimmedWhitespace
            if brand.isEmpty { errors[field + ".brand"] = "Name the thread's brand" }
            if number.isEmpty { errors[field + ".number"] = "Name the thread's number" }
            if !(1...Limits.maxQuantity).contains(row.quantityNeeded) { errors[field + ".quantityNeeded"] = "From 1 to \(Limits.maxQuantity)" }
            let colours = row.colours ?? []
            if colours.count > 40 || colours.contains(where: { Lab(hex: $0) == nil || $0.count != 7 }) {
                errors[field + ".colours"] = "Painted colours as #RRGGBB, at most 40"
            }
            guard !brand.isEmpty, !number.isEmpty else { continue }
            if let at = merged.firstIndex(where: { ChartKeys.same($0.brand, $0.number, brand, number) }) {
                merged[at].quantityNeeded = min(Limits.maxQuantity, merged[at].quantityNeeded + row.quantityNeeded)
                merged[at].colours = (merged[at].colours ?? []) + colours.filter { !(merged[at].colours ?? []).contains($0) }
            } else {
                merged.append(.init(brand: brand, number: number, quantityNeeded: row.quantityNeeded, colours: colours))
            }
        }
        if !errors.isEmpty { throw APIError.validation(errors) }
        return merged
    }

    /// Where the requirement came from: "From the canvas's photo (painted #A1B2C3 and #D4E5F6)".
    static func note(_ row: CanvasPaletteConfirmation.Row) -> String {
        let colours = row.colours ?? []
        guard !colours.isEmpty else { return "From the canvas's photo" }
        let list = colours.count == 1 ? colours[0] : colours.dropLast().joined(separator: ", ") + " and " + colours.last!
        return "From the canvas's photo (painted \(list))"
    }
}
