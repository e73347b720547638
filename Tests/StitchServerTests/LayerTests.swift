import Foundation
import Testing

/// #80 (1): one way through the server. Controllers (the API) and the web app's handlers sit on
/// the services; the services, models and migrations below them never reach up into either,
/// and neither front calls into the other. Read from the source, so a change that reaches up
/// fails here, naming the file and what it named.
@Suite("Stitchuation's layers: the API and the web over the same services, nothing reaching up")
struct LayerTests {
    static let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/StitchServer")

    /// Each Swift file of a folder (and its subfolders), its code with comments taken out.
    static func code(in folder: String) throws -> [(file: String, code: String)] {
        let root = server.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var files: [(String, String)] = []
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
            files.append(("\(folder)/\(path)", code))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The types a folder declares.
    static func types(in folder: String) throws -> Set<String> {
        let declaration = try Regex(#"(?m)^(?:public |final |private |fileprivate )*(?:enum|struct|class|actor|protocol) ([A-Z][A-Za-z0-9]*)"#)
        var names: Set<String> = []
        for (_, code) in try code(in: folder) {
            for match in code.matches(of: declaration) { if let name = match.output[1].substring { names.insert(String(name)) } }
        }
        return names
    }

    static func names(_ name: String, in code: String) -> Bool {
        code.contains(try! Regex("\\b\(name)\\b"))
    }

    @Test("Services, models and migrations name no controller and nothing of the web (but the page addresses mail links to)")
    func nothingReachesUp() throws {
        let controllers = try Self.types(in: "Controllers")
        // SiteURL is the table of the web's addresses: a mail's link names a page.
        let web = try Self.types(in: "Web").subtracting(["SiteURL"])
        #expect(controllers.contains("ShoppingController") && web.contains("WebController") && web.contains("WebSession"), "the folders were read")
        var reaching: [String] = []
        // (Middleware serves both fronts: its error envelope answers the API in JSON and the web with a page.)
        for folder in ["Services", "Models", "Migrations", "HTTP"] {
            for (file, code) in try Self.code(in: folder) {
                for name in controllers.union(web).sorted() where Self.names(name, in: code) { reaching.append("\(file) names \(name)") }
            }
        }
        #expect(reaching.isEmpty, "\(reaching.joined(separator: "\n"))")
    }

    @Test("The web app's handlers call services, not the API's controllers; a controller calls no other controller")
    func frontsDontCallEachOther() throws {
        let controllers = try Self.types(in: "Controllers")
        var calls: [String] = []
        for (file, code) in try Self.code(in: "Web") {
            for name in controllers.sorted() where Self.names(name, in: code) { calls.append("\(file) names \(name)") }
        }
        for (file, code) in try Self.code(in: "Controllers") {
            let own = try Self.types(in: "Controllers").filter { code.contains(try! Regex("(?m)^(?:struct|enum|final class) \($0)\\b")) }
            for name in controllers.subtracting(own).sorted() where code.contains(try! Regex("\\b\(name)\\s*[.(]")) {
                calls.append("\(file) calls \(name)")
            }
        }
        #expect(calls.isEmpty, "\(calls.joined(separator: "\n"))")
    }

    @Test("A record is written from typed values: the fronts hand the services a Writer and a RecordPatch, never a request or an untyped dictionary")
    func writesAreTyped() throws {
        var found: [String] = []
        for folder in ["Controllers", "Web", "Services", "HTTP"] {
            for (file, code) in try Self.code(in: folder) {
                for line in code.split(separator: "\n") where line.contains("[String: Any]") && !line.contains("JSONSerialization") {
                    // (A token's header read to pick its key is JSON the server never writes.)
                    if !line.contains("decodeHeader") { found.append("\(file): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        for (file, code) in try Self.code(in: "Services") {
            let takesRequest = try Regex(#"static func (create|update|delete|add\w*|step)\((_ )?req(uest)?: Request"#)
            for match in code.matches(of: takesRequest) { found.append("\(file): \(code[match.range])") }
        }
        let writes = try String(contentsOf: Self.server.appendingPathComponent("Services/RecordWrites.swift"), encoding: .utf8)
        #expect(!writes.contains("Request") && !writes.contains("req."), "RecordWrites takes a Writer")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("No service reads the HTTP request or makes a response: the fronts hand them a Caller or a Writer and the values the request held (HTTP/ reads bodies and shapes responses)")
    func servicesKnowNoHTTP() throws {
        var found: [String] = []
        let vaporTypes = try Regex(#"\b(Request|Response)\b"#)
        for (file, code) in try Self.code(in: "Services") {
            for line in code.split(separator: "\n") where line.contains(vaporTypes) {
                found.append("\(file): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        let caller = try String(contentsOf: Self.server.appendingPathComponent("Services/Caller.swift"), encoding: .utf8)
        #expect(caller.contains("struct Caller"), "the sign-in and account services' context was read")
    }
}
