import Fluent
import Foundation
import SeleneShared

/// `selene import DIR`: every Markdown or text file of a folder (an Obsidian vault, a Drafts
/// export) becomes a note, and a Drafts JSON export (`[{"content": …, "uuid": …}]`) its drafts.
/// Front matter gives the title, tags and date (else the first `# heading`, the file name and the
/// file's date). Importing again adds nothing twice (content hash, or the Drafts uuid). Whatever
/// can't be imported is reported with its path and why; nothing is dropped silently.
public struct NoteImporter {
    let db: any Database
    let now: @Sendable () -> Date

    public struct Skipped: Sendable, Hashable {
        public var path: String
        public var reason: String
    }

    public struct Report: Sendable {
        public var imported = 0
        public var alreadyThere = 0
        public var skipped: [Skipped] = []
        /// Files that aren't notes at all (pictures, PDFs…), by extension.
        public var otherFiles: [String: Int] = [:]
    }

    static let textExtensions: Set<String> = ["md", "markdown", "mdown", "txt", "text"]
    static let ignoredFolders: Set<String> = [".obsidian", ".trash", ".git", ObsidianExporter.folder]

    /// The files to look at, relative paths, sorted. Hidden files and folders (and Selene's own
    /// export folder) are passed over.
    static func files(in directory: String) throws -> [String] {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FieldErrors(["directory": "\(directory) is not a folder"])
        }
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
                                                         options: [.skipsHiddenFiles]) else { return [] }
        var out: [String] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey])
            if values?.isDirectory == true {
                if ignoredFolders.contains(url.lastPathComponent) { walker.skipDescendants() }
                continue
            }
            guard values?.isRegularFile == true else { continue }
            out.append(String(url.standardizedFileURL.path.dropFirst(root.path.count + 1)))
        }
        return out.sorted()
    }

    func run(directory: String, progress: (Int, Int, String) -> Void) async throws -> Report {
        let files = try Self.files(in: directory)
        var report = Report()
        let store = NoteStore(db: db)
        for (index, relative) in files.enumerated() {
            progress(index, files.count, relative)
            let ext = (relative as NSString).pathExtension.lowercased()
            let path = (directory as NSString).appendingPathComponent(relative)
            do {
                if ext == "json" {
                    guard let drafts = try Self.draftsExport(path) else {
                        report.otherFiles["json", default: 0] += 1
                        continue
                    }
                    for (n, draft) in drafts.enumerated() {
                        do {
                            let input = try draft.input().validated()
                            let (_, created) = try await store.capture(input, idempotent: true, now: now())
                            if created { report.imported += 1 } else { report.alreadyThere += 1 }
                        } catch {
                            report.skipped.append(Skipped(path: "\(relative) (draft \(n + 1))", reason: Self.describe(error)))
                        }
                    }
                    continue
                }
                guard Self.textExtensions.contains(ext) else {
                    report.otherFiles[ext.isEmpty ? "(none)" : ext, default: 0] += 1
                    continue
                }
                let input = try Self.parse(path: path, relative: relative).validated()
                let (_, created) = try await store.capture(input, idempotent: true, now: now())
                if created { report.imported += 1 } else { report.alreadyThere += 1 }
            } catch {
                report.skipped.append(Skipped(path: relative, reason: Self.describe(error)))
            }
        }
        progress(files.count, files.count, "")
        return report
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let e as FieldErrors: e.fields.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")
        case let e as NoteTooLarge: e.description
        case let e as ImportProblem: e.description
        default: "\(error)"
        }
    }

    struct ImportProblem: Error, CustomStringConvertible { var description: String }

    /// A Markdown or text file as a capture.
    static func parse(path: String, relative: String) throws -> CaptureInput {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw ImportProblem(description: "can't be read (\(error.localizedDescription))") }
        if data.count > SeleneLimits.maxContentBytes { throw NoteTooLarge(bytes: data.count) }
        if data.contains(0) { throw ImportProblem(description: "holds NUL bytes: not a text file") }
        guard var text = String(data: data, encoding: .utf8) else { throw ImportProblem(description: "is not UTF-8 text") }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = text.replacingOccurrences(of: "\r\n", with: "\n")
        var meta: [String: FrontMatterValue] = [:]
        if text.hasPrefix("---\n") {
            let rest = text[text.index(text.startIndex, offsetBy: 4)...]
            if rest.hasPrefix("---\n") || rest == "---" {
                text = String(rest.dropFirst(3))
            } else if let end = rest.range(of: "\n---\n") ?? (rest.hasSuffix("\n---") ? rest.range(of: "\n---", options: .backwards) : nil) {
                meta = FrontMatter.parse(String(rest[..<end.lowerBound]))
                text = String(rest[end.upperBound...])
            } else {
                throw ImportProblem(description: "its front matter (---) is never closed")
            }
        }
        let content = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !content.isEmpty else { throw ImportProblem(description: "is empty") }
        var title = meta["title"]?.text
        if title == nil, let heading = content.split(separator: "\n", maxSplits: 1).first, heading.hasPrefix("# ") {
            title = String(heading.dropFirst(2))
        }
        if title == nil { title = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension }
        var created: Date?
        for key in ["created", "date", "created_at", "createdAt"] {
            if let raw = meta[key]?.text { created = WireDate.date(from: raw) ?? WireDate.date(from: raw + "T00:00:00Z") }
            if created != nil { break }
        }
        if created == nil { created = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date).map(WireDate.rounded) }
        return CaptureInput(content: content, title: title.map { String($0.prefix(SeleneLimits.maxTitle)) },
                            tags: meta["tags"]?.list ?? meta["tags"]?.text.map { [$0] } ?? [], createdAt: created, source: .import)
    }

    /// A Drafts JSON export: an array of drafts; nil when the file is some other JSON.
    static func draftsExport(_ path: String) throws -> [DraftsCapture]? {
        struct Draft: Decodable {
            var content: String
            var uuid: String?
            var title: String?
            var tags: [String]?
            var createdAt: String?
            var created_at: String?
        }
        guard let data = FileManager.default.contents(atPath: path), let drafts = try? JSONDecoder().decode([Draft].self, from: data) else { return nil }
        return drafts.map { d in
            let created = (d.createdAt ?? d.created_at).flatMap(WireDate.date(from:))
            return DraftsCapture(content: d.content, title: d.title, uuid: d.uuid, tags: d.tags, createdAt: created)
        }
    }
}

enum FrontMatterValue: Equatable {
    case text(String)
    case list([String])

    var text: String? { if case .text(let t) = self { t } else { nil } }
    var list: [String]? { if case .list(let l) = self { l } else { nil } }
}

/// The small part of YAML front matter notes use: `key: value`, `key: [a, b]` and
/// `key:` followed by `- item` lines. Anything else is left alone.
enum FrontMatter {
    static func parse(_ text: String) -> [String: FrontMatterValue] {
        var out: [String: FrontMatterValue] = [:]
        var listKey: String?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let key = listKey, trimmed.hasPrefix("- ") {
                if case .list(var items) = out[key] ?? .list([]) {
                    items.append(unquote(String(trimmed.dropFirst(2))))
                    out[key] = .list(items)
                }
                continue
            }
            listKey = nil
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(" ") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if value.isEmpty {
                listKey = key
                out[key] = .list([])
            } else if value.hasPrefix("["), value.hasSuffix("]") {
                out[key] = .list(value.dropFirst().dropLast().split(separator: ",").map { unquote($0.trimmingCharacters(in: .whitespaces)) }.filter { !$0.isEmpty })
            } else {
                out[key] = .text(unquote(value))
            }
        }
        return out
    }

    static func unquote(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, let last = text.last, first == last, first == "\"" || first == "'" else { return text }
        return String(text.dropFirst().dropLast())
    }
}
