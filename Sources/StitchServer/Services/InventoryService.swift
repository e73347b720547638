import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The inventory's threads created or merged, for the API (`ThreadController`) and the web app.
enum InventoryService {
    static var threadDefaults: RecordPatch { ["brand": "", "number": "", "fiberType": .string(FiberType.wool.rawValue), "quantity": 0] }

    /// Creates the thread, or — asked to merge — adds it to the one with its brand and number;
    /// not asked, a thread of that brand and number is a `DuplicateThread`.
    static func create(_ writer: Writer, _ body: RecordPatch, merge: Bool) async throws -> (InventoryThread, merged: Bool) {
        let userId = writer.userId
        do {
            let record = try await RecordWrites<ThreadModel>.create(writer, body, defaults: threadDefaults, check: { thread, db in
                if let existing = try await duplicate(of: thread, userId: userId, db: db) {
                    throw DuplicateThread(existing: existing, incoming: thread)
                }
            })
            return (record, false)
        } catch let duplicate as DuplicateThread {
            guard merge else { throw duplicate }
            let given = body.keys
            let record = try await RecordWrites<ThreadModel>.update(writer, id: duplicate.existing.id, [:], transform: { old, _, _ in
                old.merging(duplicate.incoming, given: given, rule: .add).0
            })
            return (record, true)
        }
    }

    /// Adds `delta` (at most ±1000) to a thread's quantity, never below zero, and answers the
    /// quantity. The script names each step (`changeId`), sent at once or kept on the device when
    /// its request has no answer in time (`sync`): a step is counted once for its id, whichever
    /// copy arrives first, and like a purchase it adds to what the server holds, so a change made
    /// meanwhile elsewhere counts too. 404 when the thread isn't the user's.
    static func step(_ id: UUID, by delta: Int, changeId: UUID?, writer: Writer) async throws -> Int {
        let userId = writer.userId
        let step = max(-1000, min(1000, delta))
        guard let current = try await Records.find(ThreadModel.self, id, userId: userId, on: writer.db)?.record else { throw APIError.notFound }
        let now = writer.now
        guard max(0, current.quantity + step) != current.quantity else {
            // Nothing to add now (at zero already), but a copy arriving later must not add either.
            if let changeId { _ = try await writer.db.writeTransaction { db in try await AppliedChanges.claim(changeId, userId: userId, now: now, on: db) } }
            return current.quantity
        }
        do {
            // Added to the quantity as the write transaction reads it: a purchase or another step
            // landing between the read above and this write isn't overwritten.
            return try await RecordWrites<ThreadModel>.update(writer, id: id, [:], transform: { old, new, _ in
                var stepped = new
                stepped.quantity = max(0, old.quantity + step)
                return stepped
            }, check: { _, db in
                if let changeId, try await !AppliedChanges.claim(changeId, userId: userId, now: now, on: db) { throw SpentStep() }
            }).quantity
        } catch is SpentStep {
            return try await Records.find(ThreadModel.self, id, userId: userId, on: writer.db)?.record.quantity ?? current.quantity
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

/// A step whose id was applied already: its write is rolled back.
private struct SpentStep: Error {}
