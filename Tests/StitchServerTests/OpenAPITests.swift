import Foundation
import ServerCommon
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("The OpenAPI document and the routes agree")
struct OpenAPITests {
    @Test("Every registered route is documented, and every documented operation is registered")
    func routesMatchDocument() async throws {
        try await withTestApp { app, _ in
            let res = try await app.send(.GET, "/openapi.json")
            #expect(res.status == .ok)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(buffer: res.body)) as? [String: Any])
            #expect(doc["openapi"] as? String == "3.1.0")
            let paths = try #require(doc["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, operations) in paths {
                for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            // The web app's pages (/, /app/...) are HTML, not part of the JSON API.
            let apiRoutes = app.routes.all.filter { !$0.path.isEmpty && $0.path.first != .constant("app") }
            let registered = Set(apiRoutes.map(\.signature))
            #expect(registered.subtracting(documented).isEmpty, "undocumented: \(registered.subtracting(documented).sorted())")
            #expect(documented.subtracting(registered).isEmpty, "documented but missing: \(documented.subtracting(registered).sorted())")
        }
    }

    @Test("Each record's schema has exactly its description's fields and the stamps, required where the field is; its create and update bodies take every field a client sets")
    func recordSchemasMatchDescriptions() throws {
        let doc = try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.data()) as? [String: Any])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        func properties(_ name: String) -> Set<String> { Set((schemas[name]?["properties"] as? [String: Any])?.keys ?? [:].keys) }
        func check<R: DescribedRecord>(_ type: R.Type, _ name: String, extra: Set<String> = [], bodies: [String] = [], setByPath: Set<String> = []) {
            let fields = R.described.fields
            let wanted = Set(["id", "createdAt", "updatedAt", "deletedAt"] + fields.map(\.name)).union(extra)
            #expect(properties(name) == wanted, "\(name): missing \(wanted.subtracting(properties(name)).sorted()), not described \(properties(name).subtracting(wanted).sorted())")
            let required = Set(schemas[name]?["required"] as? [String] ?? [])
            let wantedRequired = Set(["id", "createdAt", "updatedAt"] + fields.filter { !$0.isOptional }.map(\.name)).union(extra)
            #expect(required == wantedRequired, "\(name) requires \(required.sorted()), its description \(wantedRequired.sorted())")
            for body in bodies {
                let settable = Set(["id"] + fields.map(\.name)).subtracting(setByPath)
                #expect(properties(body) == settable, "\(body): missing \(settable.subtracting(properties(body)).sorted()), not described \(properties(body).subtracting(settable).sorted())")
            }
        }
        check(InventoryThread.self, "Thread", bodies: ["ThreadInput", "ThreadCreate"])
        check(Canvas.self, "Canvas", bodies: ["CanvasInput", "CanvasCreate"])
        check(Project.self, "Project")
        check(ProjectSection.self, "Section", bodies: ["SectionInput", "SectionCreate"], setByPath: ["projectId"])
        check(ProjectThread.self, "Requirement", bodies: ["RequirementInput", "RequirementCreate"], setByPath: ["projectId"])
        check(JournalEntry.self, "JournalEntry", extra: ["images"])
        check(JournalImage.self, "JournalImage")
        check(Pattern.self, "Pattern")
        check(ShoppingLine.self, "ShoppingLine", bodies: ["ShoppingLineInput", "ShoppingLineCreate"], setByPath: ["kind"])
    }

    @Test("Every schema reference resolves")
    func referencesResolve() throws {
        let data = try OpenAPIDocument.data()
        let text = String(decoding: data, as: UTF8.self)
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let refs = text.components(separatedBy: "\"#/components/schemas/").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(!refs.isEmpty)
        for ref in refs { #expect(schemas[String(ref)] != nil, "unresolved \(ref)") }
    }
}
