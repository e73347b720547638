import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The shopping list (`ShoppingList` in StitchCore holds its rules): computed, bought from, set
/// aside and added to by hand — for the API (`ShoppingController`), the web app's pages and the
/// web app's offline purchases alike. Each takes what it needs, typed; none reads a request.
enum ShoppingService {
    /// What the list is computed from, each of the account's tables read once: projects (with
    /// their titles), requirements, threads and the stitcher's own lines.
    struct Tables {
        var projects: [(Project, String)]
        var requirements: [ProjectThread]
        var threads: [InventoryThread]
        var lines: [ShoppingLine]

        static func read(userId: UUID, db: any Database) async throws -> Tables {
            let projects = try await Records.list(ProjectModel.self, userId: userId, on: db)
            let canvases = try await ProjectService.canvases(userId: userId, db: db)
            return Tables(projects: projects.map { ($0, $0.title(canvas: $0.canvasId.flatMap { canvases[$0] })) },
                          requirements: try await Records.list(RequirementModel.self, userId: userId, on: db),
                          threads: try await Records.list(ThreadModel.self, userId: userId, on: db),
                          lines: try await Records.list(ShoppingLineModel.self, userId: userId, on: db))
        }

        /// The list as these tables make it.
        var items: [ShoppingItem] {
            ShoppingList.compute(projects: projects, requirements: requirements, inventory: InventoryIndex(threads), lines: lines)
        }
    }

    static func compute(userId: UUID, db: any Database) async throws -> ShoppingListResponse {
        ShoppingListResponse(items: try await Tables.read(userId: userId, db: db).items)
    }

    /// "Bought": adds the skeins to the inventory thread with that brand and number, creating it
    /// if there is none, and takes them off what was added by hand beyond the projects' shortfall
    /// (`ShoppingList.linesAfterBuying`), in one transaction.
    static func purchase(_ body: PurchaseRequest, userId: UUID, now: Date, db: any Database) async throws -> (thread: InventoryThread, created: Bool) {
        try await db.writeTransaction { db in
            try await purchase(body, userId: userId, now: now, in: db)
        }
    }

    /// The purchase's writes (`ShoppingList.purchase`), in the caller's write transaction.
    static func purchase(_ body: PurchaseRequest, userId: UUID, now: Date, in db: any Database) async throws -> (thread: InventoryThread, created: Bool) {
        _ = try body.validated()
        let version = try await SyncVersion.next(for: userId, on: db)
        let tables = try await Tables.read(userId: userId, db: db)
        let outcome: Purchase
        do { outcome = try ShoppingList.purchase(body, threads: tables.threads, list: tables.items, lines: tables.lines, now: now) } catch {
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

    /// Sets a thread's line aside without buying (`ShoppingList.linesAfterDismissing`); 404 when
    /// the thread is not on the list.
    static func dismiss(_ body: DismissRequest, userId: UUID, now: Date, db: any Database) async throws {
        let key = ThreadKey(brand: body.brand, number: body.number)
        try await db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let tables = try await Tables.read(userId: userId, db: db)
            guard let item = tables.items.first(where: { $0.key == key }) else {
                throw APIError(.notFound, "\(body.brand) \(body.number) is not on your shopping list")
            }
            try await write(ShoppingList.linesAfterDismissing(item, lines: tables.lines, now: now), userId: userId, version: version, db: db)
        }
    }

    /// A thread put on the list by hand, as the API's JSON and the web app's form both give it.
    struct NewLine: Sendable {
        /// The client's id for the line (an app that made it offline), or nil for a new one.
        var id: UUID?
        var brand: String
        var number: String
        var colorName: String?
        var quantity = 1
        var notes: String?
    }

    /// Adds a thread to the list by hand; a second line for the same thread adds to the first.
    /// Answers the line and whether it was merged.
    static func addLine(_ new: NewLine, userId: UUID, now: Date, db: any Database) async throws -> (line: ShoppingLine, merged: Bool) {
        let id = new.id ?? UUID()
        // Only a line to buy is written here; setting a line aside is `dismiss`.
        let record = try ShoppingLine(id: id, kind: .added, brand: new.brand, number: new.number, colorName: new.colorName, quantity: new.quantity,
                                      notes: new.notes, createdAt: now, updatedAt: now).normalized.validated()
        return try await db.writeTransaction { db in
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
