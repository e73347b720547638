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
        try respond(try await ShoppingService.compute(userId: req.user.id, db: req.db))
    }

    /// "Bought": adds the skeins to the inventory thread with that brand and number, creating it
    /// if there is none, in one transaction. Answers the thread.
    @Sendable
    func purchase(req: Request) async throws -> Response {
        let body = try req.decodeJSON(PurchaseRequest.self)
        let (thread, created) = try await ShoppingService.purchase(body, userId: req.user.id, now: req.now, db: req.db)
        return try respond(thread, status: created ? .created : .ok)
    }

    /// Sets a thread's line aside without buying (`ShoppingList.linesAfterDismissing`). Answers the
    /// list as it is now; 404 when the thread is not on it.
    @Sendable
    func dismiss(req: Request) async throws -> Response {
        let body = try req.decodeJSON(DismissRequest.self).validated()
        try await ShoppingService.dismiss(body, userId: req.user.id, now: req.now, db: req.db)
        return try respond(try await ShoppingService.compute(userId: req.user.id, db: req.db))
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
        let (line, merged) = try await ShoppingService.addLine(try Self.newLine(req.patch()), userId: req.user.id, now: req.now, db: req.db)
        return try respond(line, status: merged ? .ok : .created)
    }

    /// A new line's JSON as the service takes it: the fields a line has (checked by type, unknown
    /// ones refused, quantity 1 unless given), its kind and times the server's own.
    static func newLine(_ body: RecordPatch) throws -> ShoppingService.NewLine {
        let id = try body.clientId()
        let epoch = JSONValue.time(Date(timeIntervalSince1970: 0))
        let line: ShoppingLine = try body.removing("deletedAt").created(defaults: ["quantity": 1],
            protected: ["id": .id(id ?? UUID()), "kind": .string(ShoppingLineKind.added.rawValue), "createdAt": epoch, "updatedAt": epoch])
        return .init(id: id, brand: line.brand, number: line.number, colorName: line.colorName, quantity: line.quantity, notes: line.notes)
    }

    /// Changes a line's quantity, colour name or notes (its kind stays).
    @Sendable
    func updateLine(req: Request) async throws -> Response {
        try respond(try await RecordWrites<ShoppingLineModel>.update(try req.writer, id: req.uuid("id"), try req.patch(), immutable: ["kind"]))
    }

    @Sendable
    func deleteLine(req: Request) async throws -> HTTPStatus {
        try await RecordWrites<ShoppingLineModel>.delete(try req.writer, id: req.uuid("id"))
        return .noContent
    }

}
