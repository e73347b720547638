import Crypto
import ServerCommon
import Fluent
import Foundation
import StitchCore
import SQLKit
import Vapor

/// Projects: the list, starting one, a project's page and every part of it edited where it is shown
/// (status, journal and photos, sections, threads needed, dates, notes).
extension WebController {
    @Sendable func projects(req: Request) async throws -> Response {
        return html(ProjectsPage(projects: try await projectList(userId: req.user.id, db: req.db)).render(try await context(req)))
    }

    /// The account's projects, the latest started first, each with its canvas.
    func projectList(userId: UUID, db: any Database) async throws -> [ProjectDetail] {
        let canvases = try await ProjectService.canvases(userId: userId, db: db)
        return try await Records.list(ProjectModel.self, userId: userId, on: db)
            .sorted { ($0.startedAt, $0.id.text) > ($1.startedAt, $1.id.text) }
            .map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) }
    }

    @Sendable func startProjectPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        let taken = Set(try await Records.all(ProjectModel.self, userId: userId, on: req.db).compactMap(\.canvasId))
        let available = try await Records.list(CanvasModel.self, userId: userId, on: req.db).filter { !taken.contains($0.id) }
            .sorted { $0.createdAt > $1.createdAt }
        return html(StartProjectPage(available: available).render(try await context(req)))
    }

    @Sendable func startProject(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        // "Plan" keeps it planned (not started): readiness says whether it can be started.
        let status = form["status"] == ProjectStatus.planned.rawValue ? ProjectStatus.planned : .wip
        // From a canvas of the stash, or without one (a chart, or nothing yet) under a name.
        var body: RecordPatch = ["status": .string(status.rawValue)]
        if let canvasId = form["canvasId"], !canvasId.isEmpty {
            body["canvasId"] = .string(canvasId)
        } else {
            let name = (form["name"] ?? "").trimmedWhitespace
            guard !name.isEmpty else { return redirect(.startProject, flash: "Give a project without a canvas a name") }
            body["name"] = .string(name)
        }
        do {
            let project = try await ProjectService.create(try req.writer, body)
            return redirect(.project(project.id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.startProject, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    func projectPage(_ req: Request, id: UUID, errors: [String: String] = [:], status: HTTPStatus = .ok) async throws -> Response {
        let userId = try req.user.id
        guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let canvas = try await ProjectService.canvas(of: project, userId: userId, db: req.db)
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
            .sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) }
        let requirements = try await Records.list(RequirementModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
        let inventory = InventoryThread.sortedInInventoryOrder(try await Records.list(ThreadModel.self, userId: userId, on: req.db))
        let entries = try await Records.list(JournalEntryModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        let images = try await JournalService.images(of: entries.map(\.id), userId: userId, db: req.db)
        var patterns: [PatternDetail] = []
        for pattern in try await Patterns.patterns(of: id, userId: userId, db: req.db) {
            patterns.append(try await Patterns.detail(pattern, userId: userId, app: req.application, db: req.db))
        }
        var onList: [ThreadKey: Int] = [:]
        for line in try await Records.list(ShoppingLineModel.self, userId: userId, on: req.db) where line.kind == .added {
            onList[line.key, default: 0] += line.quantity
        }
        let page = ProjectDetailPage(
            detail: ProjectDetail(project: project, canvas: canvas),
            readiness: Readiness.project(id, sections: sections, requirements: requirements, inventory: InventoryIndex(inventory)),
            sections: sections, journal: entries.map { JournalEntryDetail(entry: $0, images: images[$0.id] ?? []) },
            inventory: inventory, patterns: patterns, errors: errors,
            requirementRecords: Dictionary(requirements.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }), addedByHand: onList,
            split: ProjectsPage.beside(try await projectList(userId: userId, db: req.db), current: id))
        return html(page.render(try await context(req)), status: status)
    }

    @Sendable func projectPage(req: Request) async throws -> Response { try await projectPage(req, id: req.uuid("id")) }

    @Sendable func projectStatus(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        do {
            _ = try await ProjectService.update(try req.writer, id: id, ["status": .string(form["status"] ?? "")])
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func deleteProject(req: Request) async throws -> Response {
        try await ProjectService.delete(try req.writer, id: req.uuid("id"))
        return redirect(.projects, flash: "Project deleted.")
    }

    @Sendable func addEntry(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard try await Records.find(ProjectModel.self, id, userId: userId, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        let photos = form.files.filter { ["images", "image"].contains($0.name) }.map(\.data)
        do {
            var day: Date?
            if let raw = form["date"] {
                guard let parsed = Self.day(raw) else { throw ValidationError("date", "Use a date like 2026-05-01") }
                day = parsed
            }
            _ = try await JournalService.addEntry(try req.writer, to: id, notes: form["notes"], day: day, photos: photos, app: req.application)
            let response = Response(status: .seeOther)
            response.headers.replaceOrAdd(name: .location, value: SiteURL.project(id.wireText).path + "#journal")
            return response
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: (error as? APIError)?.status ?? .badRequest)
        }
    }

    @Sendable func photo(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let imageId = try req.uuid("imageId")
        guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let entries = try await Records.list(JournalEntryModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        let byEntry = try await JournalService.images(of: entries.map(\.id), userId: userId, db: req.db)
        let images = entries.flatMap { byEntry[$0.id] ?? [] }
        guard let index = images.firstIndex(where: { $0.id == imageId }) else { throw Abort(.notFound) }
        let title = project.title(canvas: try await ProjectService.canvas(of: project, userId: userId, db: req.db))
        return html(PhotoViewerPage(projectId: id, title: title, images: images, index: index).render(try await context(req)))
    }

    @Sendable func addSection(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        guard try await Records.find(ProjectModel.self, id, userId: req.user.id, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        do {
            _ = try await ProjectService.addSection(try req.writer, to: id, ["name": .string(form["name"] ?? "")])
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func addRequirement(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let userId = try req.user.id
        guard try await Records.find(ProjectModel.self, id, userId: userId, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        var body: RecordPatch = ["threadId": .text(form["threadId"]), "sectionId": .text(form["sectionId"])]
        // Linked to an owned thread, a field left out is the thread's.
        if let brand = form["brand"] { body["brand"] = .string(brand) }
        if let number = form["number"] { body["number"] = .string(number) }
        var errors: [String: String] = [:]
        switch Self.int(form["quantityNeeded"]) {
        case .some(let q): body["quantityNeeded"] = .number(q ?? 1)
        case .none: errors["quantityNeeded"] = "Enter a whole number"
        }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await ProjectService.addRequirement(try req.writer, to: id, body, linkingTyped: true)
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func deleteRequirement(req: Request) async throws -> Response {
        let (projectId, reqId) = try await req.projectChild(RequirementModel.self, "reqId", \.projectId)
        try await RecordWrites<RequirementModel>.delete(try req.writer, id: reqId)
        return redirect(.project(projectId.wireText))
    }
}

// MARK: - Editing a project's parts where they are shown

extension WebController {
    /// The form's text for an optional field: empty clears it.
    static func optional(_ form: FormData, _ name: String) -> JSONValue { .text(form[name]) }

    func projectAnchor(_ projectId: UUID, _ anchor: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: SiteURL.project(projectId.wireText).path + "#" + anchor)
        return response
    }

    /// Rename a section, change its status or its notes (blank notes clear them).
    @Sendable func updateSection(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(SectionModel.self, "sectionId", \.projectId)
        let form = try FormData.parse(req)
        var body: RecordPatch = ["name": .string(form["name"] ?? ""), "status": .string(form["status"] ?? "")]
        // A page from before notes were on the form sends none: they stay as they are.
        if let notes = form.fields["notes"] { body["notes"] = .text(Rules.cleanNotes(notes)) }
        do {
            _ = try await ProjectService.updateSection(try req.writer, id: id, body)
            return projectAnchor(projectId, "threads")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: .badRequest)
        }
    }

    /// Move a section one place up or down: the sections are numbered again in their new order,
    /// in one write, so every device sees the same order.
    @Sendable func moveSection(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(SectionModel.self, "sectionId", \.projectId)
        let form = try FormData.parse(req)
        guard let step = ["up": -1, "down": 1][form["direction"] ?? ""] else {
            return try await projectPage(req, id: projectId, errors: ["direction": "Move a section up or down"], status: .badRequest)
        }
        try await Self.move(SectionModel.self, id: id, by: step, among: "project_id", of: projectId, req: req)
        return projectAnchor(projectId, "threads")
    }

    /// Moves one of a group of ordered records (a project's sections, an entry's photos) `step`
    /// places, and numbers the group 0, 1, 2, … in one write: one sync version, so every device
    /// sees the new order at once. At either end it stays.
    static func move<M: RecordModel>(_ type: M.Type, id: UUID, by step: Int, among column: String, of owner: UUID, req: Request) async throws
        where M.Record: Ordered {
        let userId = try req.user.id
        let now = req.now
        try await req.db.writeTransaction { db in
            let models = try await Records.matching(M.self, userId: userId, on: db) { $0.where(SQLIdentifier(column), .equal, SQLUUID(owner)) }
                .sorted { ($0.record.sortOrder, $0.record.createdAt, $0.record.id.text) < ($1.record.sortOrder, $1.record.createdAt, $1.record.id.text) }
            guard let from = models.firstIndex(where: { $0.record.id == id }) else { throw APIError.notFound }
            var ordered = models
            guard ordered.indices.contains(from + step) else { return }  // already first or last
            ordered.swapAt(from, from + step)
            let version = try await SyncVersion.next(for: userId, on: db)
            for (order, model) in ordered.enumerated() where model.record.sortOrder != order {
                var record = model.record
                record.sortOrder = order
                record.updatedAt = writeTimestamp(now: now, after: record.updatedAt)
                try await Records.update(model, to: record, version: version, on: db)
            }
        }
    }

    /// Its threads stay with the project, under "Other threads".
    @Sendable func deleteSection(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(SectionModel.self, "sectionId", \.projectId)
        try await ProjectService.deleteSection(try req.writer, id: id)
        return projectAnchor(projectId, "threads")
    }

    /// One thread the project needs, on a page of its own to edit.
    @Sendable func requirementPage(req: Request) async throws -> Response {
        try await requirementPage(req, values: nil)
    }

    /// The page with `values` as sent and what was wrong with them; the stored values when nil.
    func requirementPage(_ req: Request, values: [String: String]?, errors: [String: String] = [:], status: HTTPStatus = .ok) async throws -> Response {
        let userId = try req.user.id
        let (projectId, id) = try await req.projectChild(RequirementModel.self, "reqId", \.projectId)
        guard let project = try await Records.find(ProjectModel.self, projectId, userId: userId, on: req.db)?.record,
              let requirement = try await Records.find(RequirementModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let page = RequirementPage(project: ProjectDetail(project: project, canvas: try await ProjectService.canvas(of: project, userId: userId, db: req.db)),
                                   requirement: requirement, values: values ?? RequirementPage.values(of: requirement), errors: errors)
        return html(page.render(try await context(req)), status: status)
    }

    /// Change how many skeins a requirement needs, its colour name or its notes.
    @Sendable func updateRequirement(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(RequirementModel.self, "reqId", \.projectId)
        let form = try FormData.parse(req)
        var body: RecordPatch = ["colorName": Self.optional(form, "colorName"), "notes": Self.optional(form, "notes")]
        var errors: [String: String] = [:]
        switch Self.int(form["quantityNeeded"]) {
        case .some(.some(let q)): body["quantityNeeded"] = .number(q)
        default: errors["quantityNeeded"] = "Enter a whole number"
        }
        if form.fields["sectionId"] != nil { body["sectionId"] = Self.optional(form, "sectionId") }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await ProjectService.updateRequirement(try req.writer, id: id, body)
            return projectAnchor(projectId, "threads")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            let sent = ["quantityNeeded": form["quantityNeeded"] ?? "", "colorName": form["colorName"] ?? "", "notes": form["notes"] ?? ""]
            return try await requirementPage(req, values: sent, errors: fields, status: .badRequest)
        }
    }

    @Sendable func updateEntry(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        let form = try FormData.parse(req)
        var body: RecordPatch = ["notes": .string(form["notes"] ?? "")]
        do {
            // A new day moves the entry to that day (noon UTC); the same day keeps its time.
            if let raw = form["date"] {
                guard let day = Self.day(raw) else { throw ValidationError("date", "Use a date like 2026-05-01") }
                let userId = try req.user.id
                let current = try await Records.require(JournalEntryModel.self, id, userId: userId, on: req.db).record.createdAt
                if Layout.date(current) != Layout.date(day) { body["createdAt"] = .time(day.addingTimeInterval(12 * 3600)) }
            }
            _ = try await JournalService.updateEntry(try req.writer, id: id, body)
            return projectAnchor(projectId, "journal")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: .badRequest)
        }
    }

    /// The entry and its photos.
    @Sendable func deleteEntry(req: Request) async throws -> Response {
        let (projectId, id) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        try await JournalService.deleteEntry(try req.writer, id: id)
        return projectAnchor(projectId, "journal")
    }

    /// More photos on an entry written before (after its others). A picture that can't be read
    /// is said on the project's page and nothing is stored.
    @Sendable func addEntryPhotos(req: Request) async throws -> Response {
        let (projectId, entryId) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        do {
            _ = try await JournalService.addImages(try Images.parts(of: req), to: entryId, writer: try req.writer, app: req.application)
            return projectAnchor(projectId, "journal")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: (error as? APIError)?.status ?? .badRequest)
        }
    }

    /// One photo off an entry (the entry and its other photos stay).
    @Sendable func deleteEntryPhoto(req: Request) async throws -> Response {
        let (projectId, entryId) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        try await JournalService.deleteImage(try req.writer, id: req.uuid("imageId"), of: entryId)
        return projectAnchor(projectId, "journal")
    }

    /// A photo one place earlier or later among its entry's.
    @Sendable func moveEntryPhoto(req: Request) async throws -> Response {
        let (projectId, entryId) = try await req.projectChild(JournalEntryModel.self, "entryId", \.projectId)
        let form = try FormData.parse(req)
        guard let step = ["earlier": -1, "later": 1][form["direction"] ?? ""] else {
            return try await projectPage(req, id: projectId, errors: ["direction": "Move a photo earlier or later"], status: .badRequest)
        }
        try await Self.move(JournalImageModel.self, id: try req.uuid("imageId"), by: step, among: "entry_id", of: entryId, req: req)
        return projectAnchor(projectId, "journal")
    }

    /// "2026-05-01" (what a date input sends) as that day's start in UTC.
    static func day(_ text: String) -> Date? {
        guard text.count == 10 else { return nil }
        return Timestamp.date(from: text + "T00:00:00Z")
    }

    /// The dates a stitcher brings along: when it was started (a WIP begun months ago), went to
    /// finishing and was completed — each as the status allows, none before the start.
    @Sendable func projectDates(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let userId = try req.user.id
        guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        var body: RecordPatch = [:]
        var errors: [String: String] = [:]
        let fields: [(String, Bool)] = [("startedAt", project.status != .planned), ("finishingAt", [.atFinishing, .completed].contains(project.status)),
                                        ("completedAt", project.status == .completed)]
        for (name, allowed) in fields where allowed {
            guard let raw = form[name] else {
                if name == "startedAt" { errors[name] = "Enter the day it was started" }
                continue
            }
            if let day = Self.day(raw) { body[name] = .time(day) } else { errors[name] = "Use a date like 2026-05-01" }
        }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await ProjectService.update(try req.writer, id: id, body, keeping: ["status"])
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    /// The size and mesh of a project without a canvas (one with a canvas has the canvas's): a
    /// blank field clears it, a mesh must be a whole number.
    @Sendable func projectSize(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        do {
            var body: RecordPatch = ["size": Self.optional(form, "size")]
            if let raw = form["meshCount"] {
                guard let mesh = Int(raw) else { throw ValidationError(fields: ["meshCount": "Enter a whole number like 13 or 18"]) }
                body["meshCount"] = .number(mesh)
            } else {
                body["meshCount"] = .null
            }
            let userId = try req.user.id
            guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
            guard project.canvasId == nil else {
                throw ValidationError(fields: ["size": "This project has its canvas's size; change it on the canvas"])
            }
            _ = try await ProjectService.update(try req.writer, id: id, body)
            return projectAnchor(id, "project-facts")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func projectNotes(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        do {
            _ = try await ProjectService.update(try req.writer, id: id, ["notes": Self.optional(form, "notes")])
            return projectAnchor(id, "notes")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }
}

extension WebController {
    /// "Choose a picture" of a project without a canvas: one of its journal photos, its pattern's
    /// first page (kept as a picture of its own, so it stays when the pattern goes), or none.
    @Sendable func projectPicture(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let userId = try req.user.id
        guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let choice = try FormData.parse(req)["picture"] ?? ""
        let key: String?
        do {
            key = try await pictureKey(for: choice, project: project, userId: userId, req: req)
        } catch let error as APIError {
            return try await projectPage(req, id: id, errors: ["picture": error.reason], status: error.status)
        }
        _ = try await ProjectService.update(try req.writer, id: id, ["imageKey": .text(key)])
        return projectAnchor(id, "picture")
    }

    /// The picture key a choice names: "" for none, "pattern:ID" for a pattern's first page, or
    /// the key of one of the project's journal photos. Anything else is refused.
    private func pictureKey(for choice: String, project: Project, userId: UUID, req: Request) async throws -> String? {
        guard project.canvasId == nil else { throw APIError(.conflict, "This project shows its canvas's picture") }
        if choice.isEmpty { return nil }
        if choice.hasPrefix("pattern:") {
            guard let patternId = UUID(uuidString: String(choice.dropFirst("pattern:".count))),
                  let pattern = try await Records.find(PatternModel.self, patternId, userId: userId, on: req.db)?.record,
                  pattern.projectId == project.id else { throw APIError(.badRequest, "No such pattern in this project") }
            // A pattern that is a picture is its own first page; a PDF's is the drawn page.
            if let file = try await Images.owned(pattern.fileKey, userId: userId, on: req.db), file.contentType != ImageFormat.pdf.contentType {
                return pattern.fileKey
            }
            guard let data = try await PageFiles.read(pattern.fileKey, page: 1, thumbnail: false, app: req.application) else {
                throw APIError(.conflict, "The pattern's first page is still being drawn: choose it again in a moment")
            }
            let sha = SHA256.hash(data: data).hex
            if let same = try await ImageModel.query(on: req.db).filter(\.$userId == userId).filter(\.$sha256 == sha).first() { return same.id }
            return try await Images.store(data, format: .png, key: ImageKeys.make(for: .png), userId: userId, app: req.application, db: req.db).id
        }
        let entries = try await Records.all(JournalEntryModel.self, userId: userId, where: "project_id", equals: project.id, on: req.db).map(\.id!)
        for entry in entries {
            let photos = try await Records.list(JournalImageModel.self, userId: userId, where: "entry_id", equals: entry, on: req.db)
            if photos.contains(where: { $0.imageKey == choice }) { return choice }
        }
        throw APIError(.badRequest, "Choose one of this project's journal photos or its pattern's first page")
    }
}

/// A record kept in an order the person sets: a project's sections, an entry's photos
/// (`WebController.move`).
protocol Ordered: SyncRecord {
    var sortOrder: Int { get set }
}

extension ProjectSection: Ordered {}
extension JournalImage: Ordered {}
