import Foundation
import ServerCommon
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// A minimal offline-first client for server tests: a local copy of every record, the set of
/// records changed locally since the last push, and a cursor. It speaks the real /sync protocol.
final class SimClient {
    let name: String
    let token: String
    let app: Application
    let clientId = UUID()
    var cursor: String?
    /// type/id → the record's change as this client holds it.
    var local: [String: SyncChange] = [:]
    var pending: Set<String> = []
    var rejections: [SyncResult] = []

    init(name: String, token: String, app: Application) {
        self.name = name
        self.token = token
        self.app = app
    }

    static func key(_ type: EntityType, _ id: UUID) -> String { "\(type.rawValue)/\(id)" }

    func write<R: SyncRecord>(_ record: R) throws {
        let key = Self.key(R.entityType, record.id)
        local[key] = try SyncChange(record: record)
        pending.insert(key)
    }

    func record<R: SyncRecord>(_ type: R.Type, _ id: UUID) -> R? {
        guard let change = local[Self.key(R.entityType, id)], change.action == .upsert else { return nil }
        return try? change.record(as: R.self)
    }

    func live<R: SyncRecord>(_ type: R.Type) -> [R] {
        local.values.filter { $0.type == R.entityType && $0.action == .upsert && $0.deletedAt == nil }
            .compactMap { try? $0.record(as: R.self) }
            .sorted { $0.id.uuidString < $1.id.uuidString }
    }

    /// One request: pushes whatever is pending (if `push`), applies the answer. With `replay`,
    /// the request is sent twice and the first answer is lost, as on a flaky network.
    @discardableResult
    func syncOnce(push: Bool = true, limit: Int? = nil, replay: Bool = false) async throws -> SyncResponse {
        let sent = push ? pending.sorted().compactMap { local[$0] } : []
        let request = SyncRequest(cursor: cursor, clientId: clientId, changes: sent, limit: limit)
        if replay { _ = try await app.send(.POST, "/sync", token: token, json: request) }
        let res = try await app.send(.POST, "/sync", token: token, json: request)
        try #require(res.status == .ok, "\(name) sync failed: \(res.status) \(res.text)")
        let response = try res.decode(SyncResponse.self)
        apply(response, sent: sent)
        return response
    }

    /// Pushes, then pulls until the server has nothing more.
    func sync(limit: Int? = nil, replay: Bool = false) async throws {
        var response = try await syncOnce(limit: limit, replay: replay)
        while response.hasMore { response = try await syncOnce(push: false, limit: limit) }
    }

    func apply(_ response: SyncResponse, sent: [SyncChange]) {
        let sentByKey = Dictionary(sent.map { (Self.key($0.type, $0.id), $0) }, uniquingKeysWith: { a, _ in a })
        for result in response.results {
            let key = Self.key(result.type ?? .thread, result.id)
            if result.status == .rejected { rejections.append(result) }
            // Only the exact version that was pushed becomes "synced"; a later local edit stays pending.
            if let pushed = sentByKey[key], local[key] == pushed { pending.remove(key) }
        }
        for change in response.changes {
            let key = Self.key(change.type, change.id)
            // A record with no unsynced local edit simply takes the server's copy: the server's
            // copy is, by construction, the winner of everything it has seen.
            guard let mine = local[key], pending.contains(key) else {
                local[key] = change
                continue
            }
            switch ConflictRule.resolve(incoming: stamp(change), current: stamp(mine)) {
            case .incoming:
                local[key] = change
                pending.remove(key)
            case .same:
                pending.remove(key)
            case .current:
                break
            }
        }
        cursor = response.cursor
    }

    /// A change's LWW stamp, computed from the record it carries.
    func stamp(_ change: SyncChange) -> ConflictRule.Stamp {
        SimClient.stamp(change)
    }

    static func stamp(_ change: SyncChange) -> ConflictRule.Stamp {
        func fp<R: SyncRecord>(_ type: R.Type) -> String {
            (try? change.record(as: R.self)).map(ConflictRule.fingerprint) ?? ""
        }
        let fingerprint: String
        if change.action == .delete {
            fingerprint = ""
        } else {
            switch change.type {
            case .thread: fingerprint = fp(InventoryThread.self)
            case .canvas: fingerprint = fp(Canvas.self)
            case .project: fingerprint = fp(Project.self)
            case .projectSection: fingerprint = fp(ProjectSection.self)
            case .projectThread: fingerprint = fp(ProjectThread.self)
            case .journalEntry: fingerprint = fp(JournalEntry.self)
            case .journalImage: fingerprint = fp(JournalImage.self)
            case .pattern: fingerprint = fp(Pattern.self)
            case .shoppingLine: fingerprint = fp(ShoppingLine.self)
            }
        }
        return .init(updatedAt: change.updatedAt, deleted: change.deletedAt != nil, fingerprint: fingerprint)
    }
}
