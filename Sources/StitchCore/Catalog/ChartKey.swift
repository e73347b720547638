import Foundation

/// A chart's colour key (legend) as read from its text layer (`pdftotext -layout`: pages
/// separated by form feeds, columns by runs of spaces), matched to the catalogs and turned into
/// the threads a project needs.
///
/// Layouts read: a table under a header row ("Symbol  Strands  Brand  Number  Name  Stitches
/// Skeins", or a brand as a column's name: "DMC  Name  Stitches"), two or three such keys side by
/// side (the header repeated on one line), plain lines ("X  DMC 310 Black  2 skeins", several to a
/// line), blends ("DMC 310 + 3865", "DMC 310 / Anchor 403") and a key going on over pages. A line
/// of the key that can't be read — a brand the catalogs don't know, a number a catalog doesn't
/// list — is kept in `unread` with the reason, never guessed.
public struct ChartKey: Codable, Sendable, Hashable {
    /// How a thread's quantity was found.
    public enum QuantityRule: String, Codable, Sendable, Hashable {
        /// The key printed skeins.
        case key
        /// Estimated from the key's stitch counts (`ChartKey.skeins(stitches:…)`).
        case stitches
        /// Nothing in the key said: 1, a guess to check.
        case guess
    }

    /// One thread the chart uses: every row naming it added up (full and half stitches, blends).
    public struct Thread: Codable, Sendable, Hashable {
        public var brand: String
        public var number: String
        /// The name the chart prints, if any.
        public var printedName: String?
        /// The catalog's name for the number.
        public var catalogName: String?
        /// The chart's name doesn't look like the catalog's for this number: check the number.
        public var nameDisagrees: Bool
        /// The key's symbols for it.
        public var symbols: [String]
        public var stitches: Int?
        public var skeins: Int?
        public var strands: Int?
        /// The threads it is blended with ("DMC 3865"), when a row blends.
        public var blendedWith: [String]
        /// Skeins to plan for, and how that was found.
        public var quantity: Int
        public var rule: QuantityRule
        /// Where the key prints it (1-based pages).
        public var pages: [Int]

        /// "DMC 310".
        public var label: String { "\(brand) \(number)" }
    }

    /// A line of the key that couldn't become a thread, and why.
    public struct Unread: Codable, Sendable, Hashable {
        public var page: Int
        public var text: String
        public var reason: String
    }

    public var threads: [Thread]
    public var unread: [Unread]
    /// The fabric or canvas count stitch counts were estimated with, and where it came from.
    public var count: Int
    public var countSource: String
    /// Whether the text layer had any text at all (a scanned chart has none).
    public var hasText: Bool

    public init(threads: [Thread], unread: [Unread], count: Int, countSource: String, hasText: Bool) {
        self.threads = threads
        self.unread = unread
        self.count = count
        self.countSource = countSource
        self.hasText = hasText
    }

    /// Whether the chart printed a colour key at all (something read, or a key-looking line not).
    public var found: Bool { !threads.isEmpty || !unread.isEmpty }

    // MARK: - Estimating skeins

    /// A six-strand skein: 8 m, so 48 m of single strand.
    public static let skeinStrandMillimetres = 8_000.0 * 6
    /// One stitch takes this many stitch widths of each strand: a full cross's two diagonals and
    /// the travel behind them.
    public static let widthsPerStitch = 5.0
    /// Starts, ends and mistakes.
    public static let allowance = 1.2

    /// Skeins for `stitches` stitches with `strands` strands on a `count` fabric or canvas
    /// (stitches per inch): `stitches × 5 × (25.4 mm / count) × strands × 1.2 / 48 m`, rounded
    /// up, at least 1. On 14 count with 2 strands a skein covers about 2,200 stitches.
    public static func skeins(stitches: Int, strands: Int, count: Int) -> Int {
        guard stitches > 0, count > 0 else { return 1 }
        let millimetres = Double(stitches) * widthsPerStitch * (25.4 / Double(count)) * Double(max(1, strands)) * allowance
        return max(1, Int((millimetres / skeinStrandMillimetres).rounded(.up)))
    }

    // MARK: - Reading

    /// Brands a key may name that the catalogs don't have (so their rows are listed as unread by
    /// name rather than taken for something else).
    public static let otherBrands = ["Madeira", "Cosmo", "Sullivans", "Presencia", "Finca", "Kreinik", "Appletons", "Paternayan",
                                     "Caron", "Weeks", "WDW", "GAST", "Gentle Art", "Classic Colorworks", "Dinky-Dyes", "ThreadworX",
                                     "Rainbow Gallery", "Silk Mori", "Vineyard", "Planet Earth", "Au Ver a Soie", "Coats", "J&P Coats"]

    /// Reads the key in `text` (pdftotext's, pages split by form feeds) against the catalog.
    /// `fallbackCount` is the piece's mesh (its canvas's, or a project's own without one, named
    /// by `fallbackSource`), used when the chart prints no count.
    public static func read(_ text: String, catalog: ThreadCatalog, fallbackCount: Int?, fallbackSource: String = "the canvas's mesh") -> ChartKey {
        var reader = Reader(catalog: catalog)
        let pages = text.split(separator: "\u{0C}", omittingEmptySubsequences: false)
        for (index, page) in pages.enumerated() {
            reader.read(page: String(page), number: index + 1)
        }
        let hasText = text.contains { $0.isLetter || $0.isNumber }
        let (count, source): (Int, String) = if let printed = reader.printedCount {
            (printed, "printed on the chart")
        } else if let fallbackCount, fallbackCount > 0 {
            (fallbackCount, fallbackSource)
        } else {
            (14, "assumed (the chart prints none)")
        }
        return ChartKey(threads: reader.threads(count: count), unread: reader.unread, count: count, countSource: source, hasText: hasText)
    }

    /// A row of the key: what one entry printed.
    struct Entry {
        var page: Int
        var symbol: String?
        var brand: String
        var number: String
        var name: String?
        var strands: Int?
        var stitches: Int?
        var skeins: Int?
        var blend: [(brand: String, number: String)] = []
    }

    /// A column of a key's table, from its header word.
    enum Column: Equatable {
        case symbol, strands, brand, number, name, stitches, skeins
        /// A brand as the column's name: its cells are that brand's numbers.
        case brandNumber(String)
    }

    struct Token {
        var text: String
        var start: Int
        var end: Int
    }

    struct Reader {
        let catalog: ThreadCatalog
        var entries: [Entry] = []
        var unread: [Unread] = []
        var printedCount: Int?
        /// The table header in force (columns by start offset), kept over a page break.
        var header: [(start: Int, column: Column)]?

        init(catalog: ThreadCatalog) { self.catalog = catalog }

        /// The catalog's brand for a word ("dmc" → "DMC"), if it has one.
        func knownBrand(_ word: String) -> String? {
            catalog.brands.first { $0.caseInsensitiveCompare(word) == .orderedSame }
        }

        static func otherBrand(_ words: [String]) -> String? {
            let line = words.joined(separator: " ").lowercased()
            return ChartKey.otherBrands.first { brand in
                let b = brand.lowercased()
                return line.hasPrefix(b + " ") || line == b || line.contains(" " + b + " ") || line.hasSuffix(" " + b)
            }
        }

        mutating func read(page text: String, number page: Int) {
            if printedCount == nil { printedCount = Self.count(in: text) }
            var inKey = false
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                let tokens = Self.tokens(raw)
                if tokens.isEmpty {
                    // A blank line ends a block of plain lines; a table goes on until its rows stop.
                    inKey = header != nil
                    continue
                }
                if Self.isContinuation(tokens) { continue }
                if let columns = headerColumns(tokens) {
                    header = columns
                    inKey = true
                    continue
                }
                if let header, let row = tableRows(tokens, header: header, page: page, line: raw) {
                    entries += row.entries
                    unread += row.unread
                    inKey = true
                    continue
                }
                let (found, notRead) = plainEntries(tokens, page: page, line: raw)
                if !found.isEmpty || !notRead.isEmpty {
                    entries += found
                    unread += notRead
                    inKey = true
                } else if inKey, Self.looksLikeRow(tokens) {
                    unread.append(Unread(page: page, text: Self.trimmed(raw), reason: "no brand and number the catalogs know"))
                } else {
                    inKey = false
                    header = nil
                }
            }
        }

        // MARK: Tables

        static let headerWords: [String: Column] = [
            "symbol": .symbol, "sym": .symbol, "strands": .strands, "str": .strands, "brand": .brand, "type": .brand,
            "floss": .brand, "thread": .brand, "number": .number, "no": .number, "no.": .number, "#": .number, "code": .number,
            "colour": .name, "color": .name, "name": .name, "description": .name, "stitches": .stitches, "stitch": .stitches, "sts": .stitches,
            "skeins": .skeins, "skein": .skeins, "qty": .skeins, "quantity": .skeins,
        ]

        /// A header row: every word names a column (a brand as a column's name counts), three
        /// columns at least.
        func headerColumns(_ tokens: [Token]) -> [(start: Int, column: Column)]? {
            var columns: [(start: Int, column: Column)] = []
            for token in tokens {
                let word = token.text.lowercased()
                if let column = Self.headerWords[word] {
                    // "Colour name", "Stitch count": one column.
                    if let last = columns.last, last.column == column, token.start - last.start < 14 { continue }
                    columns.append((token.start, column))
                } else if let brand = knownBrand(token.text) {
                    columns.append((token.start, .brandNumber(brand)))
                } else if ["count", "used", "of"].contains(word), columns.last != nil {
                    continue
                } else {
                    return nil
                }
            }
            return columns.count >= 3 ? columns : nil
        }

        /// A table row: its tokens put under the nearest header column, one entry for each time
        /// the header's first column comes round again (keys side by side).
        func tableRows(_ tokens: [Token], header: [(start: Int, column: Column)], page: Int, line: String)
            -> (entries: [Entry], unread: [Unread])? {
            // Cells: each token under the last column starting at or before it (columns are
            // left-aligned; a little slack for a layout's rounding).
            var cells = Array(repeating: [String](), count: header.count)
            for token in tokens {
                let column = header.lastIndex { $0.start <= token.start + 2 } ?? 0
                cells[column].append(token.text)
            }
            // Groups: a new key starts where the first column's kind comes again.
            var groups: [[(column: Column, text: String)]] = [[]]
            for (index, item) in header.enumerated() {
                if index > 0, item.column == header[0].column { groups.append([]) }
                if !cells[index].isEmpty { groups[groups.count - 1].append((item.column, cells[index].joined(separator: " "))) }
            }
            var entries: [Entry] = [], unread: [Unread] = []
            var any = false
            for group in groups where !group.isEmpty {
                var words: [String] = []
                var strands: Int?, stitches: Int?, skeins: Int?, symbol: String?
                for (column, text) in group {
                    switch column {
                    case .symbol: symbol = text
                    case .strands: strands = Self.integer(text)
                    case .stitches: stitches = Self.integer(text)
                    case .skeins: skeins = Self.integer(text)
                    case .brand: words.insert(text, at: 0)
                    case .brandNumber(let brand): words += [brand] + text.split(separator: " ").map(String.init)
                    case .number, .name: words += text.split(separator: " ").map(String.init)
                    }
                }
                // The brand and number (and name) as a plain line says them.
                let (found, notRead) = plainEntries(Self.tokens(words.joined(separator: " ")), page: page, line: line)
                if found.isEmpty && notRead.isEmpty {
                    if Self.looksLikeRow(Self.tokens(group.map(\.text).joined(separator: " "))) {
                        unread.append(Unread(page: page, text: Self.trimmed(group.map(\.text).joined(separator: " ")),
                                             reason: "no brand and number the catalogs know"))
                        any = true
                    }
                    continue
                }
                any = true
                unread += notRead
                for var entry in found {
                    entry.symbol = entry.symbol ?? symbol
                    entry.strands = entry.strands ?? strands
                    entry.stitches = entry.stitches ?? stitches
                    entry.skeins = entry.skeins ?? skeins
                    entries.append(entry)
                }
            }
            return any ? (entries, unread) : nil
        }

        // MARK: Plain lines

        /// Entries on a line read as words: "[symbol] brand number [+ [brand] number] [name]
        /// [N strands] [N stitches] [N skeins]", as many as the line names brands.
        func plainEntries(_ tokens: [Token], page: Int, line: String) -> (entries: [Entry], unread: [Unread]) {
            let words = tokens.map(\.text)
            // Where each entry starts: a brand followed by something number-like.
            var starts: [Int] = []
            var index = 0
            while index < words.count {
                if Self.brandAt(words, index, known: knownBrand) != nil, index + 1 < words.count {
                    starts.append(index)
                }
                index += 1
            }
            // Not a blend's second brand ("310 + Anchor 403", "798 / DMC 3865").
            starts = starts.filter { $0 < 2 || !(["+", "/", "&"].contains(words[$0 - 1]) && Self.isCode(words[$0 - 2])) }
            var entries: [Entry] = [], unread: [Unread] = []
            if starts.isEmpty {
                if let other = Self.otherBrand(words), words.contains(where: Self.isCode) {
                    unread.append(Unread(page: page, text: Self.trimmed(line), reason: "no catalog for \(other)"))
                }
                return ([], unread)
            }
            // Another brand named before the first: its own unread row (side by side).
            for (n, start) in starts.enumerated() {
                // A symbol printed just before the brand belongs to this entry.
                var from = start
                if from > 0, Self.isSymbol(words[from - 1]) { from -= 1 }
                let end = n + 1 < starts.count ? (Self.isSymbol(words[starts[n + 1] - 1]) && starts[n + 1] - 1 > start ? starts[n + 1] - 1 : starts[n + 1])
                    : words.count
                let part = Array(words[from..<max(from, end)])
                let text = part.joined(separator: " ")
                switch parse(part, page: page) {
                case .entry(let entry): entries.append(entry)
                case .unread(let reason): unread.append(Unread(page: page, text: text, reason: reason))
                }
            }
            return (entries, unread)
        }

        enum Parsed { case entry(Entry), unread(String) }

        /// One entry's words.
        func parse(_ words: [String], page: Int) -> Parsed {
            var i = 0
            var entry = Entry(page: page, brand: "", number: "")
            if i < words.count, Self.isSymbol(words[i]), knownBrand(words[i]) == nil { entry.symbol = words[i]; i += 1 }
            guard let (brand, used) = Self.brandAt(words, i, known: knownBrand) else { return .unread("no brand") }
            i += used
            guard i < words.count, Self.isCode(words[i]) else { return .unread("no number after \(brand)") }
            let number = Self.canonicalNumber(words[i], brand: brand, catalog: catalog)
            guard let listed = catalog.entry(brand: brand, number: number) else {
                return .unread("\(brand) \(words[i]) is not in the \(brand) catalog")
            }
            entry.brand = listed.brand
            entry.number = listed.number
            i += 1
            // Blends: "+ 3865", "+ DMC 3865", "/ Anchor 403".
            while i + 1 < words.count, ["+", "/", "&"].contains(words[i]) {
                var j = i + 1
                var blendBrand = listed.brand
                if let (b, used) = Self.brandAt(words, j, known: knownBrand) { blendBrand = b; j += used }
                guard j < words.count, Self.isCode(words[j]) else { break }
                let n = Self.canonicalNumber(words[j], brand: blendBrand, catalog: catalog)
                guard let other = catalog.entry(brand: blendBrand, number: n) else {
                    return .unread("\(blendBrand) \(words[j]) (blended) is not in the \(blendBrand) catalog")
                }
                entry.blend.append((other.brand, other.number))
                i = j + 1
            }
            // The name, then quantities.
            var name: [String] = []
            while i < words.count {
                let word = words[i]
                let next = i + 1 < words.count ? words[i + 1].lowercased() : ""
                if let value = Self.integer(word) {
                    switch next {
                    case let w where w.hasPrefix("skein"): entry.skeins = (entry.skeins ?? 0) + value; i += 2; continue
                    case let w where w.hasPrefix("stitch") || w == "sts" || w == "st": entry.stitches = (entry.stitches ?? 0) + value; i += 2; continue
                    case let w where w.hasPrefix("strand") || w == "str": entry.strands = value; i += 2; continue
                    default:
                        // A bare number after the name: stitches when large, else skeins.
                        if value >= 20 { entry.stitches = value } else if entry.skeins == nil { entry.skeins = value }
                        i += 1
                        continue
                    }
                }
                if word.lowercased().hasPrefix("x"), let value = Int(word.dropFirst()), word.count <= 3 { entry.skeins = value; i += 1; continue }
                if ["(", ")", "-", "–", "blend", "(blend)", "full", "half", "cross", "backstitch", "stitch", "stitches", "strand", "strands"]
                    .contains(word.lowercased()) { i += 1; continue }
                if entry.stitches == nil, entry.skeins == nil { name.append(word) }
                i += 1
            }
            entry.name = name.isEmpty ? nil : name.joined(separator: " ")
            return .entry(entry)
        }

        /// The brand named at `index` (one or two words), and how many words it took.
        static func brandAt(_ words: [String], _ index: Int, known: (String) -> String?) -> (String, Int)? {
            guard index < words.count else { return nil }
            if let brand = known(words[index]) { return (brand, 1) }
            return nil
        }

        /// A catalog's spelling of a number ("ecru" → "Ecru", "b5200" → "B5200", "0310" stays).
        static func canonicalNumber(_ word: String, brand: String, catalog: ThreadCatalog) -> String {
            catalog.entry(brand: brand, number: word)?.number ?? word
        }

        /// A thread number: digits, a letter and digits ("B5200", "E3821"), or a named one.
        static func isCode(_ word: String) -> Bool {
            let w = word.lowercased()
            if ["ecru", "blanc", "white"].contains(w) { return true }
            let digits = w.drop { $0.isLetter }
            return !digits.isEmpty && digits.count <= 5 && w.count - digits.count <= 1 && digits.allSatisfy(\.isNumber)
        }

        /// A key symbol: one character that isn't a digit, or two.
        static func isSymbol(_ word: String) -> Bool {
            word.count <= 2 && !word.allSatisfy(\.isNumber) && !["-", "–"].contains(word)
        }

        /// Words that look like a key's row: a number-like word and a word of letters.
        static func looksLikeRow(_ tokens: [Token]) -> Bool {
            tokens.contains { isCode($0.text) && $0.text.contains(where: \.isNumber) } && tokens.contains { $0.text.count > 2 && $0.text.allSatisfy(\.isLetter) }
        }

        /// A line that doesn't end a key: "Key (continued)", totals, page headings.
        static func isContinuation(_ tokens: [Token]) -> Bool {
            let line = tokens.map { $0.text.lowercased() }.joined(separator: " ")
            return line.contains("continued") || line.hasPrefix("key") || line.hasPrefix("legend") || line.hasPrefix("total")
                || line.hasPrefix("colour key") || line.hasPrefix("color key") || line.hasPrefix("page ")
        }

        static func integer(_ text: String) -> Int? {
            let t = text.replacingOccurrences(of: ",", with: "")
            guard !t.isEmpty, t.count <= 7, t.allSatisfy(\.isNumber) else { return nil }
            return Int(t)
        }

        /// "14 count", "14-count", "14 ct", "Aida 14", "18 mesh", "count: 18".
        static func count(in text: String) -> Int? {
            let words = text.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: ":", with: " ")
                .split { $0 == " " || $0 == "\n" }.map(String.init)
            for (i, word) in words.enumerated() {
                if let n = Int(word), (5...40).contains(n), i + 1 < words.count, ["count", "ct", "ct.", "mesh", "hpi"].contains(words[i + 1]) { return n }
                if ["aida", "count", "mesh"].contains(word), i + 1 < words.count, let n = Int(words[i + 1]), (5...40).contains(n) { return n }
            }
            return nil
        }

        static func trimmed(_ line: String) -> String {
            line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }

        /// Words and where they start on the line.
        static func tokens(_ line: String) -> [Token] {
            var tokens: [Token] = []
            var current = "", start = 0
            for (offset, character) in line.enumerated() {
                if character == " " || character == "\t" || character == "\r" {
                    if !current.isEmpty { tokens.append(Token(text: current, start: start, end: offset)); current = "" }
                } else {
                    if current.isEmpty { start = offset }
                    current.append(character)
                }
            }
            if !current.isEmpty { tokens.append(Token(text: current, start: start, end: start + current.count)) }
            return tokens
        }

        /// Every entry added up by thread, in the order the key first names each; a blend's
        /// threads each take the blend's stitches at their share of its strands.
        func threads(count: Int) -> [Thread] {
            var order: [String] = []
            var byKey: [String: Thread] = [:]
            var strandStitches: [String: Int] = [:]
            func add(_ brand: String, _ number: String, entry: Entry, share: Int, printed: String?, blendedWith: [String]) {
                let key = brand + " " + number
                let listed = catalog.entry(brand: brand, number: number)
                var thread = byKey[key] ?? Thread(brand: brand, number: number, printedName: nil, catalogName: listed.flatMap { $0.name.isEmpty ? nil : $0.name },
                                                  nameDisagrees: false, symbols: [], stitches: nil, skeins: nil, strands: nil, blendedWith: [],
                                                  quantity: 1, rule: .guess, pages: [])
                if byKey[key] == nil { order.append(key) }
                if let printed, thread.printedName == nil {
                    thread.printedName = printed
                    thread.nameDisagrees = ChartKey.namesDisagree(printed, thread.catalogName)
                }
                if let symbol = entry.symbol, !thread.symbols.contains(symbol) { thread.symbols.append(symbol) }
                if let stitches = entry.stitches {
                    thread.stitches = (thread.stitches ?? 0) + stitches
                    let strands = entry.strands ?? 2
                    strandStitches[key, default: 0] += stitches * max(1, strands / share)
                }
                if let skeins = entry.skeins { thread.skeins = (thread.skeins ?? 0) + skeins }
                if thread.strands == nil { thread.strands = entry.strands }
                for other in blendedWith where !thread.blendedWith.contains(other) { thread.blendedWith.append(other) }
                if !thread.pages.contains(entry.page) { thread.pages.append(entry.page) }
                byKey[key] = thread
            }
            for entry in entries {
                let all = [(entry.brand, entry.number)] + entry.blend
                let labels = all.map { "\($0.0) \($0.1)" }
                for (n, item) in all.enumerated() {
                    add(item.0, item.1, entry: entry, share: all.count, printed: n == 0 && entry.blend.isEmpty ? entry.name : nil,
                        blendedWith: labels.enumerated().filter { $0.offset != n }.map(\.element))
                }
            }
            return order.map { key in
                var thread = byKey[key]!
                if let skeins = thread.skeins, skeins > 0 {
                    (thread.quantity, thread.rule) = (skeins, .key)
                } else if let strandStitches = strandStitches[key], strandStitches > 0 {
                    (thread.quantity, thread.rule) = (ChartKey.skeins(stitches: strandStitches, strands: 1, count: count), .stitches)
                }
                return thread
            }
        }
    }

    /// Whether a chart's name for a colour and the catalog's are about different colours: no
    /// colour word in common ("Black" and "Black" agree; "Dusty Rose Ultra Very Dark" and "Dusty
    /// Rose Ult Vy Dk" agree; "Red" for DMC 310, Black, doesn't). A missing name can't disagree.
    public static func namesDisagree(_ printed: String?, _ catalog: String?) -> Bool {
        guard let printed, let catalog else { return false }
        let shades: Set<String> = ["light", "lt", "dark", "dk", "very", "vy", "medium", "med", "ultra", "ult", "pale", "deep", "bright", "the"]
        func words(_ text: String) -> Set<String> {
            Set(text.lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count >= 3 && !shades.contains($0) })
        }
        let a = words(printed), b = words(catalog)
        guard !a.isEmpty, !b.isEmpty else { return false }
        return a.isDisjoint(with: b)
    }
}
