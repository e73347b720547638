import Foundation
import StitchCore
import Testing

@Suite("Conflict rule: deletes win, then the last write")
struct ConflictRuleTests {
    let t = Date(timeIntervalSince1970: 1_800_000_000)

    func stamp(_ offset: TimeInterval, deleted: Bool = false, quantity: Int = 1) -> ConflictRule.Stamp {
        var record = thread { $0.quantity = quantity; $0.updatedAt = t.addingTimeInterval(offset) }
        if deleted { record.deletedAt = record.updatedAt }
        return .init(record)
    }

    @Test func newerWinsOlderLoses() {
        #expect(ConflictRule.resolve(incoming: stamp(1), current: stamp(0)) == .incoming)
        #expect(ConflictRule.resolve(incoming: stamp(0), current: stamp(1)) == .current)
        #expect(ConflictRule.resolve(incoming: stamp(0.001), current: stamp(0)) == .incoming)
    }

    @Test("Equal timestamps: a delete beats an edit, otherwise the greater canonical JSON, the same for everyone")
    func ties() {
        #expect(ConflictRule.resolve(incoming: stamp(0, deleted: true), current: stamp(0)) == .incoming)
        #expect(ConflictRule.resolve(incoming: stamp(0), current: stamp(0, deleted: true)) == .current)
        let a = stamp(0, quantity: 3), b = stamp(0, quantity: 4)
        let ab = ConflictRule.resolve(incoming: a, current: b), ba = ConflictRule.resolve(incoming: b, current: a)
        #expect(ab != ba && ab != .same && ba != .same)
        #expect(ConflictRule.resolve(incoming: a, current: a) == .same)
    }

    @Test("Deletes win: no edit revives a delete, older or newer (an old tablet waking up); a delete beats an edit made before or after it; two deletes, the newer")
    func deletesWin() {
        #expect(ConflictRule.resolve(incoming: stamp(-5), current: stamp(0, deleted: true)) == .current)
        #expect(ConflictRule.resolve(incoming: stamp(5), current: stamp(0, deleted: true)) == .current)
        #expect(ConflictRule.resolve(incoming: stamp(3600 * 24 * 30), current: stamp(0, deleted: true)) == .current)
        #expect(ConflictRule.resolve(incoming: stamp(-5, deleted: true), current: stamp(0)) == .incoming)
        #expect(ConflictRule.resolve(incoming: stamp(5, deleted: true), current: stamp(0)) == .incoming)
        #expect(ConflictRule.resolve(incoming: stamp(5, deleted: true), current: stamp(0, deleted: true)) == .incoming)
        #expect(ConflictRule.resolve(incoming: stamp(-5, deleted: true), current: stamp(0, deleted: true)) == .current)
        // Records compared whole answer the same.
        var edited = thread { $0.updatedAt = t.addingTimeInterval(60) }
        var deleted = thread { $0.updatedAt = t }
        deleted.deletedAt = t
        edited.id = deleted.id
        #expect(ConflictRule.resolve(incoming: edited, current: deleted) == .current)
        #expect(ConflictRule.resolve(incoming: deleted, current: edited) == .incoming)
    }

    @Test func cursorsEncodeAndOrder() throws {
        let a = SyncCursor(version: 3, rank: 1, id: UUID())
        #expect(SyncCursor(encoded: a.encoded) == a)
        #expect(SyncCursor(encoded: SyncCursor.start.encoded) == .start)
        #expect(SyncCursor(encoded: "garbage") == nil)
        #expect(SyncCursor(encoded: Data("v1:-1:0:".utf8).base64EncodedString()) == nil)
        #expect(SyncCursor.start < a)
        #expect(SyncCursor(version: 3, rank: 0, id: nil) < a)
        #expect(a < SyncCursor(version: 4, rank: -1, id: nil))
        let low = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, high = UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!
        #expect(UUIDOrder.less(low, high) && !UUIDOrder.less(high, low))
    }

    @Test func idSortKeysOrderAsTheIds() {
        // Ids that differ in one byte only, at each position, and random ones.
        var ids = (0..<16).flatMap { i in
            [UInt8(0), 1, 127, 128, 255].map { value in
                var bytes = [UInt8](repeating: 0x80, count: 16)
                bytes[i] = value
                return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            }
        }
        ids += (0..<300).map { _ in UUID() }
        for a in ids {
            for b in ids.prefix(120) {
                #expect((UUIDOrder.key(a) < UUIDOrder.key(b)) == UUIDOrder.less(a, b))
            }
        }
        #expect(ids.sorted { UUIDOrder.key($0) < UUIDOrder.key($1) } == ids.sorted(by: UUIDOrder.less))
    }

    @Test func changesCarryRecords() throws {
        let record = thread { $0.colorName = "Black" }
        let change = try SyncChange(record: record)
        #expect(change.action == .upsert && change.type == .thread)
        #expect(try change.record(as: InventoryThread.self) == record)
        var deleted = record
        deleted.deletedAt = record.updatedAt
        let tombstone = try SyncChange(record: deleted)
        #expect(tombstone.action == .delete && tombstone.data == nil && tombstone.deletedAt == record.updatedAt)
    }
}
