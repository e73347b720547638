import ServerCommon
import Fluent
import Foundation
import StitchCore
import Vapor

/// The inventory: the list, scan-to-add, a thread added, edited, stepped and deleted.
extension WebController {
    @Sendable func inventory(req: Request) async throws -> Response {
        let userId = try req.user.id
        let all = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
        let q = req.queryText("q") ?? ""
        let brand = req.queryText("brand").flatMap(Rules.clean)
        let fiber = req.queryText("fiberType").flatMap { FiberType(rawValue: $0) }
        let shown = InventoryThread.sortedInInventoryOrder(all.filter { t in
            (brand.map { t.brand.caseInsensitiveCompare($0) == .orderedSame } ?? true) && (fiber.map { t.fiberType == $0 } ?? true) && t.matches(search: q)
        })
        // A page of rows at a time (`InventoryPage.pageSize`); "Show more" asks for the next.
        let window = max(InventoryPage.pageSize, req.query[Int.self, at: "shown"] ?? InventoryPage.pageSize)
        let page = InventoryPage(threads: Array(shown.prefix(window)), matching: shown.count, brands: Self.brands(all), search: q, brand: brand,
                                 fiber: fiber, total: all.count)
        return html(page.render(try await context(req)))
    }

    /// Every thread of the inventory as JSON, in its order, for the page's offline search: the
    /// page keeps it in Cache Storage beside the pages the worker keeps (app.js), so a stitcher
    /// with no signal searches all their threads, not only the rows the page showed. Tagged with
    /// the account's sync version (`cachedList`): a visit that finds nothing changed gets a 304.
    @Sendable func inventoryData(req: Request) async throws -> Response {
        var user = try req.user
        let userId = user.id
        let db = req.db
        // A web session doesn't carry the account's change counter (the API's token check reads
        // it in the same query); read it here, before the threads, for the tag.
        guard let account = try await UserModel.find(userId, on: db) else { throw Abort(.unauthorized) }
        user.syncVersion = account.syncVersion
        req.auth.login(user)
        return try await cachedList(req, kind: "inventory-offline") {
            let threads = InventoryThread.sortedInInventoryOrder(try await Records.list(ThreadModel.self, userId: userId, on: db))
            return try StitchJSON.encodeBytes(OfflineInventory(threads: threads.map(OfflineInventory.Row.init)))
        }.get()
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

    func threadBody(_ form: FormData, errors: inout [String: String]) -> RecordPatch {
        var body: RecordPatch = [:]
        for key in ["colorName", "catalogColorName", "colorHex", "weightOrLength", "barcode", "notes"] { body[key] = .text(form[key]) }
        body["brand"] = .string(form["brand"] ?? "")
        body["number"] = .string(form["number"] ?? "")
        body["fiberType"] = .string(form["fiberType"] ?? "wool")
        switch Self.int(form["quantity"]) {
        case .some(let q): body["quantity"] = .number(q ?? 0)
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
            let (thread, merged) = try await InventoryService.create(try req.writer, body, merge: form["merge"] == "on")
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
                                   alternatives: alternatives, split: InventoryPage.beside(all, current: thread.id)).render(try await context(req)))
    }

    @Sendable func updateThread(req: Request) async throws -> Response {
        let userId = try req.user.id
        let id = try req.uuid("id")
        let form = try FormData.parse(req)
        var errors: [String: String] = [:]
        let body = threadBody(form, errors: &errors)
        do {
            if !errors.isEmpty { throw ValidationError(fields: errors) }
            let thread = try await RecordWrites<ThreadModel>.update(try req.writer, id: id, body)
            return redirect(.inventory, flash: "Saved \(thread.brand) \(thread.number).")
        } catch {
            let all = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
            guard let fields = fieldErrors(error), let thread = all.first(where: { $0.id == id }) else { throw error }
            return html(ThreadFormPage(thread: thread, values: form.fields, errors: fields, brandSuggestions: Self.brands(all),
                                       split: InventoryPage.beside(all, current: id)).render(try await context(req)), status: .badRequest)
        }
    }

    @Sendable func deleteThread(req: Request) async throws -> Response {
        try await RecordWrites<ThreadModel>.delete(try req.writer, id: req.uuid("id"))
        return redirect(.inventory, flash: "Thread deleted.")
    }

    /// The inline −/+: never below zero. Answers JSON to the enhancing script, a redirect otherwise.
    @Sendable func stepThread(req: Request) async throws -> Response {
        let form = try FormData.parse(req)
        let quantity = try await InventoryService.step(try req.uuid("id"), by: Int(form["delta"] ?? "") ?? 0,
                                                       changeId: form["changeId"].flatMap(UUID.init(uuidString:)), writer: try req.writer)
        if req.headers.accept.mediaTypes.contains(.json) {
            return try jsonResponse(["quantity": quantity])
        }
        return req.redirect(to: SiteURL.inventory.path + "#main")
    }
}
