import Fluent
import Foundation
import SeleneShared

/// Writes notes and threads into an Obsidian vault as Markdown with YAML front matter:
/// `Selene/Notes/YYYY-MM-DD Title (id).md` and `Selene/Threads/Name (thread id).md`, each thread
/// linking its notes. Every path is built from a cleaned file name and checked to lie inside the
/// vault (after resolving links) before anything is written; a title like `../../etc/x` becomes
/// a file named `etc x` in the notes folder.
struct ObsidianExporter {
    let db: any Database
    let vault: String

    static let folder = "Selene"

    func export(noteId: Int) async throws -> ExportResult? {
        guard let note = try await NoteStore(db: db).note(id: noteId) else { return nil }
        let path = try write(note: note)
        return ExportResult(notes: 1, threads: 0, files: [path])
    }

    /// Writes one thread's file again (after a note left it).
    func export(threadId: Int) async throws -> String? {
        guard let detail = try await ThreadStore(db: db).detail(id: threadId) else { return nil }
        return try write(thread: detail)
    }

    /// Removes the files exported for a note (whatever title they were written under: the name
    /// ends in ` (ID).md`). Answers their paths relative to the vault.
    func removeNoteFiles(id: Int) -> [String] {
        let fm = FileManager.default
        let root = URL(fileURLWithPath: vault, isDirectory: true).standardizedFileURL.resolvingSymlinksInPath()
        let directory = root.appendingPathComponent(Self.folder, isDirectory: true).appendingPathComponent("Notes", isDirectory: true)
            .resolvingSymlinksInPath()
        guard Self.isInside(directory, root), let names = try? fm.contentsOfDirectory(atPath: directory.path) else { return [] }
        var removed: [String] = []
        for name in names where name.hasSuffix(" (\(id)).md") {
            let file = directory.appendingPathComponent(name)
            guard Self.isInside(file, root), (try? fm.removeItem(at: file)) != nil else { continue }
            removed.append(String(file.path.dropFirst(root.path.count + 1)))
        }
        return removed
    }

    func exportAll() async throws -> ExportResult {
        var files: [String] = []
        let store = NoteStore(db: db)
        var offsetId = Int.max
        // In pages, newest first, so a big collection isn't held in memory at once.
        while true {
            let page = try await store.notes(where: "n.id < \(bind: offsetId)", limit: 500)
            for note in page { files.append(try write(note: note)) }
            guard let last = page.last, page.count == 500 else { break }
            offsetId = Int(last.id)
        }
        let noteCount = files.count
        let threads = try await ThreadModel.query(on: db).sort(\.$id).all()
        for thread in threads {
            let detail = try await ThreadStore(db: db).detail(id: thread.id!)
            if let detail { files.append(try write(thread: detail)) }
        }
        return ExportResult(notes: noteCount, threads: files.count - noteCount, files: files)
    }

    // MARK: Files

    static func noteFileName(_ note: Note) -> String {
        "\(WireDate.day(of: note.createdAt)) \(safeName(note.displayTitle)) (\(note.id)).md"
    }

    static func threadFileName(_ thread: NoteThread) -> String {
        "\(safeName(thread.name)) (thread \(thread.id)).md"
    }

    private func write(note: Note) throws -> String {
        var front: [(String, String)] = [
            ("selene_id", "\(note.id)"), ("title", Self.yaml(note.displayTitle)), ("created", WireDate.string(from: note.createdAt)),
            ("source", note.source.rawValue), ("tags", Self.yamlList(note.tags)),
        ]
        if let a = note.analysis {
            front += [("theme", Self.yaml(a.primaryTheme)), ("concepts", Self.yamlList(a.concepts.map(\.name))),
                      ("sentiment", a.sentiment.rawValue), ("type", a.noteType.rawValue), ("actionability", a.actionability.rawValue)]
            if !a.people.isEmpty { front.append(("people", Self.yamlList(a.people))) }
            if !a.places.isEmpty { front.append(("places", Self.yamlList(a.places))) }
        }
        if let threadId = note.threadId, let name = note.threadName {
            let link = String(Self.threadFileName(NoteThread(id: threadId, name: name, summary: "", status: .active, momentum: 0,
                                                             lastActivityAt: note.createdAt, createdAt: note.createdAt, noteCount: 0)).dropLast(3))
            front.append(("thread", Self.yaml("[[\(link)]]")))
        }
        let body = Self.frontMatter(front) + note.content + (note.content.hasSuffix("\n") ? "" : "\n")
        return try store(body, folder: "Notes", name: Self.noteFileName(note))
    }

    private func write(thread detail: ThreadDetail) throws -> String {
        let t = detail.thread
        let front: [(String, String)] = [
            ("selene_thread_id", "\(t.id)"), ("name", Self.yaml(t.name)), ("status", t.status.rawValue),
            ("momentum", String(format: "%.3f", t.momentum)), ("created", WireDate.string(from: t.createdAt)),
            ("last_activity", WireDate.string(from: t.lastActivityAt)), ("notes", "\(detail.notes.count)"),
        ]
        var body = Self.frontMatter(front) + "# \(t.name)\n\n\(t.summary)\n\n## Notes\n\n"
        for note in detail.notes { body += "- [[\(Self.noteFileName(note).dropLast(3))]]\n" }
        return try store(body, folder: "Threads", name: Self.threadFileName(t))
    }

    /// Writes `text` to `Selene/<folder>/<name>` inside the vault; answers the path relative to it.
    private func store(_ text: String, folder: String, name: String) throws -> String {
        let fm = FileManager.default
        let root = URL(fileURLWithPath: vault, isDirectory: true).standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SeleneError(.serviceUnavailable, "The Obsidian vault \(vault) is not a folder (SELENE_OBSIDIAN_VAULT)")
        }
        let directory = root.appendingPathComponent(Self.folder, isDirectory: true).appendingPathComponent(folder, isDirectory: true)
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        // The folders may be links; what they resolve to must still be inside the vault.
        let resolved = directory.resolvingSymlinksInPath()
        let file = resolved.appendingPathComponent(name)
        guard Self.isInside(file, root), Self.isInside(resolved, root), !name.contains("/") else {
            throw SeleneError(.internalServerError, "Refused to write \(name) outside the vault")
        }
        // Written to a temporary file and renamed over the target, so a link at the target is
        // replaced rather than followed.
        try Data(text.utf8).write(to: file, options: .atomic)
        return String(file.path.dropFirst(root.path.count + 1))
    }

    static func isInside(_ url: URL, _ root: URL) -> Bool {
        let path = url.standardizedFileURL.path, base = root.standardizedFileURL.path
        return path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// A file name from free text: no path separators, no characters Obsidian or a file system
    /// rejects, no leading dots (hidden files, `..`), at most 80 characters.
    static func safeName(_ text: String) -> String {
        let forbidden = CharacterSet(charactersIn: "/\\:*?\"<>|#^[]%").union(.controlCharacters).union(.newlines)
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { forbidden.contains($0) ? " " : $0 }))
        var words = cleaned.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        while words.hasPrefix(".") || words.hasPrefix(" ") { words.removeFirst() }
        while words.hasSuffix(".") || words.hasSuffix(" ") { words.removeLast() }
        words = words.replacingOccurrences(of: "..", with: " ")
        if words.count > 80 { words = String(words.prefix(80)).trimmingCharacters(in: .whitespaces) }
        return words.isEmpty ? "Untitled" : words
    }

    static func frontMatter(_ fields: [(String, String)]) -> String {
        "---\n" + fields.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n---\n\n"
    }

    /// A YAML double-quoted scalar.
    static func yaml(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control { out += String(format: "\\x%02X", scalar.value) }
                else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    static func yamlList(_ items: [String]) -> String { "[" + items.map(yaml).joined(separator: ", ") + "]" }
}
