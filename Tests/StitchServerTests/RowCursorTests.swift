import Foundation
import StitchCore
@testable import StitchServer
import Testing

/// `PostgresRecordCursor` reads PostgreSQL's binary record format by hand; these are its edges,
/// on bytes built here as PostgreSQL's `record_send` writes them. (Rows from a real server go
/// through it in every PostgreSQL test, among them the pull's byte-for-byte test.)
@Suite("PostgreSQL record rows")
struct RowCursorTests {
    /// A record: the field count, then per field its type id, its length (-1 for null) and its bytes.
    static func record(_ fields: [(UInt32, [UInt8]?)]) -> [UInt8] {
        var out: [UInt8] = []
        func int32<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.bigEndian) { out += $0 } }
        int32(Int32(fields.count))
        for (type, value) in fields {
            int32(type)
            if let value {
                int32(Int32(value.count))
                out += value
            } else {
                int32(Int32(-1))
            }
        }
        return out
    }
    static func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }

    let id = UUID(uuidString: "6F1C2B0E-8D8A-4F55-9E5B-3E2F1A7C9D11")!
    /// 2026-11-22T22:39:02.123456Z as PostgreSQL stores it: microseconds since 2000-01-01.
    let instant: Int64 = (1_795_387_142_123 - 946_684_800_000) * 1000 + 456

    @Test("Every kind of field reads as PostgresNIO would decode it, nulls included")
    func readsFields() throws {
        let bytes = Self.record([
            (2950, withUnsafeBytes(of: id.uuid) { Array($0) }), (20, Self.be(Int64(42))), (23, Self.be(Int32(-7))), (21, Self.be(Int16(3))),
            (1184, Self.be(instant)), (1184, nil), (25, Array("Gris perle – 415 ✨".utf8)), (25, nil), (1043, Array("".utf8)), (2950, nil),
        ])
        try bytes.withUnsafeBytes { raw in
            var c = try PostgresRecordCursor(raw)
            #expect(try c.uuid() == id)
            #expect(try c.int64() == 42)
            #expect(try c.int() == -7)
            #expect(try c.optionalInt() == 3)
            #expect(try c.date() == Date(timeIntervalSince1970: 1_795_387_142.123))
            #expect(try c.optionalDate() == nil)
            #expect(try c.string() == "Gris perle – 415 ✨")
            #expect(try c.optionalString() == nil)
            #expect(try c.optionalString() == "")
            #expect(try c.optionalUUID() == nil)
            // Past the last field.
            #expect(throws: RowDecodingError.self) { try c.optionalString() }
        }
    }

    @Test("Text goes to the JSON from its bytes; a null optional field is left out")
    func putsText() throws {
        let bytes = Self.record([(25, Array("say \"hi\"\n".utf8)), (25, nil), (1043, Array("b".utf8))])
        var json: [UInt8] = []
        try bytes.withUnsafeBytes { raw in
            var c = try PostgresRecordCursor(raw)
            try JSONObjectSink.object(&json) { o in
                try c.putText("a", optional: false, into: &o)
                try c.putText("n", optional: true, into: &o)
                try c.putText("b", optional: true, into: &o)
            }
        }
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":"say \"hi\"\n","b":"b"}"#)
    }

    @Test("A field of another type, a null where a value must be, or cut-short bytes are errors, not guesses")
    func refusesWrongBytes() throws {
        func fails(_ fields: [(UInt32, [UInt8]?)], cut: Int = 0, _ read: (inout PostgresRecordCursor) throws -> Void) {
            let bytes = Array(Self.record(fields).dropLast(cut))
            #expect(throws: RowDecodingError.self) {
                try bytes.withUnsafeBytes { raw in
                    var c = try PostgresRecordCursor(raw)
                    try read(&c)
                }
            }
        }
        fails([(25, Array("12".utf8))]) { _ = try $0.int64() }
        fails([(20, Self.be(Int64(1)))]) { _ = try $0.string() }
        fails([(25, Array("x".utf8))]) { _ = try $0.uuid() }
        fails([(2950, Array(repeating: 0, count: 15))]) { _ = try $0.uuid() }
        fails([(23, Self.be(Int64(1)))]) { _ = try $0.int() }
        fails([(20, Self.be(instant))]) { _ = try $0.date() }
        fails([(1184, nil)]) { _ = try $0.date() }
        fails([(25, nil)]) { _ = try $0.string() }
        fails([(20, nil)]) { _ = try $0.int64() }
        func putText(_ c: inout PostgresRecordCursor) throws {
            var json: [UInt8] = []
            try JSONObjectSink.object(&json) { o in try c.putText("k", optional: false, into: &o) }
        }
        fails([(20, Self.be(Int64(1)))], putText)
        fails([(25, nil)], putText)
        fails([(25, Array("abcdef".utf8))], cut: 2) { _ = try $0.string() }
        fails([(20, Self.be(Int64(1)))], cut: 12) { _ = try $0.int64() }
        #expect(throws: RowDecodingError.self) { try [UInt8]([0, 0]).withUnsafeBytes { _ = try PostgresRecordCursor($0) } }
    }

    /// Keeps what each record's fields read as.
    struct Collect: RowReader {
        var rows: [[String?]] = []
        mutating func read<C: ColumnCursor>(_ c: inout C) throws {
            rows.append([try c.uuid().uuidString, try c.optionalString(), try c.optionalInt().map(String.init)])
        }
    }

    @Test("Records one after another (a page's rows in one value) are each read whole, in order; a cut-short last one is an error")
    func readsRecordsInSequence() throws {
        let other = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let fields: [[(UInt32, [UInt8]?)]] = [
            [(2950, withUnsafeBytes(of: id.uuid) { Array($0) }), (25, Array("a – ✨".utf8)), (20, Self.be(Int64(5)))],
            [(2950, withUnsafeBytes(of: other.uuid) { Array($0) }), (25, nil), (20, nil)],
            [(2950, withUnsafeBytes(of: id.uuid) { Array($0) }), (25, Array("".utf8)), (23, Self.be(Int32(-1)))],
        ]
        let bytes = fields.flatMap(Self.record)
        var reader = Collect()
        try bytes.withUnsafeBytes { try PostgresRecordCursor.readAll($0, into: &reader) }
        #expect(reader.rows == [[id.uuidString, "a – ✨", "5"], [other.uuidString, nil, nil], [id.uuidString, "", "-1"]])
        // Nothing: no records.
        var none = Collect()
        try [UInt8]().withUnsafeBytes { try PostgresRecordCursor.readAll($0, into: &none) }
        #expect(none.rows.isEmpty)
        // The last record cut short anywhere (in its header, a length, or its bytes) is refused.
        for cut in [1, 3, 6, 10] {
            var partial = Collect()
            #expect(throws: RowDecodingError.self) {
                try Array(bytes.dropLast(cut)).withUnsafeBytes { try PostgresRecordCursor.readAll($0, into: &partial) }
            }
        }
    }
}
