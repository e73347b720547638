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

/// What an import would do, row by row, and the records it would save.
public struct ImportPlan<Record: Importable>: Sendable {
    public enum Action: String, Sendable, Codable { case add, merge, unchanged, skip }

    public struct Entry: Sendable, Equatable, Codable {
        public var action: Action
        /// The file's lines this entry comes from.
        public var lines: [Int]
        public var title: String
        public var detail: String?
    }

    public var entries: [Entry]
    /// New records (fresh ids) and merged ones (their own ids), stamped `now`.
    public var writes: [Record]
    public var rule: DuplicateRule

    public func count(_ action: Action) -> Int { entries.filter { $0.action == action }.count }

    /// "Would add 3 threads, merge 1 into ones you have (…), skip 1." or, once done, "Added 3 threads, …".
    public func summary(done: Bool, noun: String) -> String {
        var parts = [(done ? "added" : "would add") + " \(count(.add)) \(noun)"]
        if count(.merge) > 0 { parts.append((done ? "merged" : "merge") + " \(count(.merge)) into ones you have (\(rule.explanation))") }
        if count(.unchanged) > 0 { parts.append((done ? "found" : "find") + " \(count(.unchanged)) already as in the file") }
        if count(.skip) > 0 { parts.append((done ? "skipped" : "skip") + " \(count(.skip))") }
        let text = parts.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    /// Every entry as a line for a terminal: `+` added, `~` merged, `=` unchanged, `-` skipped.
    public var lines: [String] {
        entries.map { entry in
            let mark = switch entry.action { case .add: "+"; case .merge: "~"; case .unchanged: "="; case .skip: "-" }
            let where_ = entry.lines.count == 1 ? "line \(entry.lines[0])" : "lines " + entry.lines.map(String.init).joined(separator: ", ")
            return "  \(mark) \(entry.title) (\(where_))\(entry.detail.map { ": \($0)" } ?? "")"
        }
    }

    /// Merges the file's rows into `existing` (live records; deleted ones don't count) by `rule`.
    public static func make(_ rows: [ImportRow<Record>], existing: [Record], rule: DuplicateRule, now: Date) -> ImportPlan {
        // Rows with the same key become one, by the same rule, in the order they first appear.
        var combined: [(key: String, lines: [Int], record: Record, given: Set<String>)] = []
        var index: [String: Int] = [:]
        var entries: [Entry] = []
        for row in rows {
            let key = row.record.importKey
            if let at = index[key] {
                if rule == .skip {
                    entries.append(Entry(action: .skip, lines: [row.line], title: row.record.importTitle,
                                         detail: "the same as line \(combined[at].lines[0]) of this file"))
                    continue
                }
                combined[at].record = combined[at].record.merging(row.record, given: row.given, rule: rule).0
                combined[at].lines.append(row.line)
                combined[at].given.formUnion(row.given)
            } else {
                index[key] = combined.count
                combined.append((key, [row.line], row.record, row.given))
            }
        }
        var stored: [String: Record] = [:]
        for record in existing.filter({ $0.deletedAt == nil }).sorted(by: { $0.createdAt < $1.createdAt }) where stored[record.importKey] == nil {
            stored[record.importKey] = record
        }
        var writes: [Record] = []
        for item in combined {
            var result: Record
            let action: Action
            var detail: String?
            if let current = stored[item.key] {
                guard rule != .skip else {
                    entries.append(Entry(action: .skip, lines: item.lines, title: current.importTitle, detail: "already there; left as it is"))
                    continue
                }
                let (merged, changes) = current.merging(item.record, given: item.given, rule: rule)
                guard merged != current else {
                    entries.append(Entry(action: .unchanged, lines: item.lines, title: current.importTitle, detail: "already as in the file"))
                    continue
                }
                result = merged
                // Later than the stored change, whatever the clocks say, or last-write-wins would keep it.
                result.updatedAt = current.updatedAt >= now ? Date(millisecondsSince1970: current.updatedAt.millisecondsSince1970 + 1) : now
                action = .merge
                detail = changes.joined(separator: "; ")
            } else {
                result = item.record
                result.id = UUID()
                result.createdAt = now
                result.updatedAt = now
                action = .add
                if item.lines.count > 1 { detail = "\(item.lines.count) rows combined (\(rule.explanation))" }
            }
            let problems = result.validationErrors
            if !problems.isEmpty {
                entries.append(Entry(action: .skip, lines: item.lines, title: result.importTitle,
                                     detail: problems.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")))
                continue
            }
            entries.append(Entry(action: action, lines: item.lines, title: result.importTitle, detail: detail))
            writes.append(result)
        }
        entries.sort { ($0.lines.first ?? 0) < ($1.lines.first ?? 0) }
        return ImportPlan(entries: entries, writes: writes, rule: rule)
    }
}

/// Reading a CSV file into records of one kind.
public enum ImportReader {
    /// Reads `data`: finds the header (the first non-blank line), maps its columns to fields,
    /// reads each row with `make` and checks it with the record's own rules. A row with any value
    /// that can't be read is left out and reported; nothing is left out without a word.
    public static func read<Field: ImportField, Record: Validatable & Sendable>(
        _ data: Data, fields: Field.Type, required: [Field], notes: [String: String] = [:],
        make: (inout ImportCells<Field>) -> Record
    ) throws(ValidationError) -> ImportFile<Record> {
        let decoded = CSV.decode(data)
        let delimiter = CSV.detectDelimiter(decoded.text)
        let rows = CSV.parse(decoded.text, delimiter: delimiter)
        guard let headerRow = rows.first else { throw ValidationError("file", "The file is empty") }
        let header = headerRow.fields.map(\.trimmedWhitespace)
        var columns: [Field: Int] = [:]
        var report = ImportReport(encoding: decoded.encoding, delimiter: delimiter.name, columns: [], rowsRead: rows.count - 1,
                                  problems: [], warnings: [], quantitiesMissing: false)
        for (i, name) in header.enumerated() {
            var column = ImportColumn(letter: CSV.columnLetter(i), header: name)
            let candidates = [ImportHeader.normalize(name), ImportHeader.normalize(ImportHeader.withoutNote(name))]
            if let field = Field.allCases.first(where: { f in candidates.contains { f.headerNames.contains($0) } }) {
                if let earlier = columns[field] {
                    column.note = "column \(CSV.columnLetter(earlier)) already gives the \(field.label)"
                } else {
                    columns[field] = i
                    column.field = field.rawValue
                    column.label = field.label
                }
            } else if let note = candidates.lazy.compactMap({ notes[$0] }).first {
                column.note = note
            } else if name.isEmpty {
                column.note = "it has no header"
            }
            report.columns.append(column)
        }
        let missing = required.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            let accepted = missing.map { "\($0.label) (\($0.headerNames.prefix(4).joined(separator: ", ")))" }.joined(separator: " and ")
            let found = header.filter { !$0.isEmpty }.map { "\"\($0)\"" }.joined(separator: ", ")
            throw ValidationError("header", "The first line must name the columns, including \(accepted); it has \(found.isEmpty ? "none" : found)")
        }
        if delimiter == .comma && header.count == 1, let only = header.first, only.contains(";") || only.contains("\t") {
            report.warnings.append("Only one column was found")
        }

        var out: [ImportRow<Record>] = []
        let width = header.count
        for row in rows.dropFirst() {
            var cells = ImportCells<Field>(row: row, columns: columns, header: header)
            let record = make(&cells)
            if row.fields.count > width, row.fields[width...].contains(where: { !$0.trimmedWhitespace.isEmpty }) {
                report.warnings.append("Line \(row.line) has \(row.fields.count) values but the header names \(width) columns: the extra values are not imported")
            }
            if cells.issues.isEmpty {
                for (key, message) in record.validationErrors.sorted(by: { $0.key < $1.key }) {
                    let field = Field(rawValue: key)
                    cells.issues.append(ImportIssue(line: row.line, column: field.flatMap { cells.columnName($0) }, message: message))
                }
            }
            if cells.issues.isEmpty {
                out.append(ImportRow(line: row.line, record: record, given: cells.given))
            } else {
                report.problems += cells.issues
            }
        }
        return ImportFile(rows: out, report: report)
    }
}

// MARK: - Threads

public enum ThreadField: String, ImportField {
    case brand, number, colorName, colorHex, fiberType, quantity, barcode, weightOrLength, notes

    public var headerNames: [String] {
        switch self {
        case .brand: ["brand", "manufacturer", "make", "maker", "brandname", "company", "mfr", "mfg", "vendor", "threadbrand"]
        case .number: ["number", "no", "nr", "num", "#", "code", "colornumber", "colournumber", "colorno", "colourno", "color#", "colour#",
                       "colorcode", "colourcode", "shadenumber", "shadeno", "shade#", "threadnumber", "thread#", "ref", "reference", "article", "sku"]
        case .colorName: ["colorname", "colourname", "color", "colour", "name", "shade", "shadename", "description", "desc", "colordescription", "colourdescription"]
        case .colorHex: ["colorhex", "colourhex", "hex", "hexcode", "hexcolor", "hexcolour", "rgb", "rgbhex", "html", "swatch"]
        case .fiberType: ["fibertype", "fibretype", "fiber", "fibre", "type", "material", "threadtype", "fibercontent", "fibrecontent"]
        case .quantity: ["quantity", "qty", "skeins", "skein", "count", "onhand", "stock", "instock", "owned", "have", "amount", "cards",
                         "inventory", "numberofskeins", "numberowned", "quantityonhand"]
        case .barcode: ["barcode", "upc", "ean", "gtin", "upcean", "eanupc"]
        case .weightOrLength: ["weightorlength", "weightlength", "weight", "length", "putup", "skeinsize", "yardage"]
        case .notes: ["notes", "note", "comments", "comment", "remarks"]
        }
    }

    public var label: String {
        switch self {
        case .brand: "brand"
        case .number: "number"
        case .colorName: "colour name"
        case .colorHex: "colour (hex)"
        case .fiberType: "fiber type"
        case .quantity: "quantity"
        case .barcode: "barcode"
        case .weightOrLength: "weight or length"
        case .notes: "notes"
        }
    }
}

extension InventoryThread: Importable {
    public typealias Field = ThreadField

    public var importKey: String { Self.importKey(brand: brand, number: number) }

    /// Brand and number as matched: case, accents and spacing don't matter ("dmc  310" is "DMC 310").
    public static func importKey(brand: String, number: String) -> String {
        func fold(_ s: String) -> String {
            s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        return fold(brand) + "\u{1F}" + fold(number)
    }

    public var importTitle: String { "\(brand) \(number)\(colorName.map { " \($0)" } ?? "")" }

    public func merging(_ other: InventoryThread, given: Set<String>, rule: DuplicateRule) -> (InventoryThread, [String]) {
        var merged = self
        var changes = ImportChanges(given: given, rule: rule)
        switch rule {
        case .skip: return (self, [])
        case .add:
            if given.contains(ThreadField.quantity.rawValue), other.quantity != 0 {
                merged.quantity = quantity + other.quantity
                changes.note("quantity \(quantity) → \(merged.quantity)")
            }
        case .replace:
            changes.set(\.quantity, other.quantity, ThreadField.quantity, &merged)
            changes.set(\.fiberType, other.fiberType, ThreadField.fiberType, &merged)
            // Brand and number are what matched: their spelling stays as it was.
        }
        changes.update(\.colorName, other.colorName, ThreadField.colorName, &merged)
        changes.update(\.colorHex, other.colorHex, ThreadField.colorHex, &merged)
        changes.update(\.barcode, other.barcode, ThreadField.barcode, &merged)
        changes.update(\.weightOrLength, other.weightOrLength, ThreadField.weightOrLength, &merged)
        changes.update(\.notes, other.notes, ThreadField.notes, &merged)
        return (merged, changes.list)
    }
}

/// What merging changed, in words, applying `rule` field by field.
struct ImportChanges {
    let given: Set<String>
    let rule: DuplicateRule
    var list: [String] = []

    mutating func note(_ change: String) { list.append(change) }

    static func show(_ value: some Equatable) -> String {
        switch value {
        case let fiber as FiberType: fiber.rawValue
        case let text as String: "“\(text)”"
        default: "\(value)"
        }
    }

    /// A required value: replaced when the file gives it (replace only).
    mutating func set<R, T: Equatable, F: ImportField>(_ path: WritableKeyPath<R, T>, _ value: T, _ field: F, _ record: inout R) {
        guard given.contains(field.rawValue), record[keyPath: path] != value else { return }
        list.append("\(field.label) \(Self.show(record[keyPath: path])) → \(Self.show(value))")
        record[keyPath: path] = value
    }

    /// An optional value: filled in when empty (add), replaced when the file gives one (replace).
    mutating func update<R, T: Equatable, F: ImportField>(_ path: WritableKeyPath<R, T?>, _ value: T?, _ field: F, _ record: inout R) {
        guard given.contains(field.rawValue), let value, record[keyPath: path] != value else { return }
        switch (rule, record[keyPath: path]) {
        case (.add, nil):
            list.append("\(field.label) filled in (\(Self.show(value)))")
        case (.replace, let old?):
            list.append("\(field.label) \(Self.show(old)) → \(Self.show(value))")
        case (.replace, nil):
            list.append("\(field.label) filled in (\(Self.show(value)))")
        default:
            return
        }
        record[keyPath: path] = value
    }
}

extension FiberType {
    /// The fiber a stash app or spreadsheet names: the type itself, or a common name for it.
    public static func read(_ text: String) -> FiberType? {
        let name = ImportHeader.normalize(text)
        if let exact = FiberType(rawValue: name) { return exact }
        let words: [(FiberType, [String])] = [
            (.blend, ["blend", "mixed", "mix", "woolsilk", "silkwool", "cottonsilk", "silkcotton"]),
            (.wool, ["wool", "tapestry", "crewel", "persian", "merino", "laine"]),
            (.cotton, ["cotton", "stranded", "floss", "perle", "pearl", "coton", "sixstrand", "6strand", "mouline"]),
            (.silk, ["silk", "soie"]),
            (.synthetic, ["synthetic", "metallic", "rayon", "polyester", "acrylic", "nylon", "viscose", "lurex"]),
            (.other, ["other", "linen"]),
        ]
        if let exact = words.first(where: { $0.1.contains(name) }) { return exact.0 }
        let matches = words.filter { $0.1.contains { name.contains($0) } }.map(\.0)
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 { return .blend }
        return nil
    }
}

public enum ThreadCSV {
    public static let columns = ThreadField.allCases.map(\.rawValue)

    /// Reads threads from a CSV file (see `ImportReader`). Quantities default to 0; a file that
    /// gives none at all says so.
    public static func read(_ data: Data, now: Date) throws(ValidationError) -> ImportFile<InventoryThread> {
        var file = try ImportReader.read(data, fields: ThreadField.self, required: [.brand, .number]) { cells in
            var thread = InventoryThread(brand: cells.value(.brand) ?? "", number: cells.value(.number) ?? "", createdAt: now, updatedAt: now)
            thread.colorName = cells.value(.colorName)
            if let raw = cells.value(.colorHex) {
                if let hex = ColorText.hex(raw) { thread.colorHex = hex } else { cells.fail(.colorHex, "“\(raw)” is not a colour like #A1B2C3 or 161,178,195") }
            }
            if let raw = cells.value(.fiberType) {
                if let fiber = FiberType.read(raw) { thread.fiberType = fiber } else {
                    cells.fail(.fiberType, "“\(raw)” is not one of \(FiberType.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
            if let raw = cells.value(.quantity) {
                switch NumberText.wholeNumber(raw) {
                case .some(let q) where q < 0: cells.fail(.quantity, "“\(raw)” is negative")
                case .some(let q): thread.quantity = q
                case nil: cells.fail(.quantity, "“\(raw)” is not a whole number")
                }
            }
            if let raw = cells.value(.barcode) {
                if NumberText.isScientific(raw) {
                    cells.fail(.barcode, "“\(raw)” was turned into a number by a spreadsheet and lost its digits; format the column as text and export again")
                } else {
                    thread.barcode = raw
                }
            }
            thread.weightOrLength = cells.value(.weightOrLength)
            thread.notes = cells.value(.notes)
            return thread.normalized
        }
        let withQuantity = file.rows.filter { $0.given.contains(ThreadField.quantity.rawValue) }.count
        if !file.rows.isEmpty && withQuantity == 0 {
            file.report.quantitiesMissing = true
            let names = ThreadField.quantity.headerNames.prefix(5).joined(separator: ", ")
            file.report.warnings.append(file.report.columns.contains { $0.field == ThreadField.quantity.rawValue }
                ? "The quantity column is empty: every thread would have 0 in stock"
                : "No column gives quantities (named e.g. \(names)): every thread would have 0 in stock")
        }
        return file
    }

    /// Threads as a CSV file spreadsheet programs open (see `CSV.document`), in inventory order.
    public static func write(_ threads: [InventoryThread]) -> Data {
        CSV.document(header: columns, rows: InventoryThread.sortedInInventoryOrder(threads).map { t in
            [t.brand, t.number, t.colorName ?? "", t.colorHex ?? "", t.fiberType.rawValue, String(t.quantity),
             t.barcode ?? "", t.weightOrLength ?? "", t.notes ?? ""]
        })
    }
}

// MARK: - Canvases

public enum CanvasField: String, ImportField {
    case designer, designName, acquiredAt, size, meshCount, notes

    public var headerNames: [String] {
        switch self {
        case .designer: ["designer", "artist", "painter", "designedby", "brand", "company", "maker"]
        case .designName: ["designname", "design", "name", "title", "canvas", "canvasname", "designtitle"]
        case .acquiredAt: ["acquiredat", "acquired", "dateacquired", "acquireddate", "purchased", "purchasedate", "datepurchased",
                           "purchasedon", "bought", "datebought", "date"]
        case .size: ["size", "dimensions", "dimension", "designsize", "canvassize"]
        case .meshCount: ["meshcount", "mesh", "meshsize", "ct", "hpi", "count"]
        case .notes: ["notes", "note", "comments", "comment", "remarks"]
        }
    }

    public var label: String {
        switch self {
        case .designer: "designer"
        case .designName: "design name"
        case .acquiredAt: "date acquired"
        case .size: "size"
        case .meshCount: "mesh count"
        case .notes: "notes"
        }
    }
}

extension Canvas: Importable {
    public typealias Field = CanvasField

    public var importKey: String { InventoryThread.importKey(brand: designer, number: designName) }
    public var importTitle: String { "\(designName) by \(designer)" }

    public func merging(_ other: Canvas, given: Set<String>, rule: DuplicateRule) -> (Canvas, [String]) {
        guard rule != .skip else { return (self, []) }
        var merged = self
        var changes = ImportChanges(given: given, rule: rule)
        changes.update(\.acquiredDay, other.acquiredDay, CanvasField.acquiredAt, &merged)
        changes.update(\.size, other.size, CanvasField.size, &merged)
        changes.update(\.meshCount, other.meshCount, CanvasField.meshCount, &merged)
        changes.update(\.notes, other.notes, CanvasField.notes, &merged)
        return (merged, changes.list)
    }

    /// The acquired date as a day ("2024-03-05"), how import compares and shows it.
    var acquiredDay: String? {
        get { acquiredAt.map { String(Timestamp.string(from: $0).prefix(10)) } }
        set { acquiredAt = newValue.flatMap { Timestamp.date(from: $0 + "T00:00:00Z") } }
    }
}

public enum CanvasCSV {
    public static let columns = CanvasField.allCases.map(\.rawValue) + ["imageKey"]

    public static func read(_ data: Data, now: Date) throws(ValidationError) -> ImportFile<Canvas> {
        let pictures = "pictures come with a JSON backup (stitch import backup), not with CSV"
        return try ImportReader.read(data, fields: CanvasField.self, required: [.designer, .designName],
                                     notes: ["imagekey": pictures, "image": pictures, "photo": pictures, "picture": pictures]) { cells in
            var canvas = Canvas(designer: cells.value(.designer) ?? "", designName: cells.value(.designName) ?? "", createdAt: now, updatedAt: now)
            if let raw = cells.value(.acquiredAt) {
                switch DayText.read(raw) {
                case .day(let date): canvas.acquiredAt = date
                case .ambiguous(let a, let b): cells.fail(.acquiredAt, "“\(raw)” could be \(a) or \(b); write it as YYYY-MM-DD")
                case .unreadable: cells.fail(.acquiredAt, "“\(raw)” is not a date like 2024-03-05")
                }
            }
            canvas.size = cells.value(.size)
            if let raw = cells.value(.meshCount) {
                if let mesh = NumberText.leadingWholeNumber(raw, units: ["mesh", "m", "ct", "count", "hpi"]) { canvas.meshCount = mesh } else {
                    cells.fail(.meshCount, "“\(raw)” is not a mesh count like 13 or 18")
                }
            }
            canvas.notes = cells.value(.notes)
            return canvas.normalized
        }
    }

    public static func write(_ canvases: [Canvas]) -> Data {
        CSV.document(header: columns, rows: canvases.sorted { $0.createdAt < $1.createdAt }.map { c in
            [c.designer, c.designName, c.acquiredDay ?? "", c.size ?? "", c.meshCount.map(String.init) ?? "", c.notes ?? "", c.imageKey ?? ""]
        })
    }
}

// MARK: - Values

enum NumberText {
    /// "3", "3.0", "3,0" (a decimal comma), "+3", "1,200" / "1.200" are not guessed at.
    static func wholeNumber(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" { negative = digits.first == "-"; digits = digits.dropFirst() }
        if let mark = digits.firstIndex(where: { $0 == "." || $0 == "," }) {
            let fraction = digits[digits.index(after: mark)...]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0 == "0" }) else { return nil }
            digits = digits[..<mark]
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else { return nil }
        return negative ? -value : value
    }

    /// A whole number, maybe followed by one of `units` ("13", "13 mesh", "18ct").
    static func leadingWholeNumber(_ text: String, units: [String]) -> Int? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let rest = ImportHeader.normalize(String(text.dropFirst(digits.count)))
        guard !digits.isEmpty, digits.count <= 6, rest.isEmpty || units.contains(rest) else { return nil }
        return Int(digits)
    }

    /// "7.7540E+11": what a spreadsheet makes of a long barcode.
    static func isScientific(_ text: String) -> Bool {
        let upper = text.uppercased()
        guard let e = upper.firstIndex(of: "E") else { return false }
        let mantissa = upper[..<e], exponent = upper[upper.index(after: e)...].drop { $0 == "+" }
        return !mantissa.isEmpty && mantissa.allSatisfy { $0.isNumber || $0 == "." || $0 == "," } && mantissa.contains { $0.isNumber }
            && !exponent.isEmpty && exponent.allSatisfy(\.isNumber)
    }
}

enum ColorText {
    /// `#A1B2C3`, `A1B2C3`, `#ABC`, or red, green and blue as `161,178,195`, `161 178 195` or `rgb(161, 178, 195)`.
    static func hex(_ text: String) -> String? {
        var value = text.trimmedWhitespace
        if value.lowercased().hasPrefix("rgb(") && value.hasSuffix(")") { value = String(value.dropFirst(4).dropLast()) }
        let parts = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" || $0 == "/" }).map(String.init)
        if parts.count == 3 {
            let channels = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
            guard channels.count == 3 else { return nil }
            return "#" + channels.map { String(format: "%02X", $0) }.joined()
        }
        if value.hasPrefix("#") { value.removeFirst() }
        guard value.allSatisfy(\.isHexDigit), value.allSatisfy(\.isASCII) else { return nil }
        if value.count == 3 { value = value.map { "\($0)\($0)" }.joined() }
        return value.count == 6 ? "#" + value.uppercased() : nil
    }
}

enum DayText {
    enum Reading: Equatable { case day(Date), ambiguous(String, String), unreadable }

    /// 2024-03-05, 2024/03/05, a full timestamp, 05.03.2024 (day first, as dots are written),
    /// or 3/5/2024 where only one reading is a date.
    static func read(_ text: String) -> Reading {
        if let full = Timestamp.date(from: text) { return .day(full) }
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "/" || $0 == "." }).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }), let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2])
        else { return .unreadable }
        func make(_ y: Int, _ m: Int, _ d: Int) -> Date? {
            Timestamp.date(from: String(format: "%04d-%02d-%02dT00:00:00Z", y, m, d))
        }
        if parts[0].count == 4 { return make(a, b, c).map(Reading.day) ?? .unreadable }
        guard parts[2].count == 4 else { return .unreadable }
        if text.contains(".") { return make(c, b, a).map(Reading.day) ?? .unreadable }
        let dayFirst = make(c, b, a), monthFirst = make(c, a, b)
        switch (dayFirst, monthFirst) {
        case let (x?, y?) where x != y:
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_GB")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "d MMMM yyyy"
            return .ambiguous(f.string(from: x), f.string(from: y))
        case let (x?, _): return .day(x)
        case let (nil, y?): return .day(y)
        default: return .unreadable
        }
    }
}
