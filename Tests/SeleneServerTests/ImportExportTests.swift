import Foundation
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Selene import (folders of Markdown and text) and Obsidian export")
struct ImportExportTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("selene-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func write(_ text: String, _ path: String, in root: URL) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test("A folder with bad files in it: each reported with why, the rest imported; again: nothing twice")
    func importFolder() async throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("---\ntitle: \"Seed list\"\ntags: [garden, \"spring\"]\ncreated: 2026-03-01\n---\nTomatoes, beans, basil.\n", "Garden/seeds.md", in: root)
        try write("# Reading list\n\nPiranesi; The Dispossessed.", "reading.md", in: root)
        try write("Plain text from Drafts\r\nsecond line", "drafts/2026-05-01.txt", in: root)
        try write("---\ntags:\n  - work\n  - ideas\n---\nA note with list tags", "work.markdown", in: root)
        try Data([0xFF, 0xFE, 0x41, 0x00, 0x42]).write(to: root.appendingPathComponent("broken.md"))
        try Data([0xC3, 0x28, 0x41]).write(to: root.appendingPathComponent("latin1.txt"))
        try write("---\ntitle: never closed\nBody", "unclosed.md", in: root)
        try write("   \n\n", "empty.md", in: root)
        try write("---\ntitle: only front matter\n---\n", "front-only.md", in: root)
        try Data(repeating: 0x61, count: SeleneLimits.maxContentBytes + 10).write(to: root.appendingPathComponent("huge.txt"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: root.appendingPathComponent("photo.png"))
        try write("{\"not\": \"drafts\"}", "settings.json", in: root)
        try write(#"[{"content":"From a Drafts export","uuid":"AAAA-1","tags":["x"],"created_at":"2026-02-02T10:00:00Z"},{"content":""}]"#, "DraftsExport.json", in: root)
        try write("hidden", ".obsidian/workspace.md", in: root)
        try write("hidden too", ".secret.md", in: root)

        try await withSelene { app, _ in
            var lines: [(Int, Int)] = []
            let report = try await SeleneAdmin.importFolder(app, directory: root.path) { done, total, _ in lines.append((done, total)) }
            #expect(report.imported == 5, "\(report)")
            #expect(report.alreadyThere == 0)
            let skipped = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.path, $0.reason) })
            #expect(skipped["broken.md"]?.contains("NUL") == true)
            #expect(skipped["latin1.txt"]?.contains("UTF-8") == true)
            #expect(skipped["unclosed.md"]?.contains("never closed") == true)
            #expect(skipped["empty.md"]?.contains("empty") == true)
            #expect(skipped["front-only.md"]?.contains("empty") == true)
            #expect(skipped["huge.txt"]?.contains("1 MB") == true)
            #expect(skipped["DraftsExport.json (draft 2)"]?.contains("content") == true)
            #expect(report.skipped.count == 7)
            #expect(report.otherFiles == ["png": 1, "json": 1])
            #expect(lines.first?.0 == 0 && lines.last.map { $0.0 == $0.1 } == true)

            let notes = try await app.call(.GET, "/api/notes", as: NoteList.self).notes
            let byTitle = Dictionary(uniqueKeysWithValues: notes.map { ($0.displayTitle, $0) })
            let seeds = try #require(byTitle["Seed list"])
            #expect(seeds.tags == ["garden", "spring"] && seeds.source == .import && seeds.content == "Tomatoes, beans, basil.")
            #expect(WireDate.string(from: seeds.createdAt) == "2026-03-01T00:00:00.000Z")
            #expect(byTitle["Reading list"] != nil)
            #expect(byTitle["2026-05-01"]?.content == "Plain text from Drafts\nsecond line")
            #expect(byTitle["work"]?.tags == ["work", "ideas"])
            let draft = try #require(notes.first { $0.content == "From a Drafts export" })
            #expect(draft.source == .drafts && draft.sourceUuid == "AAAA-1" && WireDate.string(from: draft.createdAt) == "2026-02-02T10:00:00.000Z")

            let again = try await SeleneAdmin.importFolder(app, directory: root.path) { _, _, _ in }
            #expect(again.imported == 0 && again.alreadyThere == 5)
            #expect(try await app.noteCount() == 5)
            await #expect(throws: FieldErrors.self) {
                try await SeleneAdmin.importFolder(app, directory: root.appendingPathComponent("nope").path) { _, _, _ in }
            }
        }
    }

    @Test("Export writes notes and threads as Markdown with front matter, always inside the vault")
    func exportInsideVault() async throws {
        let vault = try folder()
        let outside = try folder()
        defer { try? FileManager.default.removeItem(at: vault); try? FileManager.default.removeItem(at: outside) }
        try await withSelene(adjust: { $0.obsidianVault = vault.path }) { app, clock in
            let evil = try await app.note("Escape attempt", title: "../../etc/x")
            let dots = try await app.note("Dots", title: "..")
            let quoted = try await app.note("Body line\nsecond", title: "He said \"hi\": #tag", tags: ["a\"b"])
            let one: ExportResult = try await app.call(.POST, "/webhook/api/export-obsidian", json: ExportRequest(noteId: evil.id))
            #expect(one.notes == 1 && one.files.count == 1)
            let day = WireDate.day(of: clock.now)
            #expect(one.files == ["Selene/Notes/\(day) etc x (\(evil.id)).md"])
            let written = try String(contentsOf: vault.appendingPathComponent(one.files[0]), encoding: .utf8)
            #expect(written.hasPrefix("---\nselene_id: \(evil.id)\ntitle: \"../../etc/x\"\n"))
            #expect(written.hasSuffix("---\n\nEscape attempt\n"))
            #expect(!FileManager.default.fileExists(atPath: vault.deletingLastPathComponent().appendingPathComponent("etc").path))

            let all: ExportResult = try await app.call(.POST, "/webhook/api/export-obsidian", json: ExportRequest())
            #expect(all.notes == 3 && all.threads == 0)
            #expect(all.files.contains("Selene/Notes/\(day) Untitled (\(dots.id)).md"))
            let q = try String(contentsOf: vault.appendingPathComponent("Selene/Notes/\(day) He said hi tag (\(quoted.id)).md"), encoding: .utf8)
            #expect(q.contains(#"title: "He said \"hi\": #tag""#) && q.contains(#"tags: ["a\"b"]"#) && q.contains("Body line\nsecond"))
            for file in all.files {
                let url = vault.appendingPathComponent(file).standardizedFileURL
                #expect(url.path.hasPrefix(vault.standardizedFileURL.path + "/"))
            }
            // An empty body exports everything too; an unknown note is 404.
            #expect(try await app.send(.POST, "/webhook/api/export-obsidian").status == .ok)
            #expect(try await app.send(.POST, "/webhook/api/export-obsidian", json: ExportRequest(noteId: 999)).status == .notFound)

            // A folder of the export that is a link to somewhere else is refused, nothing written there.
            try FileManager.default.removeItem(at: vault.appendingPathComponent("Selene/Notes"))
            try FileManager.default.createSymbolicLink(at: vault.appendingPathComponent("Selene/Notes"), withDestinationURL: outside)
            let refused = try await app.send(.POST, "/webhook/api/export-obsidian", json: ExportRequest(noteId: evil.id))
            #expect(refused.status == .internalServerError)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
        try await withSelene { app, _ in
            let res = try await app.send(.POST, "/webhook/api/export-obsidian", json: ExportRequest())
            #expect(res.status == .serviceUnavailable && res.error?.error.contains("SELENE_OBSIDIAN_VAULT") == true)
        }
    }

    @Test("File names from free text")
    func safeNames() {
        #expect(ObsidianExporter.safeName("../../etc/x") == "etc x")
        #expect(ObsidianExporter.safeName("..") == "Untitled")
        #expect(ObsidianExporter.safeName("a/b\\c:d*e?f\"g<h>i|j") == "a b c d e f g h i j")
        #expect(ObsidianExporter.safeName(".hidden") == "hidden")
        #expect(ObsidianExporter.safeName("line\nbreak\u{0}nul") == "line break nul")
        #expect(ObsidianExporter.safeName(String(repeating: "x", count: 300)).count == 80)
        #expect(ObsidianExporter.safeName("Café ☕️") == "Café ☕️")
    }

    @Test("Front matter: values, quoted values, inline and block lists")
    func frontMatter() {
        let meta = FrontMatter.parse("title: 'Hello: world'\ntags: [a, \"b c\", ]\naliases:\n  - one\n  - two\ndate: 2026-01-02\n  indented: no")
        #expect(meta["title"] == .text("Hello: world"))
        #expect(meta["tags"] == .list(["a", "b c"]))
        #expect(meta["aliases"] == .list(["one", "two"]))
        #expect(meta["date"] == .text("2026-01-02"))
        #expect(meta["indented"] == nil)
    }
}
