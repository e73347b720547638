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
            guard let record = try R.fetchOne(db, key: ["id": id]) else { return nil }
            var change = try SyncChange(record: record)
            // A tombstone carries the whole record: if the record never reached the server (made
            // and deleted offline), the server stores the tombstone, and children pushed with it
            // still find their parent instead of being refused.
            if change.action == .delete { change.data = try JSONValue.from(record) }
            return change
        }
        return try load(recordType(type))
    }

    /// The local record type that stores `type`.
    static func recordType(_ type: EntityType) -> any LocalRecord.Type {
        switch type {
        case .thread: InventoryThread.self
        case .canvas: Canvas.self
        case .project: Project.self
        case .projectSection: ProjectSection.self
        case .projectThread: ProjectThread.self
        case .journalEntry: JournalEntry.self
        case .journalImage: JournalImage.self
        case .pattern: Pattern.self
        case .shoppingLine: ShoppingLine.self
        }
    }

    // MARK: A sync from the start

    static let fromScratchKey = "sync.fromScratch"

    /// Whether a sync from the start is under way (begun, its pull not yet finished).
    var isSyncingFromScratch: Bool { get throws { try setting(Self.fromScratchKey) != nil } }

    /// Begins a sync from the start (the server no longer knows this device's place: its cursor
    /// is from before tombstones it may have missed were removed): the cursor is forgotten and
    /// every record pulled is noted, until `finishFromScratch`. Changes wait meanwhile.
    func beginFromScratch() throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM sync_seen")
            try Self.setSetting(Self.cursorKey, nil, db: db)
            try Self.setSetting(Self.fromScratchKey, "1", db: db)
        }
    }

    /// Ends a sync from the start once everything is pulled: each record the server had and
    /// didn't send any more (deleted long ago elsewhere, its tombstone since removed) is forgotten
    /// here too, and a change made here to one of them is dropped with it — named in the answer,
    /// as a change that lost to a delete is. Records that never reached the server stay, to be
    /// pushed.
    func finishFromScratch() throws -> [String] {
        try writer.write { db in
            var lost: [String] = []
            let gone = try Row.fetchAll(db, sql: """
                SELECT entity, id, pending FROM sync_state s WHERE syncedAt IS NOT NULL \
                AND NOT EXISTS (SELECT 1 FROM sync_seen v WHERE v.entity = s.entity AND v.id = s.id)
                """)
            for row in gone {
                let id: UUID = row["id"]
                let pending: Bool = row["pending"]
                if let type = EntityType(rawValue: row["entity"]) {
                    func forget<R: LocalRecord>(_ r: R.Type) throws {
                        guard let record = try R.fetchOne(db, key: ["id": id]) else { return }
                        if pending, record.deletedAt == nil { lost.append(Self.label(type, record)) }
                        _ = try R.deleteOne(db, key: ["id": id])
                    }
                    try forget(Self.recordType(type))
                }
                try db.execute(sql: "DELETE FROM sync_state WHERE entity = ? AND id = ?", arguments: [row["entity"] as String, id])
            }
            try db.execute(sql: "DELETE FROM sync_seen")
            try Self.setSetting(Self.fromScratchKey, nil, db: db)
            return lost
        }
    }

    /// Marks pushed records synced, but only where the record is still exactly the version that
    /// was pushed: an edit made during the round trip stays pending.
    func acknowledge(_ results: [SyncResult], sent: [SyncChange], at now: Date) throws {
        let sentByKey = Dictionary(sent.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        try writer.write { db in
            for result in results where result.status != .stale {
                guard let type = result.type, let pushed = sentByKey[RecordKey(type, result.id)] else { continue }
                let current = try Self.change(type, id: result.id, db: db)
                if current == pushed || current == nil {
                    // A refused change is not retried forever: the server's copy (if any) comes with
                    // the pull. Only an applied one says the server has the record now.
                    if result.status == .applied {
                        try db.execute(sql: "UPDATE sync_state SET pending = 0, syncedAt = ? WHERE entity = ? AND id = ?",
                                       arguments: [now, type.rawValue, result.id])
                    } else {
                        try db.execute(sql: "UPDATE sync_state SET pending = 0 WHERE entity = ? AND id = ?", arguments: [type.rawValue, result.id])
                    }
                }
            }
        }
    }

    /// Applies a page from the server and then stores the cursor, in one transaction, so a crash
    /// in between can only mean the page is fetched again.
    /// Answers what this device's own changes lost to a delete made elsewhere (deletes win): the
    /// records' names, for the person to be told ("deleted on another device: your change to …
    /// wasn't kept"); the device has dropped those changes with the records.
    /// In a sync from the start (`fromScratch`), the page's records are noted as seen.
    @discardableResult
    func applyPulled(_ changes: [SyncChange], cursor: String, at now: Date, fromScratch: Bool = false) throws -> [String] {
        try writer.write { db in
            var lost: [String] = []
            if fromScratch {
                var seen = BatchedRows(prefix: "INSERT OR IGNORE INTO sync_seen (entity, id) VALUES ", row: "(?, ?)")
                for change in changes { try seen.add([change.type.rawValue.databaseValue, change.id.databaseValue], db: db) }
                try seen.flush(db)
            }
            // Which of the page's records have local changes waiting: one query for the page.
            var pending = Set<RecordKey>()
            let rows = try Row.fetchCursor(db, sql: "SELECT entity, id FROM sync_state WHERE pending")
            while let row = try rows.next() {
                guard let type = EntityType(rawValue: row["entity"]) else { continue }
                pending.insert(RecordKey(type, row["id"]))
            }
            var synced = BatchedRows(
                prefix: "INSERT INTO sync_state (entity, id, pending, syncedAt) VALUES ", row: "(?, ?, 0, ?)",
                suffix: " ON CONFLICT (entity, id) DO UPDATE SET pending = 0, syncedAt = excluded.syncedAt")
            let syncedAt = LocalDates.databaseValue(now)
            var upserts = Upserts()
            for change in changes {
                let isPending = !pending.isEmpty && pending.contains(change.key)
                let applied: Bool
                if !isPending, change.action == .upsert, change.hasData {
                    // The common case, a record without local changes: the server's copy, as is,
                    // written with the rest of the page (several rows to a statement).
                    switch change.type {
                    case .thread: try upserts.add(try change.record(as: InventoryThread.self), db: db)
                    case .canvas: try upserts.add(try change.record(as: Canvas.self), db: db)
                    case .project: try upserts.add(try change.record(as: Project.self), db: db)
                    case .projectSection: try upserts.add(try change.record(as: ProjectSection.self), db: db)
                    case .projectThread: try upserts.add(try change.record(as: ProjectThread.self), db: db)
                    case .journalEntry: try upserts.add(try change.record(as: JournalEntry.self), db: db)
                    case .journalImage: try upserts.add(try change.record(as: JournalImage.self), db: db)
                    case .pattern: try upserts.add(try change.record(as: Pattern.self), db: db)
                    case .shoppingLine: try upserts.add(try change.record(as: ShoppingLine.self), db: db)
                    }
                    applied = true
                } else {
                    // Anything that reads the local copy first sees every earlier change of the page.
                    try upserts.flush(db)
                    switch change.type {
                    case .thread: applied = try Self.apply(change, lost: &lost, as: InventoryThread.self, pending: isPending, upserts: &upserts, db: db)
                    case .canvas: applied = try Self.apply(change, lost: &lost, as: Canvas.self, pending: isPending, upserts: &upserts, db: db)
                    case .project: applied = try Self.apply(change, lost: &lost, as: Project.self, pending: isPending, upserts: &upserts, db: db)
                    case .projectSection: applied = try Self.apply(change, lost: &lost, as: ProjectSection.self, pending: isPending, upserts: &upserts, db: db)
                    case .projectThread: applied = try Self.apply(change, lost: &lost, as: ProjectThread.self, pending: isPending, upserts: &upserts, db: db)
                    case .journalEntry: applied = try Self.apply(change, lost: &lost, as: JournalEntry.self, pending: isPending, upserts: &upserts, db: db)
                    case .journalImage: applied = try Self.apply(change, lost: &lost, as: JournalImage.self, pending: isPending, upserts: &upserts, db: db)
                    case .pattern: applied = try Self.apply(change, lost: &lost, as: Pattern.self, pending: isPending, upserts: &upserts, db: db)
                    case .shoppingLine: applied = try Self.apply(change, lost: &lost, as: ShoppingLine.self, pending: isPending, upserts: &upserts, db: db)
                    }
                }
                if applied {
                    try synced.add([change.type.rawValue.databaseValue, change.id.databaseValue, syncedAt], db: db)
                }
            }
            try upserts.flush(db)
            try synced.flush(db)
            try Self.setSetting(Self.cursorKey, cursor, db: db)
            return lost
        }
    }

    /// The same last-write-wins rule as the server. A record without a pending local change takes
    /// the server's copy outright (the server's copy already won everything the server has seen);
    /// a pending one keeps the local version when that is newer. Answers whether the server's
    /// copy is now the local one.
    static func apply<R: LocalRecord>(_ change: SyncChange, lost: inout [String], as type: R.Type, pending: Bool, upserts: inout Upserts, db: Database) throws -> Bool {
        var incoming: R
        if change.action == .upsert, change.hasData {
            incoming = try change.record(as: R.self)
            if pending, let local = try R.fetchOne(db, key: ["id": change.id]) {
                if ConflictRule.resolve(incoming: incoming, current: local) == .current { return false }
                if incoming.deletedAt != nil, local.deletedAt == nil { lost.append(label(change.type, local)) }
            }
        } else if let local = try R.fetchOne(db, key: ["id": change.id]) {
            incoming = local
            incoming.deletedAt = change.deletedAt ?? change.updatedAt
            incoming.updatedAt = change.updatedAt
            if pending, ConflictRule.resolve(incoming: incoming, current: local) == .current { return false }
            if pending, local.deletedAt == nil { lost.append(label(change.type, local)) }
        } else {
            return false  // a tombstone for something this device never had
        }
        // No foreign keys point at these tables, so replacing a row is a plain upsert.
        try upserts.add(incoming, db: db)
        return true
    }

    /// How a record is named to the person: a thread's brand and number, a canvas's design, a
    /// project's or a section's name.
    static func label<R: Encodable>(_ type: EntityType, _ record: R) -> String {
        guard case .object(let fields)? = try? JSONValueEncoder.encode(record) else { return "a \(type.rawValue)" }
        func text(_ key: String) -> String? {
            if case .string(let value)? = fields[key], !value.isEmpty { return value }
            return nil
        }
        switch type {
        case .thread, .shoppingLine, .projectThread:
            if let brand = text("brand"), let number = text("number") { return "\(brand.uppercased()) \(number)" }
            return "a thread"
        case .canvas: return text("designName").map { "the canvas “\($0)”" } ?? "a canvas"
        case .project: return text("name").map { "the project “\($0)”" } ?? "a project"
        case .projectSection: return text("name").map { "the section “\($0)”" } ?? "a section"
        case .journalEntry: return "a journal entry"
        case .journalImage: return "a journal photo"
        case .pattern: return text("name").map { "the pattern “\($0)”" } ?? "a pattern"
        }
    }

    /// `INSERT OR REPLACE` of a whole record: the same columns and values as
    /// `insert(db, onConflict: .replace)` (the records' `encode(to: PersistenceContainer)`).
    static func upsert<R: LocalRecord>(_ record: R, db: Database) throws {
        var upserts = Upserts()
        try upserts.add(record, db: db)
        try upserts.flush(db)
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
                    try SyncState.markPending(EntityType.canvas, id: canvas.id, db: db)
                }
                for var project in try Project.filter(Column("imageKey") == image.localKey).fetchAll(db) {
                    project.imageKey = key
                    try project.update(db)
                    try SyncState.markPending(EntityType.project, id: project.id, db: db)
                }
                for var journalImage in try JournalImage.filter(Column("imageKey") == image.localKey).fetchAll(db) {
                    journalImage.imageKey = key
                    try journalImage.update(db)
                    try SyncState.markPending(EntityType.journalImage, id: journalImage.id, db: db)
                }
                try db.execute(sql: "DELETE FROM pending_images WHERE localKey = ?", arguments: [image.localKey])
            }
        }
    }

    public func stagedImageCount() throws -> Int {
        try writer.read { db in try PendingImage.fetchCount(db) }
    }
}

/// Rows for one table gathered and written several to a statement: GRDB's work per statement
/// (argument checks, its scheduling and observation hooks) was most of a first sync when every
/// row of a page was a statement of its own. Statements are cached per row count.
struct BatchedRows {
    static let rowsPerStatement = 64
    let prefix: String
    let row: String
    let suffix: String
    /// How many values each row has (the row's placeholders).
    let columns: Int
    private(set) var values: [DatabaseValue] = []
    private(set) var rows = 0
    /// The statement for a full batch, made once.
    private let fullSQL: String

    init(prefix: String, row: String, suffix: String = "") {
        self.prefix = prefix
        self.row = row
        self.suffix = suffix
        columns = row.utf8.count(where: { $0 == UInt8(ascii: "?") })
        fullSQL = Self.sql(prefix, row, suffix, rows: Self.rowsPerStatement)
    }

    private static func sql(_ prefix: String, _ row: String, _ suffix: String, rows: Int) -> String {
        prefix + Array(repeating: row, count: rows).joined(separator: ", ") + suffix
    }

    mutating func add(_ rowValues: [DatabaseValue], db: Database) throws {
        precondition(rowValues.count == columns, "a row of \(rowValues.count) values for \(columns) placeholders")
        values.append(contentsOf: rowValues)
        rows += 1
        if rows == Self.rowsPerStatement { try flush(db) }
    }

    mutating func flush(_ db: Database) throws {
        guard rows > 0 else { return }
        let statement = try db.cachedStatement(sql: rows == Self.rowsPerStatement ? fullSQL : Self.sql(prefix, row, suffix, rows: rows))
        // The values are bound here, each straight from its storage: `execute(arguments:)` would
        // first copy them into `StatementArguments` (a key path per value in GRDB's generic
        // code) and check them one by one, a third of applying a page. Setting empty arguments
        // resets the statement and clears its bindings; `execute()` then runs it as bound, with
        // GRDB's checks and observation hooks. Every placeholder gets a value: `add` checks
        // each row's count against the row's placeholders.
        statement.setUncheckedArguments(StatementArguments())
        let sqliteStatement = statement.sqliteStatement
        for (index, value) in zip(CInt(1)..., values) {
            let code = value.bind(to: sqliteStatement, at: index)
            guard code == 0 else {  // SQLITE_OK
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not bind value \(index)", sql: statement.sql)
            }
        }
        try statement.execute()
        values.removeAll(keepingCapacity: true)
        rows = 0
    }
}

/// `INSERT OR REPLACE` of whole records, gathered per kind (`BatchedRows`); the statements are
/// made from the first record of each kind (GRDB would build the SQL for every row).
struct Upserts {
    private var batches: [ObjectIdentifier: BatchedRows] = [:]

    mutating func add<R: LocalRecord>(_ record: R, db: Database) throws {
        var values = ValueSink()
        record.writeWire(to: &values)
        let key = ObjectIdentifier(R.self)
        if batches[key] == nil {
            var columns = ColumnSink()
            record.writeWire(to: &columns)
            batches[key] = BatchedRows(
                prefix: "INSERT OR REPLACE INTO \(R.databaseTableName) (\(columns.names.joined(separator: ", "))) VALUES ",
                row: "(" + Array(repeating: "?", count: columns.names.count).joined(separator: ", ") + ")")
        }
        try batches[key]!.add(values.values, db: db)
    }

    /// Writes everything gathered so far.
    mutating func flush(_ db: Database) throws {
        for key in Array(batches.keys) { try batches[key]!.flush(db) }
    }
}

/// A record's column names (quoted), in its wire order.
struct ColumnSink: WireSink {
    var names: [String] = []
    private mutating func add(_ key: StaticString) { names.append(key.withUTF8Buffer { "\"" + String(decoding: $0, as: UTF8.self) + "\"" }) }
    mutating func put(_ key: StaticString, _ value: String?) { add(key) }
    mutating func put(_ key: StaticString, _ value: Int?) { add(key) }
    mutating func put(_ key: StaticString, _ value: UUID?) { add(key) }
    mutating func put(_ key: StaticString, _ value: Date?) { add(key) }
}

/// A record's values, in its wire order (nil as NULL), as GRDB would store them.
struct ValueSink: WireSink {
    var values: [DatabaseValue] = []
    init() { values.reserveCapacity(14) }
    mutating func put(_ key: StaticString, _ value: String?) { values.append(value?.databaseValue ?? .null) }
    mutating func put(_ key: StaticString, _ value: Int?) { values.append(value?.databaseValue ?? .null) }
    mutating func put(_ key: StaticString, _ value: UUID?) { values.append(value?.databaseValue ?? .null) }
    mutating func put(_ key: StaticString, _ value: Date?) { values.append(value.map(LocalDates.databaseValue) ?? .null) }
}

/// Dates as GRDB stores them (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), written without its
/// `DateFormatter`, which was a tenth of a first sync. Whole milliseconds in years 1600–9999 (every
/// date the store keeps) are written here, the same text (tested); anything else goes to GRDB (whose
/// calendar is Julian before 1582).
enum LocalDates {
    private static let range: ClosedRange<Int64> = -11_676_096_000_000...253_402_300_799_999

    static let decoding = DatabaseDateDecodingStrategy.custom { value in
        Date.fromDatabaseValue(value).map { Date(millisecondsSince1970: $0.millisecondsSince1970) }
    }

    static func databaseValue(_ date: Date) -> DatabaseValue {
        let ms = date.millisecondsSince1970
        guard range.contains(ms), Date(millisecondsSince1970: ms) == date else { return date.databaseValue }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        Timestamp.write(date, into: &bytes)
        bytes[10] = UInt8(ascii: " ")
        return String(decoding: bytes[0..<23], as: UTF8.self).databaseValue
    }
}
