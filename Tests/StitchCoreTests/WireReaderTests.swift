import Foundation
@testable import StitchCore
import Testing

/// Sync pushes and pages read straight from their bytes (`WireReader`) must be exactly what the
/// general parser and decoder read, and anything the fast reader doesn't take must still decode
/// (or fail) as before.
@Suite("Sync bodies read from bytes match the general path")
struct WireReaderTests {
    static let now = RecordWireTests.now
    static let later = RecordWireTests.later

    /// The decoded changes agree on their envelopes and on the record each one carries.
    static func same(_ a: [SyncChange], _ b: [SyncChange], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.count == b.count, sourceLocation: sourceLocation)
        for (x, y) in zip(a, b) {
            #expect(x.type == y.type && x.id == y.id && x.action == y.action && x.updatedAt == y.updatedAt && x.deletedAt == y.deletedAt,
                    sourceLocation: sourceLocation)
            #expect((x.data == nil) == (y.data == nil), sourceLocation: sourceLocation)
            func record<R: SyncRecord>(_ type: R.Type) {
                let r1 = try? x.record(as: R.self), r2 = try? y.record(as: R.self)
                #expect(r1 == r2, "\(R.self)", sourceLocation: sourceLocation)
            }
            switch x.type {
            case .thread: record(InventoryThread.self)
            case .canvas: record(Canvas.self)
            case .project: record(Project.self)
            case .projectSection: record(ProjectSection.self)
            case .projectThread: record(ProjectThread.self)
            case .journalEntry: record(JournalEntry.self)
            case .journalImage: record(JournalImage.self)
            case .pattern: record(Pattern.self)
            case .shoppingLine: record(ShoppingLine.self)
            }
        }
    }

    static func changes() throws -> [SyncChange] {
        var changes = try RecordWireTests.samples().map { try SyncChange(record: $0) }
        // A tombstone that carries its record (as StitchKit sends them), one that doesn't, and an
        // upsert of raw fields with escapes, non-ASCII text and keys in another order.
        let gone = InventoryThread(brand: "DMC", number: "9", createdAt: now, updatedAt: later, deletedAt: later)
        var tombstone = try SyncChange(record: gone)
        tombstone.data = try JSONValue.from(gone)
        changes.append(tombstone)
        changes.append(SyncChange(type: .canvas, id: UUID(), action: .delete, data: nil, updatedAt: now, deletedAt: later))
        changes.append(SyncChange(type: .thread, id: UUID(), action: .upsert, data: .object([
            "brand": .string("Ünï \"q\"\n\t\\ /"), "number": .string("🧵 310"), "fiberType": .string("silk"), "quantity": .int(3),
            "notes": .string("line\u{2028}break"), "createdAt": .string("2026-11-19T21:06:40.123+02:00"),
        ]), updatedAt: now, deletedAt: nil))
        return changes
    }

    @Test("A push and a page with every kind of record: read fast, and the same as the general path")
    func wholeBodies() throws {
        let changes = try Self.changes()
        let request = SyncRequest(cursor: "djE6Mzow", clientId: UUID(), changes: changes, limit: 250)
        let requestBytes = try StitchJSON.encodeBytes(request)
        let fast = try #require(requestBytes.withUnsafeBytes { WireReader.decode(SyncRequest.self, from: $0) })
        let general = try requestBytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncRequest.self, from: $0) }
        #expect(fast.cursor == general.cursor && fast.clientId == general.clientId && fast.limit == general.limit)
        Self.same(fast.changes, general.changes)
        Self.same(fast.changes, changes)

        let results = [SyncResult(id: UUID(), type: .thread, status: .applied), SyncResult(id: UUID(), type: nil, status: .stale, clamped: true),
                       SyncResult(id: UUID(), type: .canvas, status: .applied, clamped: false)]
        let response = SyncResponse(cursor: "djE6Mzow", hasMore: true, changes: changes, results: results)
        let responseBytes = try StitchJSON.encodeBytes(response)
        let page = try #require(responseBytes.withUnsafeBytes { WireReader.decode(SyncResponse.self, from: $0) })
        let generalPage = try responseBytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncResponse.self, from: $0) }
        #expect(page.cursor == generalPage.cursor && page.hasMore == generalPage.hasMore && page.results == generalPage.results)
        #expect(page.results == results)
        Self.same(page.changes, generalPage.changes)
    }

    /// A push body with `data` of one thread change replaced by `data` (JSON text).
    static func push(data: String, envelope extra: String = "", top extra2: String = "") -> String {
        #"{"clientId":"\#(UUID())","cursor":null,"changes":[{"type":"thread","id":"\#(UUID())","action":"upsert","updatedAt":"2026-11-19T21:06:40.123Z"\#(extra),"data":\#(data)}]\#(extra2)}"#
    }
    static let thread = #"{"brand":"DMC","number":"310","fiberType":"wool","quantity":2,"createdAt":"2026-11-19T21:06:40.123Z"}"#

    @Test("Odd but valid bodies decode exactly as the general path decodes them, fast or not", arguments: [
        // Taken fast.
        (push(data: thread), true),
        (push(data: #"{"brand":"D\"M\\C","number":"３１０","fiberType":"wool","quantity":0}"#), true),
        (push(data: #"{"brand":"DMC","number":"1","fiberType":"wool","quantity":1,"brand":"Anchor","x":[1,{"y":null}],"z":true}"#), true),
        (push(data: #"{"brand":"DMC","number":"1","fiberType":"wool","quantity":1,"colorName":null,"deletedAt":"2026-11-19T21:06:40.123Z"}"#), true),
        (push(data: #" { "brand" : "DMC" , "number":"1","fiberType":"wool","quantity":1 } "#, envelope: #", "deletedAt" : null, "more": {"a":[]}"#), true),
        (push(data: "null"), true),
        (push(data: thread, top: #","limit":7,"extra":"x""#), true),
        (push(data: thread, envelope: #","id":"\#(UUID().uuidString.lowercased())""#), true),
        // Left to the general path.
        (push(data: #"{"bra\u006ed":"DMC","number":"1","fiberType":"wool","quantity":1}"#), false),
        (push(data: #"{"brand":"DMC","number":"1","fiberType":"wool","quantity":1.0}"#), false),
        (push(data: #"{"brand":"DMC","number":"1","fiberType":"wool","quantity":"1"}"#), false),
        (push(data: #"{"brand":"DMC","number":"1","fiberType":"linen","quantity":1}"#), false),
        (push(data: #"{"number":"1","fiberType":"wool","quantity":1}"#), false),
        (push(data: thread, top: #","limit":7.0"#), false),
        ("\u{FEFF}" + push(data: thread), false),
    ])
    func oddBodies(_ body: String, fast: Bool) throws {
        let bytes = Array(body.utf8)
        let quick = bytes.withUnsafeBytes { WireReader.decode(SyncRequest.self, from: $0) }
        #expect((quick != nil) == fast)
        let general = try bytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncRequest.self, from: $0) }
        let decoded = try StitchJSON.decode(SyncRequest.self, from: Data(bytes))
        #expect(decoded.clientId == general.clientId && decoded.cursor == general.cursor && decoded.limit == general.limit)
        Self.same(decoded.changes, general.changes)
    }

    @Test("Malformed bodies fail with the general path's error", arguments: [
        push(data: thread) + "x",
        String(push(data: thread).dropLast()),
        push(data: #"{"brand":"DMC\u0007","number":"1"}"#).replacingOccurrences(of: #"\u0007"#, with: "\u{07}"),
        push(data: #"{"brand":"\ud800"}"#),
        push(data: thread, top: #","limit":"7""#),
        push(data: thread, envelope: #","id":"nope""#),
        push(data: thread, envelope: #","updatedAt":"yesterday""#),
        push(data: String(repeating: "[", count: 600) + String(repeating: "]", count: 600)),
        push(data: #"{"brand":"DMC","x":01}"#),
        #"{"changes":[]}"#,
        // A record's fields are an object: an array or a number is a malformed change.
        push(data: #"[1,2]"#),
        push(data: "42"),
    ])
    func malformed(_ body: String) throws {
        let bytes = Array(body.utf8)
        func message(_ body: () throws -> Any) -> String? {
            do { _ = try body(); return nil } catch { return "\(error)" }
        }
        let general = message { try bytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncRequest.self, from: $0) } }
        #expect(general != nil)
        #expect(message { try StitchJSON.decode(SyncRequest.self, from: Data(bytes)) } == general)
    }

    @Test("Invalid UTF-8 anywhere is refused, as by the general parser")
    func invalidUTF8() throws {
        var bytes = Array(Self.push(data: Self.thread).utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "M"))!
        bytes[at] = 0xC3  // a lead byte without its continuation
        #expect(throws: DecodingError.self) { try StitchJSON.decode(SyncRequest.self, from: Data(bytes)) }
        #expect(bytes.withUnsafeBytes { WireReader.decode(SyncRequest.self, from: $0) } == nil)
    }

    @Test("A page with a refused change's error is read by the general path, with the error")
    func refusals() throws {
        let results = [SyncResult(id: UUID(), type: .thread, status: .rejected, error: APIErrorBody(error: "No", fields: ["brand": "Brand is required"]))]
        let changes = try Self.changes()
        let bytes = try StitchJSON.encodeBytes(SyncResponse(cursor: "c", hasMore: false, changes: changes, results: results))
        #expect(bytes.withUnsafeBytes { WireReader.decode(SyncResponse.self, from: $0) } == nil)
        let decoded = try StitchJSON.decode(SyncResponse.self, from: Data(bytes))
        #expect(decoded.results == results)
        Self.same(decoded.changes, changes)
    }

    @Test("Random records round-trip through bytes to the same records")
    func randomRecords() throws {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09 -_/\\\"\n\té🧵\u{0}\u{1F}") .map(String.init)
        func text(_ max: Int = 12) -> String { (0..<Int.random(in: 1...max, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined() }
        func maybe(_ s: @autoclosure () -> String) -> String? { Bool.random(using: &rng) ? s() : nil }
        var changes: [SyncChange] = []
        for i in 0..<300 {
            let stamp = Date(millisecondsSince1970: Int64.random(in: 0...4_000_000_000_000, using: &rng))
            let deleted: Date? = i % 7 == 0 ? stamp : nil
            let record: any SyncRecord = switch i % 3 {
            case 0: InventoryThread(brand: text(), number: text(), colorName: maybe(text()), colorHex: maybe("#A1B2C3"),
                                    fiberType: FiberType.allCases.randomElement(using: &rng)!, quantity: Int.random(in: 0...1_000_000, using: &rng),
                                    barcode: maybe(text()), weightOrLength: maybe(text()), notes: maybe(text(200)),
                                    createdAt: stamp, updatedAt: stamp, deletedAt: deleted)
            case 1: Canvas(designer: text(), designName: text(), acquiredAt: Bool.random(using: &rng) ? stamp : nil, imageKey: maybe(text()),
                           size: maybe(text()), meshCount: Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil, notes: maybe(text()),
                           createdAt: stamp, updatedAt: stamp, deletedAt: deleted)
            default: ProjectThread(projectId: UUID(), sectionId: Bool.random(using: &rng) ? UUID() : nil, threadId: Bool.random(using: &rng) ? UUID() : nil,
                                   brand: text(), number: text(), colorName: maybe(text()), quantityNeeded: Int.random(in: 1...99, using: &rng),
                                   notes: maybe(text()), createdAt: stamp, updatedAt: stamp, deletedAt: deleted)
            }
            var change = try SyncChange(record: record)
            if deleted != nil { change.data = JSONValue.object(record.wireFields) }
            changes.append(change)
        }
        let bytes = try StitchJSON.encodeBytes(SyncResponse(cursor: "c", hasMore: false, changes: changes, results: []))
        let fast = try #require(bytes.withUnsafeBytes { WireReader.decode(SyncResponse.self, from: $0) })
        Self.same(fast.changes, changes)
        Self.same(fast.changes, try bytes.withUnsafeBytes { try StitchJSON.generalDecode(SyncResponse.self, from: $0) }.changes)
    }

    @Test("The eight-bytes-at-a-time scan stops at exactly the bytes the byte-wise scan stops at")
    func wordScan() {
        func ends(_ b: UInt8) -> Bool { b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 }
        func word(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        let plain = Array("abcdefgh".utf8)
        #expect(!WireReader.endsPlainText(word(plain)))
        // Every byte value at every position, among plain bytes and next to the plain bytes
        // closest to the thresholds (borrows between bytes must not hide or invent a stop).
        for filler: UInt8 in [0x61, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F] {
            for position in 0..<8 {
                for b in 0...255 {
                    var bytes = Array(repeating: filler, count: 8)
                    bytes[position] = UInt8(b)
                    #expect(WireReader.endsPlainText(word(bytes)) == (ends(UInt8(b)) || ends(filler)))
                }
            }
        }
    }

    @Test("A quote, backslash, control character or non-ASCII byte at any offset of a long text reads the same")
    func stopsAtAnyOffset() throws {
        var changes: [SyncChange] = []
        for offset in 0..<20 {
            for special in ["\"", "\\", "é", "\u{1}", "🧵"] {
                let text = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 11)
                changes.append(try SyncChange(record: InventoryThread(brand: text, number: text + text, notes: String(repeating: "n", count: offset),
                                                                      createdAt: Self.now, updatedAt: Self.now)))
            }
        }
        let bytes = try StitchJSON.encodeBytes(SyncResponse(cursor: "c", hasMore: false, changes: changes, results: []))
        let fast = try #require(bytes.withUnsafeBytes { WireReader.decode(SyncResponse.self, from: $0) })
        Self.same(fast.changes, changes)
    }
}
