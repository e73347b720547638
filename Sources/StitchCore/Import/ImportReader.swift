import Foundation

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
