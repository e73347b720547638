import Fluent
import Foundation
import StitchCore
import Vapor

/// The shopping list: computed from the projects being stitched and the inventory
/// (`ShoppingList.compute`), with the stitcher's own lines (`ShoppingLine`: threads added by hand,
/// lines set aside) beside it; buying adds to the inventory.
struct ShoppingController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let shopping = routes.grouped("shopping-list")
        shopping.get(use: list)
        shopping.post("purchase", use: purchase)
        shopping.post("dismiss", use: dismiss)
        let lines = shopping.grouped("lines")
        lines.get(use: listLines)
        lines.post(use: addLine)
        lines.get(":id", use: showLine)
        lines.put(":id", use: updateLine)
        lines.delete(":id", use: deleteLine)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        try respond(try await Self.compute(userId: req.user.id, db: req.db))
    }

    static func compute(userId: UUID, db: any Database) async throws -> ShoppingListResponse {
        let projects = try await Records.list(ProjectModel.self, userId: userId, on: db)
        let canvases = try await ProjectController.canvases(userId: userId, db: db)
        let requirements = try await Records.list(RequirementModel.self, userId: userId, on: db)
        let inventory = InventoryIndex(try await Records.list(ThreadModel.self, userId: userId, on: db))
        let lines = try await Records.list(ShoppingLineModel.self, userId: userId, on: db)
        let titled = projects.map { ($0, $0.title(canvas: $0.canvasId.flatMap { canvases[$0] })) }
        return ShoppingListResponse(items: ShoppingList.compute(projects: titled, requirements: requirements, inventory: inventory, lines: lines))
    }

    /// "Bought": adds the skeins to the inventory thread with that brand and number, creating it
    /// if there is none, in one transaction. Answers the thread.
    @Sendable
    func purchase(req: Request) async throws -> Response {
        let body = try req.decodeJSON(PurchaseRequest.self)
        let (thread, created) = try await Self.purchase(body, userId: req.user.id, req: req)
        return try respond(thread, status: created ? .created : .ok)
    }

    /// "Bought": adds the skeins to the inventory thread with that brand and number, creating it
    /// if there is none, and takes them off what was added by hand beyond the projects' shortfall
    /// (`ShoppingList.linesAfterBuying`), in one transaction.
    static func purchase(_ body: PurchaseRequest, userId: UUID, req: Request) async throws -> (thread: InventoryThread, created: Bool) {
        let now = req.now
        return try await req.db.writeTransaction { db in
            try await purchase(body, userId: userId, now: now, in: db)
        }
    }

    /// The purchase's writes (`ShoppingList.purchase`), in the caller's write transaction.
    static func purchase(_ body: PurchaseRequest, userId: UUID, now: Date, in db: any Database) async throws -> (thread: InventoryThread, created: Bool) {
        _ = try body.validated()
        let version = try await SyncVersion.next(for: userId, on: db)
        let threads = try await Records.list(ThreadModel.self, userId: userId, on: db)
        let list = try await compute(userId: userId, db: db).items
        let lines = try await Records.list(ShoppingLineModel.self, userId: userId, on: db)
        let outcome: Purchase
        do { outcome = try ShoppingList.purchase(body, threads: threads, list: list, lines: lines, now: now) } catch {
            // The request was valid on its own (above): too many with what is already there is a
            // conflict with the stored state, not a malformed request.
            throw APIError(.conflict, "That would be more skeins than a thread can hold", fields: error.fields)
        }
        try await write(outcome.lines, userId: userId, version: version, db: db)
        if outcome.created {
            try await Records.create(outcome.thread, as: ThreadModel.self, userId: userId, version: version, on: db)
        } else {
            let model = try await Records.require(ThreadModel.self, outcome.thread.id, userId: userId, on: db)
            try await Records.update(model, to: outcome.thread, version: version, on: db)
        }
        return (outcome.thread, outcome.created)
    }

    /// Sets a thread's line aside without buying (`ShoppingList.linesAfterDismissing`). Answers the
    /// list as it is now; 404 when the thread is not on it.
    @Sendable
    func dismiss(req: Request) async throws -> Response {
        let body = try req.decodeJSON(DismissRequest.self).validated()
        try await Self.dismiss(body, userId: req.user.id, req: req)
        return try respond(try await Self.compute(userId: req.user.id, db: req.db))
    }

    static func dismiss(_ body: DismissRequest, userId: UUID, req: Request) async throws {
        let now = req.now
        let key = ThreadKey(brand: body.brand, number: body.number)
        try await req.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            guard let item = try await compute(userId: userId, db: db).items.first(where: { $0.key == key }) else {
                throw APIError(.notFound, "\(body.brand) \(body.number) is not on your shopping list")
            }
            let lines = try await Records.list(ShoppingLineModel.self, userId: userId, on: db)
            try await write(ShoppingList.linesAfterDismissing(item, lines: lines, now: now), userId: userId, version: version, db: db)
        }
    }

    // MARK: Lines written by hand

    /// The stitcher's own lines (added by hand, set aside), oldest first.
    @Sendable
    func listLines(req: Request) async throws -> Response {
        let lines = try await Records.list(ShoppingLineModel.self, userId: req.user.id, on: req.db)
            .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
        return try respond(lines)
    }

    @Sendable
    func showLine(req: Request) async throws -> Response {
        try respond(try await Records.require(ShoppingLineModel.self, req.uuid("id"), userId: req.user.id, on: req.db).record)
    }

    /// Adds a thread to the list by hand; a second line for the same thread adds to the first
    /// (200 with it; 201 for a new line).
    @Sendable
    func addLine(req: Request) async throws -> Response {
        let (line, merged) = try await Self.addLine(try JSONMerge.object(from: req), userId: req.user.id, req: req)
        return try respond(line, status: merged ? .ok : .created)
    }

    static func addLine(_ body: [String: Any], userId: UUID, req: Request) async throws -> (line: ShoppingLine, merged: Bool) {
        let now = req.now
        let id = try JSONMerge.clientId(body) ?? UUID()
        var fields = body
        fields.removeValue(forKey: "deletedAt")
        // Only a line to buy is written here; setting a line aside is `dismiss`.
        let line: ShoppingLine = try JSONMerge.create(fields, defaults: ["quantity": 1],
            protected: ["id": id.text, "kind": ShoppingLineKind.added.rawValue, "createdAt": ts(now), "updatedAt": ts(now)])
        let record = try line.normalized.validated()
        return try await req.db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            if try await Records.idExists(ShoppingLineModel.self, id, on: db) {
                throw APIError(.conflict, "A record with this id already exists", fields: ["id": "Already in use"])
            }
            let lines = try await Records.list(ShoppingLineModel.self, userId: userId, on: db)
            let outcome: (line: ShoppingLine, changed: [ShoppingLine], merged: Bool)
            do { outcome = try ShoppingList.linesAfterAdding(record, lines: lines, now: now) } catch let error as ValidationError {
                throw APIError(.conflict, "That would be more skeins than a line can hold", fields: error.fields)
            }
            try await write(try outcome.changed.map { try $0.normalized.validated() }, userId: userId, version: version, db: db)
            return (outcome.line, outcome.merged)
        }
    }

    /// Changes a line's quantity, colour name or notes (its kind stays).
    @Sendable
    func updateLine(req: Request) async throws -> Response {
        try respond(try await RecordWrites<ShoppingLineModel>.update(req, id: req.uuid("id"), immutable: ["kind"]))
    }

    @Sendable
    func deleteLine(req: Request) async throws -> HTTPStatus {
        try await RecordWrites<ShoppingLineModel>.delete(req, id: req.uuid("id"))
    }

    /// Writes lines as `ShoppingList`'s rules answer them: an update where the line is stored,
    /// otherwise a new one; all at one sync version.
    static func write(_ lines: [ShoppingLine], userId: UUID, version: Int64, db: any Database) async throws {
        for line in lines {
            if let model = try await Records.find(ShoppingLineModel.self, line.id, userId: userId, on: db) {
                try await Records.update(model, to: line, version: version, on: db)
            } else {
                try await Records.create(line, as: ShoppingLineModel.self, userId: userId, version: version, on: db)
            }
        }
    }
}
