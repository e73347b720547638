import Foundation
import Testing

/// #80 (2): the server runs no view model. Briefings and task suggestions are plain engines in
/// SeleneShared/Logic (`BriefingEngine`, `TaskSuggestions`, `ChatEngine`) that the phone's view
/// models wrap; nothing on the server is tied to the main actor.
@Suite("Selene's server builds no view model and runs nothing on the main actor")
struct NoViewModelsTests {
    @Test("No file of SeleneServer names a view model or @MainActor; the engines live in Logic, not ViewModels")
    func noViewModels() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let server = sources.appendingPathComponent("SeleneServer")
        var found: [String] = []
        let walker = try #require(FileManager.default.enumerator(atPath: server.path))
        var files = 0
        let viewModel = try Regex(#"\b[A-Z][A-Za-z]*ViewModel\b"#)
        for case let path as String in walker where path.hasSuffix(".swift") {
            files += 1
            let text = try String(contentsOf: server.appendingPathComponent(path), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                if code.contains("@MainActor") || code.contains(viewModel) {
                    found.append("SeleneServer/\(path):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(files > 20, "the server's sources were read")
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        let viewModels = sources.appendingPathComponent("SeleneShared/ViewModels")
        let logic = sources.appendingPathComponent("SeleneShared/Logic")
        for engine in ["ChatEngine.swift", "BriefingEngine.swift"] {
            #expect(FileManager.default.fileExists(atPath: logic.appendingPathComponent(engine).path), "\(engine) in Logic")
            #expect(!FileManager.default.fileExists(atPath: viewModels.appendingPathComponent(engine).path), "\(engine) not in ViewModels")
        }
    }
}
