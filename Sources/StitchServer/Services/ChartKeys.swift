import Fluent
import Foundation
import NIOConcurrencyHelpers
import StitchCore
import Vapor

/// A PDF chart's colour key read into its project's thread list: `pdftotext -layout` reads the
/// text layer, `ChartKey.read` finds the key and matches it to the catalogs, and the proposal
/// sets each thread beside the stitcher's inventory and the project's requirements.
enum ChartKeys {
    /// The key of the pattern's file and what it proposes. A picture or a scanned PDF has no text
    /// to read and says so; a damaged or password-protected PDF is a 422 as at upload.
    static func proposal(for pattern: Pattern, userId: UUID, app: Application, db: any Database) async throws -> ChartKeyProposal {
        let project = try await Records.require(ProjectModel.self, pattern.projectId, userId: userId, on: db).record
        let canvas = try await ProjectService.canvas(of: project, userId: userId, db: db)
        let mesh = project.dimensions(canvas: canvas).meshCount
        let catalog = try app.threadCatalog
        let key: ChartKey
        let message: String
        if let text = try await text(of: pattern.fileKey, userId: userId, app: app, db: db) {
            key = ChartKey.read(text, catalog: catalog, fallbackCount: mesh, fallbackSource: canvas == nil ? "the project's mesh" : "the canvas's mesh")
            message = describe(key)
        } else {
            key = ChartKey(threads: [], unread: [], count: mesh ?? 14, countSource: "", hasText: false)
            message = "This pattern is a picture, so it has no text to read its colour key from. Add the threads by hand, or upload the chart as a PDF."
        }
        let inventory = try await Records.list(ThreadModel.self, userId: userId, on: db).filter { $0.deletedAt == nil }
        func owned(_ brand: String, _ number: String) -> (skeins: Int, id: UUID?) {
            let matching = inventory.filter { Self.same($0.brand, $0.number, brand, number) }
            return (matching.reduce(0) { $0 + $1.quantity }, matching.sorted { $0.quantity > $1.quantity }.first?.id)
        }
        let required = try await requirements(of: project.id, userId: userId, db: db)
        let rows = key.threads.map { thread in
            let have = owned(thread.brand, thread.number)
            let hex = catalog.entry(brand: thread.brand, number: thread.number)?.hex
            let substitutes = catalog.alternatives(brand: thread.brand, number: thread.number, hex: hex)?.nearest.map { n in
                ChartKeyProposal.Substitute(brand: n.entry.brand, number: n.entry.number, name: n.entry.name, hex: n.entry.hex,
                                            deltaE: (n.deltaE * 10).rounded() / 10, owned: owned(n.entry.brand, n.entry.number).skeins)
            } ?? []
            return ChartKeyProposal.Row(thread: thread, owned: have.skeins, threadId: have.id,
                                        alreadyRequired: required.contains { Self.same($0.brand, $0.number, thread.brand, thread.number) },
                                        substitutes: substitutes)
        }
        return ChartKeyProposal(patternId: pattern.id, projectId: project.id, message: message, hasText: key.hasText, count: key.count,
                                countSource: key.countSource, rows: rows, unread: key.unread)
    }

    /// The confirmed rows as requirements of the pattern's project, in one write at one sync
    /// version. Each must be a thread of the key (else 400) and name a section of this project
    /// (else 409, as a requirement's references are); one the project already needs (same brand,
    /// number and section) is left out and named. Nothing is written if any row is wrong.
    static func confirm(_ confirmation: ChartKeyConfirmation, pattern: Pattern, userId: UUID, now: Date, app: Application,
                        db: any Database) async throws -> ChartKeyResult {
        let proposal = try await proposal(for: pattern, userId: userId, app: app, db: db)
        var errors: [String: String] = [:]
        if confirmation.rows.isEmpty { errors["rows"] = "Choose at least one thread of the key" }
        var seen = Set<String>()
        var chosen: [(row: ChartKeyConfirmation.Row, proposed: ChartKeyProposal.Row)] = []
        for (index, row) in confirmation.rows.enumerated() {
            let field = "rows[\(index)]"
            guard let proposed = proposal.rows.first(where: { same($0.thread.brand, $0.thread.number, row.brand, row.number) }) else {
                errors[field] = "\(row.brand) \(row.number) is not in this chart's key"
                continue
            }
            guard seen.insert(proposed.thread.label + "|" + (row.sectionId?.text ?? "")).inserted else {
                errors[field] = "\(proposed.thread.label) is chosen twice"
                continue
            }
            guard (1...Limits.maxQuantity).contains(row.quantityNeeded) else {
                errors[field + ".quantityNeeded"] = "From 1 to \(Limits.maxQuantity)"
                continue
            }
            chosen.append((row, proposed))
        }
        let sections = try await Records.list(SectionModel.self, userId: userId, where: "project_id", equals: pattern.projectId, on: db)
            .filter { $0.deletedAt == nil }
        if !errors.isEmpty { throw APIError.validation(errors) }
        var missing: [String: String] = [:]
        for (index, row) in confirmation.rows.enumerated() {
            if let section = row.sectionId, !sections.contains(where: { $0.id == section }) {
                missing["rows[\(index)].sectionId"] = "No such section in this project"
            }
        }
        if !missing.isEmpty { throw APIError.missingReference(missing) }
        let picked = chosen
        return try await db.writeTransaction { db in
            let required = try await requirements(of: pattern.projectId, userId: userId, db: db)
            var result = ChartKeyResult(added: [], alreadyRequired: [])
            let (present, toAdd) = picked.reduce(into: ([String](), [(row: ChartKeyConfirmation.Row, proposed: ChartKeyProposal.Row)]())) { sum, item in
                let thread = item.proposed.thread
                if required.contains(where: { same($0.brand, $0.number, thread.brand, thread.number) && $0.sectionId == item.row.sectionId }) {
                    sum.0.append(thread.label)
                } else {
                    sum.1.append(item)
                }
            }
            result.alreadyRequired = present
            guard !toAdd.isEmpty else { return result }
            let version = try await SyncVersion.next(for: userId, on: db)
            for (row, proposed) in toAdd {
                let thread = proposed.thread
                // Where the quantity came from, unless the stitcher set her own.
                var notes = "From the chart's key"
                if !thread.blendedWith.isEmpty { notes += ", blended with \(thread.blendedWith.joined(separator: " and "))" }
                if row.quantityNeeded == thread.quantity {
                    switch thread.rule {
                    case .key: break
                    case .stitches: notes += "; \(thread.stitches ?? 0) stitches, skeins estimated for \(proposal.count) count"
                    case .guess: notes += "; the key gives no quantity (1 is a guess)"
                    }
                }
                let requirement = try ProjectThread(projectId: pattern.projectId, sectionId: row.sectionId, threadId: proposed.threadId,
                                                    brand: thread.brand, number: thread.number,
                                                    colorName: thread.catalogName ?? thread.printedName, quantityNeeded: row.quantityNeeded,
                                                    notes: notes, createdAt: now, updatedAt: now).normalized.validated()
                try await Records.create(requirement, as: RequirementModel.self, userId: userId, version: version, on: db)
                result.added.append(requirement)
            }
            return result
        }
    }

    /// The sentence over the proposal.
    static func describe(_ key: ChartKey) -> String {
        guard key.hasText else {
            return "This chart has no text to read (it looks scanned), so its colour key can't be read. Add the threads by hand."
        }
        guard key.found else { return "No colour key found in this chart." }
        var parts = ["Read \(key.threads.count) thread\(key.threads.count == 1 ? "" : "s") from the key."]
        if !key.unread.isEmpty {
            parts.append("\(key.unread.count) line\(key.unread.count == 1 ? "" : "s") of the key could not be read; \(key.unread.count == 1 ? "it is" : "they are") listed below.")
        }
        let flagged = key.threads.filter(\.nameDisagrees).map(\.label)
        if !flagged.isEmpty { parts.append("Check \(flagged.joined(separator: ", ")): the chart's colour name isn't the catalog's.") }
        return parts.joined(separator: " ")
    }

    static func same(_ brand: String, _ number: String, _ otherBrand: String, _ otherNumber: String) -> Bool {
        brand.caseInsensitiveCompare(otherBrand) == .orderedSame && number.caseInsensitiveCompare(otherNumber) == .orderedSame
    }

    static func requirements(of projectId: UUID, userId: UUID, db: any Database) async throws -> [ProjectThread] {
        try await Records.list(RequirementModel.self, userId: userId, where: "project_id", equals: projectId, on: db).filter { $0.deletedAt == nil }
    }

    /// The text layer of a stored PDF (pages split by form feeds), or nil for a picture. A PDF
    /// poppler can't open is a 422 saying why, as at upload.
    static func text(of key: String, userId: UUID, app: Application, db: any Database) async throws -> String? {
        guard let image = try await Images.owned(key, userId: userId, on: db) else { throw APIError(.notFound, "The pattern's file is missing") }
        guard image.contentType == ImageFormat.pdf.contentType else { return nil }
        // A stored file never changes: its text is read once per instance.
        if let cached = KeyTextCache.shared.text(for: key) { return cached }
        guard let data = try await app.imageStorage.get(key) else { throw APIError(.notFound, "The pattern's file is missing") }
        let text = try await app.tools.run(for: userId) {
            let dir = try PageFiles.scratch()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let path = "\(dir)/chart.pdf"
            try data.write(to: URL(fileURLWithPath: path))
            return try Poppler.text(ofPDFAt: path)
        }
        KeyTextCache.shared.keep(text, for: key)
        return text
    }
}

/// The text layers read lately, by file key (a stored file never changes), up to `capacity`
/// characters in all; the oldest read goes first.
final class KeyTextCache: Sendable {
    static let shared = KeyTextCache(capacity: 32 * 1024 * 1024)
    let capacity: Int
    private let entries = NIOLockedValueBox<[(key: String, text: String)]>([])

    init(capacity: Int) { self.capacity = capacity }

    func text(for key: String) -> String? {
        entries.withLockedValue { list in
            guard let at = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: at)
            list.append(entry)
            return entry.text
        }
    }

    func keep(_ text: String, for key: String) {
        guard text.utf8.count <= capacity else { return }
        entries.withLockedValue { list in
            list.removeAll { $0.key == key }
            list.append((key, text))
            var total = list.reduce(0) { $0 + $1.text.utf8.count }
            while total > capacity, !list.isEmpty { total -= list.removeFirst().text.utf8.count }
        }
    }
}

extension KeyTextCache {
    /// Forgets a file's text (deleted with its file).
    func forget(_ key: String) { entries.withLockedValue { $0.removeAll { $0.key == key } } }
}

extension Poppler {
    /// `pdftotext -layout`: the PDF's text as laid out on its pages, pages split by form feeds.
    /// A damaged or password-protected file is the 422 `pageCount` gives.
    static func text(ofPDFAt path: String) throws -> String {
        _ = try pageCount(ofPDFAt: path, maxPages: Limits.maxPatternPages)
        guard let pdftotext = Subprocess.find("pdftotext") else { throw missing }
        let result = try Subprocess.run(pdftotext, ["-layout", "-enc", "UTF-8", path, "-"], timeout: 60)
        guard result.status == 0, !result.timedOut else {
            throw APIError(.unprocessableEntity, result.timedOut ? "Reading this PDF's text took too long" : "This PDF's text can't be read",
                           fields: ["file": "Text can't be read"])
        }
        return result.output
    }
}
