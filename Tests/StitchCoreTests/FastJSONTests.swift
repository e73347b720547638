import Foundation
import Testing
@testable import StitchCore

/// The wire coder used on the hot paths must agree with Foundation's (the reference) on every
/// value it accepts, and refuse what Foundation refuses.
@Suite struct FastJSONTests {
    let now = Date(millisecondsSince1970: 1_790_000_000_123)
    let id = UUID()

    func sampleThread() -> InventoryThread {
        InventoryThread(id: id, brand: "DMC \"quoted\" \\ / é 🧵", number: "310", colorName: "Black\n\t\u{01}", colorHex: "#000000",
                        fiberType: .cotton, quantity: 3, notes: nil, createdAt: now, updatedAt: now)
    }

    @Test func encodesLikeFoundation() throws {
        let thread = sampleThread()
        let fast = try StitchJSON.encode(thread)
        let reference = try wireReference(thread)
        // Same value either way, and the fast bytes decode with Foundation.
        #expect(try StitchJSON.makeDecoder().decode(InventoryThread.self, from: fast) == thread)
        #expect(try JSONSerialization.jsonObject(with: fast) as? NSDictionary == JSONSerialization.jsonObject(with: reference) as? NSDictionary)
        #expect(try StitchJSON.decode(InventoryThread.self, from: reference) == thread)
    }

    @Test func roundTripsSyncMessages() throws {
        let change = try SyncChange(record: sampleThread())
        let request = SyncRequest(cursor: "abc", clientId: UUID(), changes: [change], limit: 20)
        let decoded = try StitchJSON.decode(SyncRequest.self, from: try StitchJSON.encode(request))
        #expect(decoded.changes == [change])
        #expect(try decoded.changes[0].record(as: InventoryThread.self) == sampleThread())
        #expect(decoded.limit == 20 && decoded.cursor == "abc")
    }

    @Test func parsesEveryJSONValue() throws {
        let text = #"{"a":[1,-2,3.5,1e3,true,false,null,"x\u00e9\ud83e\uddf5"],"b":{},"c":[],"big":123456789012345678901234}"#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(value["a"] == .array([.int(1), .int(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null, .string("xé🧵")]))
        #expect(value["b"] == .object([:]) && value["c"] == .array([]))
        if case .double = value["big"] {} else { Issue.record("integers beyond 64 bits are not integers") }
        #expect(try JSONValue.parse(Data(value.serialized)).serialized == value.serialized)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "\"\\ud800\"", "[1] 2", "{\"a\":1,}",
        "\"a\u{01}b\"", "nul", "1e", "NaN", "[" + String(repeating: "[", count: 600) + String(repeating: "]", count: 601),
    ])
    func refusesMalformedJSON(_ text: String) {
        #expect(throws: DecodingError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: DecodingError.self) { try JSONValue.parse(Data([0x22, 0xFF, 0xFE, 0x22])) }
    }

    @Test func decodingErrorsNameTheField() throws {
        func error(_ json: String) -> DecodingError? {
            do { _ = try StitchJSON.decode(InventoryThread.self, from: Data(json.utf8)); return nil } catch let e as DecodingError { return e } catch { return nil }
        }
        let base = #""id":"6F1B4A4E-0C0B-4D7E-9B43-1F6E5B0C2A11","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z""#
        guard case .keyNotFound(let key, _)? = error("{\(base),\"number\":\"1\",\"fiberType\":\"wool\",\"quantity\":1}") else { Issue.record("missing key"); return }
        #expect(key.stringValue == "brand")
        guard case .typeMismatch(_, let context)? = error("{\(base),\"brand\":\"D\",\"number\":\"1\",\"fiberType\":\"wool\",\"quantity\":\"one\"}") else { Issue.record("type"); return }
        #expect(context.codingPath.map(\.stringValue) == ["quantity"])
        guard case .dataCorrupted(let c2)? = error("{\(base),\"brand\":\"D\",\"number\":\"1\",\"fiberType\":\"silk-ish\",\"quantity\":1}") else { Issue.record("enum"); return }
        #expect(c2.codingPath.map(\.stringValue) == ["fiberType"])
        guard case .dataCorrupted(let c3)? = error("{\(base),\"brand\":\"D\",\"number\":\"1\",\"fiberType\":\"wool\",\"quantity\":1e30}") else { Issue.record("range"); return }
        #expect(c3.codingPath.map(\.stringValue) == ["quantity"])
        guard case .valueNotFound? = error("{\(base),\"brand\":null,\"number\":\"1\",\"fiberType\":\"wool\",\"quantity\":1}") else { Issue.record("null"); return }
    }

    @Test func timestampsMatchTheReferenceFormatter() {
        for ms in [Int64(0), 1, 999, 1_790_000_000_123, 4_102_444_799_999, 951_782_400_000] {
            let date = Date(millisecondsSince1970: ms)
            let text = Timestamp.string(from: date)
            #expect(Timestamp.date(from: text) == date)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            #expect(text == formatter.string(from: date))
        }
    }

    /// The allocation-free natural order against the straightforward one it replaced.
    @Test func naturalOrderMatchesReference() {
        func reference(_ lhs: String, _ rhs: String) -> ComparisonResult {
            var a = lhs.unicodeScalars.makeIterator(), b = rhs.unicodeScalars.makeIterator()
            var ca = a.next(), cb = b.next()
            func digit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
            while let x = ca, let y = cb {
                if digit(x) && digit(y) {
                    var runA = "", runB = ""
                    while let c = ca, digit(c) { runA.unicodeScalars.append(c); ca = a.next() }
                    while let c = cb, digit(c) { runB.unicodeScalars.append(c); cb = b.next() }
                    let tA = runA.drop { $0 == "0" }, tB = runB.drop { $0 == "0" }
                    if tA.count != tB.count { return tA.count < tB.count ? .orderedAscending : .orderedDescending }
                    if tA != tB { return tA < tB ? .orderedAscending : .orderedDescending }
                    if runA.count != runB.count { return runA.count < runB.count ? .orderedAscending : .orderedDescending }
                    continue
                }
                if digit(x) != digit(y) { return digit(x) ? .orderedAscending : .orderedDescending }
                let lx = String(x).lowercased(), ly = String(y).lowercased()
                if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
                ca = a.next(); cb = b.next()
            }
            if ca == nil && cb == nil { return lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending) }
            return ca == nil ? .orderedAscending : .orderedDescending
        }
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0012389aAbBzZ é É-_.".unicodeScalars)
        for _ in 0..<20_000 {
            func word() -> String {
                var s = String.UnicodeScalarView()
                for _ in 0..<Int.random(in: 0...6, using: &rng) { s.append(alphabet.randomElement(using: &rng)!) }
                return String(s)
            }
            let x = word(), y = word()
            #expect(NaturalOrder.compare(x, y) == reference(x, y), "\(x) vs \(y)")
        }
    }
}

/// Foundation's encoding (the reference) as the wire writes it: ids lower-case (RFC 9562), which
/// Foundation's encoder can't be told to do.
func wireReference<T: Encodable>(_ value: T) throws -> Data {
    Data(try wireIds(StitchJSON.decode(JSONValue.self, from: StitchJSON.makeEncoder().encode(value))).serialized)
}

func wireIds(_ value: JSONValue) -> JSONValue {
    switch value {
    case .string(let s) where s.count == 36 && UUID(text: s) != nil: .string(s.lowercased())
    case .array(let a): .array(a.map(wireIds))
    case .object(let o): .object(o.mapValues(wireIds))
    default: value
    }
}
