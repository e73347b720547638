import Foundation

/// The kinds of record that sync. The raw values are the wire names.
public enum EntityType: String, Codable, Sendable, CaseIterable, Hashable {
    case thread, canvas, project, projectSection, projectThread, journalEntry, journalImage, pattern, shoppingLine

    /// Parents before children: applying a batch in this order satisfies every reference.
    public var dependencyRank: Int {
        switch self {
        case .thread: 0
        case .canvas: 1
        case .project: 2
        case .projectSection: 3
        case .projectThread: 4
        case .journalEntry: 5
        case .journalImage: 6
        case .pattern: 7
        case .shoppingLine: 8
        }
    }

    /// The greatest rank: a cursor there is past every kind of its version.
    public static let lastRank = allCases.map(\.dependencyRank).max()!
}

/// A record that syncs: an id the client may choose, the three timestamps, and its own rules.
public protocol SyncRecord: Codable, Sendable, Hashable, Validatable, Identifiable where ID == UUID {
    static var entityType: EntityType { get }
    var id: UUID { get set }
    var createdAt: Date { get set }
    var updatedAt: Date { get set }
    var deletedAt: Date? { get set }
    /// The record with text trimmed and blank optionals removed.
    var normalized: Self { get }
    /// Puts the record's JSON fields, exactly as its Codable conformance writes them, in key
    /// order (RecordWire.swift); `wireFields` is them as a dictionary.
    func writeWire<S: WireSink>(to sink: inout S)
    /// Reads the fields the fast way; nil where only Codable can decide (then it decodes, or says why not).
    init?<F: WireFieldSource>(wire: F)
}

extension SyncRecord {
    /// Whether `createdAt` is the record's own date that its owner may change (a journal entry
    /// is dated the day it tells of, and may be written up later), rather than the server's
    /// record of when it was made.
    public static var createdAtIsEditable: Bool { entityType == .journalEntry }
}

extension InventoryThread: SyncRecord { public static let entityType = EntityType.thread }
extension Canvas: SyncRecord { public static let entityType = EntityType.canvas }
extension Project: SyncRecord { public static let entityType = EntityType.project }
extension ProjectSection: SyncRecord { public static let entityType = EntityType.projectSection }
extension ProjectThread: SyncRecord { public static let entityType = EntityType.projectThread }
extension JournalEntry: SyncRecord { public static let entityType = EntityType.journalEntry }
extension JournalImage: SyncRecord { public static let entityType = EntityType.journalImage }
extension Pattern: SyncRecord { public static let entityType = EntityType.pattern }
extension ShoppingLine: SyncRecord { public static let entityType = EntityType.shoppingLine }
