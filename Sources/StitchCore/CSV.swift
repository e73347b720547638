import Foundation

/// CSV as spreadsheet programs and other stash apps write it: RFC 4180 quoting (quoted fields,
/// doubled quotes, delimiters and line breaks inside quotes), a comma, semicolon (Excel where the
/// decimal mark is a comma) or tab (copied from a spreadsheet, "Unicode text") between fields,
/// LF, CRLF or CR line ends, and UTF-8 with or without a byte-order mark, UTF-16 with one, or a
/// Windows code page.
public enum CSV {
    /// The separator of a CSV file: comma, semicolon or tab.
    public enum Delimiter: String, CaseIterable, Sendable, Codable {
        case comma = ",", semicolon = ";", tab = "\t"

        public var name: String {
            switch self {
            case .comma: "comma"
            case .semicolon: "semicolon"
            case .tab: "tab"
            }
        }

        var scalar: Unicode.Scalar { rawValue.unicodeScalars.first! }
    }

    /// One record of the file and the line it starts on (1-based, counting every line of the file).
    public struct Row: Sendable, Equatable {
        public var line: Int
        public var fields: [String]
    }

    /// A file's text and how it was written.
    public struct Decoded: Sendable, Equatable {
        public var text: String
        /// "UTF-8", "UTF-8 with a byte-order mark", "UTF-16" or "Windows-1252".
        public var encoding: String
    }

    /// The text of a file's bytes. A byte-order mark says UTF-8 or UTF-16; without one, bytes that
    /// are valid UTF-8 are read as such, and anything else as Windows-1252 (what Excel on Windows
    /// saves as "CSV" — every byte is a character there, so nothing is lost, and the report says so).
    public static func decode(_ data: Data) -> Decoded {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return Decoded(text: String(decoding: bytes.dropFirst(3), as: UTF8.self), encoding: "UTF-8 with a byte-order mark")
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var i = 2
            while i + 1 < bytes.count {
                units.append(little ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                i += 2
            }
            return Decoded(text: String(decoding: units, as: UTF16.self), encoding: "UTF-16")
        }
        if let text = String(validatingUTF8Bytes: bytes) { return Decoded(text: text, encoding: "UTF-8") }
        let text = String(data: data, encoding: .windowsCP1252) ?? String(decoding: bytes, as: UTF8.self)
        return Decoded(text: text, encoding: "Windows-1252")
    }

    /// The delimiter of a file: Excel's `sep=` first line if there is one, else whichever of comma,
    /// semicolon and tab the header line (outside quotes) holds most of; a comma when none.
    public static func detectDelimiter(_ text: String) -> Delimiter {
        if let declared = declaredDelimiter(text) { return declared }
        var counts: [Delimiter: Int] = [:]
        var inQuotes = false
        for c in text.unicodeScalars {
            if c == "\"" { inQuotes.toggle(); continue }
            if !inQuotes && (c == "\n" || c == "\r") { break }
            if !inQuotes, let d = Delimiter.allCases.first(where: { $0.scalar == c }) { counts[d, default: 0] += 1 }
        }
        return Delimiter.allCases.max { (counts[$0] ?? 0, $0 == .comma ? 1 : 0) < (counts[$1] ?? 0, $1 == .comma ? 1 : 0) }
            .flatMap { (counts[$0] ?? 0) > 0 ? $0 : nil } ?? .comma
    }

    /// Excel's hint line, `sep=;`, naming the delimiter.
    private static func declaredDelimiter(_ text: String) -> Delimiter? {
        let first = text.unicodeScalars.prefix { $0 != "\n" && $0 != "\r" }
        guard first.count == 5, String(String.UnicodeScalarView(first.prefix(4))).lowercased() == "sep=" else { return nil }
        return Delimiter.allCases.first { $0.scalar == first.last! }
    }

    /// The file's records, blank lines left out. A quote opens a quoted field only at the start of
    /// a field (so `10" round` reads as written); line breaks inside quotes become `\n`.
    public static func parse(_ text: String, delimiter: Delimiter? = nil) -> [Row] {
        let delimiter = delimiter ?? detectDelimiter(text)
        let separator = delimiter.scalar
        var rows: [Row] = []
        var field = String.UnicodeScalarView()
        var fields: [String] = []
        var inQuotes = false
        var fieldStarted = false
        var line = 1
        var rowStart = 1
        let chars = Array(text.unicodeScalars)
        var i = 0
        if declaredDelimiter(text) != nil {
            while i < chars.count, chars[i] != "\n", chars[i] != "\r" { i += 1 }
        }
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            fieldStarted = false
        }
        func endRow() {
            endField()
            if !fields.allSatisfy({ $0.trimmedWhitespace.isEmpty }) { rows.append(Row(line: rowStart, fields: fields)) }
            fields = []
        }
        while i < chars.count {
            let c = chars[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" { field.append("\""); i += 1 } else { inQuotes = false }
                } else if c == "\r" || c == "\n" {
                    if c == "\r", i + 1 < chars.count, chars[i + 1] == "\n" { i += 1 }
                    field.append("\n")
                    line += 1
                } else {
                    field.append(c)
                }
            } else if c == "\"" && !fieldStarted {
                inQuotes = true
                fieldStarted = true
            } else if c == separator {
                endField()
            } else if c == "\n" || c == "\r" {
                if c == "\r", i + 1 < chars.count, chars[i + 1] == "\n" { i += 1 }
                endRow()
                line += 1
                rowStart = line
            } else {
                field.append(c)
                fieldStarted = true
            }
            i += 1
        }
        if !field.isEmpty || !fields.isEmpty || fieldStarted { endRow() }
        return rows
    }

    /// A field, quoted when it holds a delimiter, a quote or a line break, or starts or ends with
    /// a space (which spreadsheet programs would otherwise trim).
    public static func escape(_ value: String) -> String {
        let needsQuotes = value.unicodeScalars.contains { $0 == "," || $0 == ";" || $0 == "\t" || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || value.first == " " || value.last == " "
        return needsQuotes ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }

    public static func line(_ values: [String]) -> String { values.map(escape).joined(separator: ",") }

    /// A whole file as spreadsheet programs open it with every accent intact: a UTF-8 byte-order
    /// mark (without it Excel reads UTF-8 as the Windows code page), comma-separated, CRLF line ends.
    public static func document(header: [String], rows: [[String]]) -> Data {
        var text = "\u{FEFF}" + line(header) + "\r\n"
        for row in rows { text += line(row) + "\r\n" }
        return Data(text.utf8)
    }

    /// A column's spreadsheet letter: A…Z, then AA, AB…
    public static func columnLetter(_ index: Int) -> String {
        var n = index + 1
        var letters: [Character] = []
        while n > 0 {
            let r = (n - 1) % 26
            letters.insert(Character(Unicode.Scalar(UInt8(65 + r))), at: 0)
            n = (n - 1) / 26
        }
        return String(letters)
    }
}

extension String {
    /// The bytes as text if they are valid UTF-8, else nil.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: self = String(scalars); return
            case .error: return nil
            }
        }
    }
}
