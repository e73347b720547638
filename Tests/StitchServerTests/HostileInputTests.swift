import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Hostile input: 4xx, nothing written, server stays up")
struct HostileInputTests {
    @Test("Oversized bodies, deep nesting, huge strings, numbers beyond 64 bits, invalid UTF-8")
    func hostileBodies() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let version = try await ann.syncVersion()
            var bodies: [(String, String)] = [
                ("deep nesting", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)),
                ("deep objects", String(repeating: #"{"a":"#, count: 20_000) + "1" + String(repeating: "}", count: 20_000)),
                ("huge string", #"{"brand":""# + String(repeating: "x", count: 5_000_000) + #"","number":"1"}"#),
                ("beyond 64 bits", #"{"brand":"DMC","number":"1","quantity":184467440737095516160}"#),
                ("negative beyond 64 bits", #"{"brand":"DMC","number":"1","quantity":-184467440737095516160}"#),
                ("float quantity", #"{"brand":"DMC","number":"1","quantity":1.5}"#),
                ("NaN-ish", #"{"brand":"DMC","number":"1","quantity":NaN}"#),
                ("truncated", #"{"brand":"DMC","number":"#),
                ("array body", #"[{"brand":"DMC","number":"1"}]"#),
            ]
            bodies.append(("oversized", #"{"brand":"DMC","number":"1","notes":""# + String(repeating: "n", count: 13 * 1024 * 1024) + #""}"#))
            for (label, body) in bodies {
                for path in ["/threads", "/sync", "/auth/register"] {
                    let res = try await ann.send(.POST, path, raw: body)
                    #expect((400..<500).contains(Int(res.status.code)), "\(label) → \(path): \(res.status)")
                }
            }
            // Invalid UTF-8 bytes in a JSON string.
            var bytes = Array(#"{"brand":"DM"#.utf8)
            bytes += [0xC3, 0x28, 0xFF, 0xFE]
            bytes += Array(#"","number":"1"}"#.utf8)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = BearerAuthorization(token: ann.token)
            headers.contentType = .json
            let invalid = try await app.testing().sendRequest(.POST, "/threads", headers: headers, body: ByteBuffer(bytes: bytes))
            #expect((400..<500).contains(Int(invalid.status.code)), "invalid UTF-8: \(invalid.status)")

            #expect(try await ThreadModel.count(on: app.db) == 0)
            #expect(try await ann.syncVersion() == version)
            // Still serving.
            #expect(try await app.send(.GET, "/health").status == .ok)
            #expect(try await ann.send(.POST, "/threads", json: ["brand": "DMC", "number": "310"]).status == .created)
        }
    }
}
