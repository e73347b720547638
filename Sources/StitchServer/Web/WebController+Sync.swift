import Fluent
import StitchCore
import Vapor

/// One change the web app made while it had no network: the fields it changed, and when.
struct WebChange: Decodable, Sendable {
    /// A kind of record the web app changes offline (`thread`, `journalEntry`), or `purchase`
    /// ("Bought" on the shopping list).
    var type: String
    var id: UUID
    /// Only the fields the person changed (a new record: all it has; a purchase: brand, number,
    /// quantity, colour name).
    var fields: [String: JSONValue]
    /// When the person made the change, on their device's clock.
    var changedAt: Date
}

struct WebSyncRequest: Decodable, Sendable {
    var changes: [WebChange]
}

/// What became of each change, and the server's copy where it kept its own (a later change from
/// another device) or stored something other than what was sent.
struct WebSyncResponse: Encodable, Sendable {
    var results: [SyncResult]
    var changes: [SyncChange]
}

extension WebController {
    /// The most changes one call carries (the page sends what it kept, a few at a time).
    static let maxWebChanges = 500
    /// The record kinds the web app changes offline.
    static let webRecordTypes: [EntityType] = [.thread, .journalEntry]

    /// Changes the web app kept on the device while offline (app.js), sent when the network is
    /// back. The browser keeps no copy of whole records, so each change is the fields it changed,
    /// laid over the record as the server holds it now, and pushed through the sync engine dated
    /// when it was made: last write wins by the moment of the change, not of the upload, exactly
    /// as for a device's `/sync`. A purchase is not an overwrite but skeins added: it is applied
    /// as "Bought" is online (whatever changed meanwhile, both count), once per id however often
    /// it is sent.
    @Sendable func sync(req: Request) async throws -> Response {
        let userId = try req.user.id
        let request = try req.decodeJSON(WebSyncRequest.self)
        guard request.changes.count <= Self.maxWebChanges else {
            throw APIError.validation(["changes": "Send at most \(Self.maxWebChanges) changes at once"])
        }
        // In the order they were made: a quantity set after a purchase already counts it.
        var results: [UUID: SyncResult] = [:]
        var serverCopies: [SyncChange] = []
        var run: [SyncChange] = []
        func pushRun() async throws {
            guard !run.isEmpty else { return }
            let push = try await SyncService.push(run, userId: userId, app: req.application, db: req.db)
            for result in push.results { results[result.id] = result }
            serverCopies += push.serverCopies
            run = []
        }
        for change in request.changes.sorted(by: { $0.changedAt < $1.changedAt }) {
            if change.type == "purchase" {
                try await pushRun()
                results[change.id] = try await Self.purchaseOnce(change, userId: userId, req: req)
                continue
            }
            guard let type = EntityType(rawValue: change.type), Self.webRecordTypes.contains(type) else {
                results[change.id] = SyncResult(id: change.id, type: EntityType(rawValue: change.type), status: .rejected,
                                                error: APIErrorBody(error: "The web app doesn't change a \(change.type) offline"))
                continue
            }
            var fields = try await Self.currentFields(type, change.id, userId: userId, db: req.db) ?? [:]
            for (name, value) in change.fields where !["id", "updatedAt", "deletedAt"].contains(name) { fields[name] = value }
            run.append(SyncChange(type: type, id: change.id, action: .upsert, data: .object(fields), updatedAt: change.changedAt, deletedAt: nil))
        }
        try await pushRun()
        return try jsonResponse(WebSyncResponse(results: request.changes.compactMap { results[$0.id] }, changes: serverCopies))
    }

    /// A purchase made offline, applied in the same transaction that records its id: sent again
    /// (its answer lost on the way), it is answered `applied` and adds nothing.
    static func purchaseOnce(_ change: WebChange, userId: UUID, req: Request) async throws -> SyncResult {
        let body: PurchaseRequest
        do {
            body = try JSONValue.object(change.fields).decode(as: PurchaseRequest.self)
        } catch let error as DecodingError {
            let (field, message) = JSONErrorMiddleware.describe(error)
            return SyncResult(id: change.id, type: nil, status: .rejected, error: APIErrorBody(error: message, fields: field.map { [$0: message] }))
        }
        do {
            try await applyPurchase(body, id: change.id, userId: userId, req: req)
            return SyncResult(id: change.id, type: nil, status: .applied)
        } catch let error as APIError {
            return SyncResult(id: change.id, type: nil, status: .rejected, error: APIErrorBody(error: error.reason, fields: error.fields))
        } catch let error as ValidationError {
            return SyncResult(id: change.id, type: nil, status: .rejected, error: APIErrorBody(error: "Some fields need attention", fields: error.fields))
        }
    }

    /// Adds a purchase's skeins once for its id, in the transaction that records the id: the page's
    /// "Bought" form and its offline copy name the same id, so whichever arrives second adds
    /// nothing. Answers the thread, or nil when the id was applied already.
    @discardableResult
    static func applyPurchase(_ body: PurchaseRequest, id: UUID, userId: UUID, req: Request) async throws -> InventoryThread? {
        let now = req.now
        return try await req.db.writeTransaction { db in
            let claimed = try await db.sql.raw("""
                INSERT INTO applied_web_purchases (id, user_id, created_at) VALUES (\(bind: id), \(bind: userId), \(bind: now)) \
                ON CONFLICT DO NOTHING RETURNING id
                """).first()
            guard claimed != nil else { return nil }
            return try await ShoppingController.purchase(body, userId: userId, now: now, in: db).thread
        }
    }

    /// The record's wire fields as the server holds it, or nil when it has none (a new one).
    static func currentFields(_ type: EntityType, _ id: UUID, userId: UUID, db: any Database) async throws -> [String: JSONValue]? {
        func fields<M: RecordModel>(_ model: M.Type) async throws -> [String: JSONValue]? {
            guard let found = try await Records.find(M.self, id, userId: userId, on: db),
                  case .object(let object)? = try SyncChange(record: found.record).data
            else { return nil }
            return object
        }
        switch type {
        case .thread: return try await fields(ThreadModel.self)
        case .journalEntry: return try await fields(JournalEntryModel.self)
        default: return nil
        }
    }
}
