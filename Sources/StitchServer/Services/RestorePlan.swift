import Fluent
import Foundation
import SQLKit
import StitchCore

/// A backup's records on their way into an account, each still as the file has it: pictures
/// nobody has taken out, ids another account holds replaced (with every reference to them), then
/// made into the changes a sync push would send. Every record left out is named in the summary.
struct RestorePlan {
    var records: [EntityType: [[String: JSONValue]]]

    /// The fields of each kind that refer to a record of another kind.
    static let references: [EntityType: [(field: String, type: EntityType)]] = [
        .project: [("canvasId", .canvas)],
        .projectSection: [("projectId", .project)],
        .projectThread: [("projectId", .project), ("sectionId", .projectSection), ("threadId", .thread)],
        .journalEntry: [("projectId", .project)],
        .journalImage: [("entryId", .journalEntry)],
        .pattern: [("projectId", .project)],
    ]

    static func id(_ fields: [String: JSONValue]) -> UUID? {
        guard case .string(let text)? = fields["id"] else { return nil }
        return UUID(text: text)
    }

    static func isLive(_ fields: [String: JSONValue]) -> Bool {
        if case .string? = fields["deletedAt"] { return false }
        return true
    }

    /// A record that shows a picture neither the file nor this server has: a canvas or a project
    /// is restored without it, a journal picture not at all.
    mutating func dropMissingPictures(userId: UUID, db: any Database, summary: inout RestoreSummary) async throws {
        var known: [String: Bool] = [:]
        var missing = Set<String>()
        func available(_ key: String) async throws -> Bool {
            if let found = known[key] { return found }
            let found = try await Images.owned(key, userId: userId, on: db) != nil
            known[key] = found
            return found
        }
        // A canvas and a project are restored without the picture.
        for type in [EntityType.canvas, .project] {
            var list = records[type] ?? []
            for i in list.indices {
                guard case .string(let key)? = list[i]["imageKey"], Self.isLive(list[i]), !(try await available(key)) else { continue }
                list[i]["imageKey"] = .null
                missing.insert(key)
                summary.issues.append(.init(type: type, id: Self.id(list[i]), message: "its picture is not in the backup; restored without it"))
            }
            records[type] = list
        }
        var images: [[String: JSONValue]] = []
        for fields in records[.journalImage] ?? [] {
            if case .string(let key)? = fields["imageKey"], Self.isLive(fields), !(try await available(key)) {
                missing.insert(key)
                summary.issues.append(.init(type: .journalImage, id: Self.id(fields), message: "the picture is not in the backup; not restored"))
                summary.records[EntityType.journalImage.rawValue, default: .init()].refused += 1
                continue
            }
            images.append(fields)
        }
        records[.journalImage] = images
        var patterns: [[String: JSONValue]] = []
        for fields in records[.pattern] ?? [] {
            if case .string(let key)? = fields["fileKey"], Self.isLive(fields), !(try await available(key)) {
                missing.insert(key)
                summary.issues.append(.init(type: .pattern, id: Self.id(fields), message: "its file is not in the backup; not restored"))
                summary.records[EntityType.pattern.rawValue, default: .init()].refused += 1
                continue
            }
            patterns.append(fields)
        }
        records[.pattern] = patterns
        summary.pictures.missing = missing.count
    }

    /// Gives a new id to every record whose id another account here holds, and points every
    /// reference at the new one.
    mutating func renumber(userId: UUID, db: any Database, summary: inout RestoreSummary) async throws {
        var renamed: [EntityType: [UUID: UUID]] = [:]
        for (type, list) in records {
            let ids = list.compactMap(Self.id)
            for start in stride(from: 0, to: ids.count, by: 5000) {
                let chunk = Array(ids[start..<min(start + 5000, ids.count)])
                let rows = try await db.sql.select().column("id").from(SyncService.table(type))
                    .where(SQLUUIDIn("id", chunk)).where("user_id", .notEqual, SQLUUID(userId)).all()
                for row in rows { renamed[type, default: [:]][try Self.uuid(row, "id")] = UUID() }
            }
        }
        summary.renumbered = renamed.values.map(\.count).reduce(0, +)
        guard summary.renumbered > 0 else { return }
        func swap(_ fields: inout [String: JSONValue], _ field: String, _ type: EntityType) {
            guard case .string(let text)? = fields[field], let id = UUID(text: text), let new = renamed[type]?[id] else { return }
            fields[field] = .string(new.wireText)
        }
        for (type, list) in records {
            records[type] = list.map { fields in
                var copy = fields
                swap(&copy, "id", type)
                for reference in Self.references[type] ?? [] { swap(&copy, reference.field, reference.type) }
                return copy
            }
        }
    }

    /// The records as sync changes, parents first; a record without a readable id or change date
    /// is named and left out.
    func changes(summary: inout RestoreSummary) -> [SyncChange] {
        var out: [SyncChange] = []
        for (type, key) in BackupDocument.lists {
            for (index, fields) in (records[type] ?? []).enumerated() {
                func refuse(_ message: String) {
                    summary.issues.append(.init(type: type, id: Self.id(fields), message: "\(key)[\(index)] \(message); not restored"))
                    summary.records[type.rawValue, default: .init()].refused += 1
                }
                guard let id = Self.id(fields) else { refuse("has no valid id"); continue }
                guard case .string(let stamp)? = fields["updatedAt"], let updatedAt = Timestamp.date(from: stamp) else {
                    refuse("has no valid updatedAt"); continue
                }
                var deletedAt: Date?
                switch fields["deletedAt"] {
                case nil, .null?: deletedAt = nil
                case .string(let text)?:
                    guard let date = Timestamp.date(from: text) else { refuse("has an invalid deletedAt"); continue }
                    deletedAt = date
                default: refuse("has an invalid deletedAt"); continue
                }
                out.append(SyncChange(type: type, id: id, action: .upsert, data: .object(fields), updatedAt: updatedAt, deletedAt: deletedAt))
            }
        }
        return out
    }

    /// An id column: a `uuid` on PostgreSQL, text on SQLite.
    static func uuid(_ row: any SQLRow, _ column: String) throws -> UUID {
        if let id = try? row.decode(column: column, as: UUID.self) { return id }
        let text = try row.decode(column: column, as: String.self)
        guard let id = UUID(text: text) else { throw APIError(.internalServerError, "A stored id is not a UUID") }
        return id
    }
}
