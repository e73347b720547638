import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The inventory's threads created or merged, for the API (`ThreadController`) and the web app.
enum InventoryService {
    static var threadDefaults: [String: Any] { ["brand": "", "number": "", "fiberType": FiberType.wool.rawValue, "quantity": 0] }

    /// Creates the thread, or — asked to merge — adds it to the one with its brand and number;
    /// not asked, a thread of that brand and number is a `DuplicateThread`.
    static func create(_ req: Request, body: [String: Any], merge: Bool) async throws -> (InventoryThread, merged: Bool) {
        let userId = try req.user.id
        do {
            let record = try await RecordWrites<ThreadModel>.create(req, body: body, defaults: threadDefaults, check: { thread, db in
                if let existing = try await duplicate(of: thread, userId: userId, db: db) {
                    throw DuplicateThread(existing: existing, incoming: thread)
                }
            })
            return (record, false)
        } catch let duplicate as DuplicateThread {
            guard merge else { throw duplicate }
            let given = Set(body.keys)
            let record = try await RecordWrites<ThreadModel>.update(req, id: duplicate.existing.id, body: [:], transform: { old, _, _ in
                old.merging(duplicate.incoming, given: given, rule: .add).0
            })
            return (record, true)
        }
    }

    /// The user's live thread with this one's brand and number, if any.
    static func duplicate(of thread: InventoryThread, userId: UUID, db: any Database) async throws -> InventoryThread? {
        let key = thread.importKey
        return try await Records.list(ThreadModel.self, userId: userId, on: db).first { $0.importKey == key && $0.id != thread.id }
    }
}

/// Adding a thread the user has already: what the API answers and the web app offers to merge.
struct DuplicateThread: Error, Sendable {
    var existing: InventoryThread
    var incoming: InventoryThread

    var message: String {
        "You have \(existing.brand) \(existing.number) already (\(existing.quantity) \(existing.quantity == 1 ? "skein" : "skeins"))"
    }

    var apiError: APIError {
        APIError(.conflict, message + ": add to it with ?merge=true", fields: ["number": message], existingId: existing.id)
    }
}
