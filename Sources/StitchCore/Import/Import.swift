import Foundation

// Thread and canvas import from the CSV files people already have: a spreadsheet of their stash,
// another app's export, our own export. Written once here so the command line and the web app
// read a file, report on it and merge it the same way.

/// A field a CSV column can fill, with the header names spreadsheets and other apps use for it.
public protocol ImportField: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// Header names that mean this field, as `ImportHeader.normalize` writes them.
    var headerNames: [String] { get }
    /// How the report names the field.
    var label: String { get }
}

/// How an import compares a file's column headers with the fields it knows.
public enum ImportHeader {
    /// A header as compared: lower-case, accents folded, only letters, digits and `#` kept
    /// ("Colour Name" → "colourname", "No." → "no", "Fibre type" → "fibretype").
    public static func normalize(_ header: String) -> String {
        let folded = header.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return String(String.UnicodeScalarView(folded.unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "#"
        }))
    }

    /// The header without a parenthesised note ("Quantity (skeins)" → "Quantity ").
    static func withoutNote(_ header: String) -> String {
        guard let open = header.firstIndex(of: "(") else { return header }
        return String(header[..<open])
    }
}

/// One column of the file and what the import does with it.
public struct ImportColumn: Sendable, Equatable, Codable {
    /// The spreadsheet letter: A, B, … AA.
    public var letter: String
    /// The header as written.
    public var header: String
    /// The field it fills, nil when the importer doesn't use it.
    public var field: String?
    /// The field as the report names it ("colour name").
    public var label: String?
    /// Why an unused column is unused.
    public var note: String?

    /// "C (Qty)".
    public var name: String { header.isEmpty ? letter : "\(letter) (\(header))" }
}

/// A value that couldn't be read, or a row that couldn't be imported, where it is in the file.
public struct ImportIssue: Sendable, Equatable, Codable, CustomStringConvertible {
    public var line: Int
    /// The column's name ("C (Qty)"), nil when the issue is the row's as a whole.
    public var column: String?
    public var message: String

    public init(line: Int, column: String? = nil, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line)\(column.map { ", column \($0)" } ?? ""): \(message)" }
}

/// What reading a file found, before anything is written.
public struct ImportReport: Sendable, Equatable, Codable {
    public var encoding: String
    public var delimiter: String
    public var columns: [ImportColumn]
    /// Data rows (the header and blank lines not counted).
    public var rowsRead: Int
    /// Values that couldn't be read: their rows are not imported.
    public var problems: [ImportIssue]
    /// Everything else a person should know before confirming.
    public var warnings: [String]
    /// Every row would get the default quantity (no quantity column, or it is empty throughout).
    public var quantitiesMissing: Bool

    public var unusedColumns: [ImportColumn] { columns.filter { $0.field == nil } }

    /// The report as lines for a terminal.
    public var lines: [String] {
        var out = ["Read \(rowsRead) row(s) (\(delimiter)-separated, \(encoding))."]
        let used = columns.filter { $0.field != nil }
        if !used.isEmpty { out.append("Columns used: " + used.map { "\($0.name) → \($0.label ?? $0.field!)" }.joined(separator: ", ")) }
        for column in unusedColumns { out.append("Column \(column.name) is not imported\(column.note.map { ": \($0)" } ?? ".")") }
        out += warnings.map { "Warning: \($0)" }
        if !problems.isEmpty {
            out.append("\(problems.count) value(s) can't be read; their rows are not imported:")
            out += problems.map { "  \($0)" }
        }
        return out
    }
}

/// A row that can be imported, the line it came from, and the fields it gave a value for.
public struct ImportRow<Record: Sendable>: Sendable {
    public var line: Int
    public var record: Record
    public var given: Set<String>
}

/// A file read: the rows that can be imported and the report on all of it.
public struct ImportFile<Record: Sendable>: Sendable {
    public var rows: [ImportRow<Record>]
    public var report: ImportReport
}

/// The cells of one row, by field, collecting what can't be read.
public struct ImportCells<Field: ImportField> {
    let row: CSV.Row
    let columns: [Field: Int]
    let header: [String]
    var issues: [ImportIssue] = []
    var given: Set<String> = []

    /// The trimmed value of the field's column; nil when there is no such column or the cell is blank.
    public mutating func value(_ field: Field) -> String? {
        guard let index = columns[field], index < row.fields.count else { return nil }
        let value = row.fields[index].trimmedWhitespace
        guard !value.isEmpty else { return nil }
        given.insert(field.rawValue)
        return value
    }

    /// Reports the field's cell as unreadable.
    public mutating func fail(_ field: Field, _ message: String) {
        issues.append(ImportIssue(line: row.line, column: columnName(field), message: message))
    }

    func columnName(_ field: Field) -> String? {
        columns[field].map { ImportColumn(letter: CSV.columnLetter($0), header: header[$0]).name }
    }
}

/// How an imported row that matches a record already there (or an earlier row of the same file)
/// is merged. Never a second copy.
public enum DuplicateRule: String, CaseIterable, Sendable, Codable {
    /// Threads: add the quantities. Both: fill in fields that are empty, keep the rest.
    case add
    /// The file's values replace the stored ones (blank cells leave a field as it is).
    case replace
    /// Leave the stored record as it is.
    case skip

    public var explanation: String {
        switch self {
        case .add: "add the quantities and fill in empty fields"
        case .replace: "the file's values replace the ones you have"
        case .skip: "leave the ones you have as they are"
        }
    }
}

/// A record CSV import can create and merge.
public protocol Importable: Sendable, Equatable, Validatable {
    associatedtype Field: ImportField
    /// Matching records share it (threads: brand and number; canvases: designer and design), in any case or spacing.
    var importKey: String { get }
    /// How a plan names the record.
    var importTitle: String { get }
    /// This record with `other`'s values merged in by `rule`, and what changed, in words.
    func merging(_ other: Self, given: Set<String>, rule: DuplicateRule) -> (Self, [String])
    var id: UUID { get set }
    var createdAt: Date { get set }
    var updatedAt: Date { get set }
    var deletedAt: Date? { get }
}
