import Foundation

/// What a pushed change does to its record: create, update or delete.
public enum SyncAction: String, Codable, Sendable, Hashable, CaseIterable {
    case upsert, delete
}

/// Which record a change is about: its kind and id (a set or dictionary key).
public struct RecordKey: Hashable, Sendable {
    public var type: EntityType
    public var id: UUID
    public init(_ type: EntityType, _ id: UUID) {
        self.type = type
        self.id = id
    }
}

/// One change to one record, in either direction.
public struct SyncChange: Codable, Sendable, Hashable {
    public var type: EntityType
    public var id: UUID
    public var action: SyncAction
    /// The record's fields (upserts). Deletes need only the envelope.
    public var data: JSONValue? {
        get {
            if let directRecord { return .object(directRecord.wireFields) }
            if let wireData { return wireData.withUnsafeBytes { try? JSONValue.parse($0) } }
            return fields
        }
        set { fields = newValue; directRecord = nil; wireData = nil }
    }
    /// Whether the change carries a record's fields, without building them (`data` writes a
    /// record made into a change out as a dictionary).
    public var hasData: Bool { directRecord != nil || wireData != nil || fields != nil }
    public var updatedAt: Date
    public var deletedAt: Date?

    /// The data as received, or nil when the change was made from `record`.
    private var fields: JSONValue?
    /// The record a change was made from (a pull's, a push's): written to JSON and read back
    /// without building `data` at all.
    var directRecord: (any SyncRecord)?
    /// The data already written as wire JSON (a server's pull page, straight from its rows):
    /// copied into the response as it is.
    var wireData: ArraySlice<UInt8>?

    public init(type: EntityType, id: UUID, action: SyncAction, data: JSONValue?, updatedAt: Date, deletedAt: Date?) {
        self.type = type
        self.id = id
        self.action = action
        self.fields = data
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// An upsert whose data is `data`, the record's wire JSON object (exactly what
    /// `SyncRecord.writeJSON` writes for it), or a delete (`data` nil).
    public init(type: EntityType, id: UUID, updatedAt: Date, deletedAt: Date?, wireData data: ArraySlice<UInt8>?) {
        self.type = type
        self.id = id
        self.action = data == nil ? .delete : .upsert
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.wireData = data
    }

    /// The change that carries a record as it now stands.
    public init<R: SyncRecord>(record: R) throws {
        self.type = R.entityType
        self.id = record.id
        self.updatedAt = record.updatedAt
        self.deletedAt = record.deletedAt
        if record.deletedAt != nil {
            self.action = .delete
        } else {
            self.action = .upsert
            self.directRecord = record
        }
    }

    public var key: RecordKey { RecordKey(type, id) }

    /// The typed record carried by an upsert. The envelope's id and timestamps fill in whatever
    /// the data leaves out (and win where they disagree).
    public func record<R: SyncRecord>(as type: R.Type) throws -> R {
        if var typed = directRecord as? R {
            typed.id = id
            typed.updatedAt = updatedAt
            typed.deletedAt = deletedAt
            return typed
        }
        guard case .object(var fields)? = data else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "data must be an object"))
        }
        if let record = R(wire: WireFields(fields: fields, envelope: (id, updatedAt, deletedAt))) { return record }
        // The exact error (or the odd input only Codable reads) from the general decoder.
        fields["id"] = .string(id.text)
        fields["updatedAt"] = .string(Timestamp.string(from: updatedAt))
        if fields["createdAt"] == nil || fields["createdAt"] == .null {
            fields["createdAt"] = .string(Timestamp.string(from: updatedAt))
        }
        if let deletedAt { fields["deletedAt"] = .string(Timestamp.string(from: deletedAt)) } else { fields["deletedAt"] = nil }
        return try JSONValue.object(fields).decode(as: R.self)
    }

    enum CodingKeys: String, CodingKey { case type, id, action, data, updatedAt, deletedAt }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(EntityType.self, forKey: .type)
        id = try c.decode(UUID.self, forKey: .id)
        action = try c.decode(SyncAction.self, forKey: .action)
        fields = try c.decodeIfPresent(JSONValue.self, forKey: .data)
        // A record's fields are an object (or absent, or null for a delete): anything else is a
        // malformed request, not a record to judge.
        if let fields, case .object = fields {} else if let fields, fields != .null {
            throw DecodingError.typeMismatch([String: JSONValue].self, .init(codingPath: c.codingPath + [CodingKeys.data],
                                                                               debugDescription: "A change's data must be an object"))
        }
        updatedAt = try c.decode(Date.self, forKey: .updatedAt)
        deletedAt = try c.decodeIfPresent(Date.self, forKey: .deletedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(id, forKey: .id)
        try c.encode(action, forKey: .action)
        try c.encodeIfPresent(data, forKey: .data)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(deletedAt, forKey: .deletedAt)
    }

    public static func == (a: SyncChange, b: SyncChange) -> Bool {
        guard a.type == b.type, a.id == b.id, a.action == b.action, a.updatedAt == b.updatedAt, a.deletedAt == b.deletedAt else {
            return false
        }
        if let x = a.directRecord, let y = b.directRecord, AnyHashable(x) == AnyHashable(y) { return true }
        return a.data == b.data
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(id)
        hasher.combine(action)
        hasher.combine(updatedAt)
        hasher.combine(deletedAt)
    }
}

/// What a device sends to `POST /sync`: the changes it made since its last sync, and the cursor it last pulled to.
public struct SyncRequest: Codable, Sendable {
    public var cursor: String?
    public var clientId: UUID
    public var changes: [SyncChange]
    public var limit: Int?

    public init(cursor: String?, clientId: UUID, changes: [SyncChange], limit: Int? = nil) {
        self.cursor = cursor
        self.clientId = clientId
        self.changes = changes
        self.limit = limit
    }

    public static let defaultLimit = 500
    public static let maxLimit = 5000
    public static let maxChanges = 20_000
}

/// How the server treated one pushed change.
public enum SyncStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// The change is now the server's copy (or already was, for a repeated request).
    case applied
    /// The server's copy is newer; it is in the response's `changes`.
    case stale
    /// The change was refused; `error` says why. Nothing of it was stored.
    case rejected
}

/// What became of one pushed change: applied, stale (the server's copy is newer) or rejected with a reason.
public struct SyncResult: Codable, Sendable, Hashable {
    public var id: UUID
    public var type: EntityType?
    public var status: SyncStatus
    public var error: APIErrorBody?
    /// Set when the change's `updatedAt` was too far ahead of the server's clock and was pulled
    /// back to the server's now.
    public var clamped: Bool?

    public init(id: UUID, type: EntityType?, status: SyncStatus, error: APIErrorBody? = nil, clamped: Bool? = nil) {
        self.id = id
        self.type = type
        self.status = status
        self.error = error
        self.clamped = clamped
    }
}

/// The server's answer to a sync: what happened to each pushed change, the records changed elsewhere, and the next cursor.
public struct SyncResponse: Codable, Sendable {
    public var cursor: String
    public var hasMore: Bool
    public var changes: [SyncChange]
    public var results: [SyncResult]

    public init(cursor: String, hasMore: Bool, changes: [SyncChange], results: [SyncResult]) {
        self.cursor = cursor
        self.hasMore = hasMore
        self.changes = changes
        self.results = results
    }
}

/// A sync response as it arrived: the body's bytes, and what its headers say of the next page.
/// The server sends a page's cursor and hasMore as headers too, so a client can ask for the next
/// page while it decodes this one rather than after.
public struct SyncPage: Sendable {
    public static let cursorHeader = "Sync-Cursor"
    public static let hasMoreHeader = "Sync-Has-More"

    public var body: Data
    /// The cursor to ask for the next page with, when the headers say there is one (nil when they
    /// say there isn't, or are missing). The body's cursor is the one that counts: a client checks
    /// the two agree before it keeps a page asked for with this one.
    public var nextCursor: String?

    public init(body: Data, cursorHeader: String?, hasMoreHeader: String?) {
        self.body = body
        nextCursor = hasMoreHeader == "true" ? cursorHeader : nil
    }

    public func decode() throws -> SyncResponse {
        try StitchJSON.decode(SyncResponse.self, from: body)
    }
}

/// Last-write-wins, the same on server and client.
public enum ConflictRule {
    /// What is compared: when the record was last written, whether it is a tombstone, and (only
    /// for an exact tie) its canonical JSON, so every party picks the same winner.
    public struct Stamp: Sendable, Hashable {
        public var updatedAt: Date
        public var deleted: Bool
        public var fingerprint: String

        public init(updatedAt: Date, deleted: Bool, fingerprint: String) {
            self.updatedAt = updatedAt
            self.deleted = deleted
            self.fingerprint = fingerprint
        }

        public init<R: SyncRecord>(_ record: R) {
            self.updatedAt = record.updatedAt
            self.deleted = record.deletedAt != nil
            self.fingerprint = ConflictRule.fingerprint(record)
        }
    }

    /// Which version of a record survives a conflict.
    public enum Outcome: Sendable, Equatable {
        /// The incoming version replaces the current one.
        case incoming
        /// The current version stays.
        case current
        /// They are the same version (a repeated change).
        case same
    }

    /// Deletes win over updates (SPEC, from the seeds: "delete is an update to `deletedAt`"): a
    /// deleted record is not brought back by an edit, whatever its `updatedAt` — an old tablet
    /// waking up with an edit doesn't resurrect what was deleted elsewhere — and a delete beats an
    /// edit made before or after it. Bringing a record back is an explicit restore on the server
    /// ("Recently deleted"), which no device's change can undo but another delete. Between two
    /// versions both deleted or both live, newer `updatedAt` wins; on a full tie the greater
    /// canonical JSON wins.
    public static func resolve(incoming: Stamp, current: Stamp) -> Outcome {
        if incoming.deleted != current.deleted { return incoming.deleted ? .incoming : .current }
        let a = incoming.updatedAt.millisecondsSince1970, b = current.updatedAt.millisecondsSince1970
        if a != b { return a > b ? .incoming : .current }
        if incoming.fingerprint == current.fingerprint { return .same }
        return incoming.fingerprint > current.fingerprint ? .incoming : .current
    }

    public static func fingerprint<R: Encodable>(_ record: R) -> String {
        (try? String(decoding: StitchJSON.encodeBytes(record), as: UTF8.self)) ?? ""
    }

    /// `resolve(incoming:current:)` for two versions of one record; the canonical JSON is only
    /// computed when the timestamps and tombstones tie.
    public static func resolve<R: SyncRecord>(incoming: R, current: R) -> Outcome {
        let x = incoming.deletedAt != nil, y = current.deletedAt != nil
        if x != y { return x ? .incoming : .current }
        let a = incoming.updatedAt.millisecondsSince1970, b = current.updatedAt.millisecondsSince1970
        if a != b { return a > b ? .incoming : .current }
        return resolve(incoming: Stamp(incoming), current: Stamp(current))
    }

    /// How far ahead of the server's clock a client's `updatedAt` may be before it is clamped.
    public static let maxClockSkew: TimeInterval = 5 * 60
}

/// A position in one user's change stream: everything up to and including this version, entity
/// rank and id has been seen. Opaque to clients.
public struct SyncCursor: Sendable, Hashable, Comparable {
    public var version: Int64
    public var rank: Int
    public var id: UUID?
    /// How far the account's tombstones had been removed when the server issued the cursor (0:
    /// none were). A cursor issued since the last removal can't have missed a removed delete,
    /// wherever it lies; an older one must lie past what was removed. Not part of the position.
    public var horizon: Int64 = 0

    public init(version: Int64, rank: Int, id: UUID?) {
        self.version = version
        self.rank = rank
        self.id = id
    }

    public static let start = SyncCursor(version: 0, rank: -1, id: nil)

    public var encoded: String {
        let text = "v1:\(version):\(rank):\(id?.text ?? "")" + (horizon > 0 ? ":h\(horizon)" : "")
        return Data(text.utf8).base64EncodedString()
    }

    public init?(encoded: String) {
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4 || parts.count == 5, parts[0] == "v1", let version = Int64(parts[1]), version >= 0,
              let rank = Int(parts[2]), (-1...EntityType.lastRank).contains(rank)
        else { return nil }
        if parts.count == 5 {
            guard parts[4].hasPrefix("h"), let horizon = Int64(parts[4].dropFirst()), horizon > 0 else { return nil }
            self.horizon = horizon
        }
        self.version = version
        self.rank = rank
        if parts[3].isEmpty { self.id = nil } else {
            guard let id = UUID(text: String(parts[3])) else { return nil }
            self.id = id
        }
    }

    public static func < (lhs: SyncCursor, rhs: SyncCursor) -> Bool {
        if lhs.version != rhs.version { return lhs.version < rhs.version }
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        switch (lhs.id, rhs.id) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (a?, b?): return UUIDOrder.less(a, b)
        }
    }
}

/// UUIDs compared byte by byte, as PostgreSQL and SQLite compare them.
public enum UUIDOrder {
    /// A key that sorts as the id does: its bytes as two big-endian words.
    public static func key(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { bytes in
            (UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    public static func less(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { x in
            withUnsafeBytes(of: b.uuid) { y in
                for i in 0..<16 where x[i] != y[i] { return x[i] < y[i] }
                return false
            }
        }
    }
}
