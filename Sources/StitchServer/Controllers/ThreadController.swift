import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

struct ThreadController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let threads = routes.grouped("threads")
        threads.get(use: list)
        threads.post(use: create)
        threads.get("brands", use: brands)
        threads.post("match-catalog", use: matchCatalog)
        threads.on(.POST, "scan", body: .collect(maxSize: "42mb"), use: scan)
        threads.get(":id", use: show)
        threads.put(":id", use: update)
        threads.delete(":id", use: delete)
    }

    /// The inventory: brand then number in natural order, narrowed by `q` (brand, number or colour
    /// name), `brand` and `fiberType`.
    @Sendable
    func list(req: Request) throws -> EventLoopFuture<Response> {
        let userId = try req.user.id
        let q = req.queryText("q")
        let brand = req.queryText("brand").flatMap(Rules.clean)
        var fiber: FiberType?
        // Exactly one of the documented values: a blank or misspelt filter is an error, not "all".
        if let raw = req.queryText("fiberType") {
            guard let parsed = FiberType(rawValue: raw) else {
                throw APIError.validation(["fiberType": "Choose one of \(FiberType.allCases.map(\.rawValue).joined(separator: ", "))"])
            }
            fiber = parsed
        }
        return try cachedList(req, kind: "threads") { [fiber] in
            var threads = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
            if let brand { threads = threads.filter { $0.brand.caseInsensitiveCompare(brand) == .orderedSame } }
            if let fiber { threads = threads.filter { $0.fiberType == fiber } }
            if let q { threads = threads.filter { $0.matches(search: q) } }
            threads = InventoryThread.sortedInInventoryOrder(threads)
            return try StitchJSON.encodeBytes(threads)
        }
    }

    /// The user's brands, most used first, for autocomplete (optionally those starting with `q`).
    @Sendable
    func brands(req: Request) async throws -> Response {
        let userId = try req.user.id
        let prefix = req.queryText("q").flatMap(Rules.clean)?.lowercased()
        let threads = try await Records.list(ThreadModel.self, userId: userId, on: req.db)
        var counts: [String: (name: String, count: Int)] = [:]
        for thread in threads {
            let key = thread.brand.lowercased()
            counts[key, default: (thread.brand, 0)].count += 1
        }
        let brands = counts.values
            .filter { prefix == nil || $0.name.lowercased().hasPrefix(prefix!) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : NaturalOrder.areInIncreasingOrder($0.name, $1.name) }
            .map(\.name)
        return try respond(brands)
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        try respond(try await Records.require(ThreadModel.self, req.uuid("id"), userId: req.user.id, on: req.db).record)
    }

    /// A thread you already have (same brand and number, in any case or spacing — the rule CSV
    /// import follows) is not added twice: the answer is 409 with the existing thread's id, unless
    /// `?merge=true` asks to add to it (quantities added, empty fields filled: 200 with the thread).
    @Sendable
    func create(req: Request) async throws -> Response {
        // Exactly `true` or `false`: anything else is a mistake to say, not a "no" to assume.
        let merge: Bool
        switch req.query[String.self, at: "merge"] {
        case nil, "false": merge = false
        case "true": merge = true
        default: throw APIError.validation(["merge": "merge must be true or false"])
        }
        do {
            let (record, merged) = try await InventoryService.create(try req.writer, try req.patch(), merge: merge)
            return try respond(record, status: merged ? .ok : .created)
        } catch let duplicate as DuplicateThread {
            throw duplicate.apiError
        }
    }

    @Sendable
    func update(req: Request) async throws -> Response {
        try respond(try await RecordWrites<ThreadModel>.update(try req.writer, id: req.uuid("id"), try req.patch()))
    }

    @Sendable
    func delete(req: Request) async throws -> HTTPStatus {
        try await RecordWrites<ThreadModel>.delete(try req.writer, id: req.uuid("id"))
        return .noContent
    }

    /// `POST /threads/match-catalog`: see `CatalogMatching`.
    @Sendable
    func matchCatalog(req: Request) async throws -> Response {
        try jsonResponse(try await CatalogMatching.run(userId: try req.user.id, now: req.now, on: req.db))
    }

    /// `POST /threads/scan`: see `BarcodeScanning`.
    @Sendable
    func scan(req: Request) async throws -> Response {
        let input = try BarcodeScanning.input(of: req)
        return try jsonResponse(try await BarcodeScanning.scan(input, userId: try req.user.id, app: req.application, db: req.db))
    }
}
