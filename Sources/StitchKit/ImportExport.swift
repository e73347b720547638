import Foundation
import GRDB
import StitchCore

/// RFC 4180 CSV: quoted fields, doubled quotes, commas and line breaks inside quotes.
public enum CSV {
    /// Rows with the line number each starts on (1-based, the header is line 1).
    public static func parse(_ text: String) -> [(line: Int, fields: [String])] {
        var rows: [(Int, [String])] = []
        var field = ""
        var fields: [String] = []
        var inQuotes = false
        var line = 1
        var rowStart = 1
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        func endRow() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append((rowStart, fields)) }
            fields = []
            field = ""
        }
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" { field.unicodeScalars.append("\""); i += 1 } else { inQuotes = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                inQuotes = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else if c == "\n" || c == "\r" {
                if c == "\r", i + 1 < chars.count, chars[i + 1] == "\n" { i += 1 }
                endRow()
                line += 1
                rowStart = line
            } else {
                field.unicodeScalars.append(c)
            }
            i += 1
        }
        if !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }

    public static func escape(_ value: String) -> String {
        value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }

    public static func line(_ values: [String]) -> String { values.map(escape).joined(separator: ",") }
}

public enum ThreadCSV {
    public static let columns = ["brand", "number", "colorName", "colorHex", "fiberType", "quantity", "barcode", "weightOrLength", "notes"]

    public struct BadRow: Sendable, Equatable {
        public var line: Int
        public var message: String
    }

    /// Validates every row; good rows become threads, bad ones are reported by line and skipped.
    public static func read(_ text: String, now: Date) throws -> (threads: [InventoryThread], bad: [BadRow]) {
        let rows = CSV.parse(text)
        guard let header = rows.first else { return ([], []) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func index(_ column: String) -> Int? { names.firstIndex(of: column.lowercased()) }
        guard index("brand") != nil, index("number") != nil else {
            throw ValidationError(fields: ["header": "The first line must name the columns, with at least brand and number"])
        }
        var threads: [InventoryThread] = []
        var bad: [BadRow] = []
        for row in rows.dropFirst() {
            func value(_ column: String) -> String? {
                guard let i = index(column), i < row.fields.count else { return nil }
                let v = row.fields[i].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            var problems: [String] = []
            var fiber = FiberType.wool
            if let raw = value("fiberType") {
                if let f = FiberType(rawValue: raw.lowercased()) { fiber = f } else { problems.append("fiberType: \(raw) is not one of \(FiberType.allCases.map(\.rawValue).joined(separator: ", "))") }
            }
            var quantity = 0
            if let raw = value("quantity") {
                if let q = Int(raw) { quantity = q } else { problems.append("quantity: \(raw) is not a whole number") }
            }
            let thread = InventoryThread(
                brand: value("brand") ?? "", number: value("number") ?? "", colorName: value("colorName"), colorHex: value("colorHex"),
                fiberType: fiber, quantity: quantity, barcode: value("barcode"), weightOrLength: value("weightOrLength"),
                notes: value("notes"), createdAt: now, updatedAt: now
            ).normalized
            problems += thread.validationErrors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            if problems.isEmpty { threads.append(thread) } else { bad.append(BadRow(line: row.line, message: problems.joined(separator: "; "))) }
        }
        return (threads, bad)
    }

    public static func write(_ threads: [InventoryThread]) -> String {
        ([CSV.line(columns)] + InventoryThread.sortedInInventoryOrder(threads).map { t in
            CSV.line([t.brand, t.number, t.colorName ?? "", t.colorHex ?? "", t.fiberType.rawValue, String(t.quantity),
                      t.barcode ?? "", t.weightOrLength ?? "", t.notes ?? ""])
        }).joined(separator: "\n") + "\n"
    }
}

public enum CanvasCSV {
    public static let columns = ["designer", "designName", "acquiredAt", "size", "meshCount", "notes", "imageKey"]

    public static func write(_ canvases: [Canvas]) -> String {
        ([CSV.line(columns)] + canvases.sorted { $0.createdAt < $1.createdAt }.map { c in
            CSV.line([c.designer, c.designName, c.acquiredAt.map { String(Timestamp.string(from: $0).prefix(10)) } ?? "", c.size ?? "",
                      c.meshCount.map(String.init) ?? "", c.notes ?? "", c.imageKey ?? ""])
        }).joined(separator: "\n") + "\n"
    }
}

/// Everything in an account, as JSON that decodes back to exactly the same records.
public struct AccountExport: Codable, Sendable, Equatable {
    public var format: String
    public var exportedAt: Date
    public var threads: [InventoryThread]
    public var canvases: [Canvas]
    public var projects: [Project]
    public var sections: [ProjectSection]
    public var requirements: [ProjectThread]
    public var journalEntries: [JournalEntry]
    public var journalImages: [JournalImage]

    public static func make(from store: LocalStore) throws -> AccountExport {
        AccountExport(
            format: "stitchuation-export-v1", exportedAt: store.clock(),
            threads: InventoryThread.sortedInInventoryOrder(try store.all(InventoryThread.self)),
            canvases: try store.all(Canvas.self).sorted { $0.createdAt < $1.createdAt },
            projects: try store.all(Project.self).sorted { $0.createdAt < $1.createdAt },
            sections: try store.all(ProjectSection.self).sorted { ($0.projectId.text, $0.sortOrder) < ($1.projectId.text, $1.sortOrder) },
            requirements: try store.all(ProjectThread.self).sorted { $0.createdAt < $1.createdAt },
            journalEntries: try store.all(JournalEntry.self).sorted { $0.createdAt < $1.createdAt },
            journalImages: try store.all(JournalImage.self).sorted { ($0.entryId.text, $0.sortOrder) < ($1.entryId.text, $1.sortOrder) })
    }
}

extension LocalStore {
    /// Saves many new threads in one transaction (each marked pending), reporting progress.
    public func importThreads(_ threads: [InventoryThread], progress: (Int) -> Void = { _ in }) throws {
        let now = clock()
        var done = 0
        for chunk in stride(from: 0, to: threads.count, by: 500).map({ Array(threads[$0..<min($0 + 500, threads.count)]) }) {
            try writer.write { db in
                for var thread in chunk {
                    thread.createdAt = now
                    thread.updatedAt = now
                    try thread.insert(db)
                    try SyncState(entity: EntityType.thread.rawValue, id: thread.id, pending: true, syncedAt: nil).save(db)
                }
            }
            done += chunk.count
            progress(done)
        }
    }
}
