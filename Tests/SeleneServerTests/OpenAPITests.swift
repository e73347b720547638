import Foundation
import ServerCommon
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Selene's OpenAPI document and the routes agree")
struct SeleneOpenAPITests {
    @Test("Every API route is documented, and every documented operation is registered")
    func routesMatch() async throws {
        try await withSelene { app, _ in
            let res = try await app.send(.GET, "/openapi.json")
            #expect(res.status == .ok && res.headers.contentType == .json)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(buffer: res.body)) as? [String: Any])
            #expect(doc["openapi"] as? String == "3.1.0")
            let paths = try #require(doc["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, operations) in paths { for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") } }
            let apiRoutes = app.routes.all.filter { !$0.path.isEmpty && $0.path.first != .constant("app") }
            let registered = Set(apiRoutes.map(\.signature))
            #expect(registered.subtracting(documented).isEmpty, "undocumented: \(registered.subtracting(documented).sorted())")
            #expect(documented.subtracting(registered).isEmpty, "documented but missing: \(documented.subtracting(registered).sorted())")
            // Every SELENE.md §3 endpoint is there.
            for endpoint in ["GET /health", "POST /webhook/api/drafts", "POST /webhook/api/export-obsidian", "GET /api/notes", "POST /api/notes",
                             "GET /api/notes/{id}", "POST /api/notes/search", "GET /api/notes/recent", "GET /api/notes/since/{date}",
                             "GET /api/notes/{id}/related", "POST /api/notes/thread-assignments", "POST /api/notes/retrieve", "GET /api/threads",
                             "GET /api/threads/{id}", "GET /api/threads/search/{name}", "GET /api/threads/{id}/tasks", "GET /api/sessions",
                             "PUT /api/sessions/{id}", "DELETE /api/sessions/{id}", "PATCH /api/sessions/{id}/pin", "GET /api/sessions/{id}/messages",
                             "POST /api/sessions/{id}/messages", "GET /api/memories", "POST /api/memories", "PUT /api/memories/{id}",
                             "DELETE /api/memories/{id}", "POST /api/memories/touch", "GET /api/briefing/associations", "GET /api/briefing",
                             "GET /api/llm/health", "POST /api/llm/generate", "POST /api/llm/embed", "POST /api/devices/register",
                             "POST /api/devices/unregister"] {
                #expect(documented.contains(endpoint), "\(endpoint)")
            }
        }
    }

    @Test("Every schema reference resolves, and the text patterns say what validation says")
    func references() throws {
        let text = String(decoding: SeleneOpenAPI.data, as: UTF8.self)
        let doc = try #require(try JSONSerialization.jsonObject(with: SeleneOpenAPI.data) as? [String: Any])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let refs = text.components(separatedBy: "\"#/components/schemas/").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(refs.count > 50)
        for ref in refs { #expect(schemas[String(ref)] != nil, "unresolved \(ref)") }
        // The one-line pattern accepts what the validation accepts, and refuses what it refuses.
        let pattern = try NSRegularExpression(pattern: SeleneOpenAPI.textPattern(max: 10, required: true, lineBreaks: false))
        func matches(_ s: String) -> Bool { pattern.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        for s in ["a", " padded ", "ten chars!", "  0123456789  "] {
            #expect(matches(s) && SeleneText.problem(s.trimmingCharacters(in: .whitespacesAndNewlines), max: 10, lineBreaks: false) == nil, "\(s)")
        }
        for s in ["", "   ", "eleven chars", "two\nlines", "tab\there"] { #expect(!matches(s), "\(s)") }
    }
}
