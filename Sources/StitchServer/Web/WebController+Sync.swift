import Fluent
import ServerCommon
import StitchCore
import Vapor

/// One change the web app made while it had no network: the fields it changed, and when.
struct WebChange: Decodable, Sendable {
    /// A kind of record the web app changes offline (`thread`, `journalEntry`), `purchase`
    /// ("Bought" on the shopping list) or `step` (the inventory's −/+).
    var type: String
    /// The record's id; a purchase's or a step's own id.
    var id: UUID
    /// Only the fields the person changed (a new record: all it has; a purchase: brand, number,
    /// quantity, colour name; a step: `thread` and `delta`).
    var fields: [String: JSONValue]
    /// When the person made the change, on their device's clock.
    var changedAt: Date
}

struct WebSyncRequest: Decodable, Sendable {
    /// The account that made the changes (the page's `data-user`): a batch kept by one account's
    /// page is never applied to another account signed in on the same browser since.
    var user: UUID
    var changes: [WebChange]
}

/// What became of each change, and the server's copy where it kept its own (a later change from
/// another device) or stored something other than what was sent, and of every thread stepped.
struct WebSyncResponse: Encodable, Sendable {
    var results: [SyncResult]
    var changes: [SyncChange]
}

extension WebController {
    /// 409 for a batch another account made: the page keeps it for that account's next sign-in.
    static let anotherAccount = APIError(.conflict, "These changes were made by another account on this browser. They are kept on this device for its next sign-in.",
                                         fields: ["user": "Not the account signed in"])

    /// The most changes one call carries (the page sends what it kept, a few at a time).
    static let maxWebChanges = 500
    /// The record kinds the web app changes offline.
    static let webRecordTypes: [EntityType] = [.thread, .journalEntry]
    /// What a record made in the web app offline always carries: a change without them is an
    /// edit, and needs the record on the server.
    static let newRecordFields: [EntityType: [String]] = [.thread: ["brand", "number"], .journalEntry: ["projectId"]]
    static let goneMeanwhile = "It is no longer here (deleted on another device, or long ago), so this change wasn\u{2019}t kept"

    /// Changes the web app kept on the device while offline (app.js), sent when the network is
    /// back. The browser keeps no copy of whole records, so each change is the fields it changed,
    /// laid over the record as the server holds it now, and pushed through the sync engine dated
    /// when it was made: last write wins by the moment of the change, not of the upload, exactly
    /// as for a device's `/sync`. A purchase and a step are not overwrites but skeins added: each
    /// is applied as it is online (whatever changed meanwhile, both count), once per id however
    /// often it is sent — the step's own request, given up on by the page, may come too.
    @Sendable func sync(req: Request) async throws -> Response {
        let userId = try req.user.id
        let request = try req.decodeJSON(WebSyncRequest.self)
        guard request.user == userId else { throw Self.anotherAccount }
        guard request.changes.count <= Self.maxWebChanges else {
            throw APIError.validation(["changes": "Send at most \(Self.maxWebChanges) changes at once"])
        }
        // In the order they were made: a quantity set after a purchase already counts it.
        var results: [UUID: SyncResult] = [:]
        var serverCopies: [SyncChange] = []
        var run: [SyncChange] = []
        var stepped: [UUID] = []
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
            if change.type == "step" {
                try await pushRun()
                let (result, thread) = try await Self.stepOnce(change, req: req)
                results[change.id] = result
                if let thread, !stepped.contains(thread) { stepped.append(thread) }
                continue
            }
            guard let type = EntityType(rawValue: change.type), Self.webRecordTypes.contains(type) else {
                results[change.id] = SyncResult(id: change.id, type: EntityType(rawValue: change.type), status: .rejected,
                                                error: APIErrorBody(error: "The web app doesn't change a \(change.type) offline"))
                continue
            }
            let current = try await Self.currentFields(type, change.id, userId: userId, db: req.db)
            // An edit of a record the server doesn't hold (deleted long enough ago that its
            // tombstone is gone): kept past the horizon, it must not come back as a new record.
            guard current != nil || Self.newRecordFields[type, default: []].allSatisfy({ change.fields[$0] != nil }) else {
                results[change.id] = SyncResult(id: change.id, type: type, status: .rejected, error: APIErrorBody(error: Self.goneMeanwhile))
                continue
            }
            var fields = current ?? [:]
            // An edit, laid over the server's record: of a record deleted since, it loses (deletes
            // win) and the answer carries the tombstone.
            fields.removeValue(forKey: "deletedAt")
            for (name, value) in change.fields where !["id", "updatedAt", "deletedAt"].contains(name) { fields[name] = value }
            run.append(SyncChange(type: type, id: change.id, action: .upsert, data: .object(fields), updatedAt: change.changedAt, deletedAt: nil))
        }
        try await pushRun()
        // Each thread stepped as it is now, so the page shows what the server counted.
        for thread in stepped {
            guard let found = try await Records.find(ThreadModel.self, thread, userId: userId, on: req.db) else { continue }
            serverCopies.removeAll { $0.id == thread }
            serverCopies.append(try SyncChange(record: found.record))
        }
        return try jsonResponse(WebSyncResponse(results: request.changes.compactMap { results[$0.id] }, changes: serverCopies))
    }

    /// A purchase made offline, applied in the same transaction that records its id: sent again
    /// (its answer lost on the way), it is answered `applied` and adds nothing.
    static func purchaseOnce(_ change: WebChange, userId: UUID, req: Request) async throws -> SyncResult {
        let body: PurchaseRequest
        do {
            body = try JSONValue.object(change.fields).decode(as: PurchaseRequest.self)
        } catch let error as DecodingError {
            let (field, message) = DecodingFailure.describe(error)
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

    /// A −/+ step kept on the device (its request failed or had no answer in time): counted once
    /// for its id, with the request itself if that reaches the server too. Answers the result
    /// and the thread stepped.
    static func stepOnce(_ change: WebChange, req: Request) async throws -> (SyncResult, UUID?) {
        func refused(_ message: String, field: String? = nil) -> (SyncResult, UUID?) {
            (SyncResult(id: change.id, type: nil, status: .rejected, error: APIErrorBody(error: message, fields: field.map { [$0: message] })), nil)
        }
        guard case .string(let text)? = change.fields["thread"], let thread = UUID(uuidString: text) else {
            return refused("A step names the thread it changes", field: "thread")
        }
        guard case .int(let number)? = change.fields["delta"], number != 0, abs(number) <= 1000 else {
            return refused("A step adds or takes away 1 to 1000 skeins", field: "delta")
        }
        do {
            _ = try await InventoryService.step(thread, by: Int(number), changeId: change.id, writer: try req.writer)
            return (SyncResult(id: change.id, type: nil, status: .applied), thread)
        } catch let error as AbortError where error.status == .notFound {
            return refused("That thread is no longer in your inventory")
        }
    }

    /// Adds a purchase's skeins once for its id, in the transaction that records the id: the page's
    /// "Bought" form and its offline copy name the same id, so whichever arrives second adds
    /// nothing. Answers the thread, or nil when the id was applied already.
    @discardableResult
    static func applyPurchase(_ body: PurchaseRequest, id: UUID, userId: UUID, req: Request) async throws -> InventoryThread? {
        let now = req.now
        return try await req.db.writeTransaction { db in
            guard try await AppliedChanges.claim(id, userId: userId, now: now, on: db) else { return nil }
            return try await ShoppingService.purchase(body, userId: userId, now: now, in: db).thread
        }
    }

    /// The record's wire fields as the server holds it, or nil when it has none (a new one).
    static func currentFields(_ type: EntityType, _ id: UUID, userId: UUID, db: any Database) async throws -> [String: JSONValue]? {
        func fields<M: RecordModel>(_ model: M.Type) async throws -> [String: JSONValue]? {
            // A tombstone's fields too: the kept edit is laid over them as over a live record's,
            // and loses to the delete (deletes win), the answer carrying the tombstone.
            guard let found = try await Records.find(M.self, id, userId: userId, includeDeleted: true, on: db),
                  case .object(let object) = try JSONValueEncoder.encode(found.record)
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
