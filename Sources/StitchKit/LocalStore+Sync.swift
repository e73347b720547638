import Foundation
import GRDB
import StitchCore

/// What the sync engine needs from the store: the outgoing changes, and applying what came back.
extension LocalStore {
    static let cursorKey = "sync.cursor"
    static let lastSyncKey = "sync.lastSync"

    public var cursor: String? { get throws { try setting(Self.cursorKey) } }

    /// Every record with an unacknowledged local change, as it stands now.
    func pendingChanges() throws -> [SyncChange] {
        try writer.read { db in
            let rows = try SyncState.filter(Column("pending") == true).fetchAll(db)
            var changes: [SyncChange] = []
            for row in rows {
                guard let type = EntityType(rawValue: row.entity) else { continue }
                if let change = try Self.change(type, id: row.id, db: db) { changes.append(change) }
            }
            return changes.sorted { ($0.type.dependencyRank, $0.updatedAt) < ($1.type.dependencyRank, $1.updatedAt) }
        }
    }

    static func change(_ type: EntityType, id: UUID, db: Database) throws -> SyncChange? {
        func load<R: LocalRecord>(_ r: R.Type) throws -> SyncChange? {
            try R.fetchOne(db, key: ["id": id]).map { try SyncChange(record: $0) }
        }
        switch type {
        case .thread: return try load(InventoryThread.self)
        case .canvas: return try load(Canvas.self)
        case .project: return try load(Project.self)
        case .projectSection: return try load(ProjectSection.self)
        case .projectThread: return try load(ProjectThread.self)
        case .journalEntry: return try load(JournalEntry.self)
        case .journalImage: return try load(JournalImage.self)
        }
    }

    /// Marks pushed records synced, but only where the record is still exactly the version that
    /// was pushed: an edit made during the round trip stays pending.
    func acknowledge(_ results: [SyncResult], sent: [SyncChange], at now: Date) throws {
        let sentByKey = Dictionary(sent.map { ("\($0.type.rawValue)/\($0.id)", $0) }, uniquingKeysWith: { a, _ in a })
        try writer.write { db in
            for result in results where result.status != .stale {
                guard let type = result.type, let pushed = sentByKey["\(type.rawValue)/\(result.id)"] else { continue }
                let current = try Self.change(type, id: result.id, db: db)
                if current == pushed || current == nil {
                    // A refused change is not retried forever: the server's copy (if any) comes with the pull.
                    try db.execute(sql: "UPDATE sync_state SET pending = 0, syncedAt = ? WHERE entity = ? AND id = ?",
                                   arguments: [now, type.rawValue, result.id])
                }
            }
        }
    }

    /// Applies a page from the server and then stores the cursor, in one transaction, so a crash
    /// in between can only mean the page is fetched again.
    func applyPulled(_ changes: [SyncChange], cursor: String, at now: Date) throws {
        try writer.write { db in
            for change in changes {
                switch change.type {
                case .thread: try Self.apply(change, as: InventoryThread.self, db: db, now: now)
                case .canvas: try Self.apply(change, as: Canvas.self, db: db, now: now)
                case .project: try Self.apply(change, as: Project.self, db: db, now: now)
                case .projectSection: try Self.apply(change, as: ProjectSection.self, db: db, now: now)
                case .projectThread: try Self.apply(change, as: ProjectThread.self, db: db, now: now)
                case .journalEntry: try Self.apply(change, as: JournalEntry.self, db: db, now: now)
                case .journalImage: try Self.apply(change, as: JournalImage.self, db: db, now: now)
                }
            }
            try Self.setSetting(Self.cursorKey, cursor, db: db)
        }
    }

    /// The same last-write-wins rule as the server. A record without a pending local change takes
    /// the server's copy outright (the server's copy already won everything the server has seen);
    /// a pending one keeps the local version when that is newer.
    static func apply<R: LocalRecord>(_ change: SyncChange, as type: R.Type, db: Database, now: Date) throws {
        let local = try R.fetchOne(db, key: ["id": change.id])
        let pending = try Bool.fetchOne(db, sql: "SELECT pending FROM sync_state WHERE entity = ? AND id = ?",
                                        arguments: [R.entityType.rawValue, change.id]) ?? false
        var incoming: R
        if change.action == .upsert, change.data != nil {
            incoming = try change.record(as: R.self)
        } else if var existing = local {
            existing.deletedAt = change.deletedAt ?? change.updatedAt
            existing.updatedAt = change.updatedAt
            incoming = existing
        } else {
            return  // a tombstone for something this device never had
        }
        if let local, pending {
            let outcome = ConflictRule.resolve(incoming: .init(incoming), current: .init(local))
            if outcome == .current { return }
        }
        try incoming.save(db)
        try SyncState(entity: R.entityType.rawValue, id: change.id, pending: false, syncedAt: now).save(db)
    }

    /// Uploads staged pictures with `upload` and swaps their stand-in keys for the server's in every
    /// record that uses them (those records become pending, so the new key is pushed).
    func uploadStagedImages(_ upload: (Data) async throws -> String) async throws {
        let staged = try await writer.read { db in try PendingImage.fetchAll(db) }
        for image in staged {
            let key = try await upload(image.data)
            try await writer.write { db in
                for var canvas in try Canvas.filter(Column("imageKey") == image.localKey).fetchAll(db) {
                    canvas.imageKey = key
                    try canvas.update(db)
                    try SyncState(entity: EntityType.canvas.rawValue, id: canvas.id, pending: true, syncedAt: nil).save(db)
                }
                for var journalImage in try JournalImage.filter(Column("imageKey") == image.localKey).fetchAll(db) {
                    journalImage.imageKey = key
                    try journalImage.update(db)
                    try SyncState(entity: EntityType.journalImage.rawValue, id: journalImage.id, pending: true, syncedAt: nil).save(db)
                }
                try db.execute(sql: "DELETE FROM pending_images WHERE localKey = ?", arguments: [image.localKey])
            }
        }
    }

    public func stagedImageCount() throws -> Int {
        try writer.read { db in try PendingImage.fetchCount(db) }
    }
}
