import ServerCommon
import Fluent
import Foundation
import StitchCore
import Vapor

extension WebController {
    // MARK: Inventory

    @Sendable func inventory(req: Request) async throws -> Response {
        let userId = try req.user.id
        let all = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
        let q = req.queryText("q") ?? ""
        let brand = req.queryText("brand").flatMap(Rules.clean)
        let fiber = req.queryText("fiberType").flatMap { FiberType(rawValue: $0) }
        let shown = InventoryThread.sortedInInventoryOrder(all.filter { t in
            (brand.map { t.brand.caseInsensitiveCompare($0) == .orderedSame } ?? true) && (fiber.map { t.fiberType == $0 } ?? true) && t.matches(search: q)
        })
        let page = InventoryPage(threads: shown, brands: Self.brands(all), search: q, brand: brand, fiber: fiber, total: all.count)
        return html(page.render(try await context(req)))
    }

    /// "Match my threads to the catalog" (`CatalogMatching`), its outcome in the flash.
    @Sendable func matchCatalog(req: Request) async throws -> Response {
        let report = try await CatalogMatching.run(userId: try req.user.id, now: req.now, on: req.db)
        return redirect(.inventory, flash: CatalogMatching.summary(report))
    }

    static func brands(_ threads: [InventoryThread]) -> [String] {
        var counts: [String: (String, Int)] = [:]
        for t in threads { counts[t.brand.lowercased(), default: (t.brand, 0)].1 += 1 }
        return counts.values.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : NaturalOrder.areInIncreasingOrder($0.0, $1.0) }.map(\.0)
    }

    func threadBody(_ form: FormData, errors: inout [String: String]) -> [String: Any] {
        var body: [String: Any] = [:]
        for key in ["brand", "number", "colorName", "catalogColorName", "colorHex", "weightOrLength", "barcode", "notes"] { body[key] = form[key] ?? NSNull() }
        body["brand"] = form["brand"] ?? ""
        body["number"] = form["number"] ?? ""
        body["fiberType"] = form["fiberType"] ?? "wool"
        switch Self.int(form["quantity"]) {
        case .some(let q): body["quantity"] = q ?? 0
        case .none: errors["quantity"] = "Enter a whole number"
        }
        return body
    }

    /// The fields a link may fill in (the batch form keeps the brand; a scan brings its barcode
    /// and, when the catalog lists it, the colour).
    static let prefillable = ["brand", "number", "colorName", "catalogColorName", "colorHex", "fiberType", "barcode"]

    @Sendable func newThreadPage(req: Request) async throws -> Response {
        let all = try await Records.list(ThreadModel.self, userId: req.user.id, on: req.db)
        var values = ["quantity": "1"]
        for key in Self.prefillable { values[key] = req.queryText(key) ?? "" }
        let page = ThreadFormPage(thread: nil, values: values, brandSuggestions: Self.brands(all),
                                  addAnother: req.queryText("another") != "off", saved: req.queryText("saved"), note: req.queryText("note"))
        return html(page.render(try await context(req)))
    }

    // MARK: Scan

    @Sendable func scanPage(req: Request) async throws -> Response {
        html(ScanPage().render(try await context(req)))
    }

    /// A photo or typed code (`BarcodeScanning`): one owned thread → its page; several → listed
    /// here; a catalog colour or an unknown code → the add form, filled in, barcode included.
    @Sendable func scan(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let input: BarcodeScanning.Input
        if let photo = form.files.first(where: { $0.name == "image" })?.data {
            input = .photo(photo)
        } else if let code = form["code"] {
            input = .code(code)
        } else {
            return html(ScanPage(errors: ["image": "Take a photo of the barcode, or type its digits"]).render(try await context(req)), status: .badRequest)
        }
        let result: BarcodeScan
        do {
            result = try await BarcodeScanning.scan(input, userId: try req.user.id, app: req.application, db: req.db)
        } catch let error as APIError where error.status.code < 500 {
            // A typed code's problem sits by its field; a photo's is the page's one message.
            let errors = error.fields?["code"].map { ["code": $0] } ?? ["form": error.reason]
            return html(ScanPage(errors: errors, code: form["code"] ?? "").render(try await context(req)), status: error.status)
        }
        switch result.outcome {
        case .owned where result.threads.count == 1:
            return redirect(.thread(result.threads[0].id.wireText), flash: "Scanned: \(result.message).")
        case .owned:
            return html(ScanPage(result: result).render(try await context(req)))
        case .catalog, .unknown:
            var query: [String: String?] = ["barcode": result.code, "another": "off", "note": result.message + "."]
            if let entry = result.catalogEntry {
                query.merge(["brand": entry.brand, "number": entry.number, "colorName": entry.name, "catalogColorName": entry.name,
                             "colorHex": entry.hex, "fiberType": entry.fiberType.rawValue]) { _, new in new }
            }
            let response = Response(status: .seeOther)
            response.headers.replaceOrAdd(name: .location, value: SiteURL.newThread.path(query: query))
            return response
        }
    }

    @Sendable func createThread(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        let body = threadBody(form, errors: &errors)
        let addAnother = form["addAnother"] == "on"
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            let (thread, merged) = try await ThreadController.create(req, body: body, merge: form["merge"] == "on")
            if merged { return redirect(.inventory, flash: "Added to \(thread.brand) \(thread.number): you have \(thread.quantity) now.") }
            if addAnother {
                // Batch entry: back to an empty form that keeps the brand.
                let response = Response(status: .seeOther)
                response.headers.replaceOrAdd(name: .location, value: SiteURL.newThread.path(query: ["brand": thread.brand, "saved": "Added \(thread.brand) \(thread.number)."]))
                return response
            }
            return redirect(.inventory, flash: "Added \(thread.brand) \(thread.number).")
        } catch {
            let all = try await Records.list(ThreadModel.self, userId: req.user.id, on: req.db)
            if let duplicate = error as? DuplicateThread {
                let page = ThreadFormPage(thread: nil, values: form.fields, errors: ["number": duplicate.message], brandSuggestions: Self.brands(all),
                                          addAnother: addAnother, duplicate: duplicate.existing)
                return html(page.render(try await context(req)), status: .conflict)
            }
            guard let fields = fieldErrors(error) else { throw error }
            let page = ThreadFormPage(thread: nil, values: form.fields, errors: fields.merging(errors) { a, _ in a }, brandSuggestions: Self.brands(all), addAnother: addAnother)
            return html(page.render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func editThreadPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let thread = try await Records.find(ThreadModel.self, try req.uuid("id"), userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let all = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
        let alternatives = try req.application.threadCatalog.alternatives(brand: thread.brand, number: thread.number, hex: thread.colorHex)
        return html(ThreadFormPage(thread: thread, values: ThreadFormPage.values(of: thread), brandSuggestions: Self.brands(all),
                                   alternatives: alternatives).render(try await context(req)))
    }

    @Sendable func updateThread(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        let body = threadBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            let thread = try await RecordWrites<ThreadModel>.update(req, id: id, body: body)
            return redirect(.inventory, flash: "Saved \(thread.brand) \(thread.number).")
        } catch {
            guard let fields = fieldErrors(error), let thread = try await Records.find(ThreadModel.self, id, userId: userId, on: req.db)?.record else { throw error }
            return html(ThreadFormPage(thread: thread, values: form.fields, errors: fields, brandSuggestions: []).render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func deleteThread(req: Request) async throws -> Response {
        _ = try await RecordWrites<ThreadModel>.delete(req, id: req.uuid("id"))
        return redirect(.inventory, flash: "Thread deleted.")
    }

    /// The inline −/+: never below zero. Answers JSON to the enhancing script, a redirect otherwise.
    @Sendable func stepThread(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let delta = Int(try FormData.parse(req)["delta"] ?? "") ?? 0
        guard let current = try await Records.find(ThreadModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        var quantity = max(0, current.quantity + max(-1000, min(1000, delta)))
        if quantity != current.quantity {
            quantity = try await RecordWrites<ThreadModel>.update(req, id: id, body: ["quantity": quantity]).quantity
        }
        if req.headers.accept.mediaTypes.contains(.json) {
            return try jsonResponse(["quantity": quantity])
        }
        return req.redirect(to: SiteURL.inventory.path + "#main")
    }

    // MARK: Stash

    @Sendable func stash(req: Request) async throws -> Response {
        let all = try await Records.list(CanvasModel.self, userId: req.user.id, on: req.db)
        let q = req.queryText("q") ?? ""
        let shown = all.filter { $0.matches(search: q) }.sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        return html(StashPage(canvases: shown, search: q, total: all.count).render(try await context(req)))
    }

    @Sendable func newCanvasPage(req: Request) async throws -> Response {
        // Batch entry keeps what repeats: the designer of the canvas just added.
        let designer = req.queryText("designer")
        return html(CanvasFormPage(canvas: nil, values: designer.map { ["designer": $0] } ?? [:], addAnother: req.queryText("another") == "on")
            .render(try await context(req)))
    }

    func canvasBody(_ form: FormData, errors: inout [String: String]) -> [String: Any] {
        var body: [String: Any] = [:]
        for key in ["size", "notes"] { body[key] = form[key] ?? NSNull() }
        body["designer"] = form["designer"] ?? ""
        body["designName"] = form["designName"] ?? ""
        if let raw = form["meshCount"] {
            if let mesh = Int(raw) { body["meshCount"] = mesh } else { errors["meshCount"] = "Enter a positive number" }
        } else { body["meshCount"] = NSNull() }
        if let raw = form["acquiredAt"] {
            if let date = Timestamp.date(from: raw + "T00:00:00Z") ?? Timestamp.date(from: raw) { body["acquiredAt"] = ts(date) } else { errors["acquiredAt"] = "Use a date like 2026-05-01" }
        } else { body["acquiredAt"] = NSNull() }
        return body
    }

    /// Stores an uploaded photo first (checked by its bytes); its key goes into the canvas.
    func storePhoto(_ form: FormData, req: Request) async throws -> String? {
        guard let file = form.files.first(where: { $0.name == "image" }) else { return nil }
        return try await Images.store(file.data, userId: req.user.id, app: req.application, db: req.db).id
    }

    @Sendable func createCanvas(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        var body = canvasBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            // Check the fields before storing the photo, so a bad form leaves no file behind.
            _ = try Canvas(designer: body["designer"] as? String ?? "", designName: body["designName"] as? String ?? "",
                           meshCount: body["meshCount"] as? Int, createdAt: Date(), updatedAt: Date()).validated()
            if let key = try await storePhoto(form, req: req) { body["imageKey"] = key }
            let canvas = try await RecordWrites<CanvasModel>.create(req, body: body)
            if form["addAnother"] == "on" {
                let response = Response(status: .seeOther)
                response.headers.replaceOrAdd(name: .location, value: SiteURL.newCanvas.path(query: Flash.query("Added \(canvas.designName).").merging(["another": "on", "designer": canvas.designer]) { a, _ in a }))
                return response
            }
            return redirect(.canvas(canvas.id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return html(CanvasFormPage(canvas: nil, values: form.fields, errors: fields.merging(errors) { a, _ in a }, addAnother: form["addAnother"] == "on")
                .render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func canvasPage(req: Request) async throws -> Response {
        let userId = try req.user.id
        guard let canvas = try await Records.find(CanvasModel.self, try req.uuid("id"), userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let project = try await Records.list(ProjectModel.self, userId: userId, on: req.db).first { $0.canvasId == canvas.id }
        return html(CanvasDetailPage(canvas: canvas, project: project).render(try await context(req)))
    }

    @Sendable func editCanvasPage(req: Request) async throws -> Response {
        guard let canvas = try await Records.find(CanvasModel.self, try req.uuid("id"), userId: req.user.id, on: req.db)?.record else { throw Abort(.notFound) }
        return html(CanvasFormPage(canvas: canvas, values: CanvasFormPage.values(of: canvas)).render(try await context(req)))
    }

    @Sendable func updateCanvas(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard let before = try await Records.find(CanvasModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        var body = canvasBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            if let key = try await storePhoto(form, req: req) { body["imageKey"] = key }
            let canvas = try await RecordWrites<CanvasModel>.update(req, id: id, body: body)
            if let old = before.imageKey, old != canvas.imageKey { try await Images.removeIfUnreferenced(old, app: req.application, db: req.db) }
            return redirect(.canvas(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return html(CanvasFormPage(canvas: before, values: form.fields, errors: fields.merging(errors) { a, _ in a }).render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func deleteCanvasPage(req: Request) async throws -> Response {
        guard let canvas = try await Records.find(CanvasModel.self, try req.uuid("id"), userId: req.user.id, on: req.db)?.record else { throw Abort(.notFound) }
        return html(DeleteCanvasPage(canvas: canvas).render(try await context(req)))
    }

    @Sendable func deleteCanvas(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        do {
            _ = try await CanvasController().delete(req: req)
            return redirect(.stash, flash: "Canvas deleted.")
        } catch let error as APIError where error.status == .conflict {
            guard let canvas = try await Records.find(CanvasModel.self, id, userId: req.user.id, on: req.db)?.record else { throw Abort(.notFound) }
            return html(DeleteCanvasPage(canvas: canvas, error: error.reason).render(try await context(req)), status: .conflict)
        }
    }

    // MARK: Projects

    @Sendable func projects(req: Request) async throws -> Response {
        let userId = try req.user.id
        let canvases = try await ProjectController.canvases(userId: userId, db: req.db)
        let projects = try await Records.list(ProjectModel.self, userId: userId, on: req.db)
            .sorted { ($0.startedAt, $0.id.text) > ($1.startedAt, $1.id.text) }
            .map { ProjectDetail(project: $0, canvas: $0.canvasId.flatMap { canvases[$0] }) }
        return html(ProjectsPage(projects: projects).render(try await context(req)))
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
        let userId = try req.user.id
        let now = req.now
        // "Plan" keeps it planned (not started): readiness says whether it can be started.
        let status = form["status"] == ProjectStatus.planned.rawValue ? ProjectStatus.planned : .wip
        // From a canvas of the stash, or without one (a chart, or nothing yet) under a name.
        var body: [String: Any] = [:]
        if let canvasId = form["canvasId"], !canvasId.isEmpty {
            body["canvasId"] = canvasId
        } else {
            let name = (form["name"] ?? "").trimmedWhitespace
            guard !name.isEmpty else { return redirect(.startProject, flash: "Give a project without a canvas a name") }
            body["name"] = name
        }
        do {
            let project = try await RecordWrites<ProjectModel>.create(
                req, body: body, defaults: ["status": status.rawValue, "startedAt": ts(now)],
                check: { project, db in try await ProjectController.checkCanvas(project, userId: userId, db: db) })
            return redirect(.project(project.id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.startProject, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    func projectPage(_ req: Request, id: UUID, errors: [String: String] = [:], status: HTTPStatus = .ok) async throws -> Response {
        let userId = try req.user.id
        guard let project = try await Records.find(ProjectModel.self, id, userId: userId, on: req.db)?.record else { throw Abort(.notFound) }
        let canvas = try await ProjectController.canvas(of: project, userId: userId, db: req.db)
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
            .sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) }
        let requirements = try await Records.list(RequirementModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
        let inventory = InventoryThread.sortedInInventoryOrder(try await Records.list(ThreadModel.self, userId: userId, on: req.db))
        let entries = try await Records.list(JournalEntryModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        let images = try await JournalController.images(of: entries.map(\.id), userId: userId, db: req.db)
        var patterns: [PatternDetail] = []
        for pattern in try await PatternController.patterns(of: id, userId: userId, db: req.db) {
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
            requirementRecords: Dictionary(requirements.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }), addedByHand: onList)
        return html(page.render(try await context(req)), status: status)
    }

    @Sendable func projectPage(req: Request) async throws -> Response { try await projectPage(req, id: req.uuid("id")) }

    @Sendable func projectStatus(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        do {
            _ = try await RecordWrites<ProjectModel>.update(req, id: id, body: ["status": form["status"] ?? ""], immutable: ["canvasId"],
                                                            transform: ProjectController.stampStatus)
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func deleteProject(req: Request) async throws -> Response {
        _ = try await ProjectController().delete(req: req)
        return redirect(.projects, flash: "Project deleted.")
    }

    @Sendable func addEntry(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        guard try await Records.find(ProjectModel.self, id, userId: userId, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        let photos = form.files.filter { ["images", "image"].contains($0.name) }.map(\.data)
        do {
            for data in photos { _ = try Images.check(data, maxBytes: req.config.maxImageBytes) }
            if form["notes"] == nil && photos.isEmpty { throw ValidationError(fields: ["notes": "Write a note or add a photo"]) }
            let now = req.now
            // An entry written up later is dated the day it tells of (noon UTC); today is now.
            var dated = now
            if let raw = form["date"] {
                guard let day = Self.day(raw) else { throw ValidationError("date", "Use a date like 2026-05-01") }
                if Layout.date(day) != Layout.date(now) { dated = day.addingTimeInterval(12 * 3600) }
            }
            var keys: [String] = []
            for data in photos { keys.append(try await Images.store(data, userId: userId, app: req.application, db: req.db).id!) }
            let storedKeys = keys
            let entryDate = dated
            _ = try await req.db.writeTransaction { db in
                let version = try await SyncVersion.next(for: userId, on: db)
                let entry = try JournalEntry(projectId: id, notes: form["notes"] ?? "", createdAt: entryDate, updatedAt: now).normalized.validated()
                try await Records.create(entry, as: JournalEntryModel.self, userId: userId, version: version, on: db)
                for (order, key) in storedKeys.enumerated() {
                    try await Records.create(JournalImage(entryId: entry.id, imageKey: key, sortOrder: order, createdAt: now, updatedAt: now),
                                             as: JournalImageModel.self, userId: userId, version: version, on: db)
                }
            }
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
        let byEntry = try await JournalController.images(of: entries.map(\.id), userId: userId, db: req.db)
        let images = entries.flatMap { byEntry[$0.id] ?? [] }
        guard let index = images.firstIndex(where: { $0.id == imageId }) else { throw Abort(.notFound) }
        let title = project.title(canvas: try await ProjectController.canvas(of: project, userId: userId, db: req.db))
        return html(PhotoViewerPage(projectId: id, title: title, images: images, index: index).render(try await context(req)))
    }

    @Sendable func addSection(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let userId = try req.user.id
        guard try await Records.find(ProjectModel.self, id, userId: userId, on: req.db) != nil else { throw Abort(.notFound) }
        let form = try FormData.parse(req)
        let existing = try await Records.all(SectionModel.self, userId: userId, where: "project_id", equals: id, on: req.db)
        do {
            _ = try await RecordWrites<SectionModel>.create(req, body: ["name": form["name"] ?? ""],
                defaults: ["sortOrder": (existing.map(\.sortOrder).max() ?? -1) + 1, "status": "not_started"], overrides: ["projectId": id.text])
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
        var body: [String: Any] = ["threadId": form["threadId"] ?? NSNull(), "sectionId": form["sectionId"] ?? NSNull(),
                                   "brand": form["brand"] ?? "", "number": form["number"] ?? ""]
        var errors: [String: String] = [:]
        switch Self.int(form["quantityNeeded"]) {
        case .some(let q): body["quantityNeeded"] = q ?? 1
        case .none: errors["quantityNeeded"] = "Enter a whole number"
        }
        if let threadId = form["threadId"].flatMap(UUID.init(text:)),
           let thread = try await Records.find(ThreadModel.self, threadId, userId: userId, on: req.db) {
            if form["brand"] == nil { body["brand"] = thread.brand }
            if form["number"] == nil { body["number"] = thread.number }
            if let color = thread.colorName { body["colorName"] = color }
        }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await RecordWrites<RequirementModel>.create(req, body: body, overrides: ["projectId": id.text],
                check: { requirement, db in try await ProjectController.checkReferences(requirement, userId: userId, db: db) })
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func deleteRequirement(req: Request) async throws -> Response {
        let (projectId, reqId) = try await ProjectController.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        _ = try await RecordWrites<RequirementModel>.delete(req, id: reqId)
        return redirect(.project(projectId.wireText))
    }

    // MARK: Shopping

    @Sendable func shopping(req: Request) async throws -> Response {
        let items = try await ShoppingController.compute(userId: req.user.id, db: req.db).items
        let catalog = try req.application.threadCatalog
        var alternatives: [String: CatalogAlternatives] = [:]
        for item in items {
            alternatives["\(item.brand) \(item.number)"] = catalog.alternatives(brand: item.brand, number: item.number, hex: nil, limit: 1)
        }
        return html(ShoppingPage(items: items, alternatives: alternatives).render(try await context(req)))
    }

    /// The list as plain text, to send or paste (`ShoppingList.plainText`).
    @Sendable func shoppingText(req: Request) async throws -> Response {
        let items = try await ShoppingController.compute(userId: req.user.id, db: req.db).items
        return Response(status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store",
                                               "Content-Disposition": "inline; filename=\"shopping-list.txt\""],
                        body: .init(string: ShoppingList.plainText(items, asOf: req.now)))
    }

    /// Puts a thread on the list by hand: from the shopping page ("running low"), a thread's page,
    /// or a short requirement of a project the list doesn't count (planned). Goes back where it came from.
    @Sendable func addToShoppingList(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let back = Self.localPath(form["back"]) ?? SiteURL.shopping.path
        var body: [String: Any] = ["brand": form["brand"] ?? "", "number": form["number"] ?? "", "quantity": Int(form["quantity"] ?? "") ?? 0]
        if let color = form["colorName"], !color.isEmpty { body["colorName"] = color }
        if let notes = form["notes"], !notes.isEmpty { body["notes"] = notes }
        do {
            let (line, _) = try await ShoppingController.addLine(body, userId: req.user.id, req: req)
            return redirect(to: back, flash: "On your shopping list: \(line.brand) \(line.number), \(line.quantity) added by hand.")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(to: back, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    /// Sets a line aside without buying.
    @Sendable func dismissShoppingLine(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let body = DismissRequest(brand: form["brand"] ?? "", number: form["number"] ?? "")
        do {
            try await ShoppingController.dismiss(try body.validated(), userId: req.user.id, req: req)
            return redirect(.shopping, flash: "\(body.brand) \(body.number) is set aside until your projects need a different number of it.")
        } catch let error as APIError where error.status == .notFound {
            return redirect(.shopping, flash: error.reason)
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.shopping, flash: fields.values.sorted().joined(separator: "; "))
        }
    }

    /// A path on this site to go back to (never another site's address).
    static func localPath(_ given: String?) -> String? {
        guard let given, given.hasPrefix("/app/"), !given.hasPrefix("//"), !given.contains("\\") else { return nil }
        return given
    }

    @Sendable func buy(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let quantity = Int(form["quantity"] ?? "") ?? 0
        let purchase = PurchaseRequest(brand: form["brand"] ?? "", number: form["number"] ?? "", quantity: quantity, colorName: form["colorName"])
        do {
            if let id = form["changeId"].flatMap(UUID.init(uuidString:)) {
                // Sent by the page with its id: a second copy (kept when the first one's answer was lost) adds nothing.
                guard let thread = try await Self.applyPurchase(purchase, id: id, userId: req.user.id, req: req) else {
                    return redirect(.shopping, flash: "That purchase was already added.")
                }
                return redirect(.shopping, flash: "Added \(quantity) × \(thread.brand) \(thread.number) to your inventory.")
            }
            let thread = try await ShoppingController.purchase(purchase, userId: req.user.id, req: req).thread
            return redirect(.shopping, flash: "Added \(quantity) × \(thread.brand) \(thread.number) to your inventory.")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return redirect(.shopping, flash: fields.values.sorted().joined(separator: "; "))
        }
    }
}

// MARK: - Editing a project's parts where they are shown

extension WebController {
    /// The form's text for an optional field: empty clears it.
    static func optional(_ form: FormData, _ name: String) -> Any { form[name] ?? NSNull() }

    func projectAnchor(_ projectId: UUID, _ anchor: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: SiteURL.project(projectId.wireText).path + "#" + anchor)
        return response
    }

    /// Rename a section, or change its status.
    @Sendable func updateSection(req: Request) async throws -> Response {
        let (projectId, id) = try await ProjectController.child(SectionModel.self, req, param: "sectionId", projectColumn: \.projectId)
        let form = try FormData.parse(req)
        do {
            _ = try await RecordWrites<SectionModel>.update(req, id: id, body: ["name": form["name"] ?? "", "status": form["status"] ?? ""],
                                                            immutable: ["projectId"])
            return projectAnchor(projectId, "threads")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: .badRequest)
        }
    }

    /// Move a section one place up or down: the sections are numbered again in their new order,
    /// in one write, so every device sees the same order.
    @Sendable func moveSection(req: Request) async throws -> Response {
        let (projectId, id) = try await ProjectController.child(SectionModel.self, req, param: "sectionId", projectColumn: \.projectId)
        let form = try FormData.parse(req)
        guard let step = ["up": -1, "down": 1][form["direction"] ?? ""] else {
            return try await projectPage(req, id: projectId, errors: ["direction": "Move a section up or down"], status: .badRequest)
        }
        let userId = try req.user.id
        let now = req.now
        try await req.db.writeTransaction { db in
            let models = try await Records.matching(SectionModel.self, userId: userId, on: db) { $0.where("project_id", .equal, SQLUUID(projectId)) }
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
        return projectAnchor(projectId, "threads")
    }

    /// Its threads stay with the project, under "Other threads".
    @Sendable func deleteSection(req: Request) async throws -> Response {
        let projectId = try req.uuid("id")
        _ = try await ProjectController().deleteSection(req: req)
        return projectAnchor(projectId, "threads")
    }

    /// Change how many skeins a requirement needs, its colour name or its notes.
    @Sendable func updateRequirement(req: Request) async throws -> Response {
        let userId = try req.user.id
        let (projectId, id) = try await ProjectController.child(RequirementModel.self, req, param: "reqId", projectColumn: \.projectId)
        let form = try FormData.parse(req)
        var body: [String: Any] = ["colorName": Self.optional(form, "colorName"), "notes": Self.optional(form, "notes")]
        var errors: [String: String] = [:]
        switch Self.int(form["quantityNeeded"]) {
        case .some(.some(let q)): body["quantityNeeded"] = q
        default: errors["quantityNeeded"] = "Enter a whole number"
        }
        if form.fields["sectionId"] != nil { body["sectionId"] = Self.optional(form, "sectionId") }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await RecordWrites<RequirementModel>.update(req, id: id, body: body, immutable: ["projectId"], check: { requirement, db in
                try await ProjectController.checkReferences(requirement, userId: userId, db: db)
            })
            return projectAnchor(projectId, "threads")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: .badRequest)
        }
    }

    @Sendable func updateEntry(req: Request) async throws -> Response {
        let (projectId, id) = try await ProjectController.child(JournalEntryModel.self, req, param: "entryId", projectColumn: \.projectId)
        let form = try FormData.parse(req)
        var body: [String: Any] = ["notes": form["notes"] ?? ""]
        do {
            // A new day moves the entry to that day (noon UTC); the same day keeps its time.
            if let raw = form["date"] {
                guard let day = Self.day(raw) else { throw ValidationError("date", "Use a date like 2026-05-01") }
                let userId = try req.user.id
                let current = try await Records.require(JournalEntryModel.self, id, userId: userId, on: req.db).record.createdAt
                if Layout.date(current) != Layout.date(day) { body["createdAt"] = ts(day.addingTimeInterval(12 * 3600)) }
            }
            _ = try await RecordWrites<JournalEntryModel>.update(req, id: id, body: body, immutable: ["projectId"], clientMayDate: true)
            return projectAnchor(projectId, "journal")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: projectId, errors: fields, status: .badRequest)
        }
    }

    /// The entry and its photos.
    @Sendable func deleteEntry(req: Request) async throws -> Response {
        let projectId = try req.uuid("id")
        _ = try await JournalController().delete(req: req)
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
        var body: [String: Any] = [:]
        var errors: [String: String] = [:]
        let fields: [(String, Bool)] = [("startedAt", project.status != .planned), ("finishingAt", [.atFinishing, .completed].contains(project.status)),
                                        ("completedAt", project.status == .completed)]
        for (name, allowed) in fields where allowed {
            guard let raw = form[name] else {
                if name == "startedAt" { errors[name] = "Enter the day it was started" }
                continue
            }
            if let day = Self.day(raw) { body[name] = ts(day) } else { errors[name] = "Use a date like 2026-05-01" }
        }
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            _ = try await RecordWrites<ProjectModel>.update(req, id: id, body: body, immutable: ["canvasId", "status"])
            return redirect(.project(id.wireText))
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }

    @Sendable func projectNotes(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        do {
            _ = try await RecordWrites<ProjectModel>.update(req, id: id, body: ["notes": Self.optional(form, "notes")], immutable: ["canvasId"])
            return projectAnchor(id, "notes")
        } catch {
            guard let fields = fieldErrors(error) else { throw error }
            return try await projectPage(req, id: id, errors: fields, status: .badRequest)
        }
    }
}
