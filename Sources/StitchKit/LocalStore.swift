import Foundation
import GRDB
import StitchCore

extension FiberType: DatabaseValueConvertible {}
extension ProjectStatus: DatabaseValueConvertible {}
extension SectionStatus: DatabaseValueConvertible {}
extension ShoppingLineKind: DatabaseValueConvertible {}

extension InventoryThread: FetchableRecord, PersistableRecord { public static let databaseTableName = "threads" }
extension Canvas: FetchableRecord, PersistableRecord { public static let databaseTableName = "canvases" }
extension Project: FetchableRecord, PersistableRecord { public static let databaseTableName = "projects" }
extension ProjectSection: FetchableRecord, PersistableRecord { public static let databaseTableName = "project_sections" }
extension ProjectThread: FetchableRecord, PersistableRecord { public static let databaseTableName = "project_threads" }
extension JournalEntry: FetchableRecord, PersistableRecord { public static let databaseTableName = "journal_entries" }
extension JournalImage: FetchableRecord, PersistableRecord { public static let databaseTableName = "journal_images" }
extension Pattern: FetchableRecord, PersistableRecord { public static let databaseTableName = "patterns" }
extension ShoppingLine: FetchableRecord, PersistableRecord { public static let databaseTableName = "shopping_lines" }

// Rows are written from the records' wire fields (one column per field, named like it) rather
// than through Codable, which cost a keyed container per record: the same values GRDB's Codable
// encoding stores (UUIDs as 16-byte blobs, dates as GRDB's date text: see `LocalDates`), nil as NULL.
extension InventoryThread { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension Canvas { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension Project { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension ProjectSection { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension ProjectThread { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension JournalEntry { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension JournalImage { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension Pattern { public func encode(to container: inout PersistenceContainer) { container.put(self) } }
extension ShoppingLine { public func encode(to container: inout PersistenceContainer) { container.put(self) } }

// Rows are read by the records' descriptions too, one column per field named like its wire key,
// selected in the description's order (the stamps, then the fields) so each row is read by
// position: every fetch of a record goes through GRDB's query interface, which selects
// `databaseSelection`. (Codable's row decoding, a keyed container per record, and then lookups by
// column name, were a sixth of a first sync's time.)
extension TableRecord where Self: DescribedRecord {
    public static var databaseSelection: [any SQLSelectable] {
        (["id", "createdAt", "updatedAt", "deletedAt"] + described.fields.map(\.name)).map { Column($0) }
    }
}

// Dates come back exactly as the wire has them (whole milliseconds, `Date(millisecondsSince1970:)`):
// GRDB's own parsing of the stored text lands a rounding step away for some fractions, so a
// record read here and the same record read from JSON would otherwise differ.
extension FetchableRecord where Self: DescribedRecord {
    public init(row: Row) throws {
        let description = Self.described
        // By position when the row is the query interface's selection (its first and last
        // columns say so); by name for anything else, such as a raw `SELECT *`.
        let positional = row.count == description.fields.count + 4 && row.columnNames.first == "id"
            && row.columnNames.last == description.fields.last?.name
        var position = 0
        func value(_ column: String, _ type: FieldType, optional: Bool) throws -> FieldValue {
            guard positional || row.hasColumn(column) else { throw LocalRowError(table: description.table, column: column, problem: "is missing") }
            let stored: DatabaseValue = positional ? row[position] : row[column]
            position += 1
            if stored.isNull {
                guard optional else { throw LocalRowError(table: Self.described.table, column: column, problem: "is NULL") }
                return .null
            }
            let read: FieldValue? = switch type {
            case .text, .choice: String.fromDatabaseValue(stored).map(FieldValue.text)
            case .int: Int.fromDatabaseValue(stored).map(FieldValue.int)
            case .id: UUID.fromDatabaseValue(stored).map(FieldValue.id)
            case .instant: Date.fromDatabaseValue(stored).map { .instant(Date(millisecondsSince1970: $0.millisecondsSince1970)) }
            }
            guard let read else { throw LocalRowError(table: Self.described.table, column: column, problem: "holds \(stored)") }
            return read
        }
        guard case .id(let id) = try value("id", .id, optional: false), case .instant(let createdAt) = try value("createdAt", .instant, optional: false),
              case .instant(let updatedAt) = try value("updatedAt", .instant, optional: false) else {
            throw LocalRowError(table: description.table, column: "id", problem: "has no stamps")
        }
        var deletedAt: Date?
        if case .instant(let date) = try value("deletedAt", .instant, optional: true) { deletedAt = date }
        var record = description.blank(id: id, createdAt: createdAt, updatedAt: updatedAt, deletedAt: deletedAt)
        for field in description.fields {
            let read = try value(field.name, field.type, optional: field.isOptional)
            guard field.set(&record, read) else {
                throw LocalRowError(table: description.table, column: field.name, problem: "holds \(read), not one of its values")
            }
        }
        self = record
    }
}

/// A device-store row that can't be the record its table holds.
struct LocalRowError: Error, CustomStringConvertible {
    var table: String
    var column: String
    var problem: String
    var description: String { "\(table).\(column) \(problem)" }
}

extension PersistenceContainer: WireSink {
    mutating func put<R: SyncRecord>(_ record: R) { record.writeWire(to: &self) }
    private mutating func set(_ key: StaticString, _ value: (any DatabaseValueConvertible)?) {
        self[key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }] = value
    }
    public mutating func put(_ key: StaticString, _ value: String?) { set(key, value) }
    public mutating func put(_ key: StaticString, _ value: Int?) { set(key, value) }
    public mutating func put(_ key: StaticString, _ value: UUID?) { set(key, value) }
    public mutating func put(_ key: StaticString, _ value: Date?) { set(key, value.map(LocalDates.databaseValue)) }
}

/// A record the local store keeps: any synced record that GRDB can read and write.
public protocol LocalRecord: SyncRecord, FetchableRecord, PersistableRecord {}
extension InventoryThread: LocalRecord {}
extension Canvas: LocalRecord {}
extension Project: LocalRecord {}
extension ProjectSection: LocalRecord {}
extension ProjectThread: LocalRecord {}
extension JournalEntry: LocalRecord {}
extension JournalImage: LocalRecord {}
extension Pattern: LocalRecord {}
extension ShoppingLine: LocalRecord {}

/// A record's sync bookkeeping, kept beside it: whether it has a local change the server has not
/// acknowledged, and when the server last had it (the local-only `syncedAt`: nil for a record
/// that never reached the server — made here, or refused). A sync from the start forgets the
/// records the server had and has no more (`LocalStore.finishFromScratch`).
struct SyncState: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sync_state"
    var entity: String
    var id: UUID
    var pending: Bool
    var syncedAt: Date?

    /// Marks a record changed here, to be pushed; when the server last had it stays known.
    static func markPending(_ type: EntityType, id: UUID, db: Database) throws {
        try db.execute(sql: "INSERT INTO sync_state (entity, id, pending) VALUES (?, ?, 1) ON CONFLICT (entity, id) DO UPDATE SET pending = 1",
                       arguments: [type.rawValue, id])
    }
}

/// A picture attached while offline, waiting to be uploaded before the records that use it.
struct PendingImage: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pending_images"
    var localKey: String
    var data: Data
    var createdAt: Date
}

/// The on-device database: every record of SPEC §1, each write first here. Owns the migrator;
/// exposes named writes and reads (the shape of GRDB's demo `AppDatabase`).
public final class LocalStore: Sendable {
    public let writer: any DatabaseWriter
    public let clock: @Sendable () -> Date

    /// A store in a file (created if missing), or in memory when `path` is nil.
    public init(path: String?, clock: @escaping @Sendable () -> Date = { Date().roundedToMilliseconds }) throws {
        var config = Configuration()
        config.foreignKeysEnabled = true
        if let path {
            writer = try DatabasePool(path: path, configuration: config)
        } else {
            writer = try DatabaseQueue(configuration: config)
        }
        self.clock = { clock().roundedToMilliseconds }
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            func stamps(_ t: TableDefinition) {
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("deletedAt", .datetime)
            }
            try db.create(table: "threads") { t in
                t.primaryKey("id", .blob)
                t.column("brand", .text).notNull()
                t.column("number", .text).notNull()
                t.column("colorName", .text)
                t.column("colorHex", .text)
                t.column("fiberType", .text).notNull()
                t.column("quantity", .integer).notNull()
                t.column("barcode", .text)
                t.column("weightOrLength", .text)
                t.column("notes", .text)
                stamps(t)
            }
            try db.create(table: "canvases") { t in
                t.primaryKey("id", .blob)
                t.column("designer", .text).notNull()
                t.column("designName", .text).notNull()
                t.column("acquiredAt", .datetime)
                t.column("imageKey", .text)
                t.column("size", .text)
                t.column("meshCount", .integer)
                t.column("notes", .text)
                stamps(t)
            }
            try db.create(table: "projects") { t in
                t.primaryKey("id", .blob)
                t.column("canvasId", .blob).notNull().indexed()
                t.column("status", .text).notNull()
                t.column("startedAt", .datetime).notNull()
                t.column("finishingAt", .datetime)
                t.column("completedAt", .datetime)
                t.column("notes", .text)
                stamps(t)
            }
            try db.create(table: "project_sections") { t in
                t.primaryKey("id", .blob)
                t.column("projectId", .blob).notNull().indexed()
                t.column("name", .text).notNull()
                t.column("sortOrder", .integer).notNull()
                t.column("status", .text).notNull()
                t.column("notes", .text)
                stamps(t)
            }
            try db.create(table: "project_threads") { t in
                t.primaryKey("id", .blob)
                t.column("projectId", .blob).notNull().indexed()
                t.column("sectionId", .blob)
                t.column("threadId", .blob)
                t.column("brand", .text).notNull()
                t.column("number", .text).notNull()
                t.column("colorName", .text)
                t.column("quantityNeeded", .integer).notNull()
                t.column("notes", .text)
                stamps(t)
            }
            try db.create(table: "journal_entries") { t in
                t.primaryKey("id", .blob)
                t.column("projectId", .blob).notNull().indexed()
                t.column("notes", .text).notNull()
                stamps(t)
            }
            try db.create(table: "journal_images") { t in
                t.primaryKey("id", .blob)
                t.column("entryId", .blob).notNull().indexed()
                t.column("imageKey", .text).notNull()
                t.column("sortOrder", .integer).notNull()
                stamps(t)
            }
            try db.create(table: "sync_state") { t in
                t.column("entity", .text).notNull()
                t.column("id", .blob).notNull()
                t.column("pending", .boolean).notNull()
                t.column("syncedAt", .datetime)
                t.primaryKey(["entity", "id"])
            }
            try db.create(index: "sync_state_pending", on: "sync_state", columns: ["pending"])
            try db.create(table: "pending_images") { t in
                t.primaryKey("localKey", .text)
                t.column("data", .blob).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "settings") { t in
                t.primaryKey("key", .text)
                t.column("value", .text)
            }
        }
        migrator.registerMigration("v2: catalog colour name") { db in
            try db.alter(table: "threads") { t in t.add(column: "catalogColorName", .text) }
        }
        migrator.registerMigration("v3: patterns") { db in
            try db.create(table: "patterns") { t in
                t.primaryKey("id", .blob)
                t.column("projectId", .blob).notNull().indexed()
                t.column("title", .text).notNull()
                t.column("fileKey", .text).notNull()
                t.column("lastPage", .integer).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("deletedAt", .datetime)
            }
        }
        migrator.registerMigration("v4: shopping list lines") { db in
            try db.create(table: "shopping_lines") { t in
                t.primaryKey("id", .blob)
                t.column("kind", .text).notNull()
                t.column("brand", .text).notNull()
                t.column("number", .text).notNull()
                t.column("colorName", .text)
                t.column("quantity", .integer).notNull()
                t.column("notes", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("deletedAt", .datetime)
            }
        }
        migrator.registerMigration("v5: projects without a canvas") { db in
            // SQLite can't drop a NOT NULL in place: the table is rebuilt with every row (no
            // other table refers to it).
            try rebuildProjects(db, imageKey: false, size: false,
                                copying: "id, canvasId, status, startedAt, finishingAt, completedAt, notes, createdAt, updatedAt, deletedAt")
        }
        migrator.registerMigration("v6: a project's own picture") { db in
            // Rows are read in the description's column order: the table is rebuilt with
            // `imageKey` after `name`, every row kept.
            try rebuildProjects(db, imageKey: true, size: false,
                                copying: "id, canvasId, name, status, startedAt, finishingAt, completedAt, notes, createdAt, updatedAt, deletedAt")
        }
        migrator.registerMigration("v7: a sync from the start") { db in
            // The records a sync from the start has been sent so far (`LocalStore.finishFromScratch`).
            try db.create(table: "sync_seen") { t in
                t.column("entity", .text).notNull()
                t.column("id", .blob).notNull()
                t.primaryKey(["entity", "id"])
            }
        }
        migrator.registerMigration("v8: a project's own size and mesh") { db in
            // In the description's order again: `size` and `meshCount` after `notes`.
            try rebuildProjects(db, imageKey: true, size: true,
                                copying: "id, canvasId, name, imageKey, status, startedAt, finishingAt, completedAt, notes, createdAt, updatedAt, deletedAt")
        }
        return migrator
    }

    /// The projects table made again (v5 with a canvas optional and a name; v6 with `imageKey`
    /// after the name; v8 with `size` and `meshCount` after the notes): the `copying` columns of
    /// every row kept, its index made again.
    private static func rebuildProjects(_ db: Database, imageKey: Bool, size: Bool, copying columns: String) throws {
        try db.create(table: "projects_rebuilt") { t in
            t.primaryKey("id", .blob)
            t.column("canvasId", .blob)
            t.column("name", .text)
            if imageKey { t.column("imageKey", .text) }
            t.column("status", .text).notNull()
            t.column("startedAt", .datetime).notNull()
            t.column("finishingAt", .datetime)
            t.column("completedAt", .datetime)
            t.column("notes", .text)
            if size {
                t.column("size", .text)
                t.column("meshCount", .integer)
            }
            t.column("createdAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.column("deletedAt", .datetime)
        }
        try db.execute(sql: "INSERT INTO projects_rebuilt (\(columns)) SELECT \(columns) FROM projects")
        try db.drop(table: "projects")
        try db.rename(table: "projects_rebuilt", to: "projects")
        try db.create(index: "projects_on_canvasId", on: "projects", columns: ["canvasId"])
    }

    // MARK: Settings (the sync cursor, the server, the last sync)

    public func setting(_ key: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) }
    }

    public func setSetting(_ key: String, _ value: String?) throws {
        try writer.write { db in try Self.setSetting(key, value, db: db) }
    }

    static func setSetting(_ key: String, _ value: String?, db: Database) throws {
        if let value {
            try db.execute(sql: "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
        }
    }

    // MARK: Local writes

    /// Saves a record as the user's latest word on it: stamps `updatedAt` (never earlier than the
    /// version it replaces), validates, and marks it pending for the next push.
    @discardableResult
    public func save<R: LocalRecord>(_ record: R) throws -> R {
        let now = clock()
        return try writer.write { db in
            var record = record.normalized
            let previous = try R.fetchOne(db, key: ["id": record.id])
            if let previous {
                if !R.createdAtIsEditable { record.createdAt = previous.createdAt }
                record.updatedAt = previous.updatedAt >= now ? previous.updatedAt.addingTimeInterval(0.001) : now
            } else {
                record.updatedAt = now
            }
            record = try record.validated()
            try record.save(db)
            try SyncState.markPending(R.entityType, id: record.id, db: db)
            return record
        }
    }

    /// A soft delete: a tombstone that syncs like any other change.
    public func delete<R: LocalRecord>(_ type: R.Type, id: UUID) throws {
        let now = clock()
        try writer.write { db in
            guard var record = try R.fetchOne(db, key: ["id": id]), record.deletedAt == nil else { return }
            let stamp = record.updatedAt >= now ? record.updatedAt.addingTimeInterval(0.001) : now
            record.deletedAt = stamp
            record.updatedAt = stamp
            try record.update(db)
            try SyncState.markPending(R.entityType, id: id, db: db)
        }
    }

    /// Keeps a picture until it can be uploaded; the returned key stands in for the server's
    /// until then.
    public func stageImage(_ data: Data) throws -> String {
        guard ImageFormat.detect(data)?.isPicture == true else { throw ValidationError("image", "Not a JPEG, PNG, HEIC or WebP picture") }
        let key = "local-" + UUID().text.lowercased()
        try writer.write { db in try PendingImage(localKey: key, data: data, createdAt: clock()).insert(db) }
        return key
    }

    /// Forgets everything on this device: every record, every staged picture, the sync state
    /// and the settings (after the account itself is deleted).
    public func eraseAll() throws {
        try writer.write { db in
            for table in ["shopping_lines", "patterns", "journal_images", "journal_entries", "project_threads", "project_sections", "projects", "canvases", "threads",
                          "pending_images", "sync_state", "sync_seen", "settings"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
        }
    }

    // MARK: Reads

    public func all<R: LocalRecord>(_ type: R.Type, includeDeleted: Bool = false) throws -> [R] {
        try writer.read { db in
            includeDeleted ? try R.fetchAll(db) : try R.filter(Column("deletedAt") == nil).fetchAll(db)
        }
    }

    public func find<R: LocalRecord>(_ type: R.Type, id: UUID) throws -> R? {
        try writer.read { db in try R.filter(Column("id") == id).filter(Column("deletedAt") == nil).fetchOne(db) }
    }

    public func pendingCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sync_state WHERE pending") ?? 0 }
    }

    public func isPending(_ entity: EntityType, id: UUID) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT pending FROM sync_state WHERE entity = ? AND id = ?", arguments: [entity.rawValue, id]) ?? false
        }
    }
}
