import Foundation

/// One colour of a brand's thread line, as its public colour card lists it.
public struct CatalogEntry: Codable, Sendable, Hashable {
    /// "DMC", "Anchor"…
    public var brand: String
    /// The line within the brand ("Six-strand floss").
    public var line: String
    /// The brand's number for the colour ("310", "B5200", "Ecru").
    public var number: String
    /// The colour's name on the card ("Black").
    public var name: String
    /// The colour as `#RRGGBB` (upper case), for a swatch.
    public var hex: String
    public var fiberType: FiberType
    /// The retail barcodes printed on the colour's label (normalised, `Barcodes.normalized`), where
    /// the catalog's source lists them; often none.
    public var barcodes: [String]
    /// The brand's other lines that use the same numbers for the same colours: DMC's pearl cotton
    /// sizes for its floss numbers. (Each size is made in part of the range; the catalog doesn't
    /// say which.)
    public var variants: [String]

    public init(brand: String, line: String, number: String, name: String, hex: String, fiberType: FiberType, barcodes: [String] = [],
                variants: [String] = []) {
        self.brand = brand
        self.line = line
        self.number = number
        self.name = name
        self.hex = hex
        self.fiberType = fiberType
        self.barcodes = barcodes
        self.variants = variants
    }

    private enum CodingKeys: String, CodingKey { case brand, line, number, name, hex, fiberType, barcodes, variants }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(brand: try c.decode(String.self, forKey: .brand), line: try c.decode(String.self, forKey: .line),
                  number: try c.decode(String.self, forKey: .number), name: try c.decode(String.self, forKey: .name),
                  hex: try c.decode(String.self, forKey: .hex), fiberType: try c.decode(FiberType.self, forKey: .fiberType),
                  barcodes: try c.decodeIfPresent([String].self, forKey: .barcodes) ?? [],
                  variants: try c.decodeIfPresent([String].self, forKey: .variants) ?? [])
    }

    /// The name, nil where the card gives none.
    public var colorName: String? { name.isEmpty ? nil : name }

    /// How a person reads it: "DMC 310 Black", "Anchor 403" (Anchor's card names no colours).
    public var label: String { name.isEmpty ? "\(brand) \(number)" : "\(brand) \(number) \(name)" }
}

/// A catalog colour and how far it is from the colour asked about (CIEDE2000).
public struct CatalogNeighbour: Codable, Sendable, Hashable {
    public var entry: CatalogEntry
    /// ΔE₀₀: under ~2 most people see no difference on thread; over ~10 it is another colour.
    public var deltaE: Double

    public init(entry: CatalogEntry, deltaE: Double) {
        self.entry = entry
        self.deltaE = deltaE
    }

    /// "ΔE 3.5 · close": the difference and how it looks on thread.
    public var difference: String {
        let looks = switch deltaE {
        case ..<2: "looks the same"
        case ..<5: "close"
        case ..<10: "noticeably different"
        default: "another colour"
        }
        return "ΔE \(String(format: "%.1f", deltaE)) · \(looks)"
    }
}

/// Colours that could stand in for a thread (`ThreadCatalog.alternatives`).
public struct CatalogAlternatives: Codable, Sendable, Hashable {
    /// The thread's own catalog entry, when the catalog lists it.
    public var entry: CatalogEntry?
    /// Whether `nearest` are other brands' (else the same brand's other colours).
    public var otherBrands: Bool
    public var nearest: [CatalogNeighbour]
}

/// Every catalog the app ships, searchable by brand, number or colour name as a person types.
public struct ThreadCatalog: Sendable {
    public let entries: [CatalogEntry]
    private let indexed: [Indexed]
    private let byKey: [String: Int]
    private let byBarcode: [String: Int]

    private struct Indexed: Sendable {
        let brand: String
        let number: String
        let words: [String]
        let lab: Lab
    }

    public init(entries: [CatalogEntry]) {
        self.entries = entries
        indexed = entries.map { entry in
            Indexed(brand: Self.fold(entry.brand), number: Self.fold(entry.number),
                    words: Self.words(entry.name), lab: Lab(hex: entry.hex) ?? Lab(l: 0, a: 0, b: 0))
        }
        var keys: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { keys[Self.key(entry.brand, entry.number)] = keys[Self.key(entry.brand, entry.number)] ?? index }
        byKey = keys
        var barcodes: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            for code in entry.barcodes { barcodes[code] = barcodes[code] ?? index }
        }
        byBarcode = barcodes
    }

    /// The colour whose label carries a barcode (any form `Barcodes.normalized` accepts).
    public func entry(barcode: String) -> CatalogEntry? {
        Barcodes.normalized(barcode).flatMap { byBarcode[$0] }.map { entries[$0] }
    }

    /// The brands, in the order their catalogs were given.
    public var brands: [String] {
        var seen = Set<String>()
        return entries.map(\.brand).filter { seen.insert($0).inserted }
    }

    /// The brand's entry for a number (any case; "dmc", "310"), if the catalog lists it.
    public func entry(brand: String, number: String) -> CatalogEntry? {
        byKey[Self.key(brand, number)].map { entries[$0] }
    }

    /// Entries for what a person has typed so far: every word of the query must match the
    /// brand, the number (exactly or as its start) or a word of the colour's name (its start, or
    /// within one or two typos for longer words). Best first: an exact number, then a number's
    /// start, then names; ties in the catalog's own order.
    public func search(_ query: String, limit: Int = 10) -> [CatalogEntry] {
        let terms = Self.words(query)
        guard !terms.isEmpty, limit > 0 else { return [] }
        var scored: [(score: Int, index: Int)] = []
        for (index, item) in indexed.enumerated() {
            var total = 0
            var matchedAll = true
            for term in terms {
                let score = Self.score(term, item)
                if score == 0 { matchedAll = false; break }
                total += score
            }
            if matchedAll { scored.append((total, index)) }
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }
        return scored.prefix(limit).map { entries[$0.index] }
    }

    /// The entries of `brand` (all brands when nil) closest in colour to `hex`, nearest first.
    public func nearest(toHex hex: String, brand: String? = nil, limit: Int = 3, excluding: CatalogEntry? = nil) -> [CatalogNeighbour] {
        guard let target = Lab(hex: hex) else { return [] }
        let wanted = brand.map(Self.fold)
        var found: [(Double, Int)] = []
        for (index, item) in indexed.enumerated() where wanted == nil || item.brand == wanted {
            if let excluding, entries[index] == excluding { continue }
            found.append((ColorDifference.ciede2000(target, item.lab), index))
        }
        found.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return found.prefix(limit).map { CatalogNeighbour(entry: entries[$0.1], deltaE: ($0.0 * 100).rounded() / 100) }
    }

    /// What could stand in for a thread (a brand's number, or any thread with a colour): the
    /// nearest colour of each other brand the catalogs have, closest first ("nearest Anchor to DMC
    /// 310"); where they have only the thread's own brand, that brand's nearest other colours.
    /// Nil when neither the catalog nor the thread gives a colour.
    public func alternatives(brand: String, number: String, hex: String?, limit: Int = 3) -> CatalogAlternatives? {
        let listed = entry(brand: brand, number: number)
        guard let colour = listed?.hex ?? hex, Lab(hex: colour) != nil else { return nil }
        let others = brands.filter { Self.fold($0) != Self.fold(brand) }
        if others.isEmpty {
            return CatalogAlternatives(entry: listed, otherBrands: false, nearest: nearest(toHex: colour, limit: limit, excluding: listed))
        }
        // One other brand: its nearest few; several: each one's nearest.
        let nearest = others.count == 1 ? self.nearest(toHex: colour, brand: others[0], limit: limit)
            : others.compactMap { self.nearest(toHex: colour, brand: $0, limit: 1).first }.sorted { $0.deltaE < $1.deltaE }
        return CatalogAlternatives(entry: listed, otherBrands: true, nearest: Array(nearest.prefix(limit)))
    }

    // MARK: Matching

    private static func score(_ term: String, _ item: Indexed) -> Int {
        if term == item.number { return 100 }
        if term == item.brand { return 60 }
        if item.number.hasPrefix(term) { return 80 - min(20, item.number.count - term.count) }
        var best = 0
        for word in item.words {
            if word == term { best = max(best, 55) }
            else if word.hasPrefix(term) { best = max(best, 50) }
            else if term.count >= 4, abs(word.count - term.count) <= 2 {
                let allowed = term.count >= 7 ? 2 : 1
                if editDistance(term, word, limit: allowed) <= allowed { best = max(best, 30) }
            }
        }
        if best == 0, item.brand.hasPrefix(term) { best = 40 }
        return best
    }

    /// Levenshtein distance with adjacent swaps, giving up past `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        if abs(x.count - y.count) > limit { return limit + 1 }
        var before = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            current[0] = i
            var rowBest = current[0]
            for j in 1...max(y.count, 1) where !y.isEmpty {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
                rowBest = min(rowBest, value)
            }
            if rowBest > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return x.isEmpty ? y.count : previous[y.count]
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    static func words(_ text: String) -> [String] {
        fold(text).split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    private static func key(_ brand: String, _ number: String) -> String { fold(brand) + "\u{1}" + fold(number) }
}

extension ThreadCatalog {
    /// Reads one catalog file: a header line, then `number,name,hex` rows (RFC 4180 quoting; `#`
    /// starts a comment line). Says which line is wrong rather than skipping it.
    public static func entries(csv text: String, brand: String, line: String, fiberType: FiberType,
                               variants: [String] = []) throws(ValidationError) -> [CatalogEntry] {
        var result: [CatalogEntry] = []
        for row in CSV.parse(text, delimiter: .comma).dropFirst() {
            let cells = row.fields
            if cells.allSatisfy({ $0.trimmedWhitespace.isEmpty }) || cells.first?.hasPrefix("#") == true { continue }
            // The name may be empty: some brands' cards (Anchor's) give numbers only.
            guard cells.count == 3 || cells.count == 4, !cells[0].trimmedWhitespace.isEmpty else {
                throw ValidationError("catalog", "\(brand) \(line), line \(row.line): expected number,name,hex[,barcodes]")
            }
            var barcodes: [String] = []
            if cells.count == 4 {
                for code in cells[3].split(whereSeparator: \.isWhitespace) {
                    guard let normalized = Barcodes.normalized(String(code)) else {
                        throw ValidationError("catalog", "\(brand) \(line), line \(row.line): “\(code)” is not an EAN-13, UPC-A or EAN-8 barcode")
                    }
                    barcodes.append(normalized)
                }
            }
            var hex = cells[2].trimmedWhitespace.uppercased()
            if !hex.hasPrefix("#") { hex = "#" + hex }
            guard Rules.isHexColor(hex) else {
                throw ValidationError("catalog", "\(brand) \(line), line \(row.line): “\(cells[2])” is not a colour like #1A2B3C")
            }
            result.append(CatalogEntry(brand: brand, line: line, number: cells[0].trimmedWhitespace, name: cells[1].trimmedWhitespace,
                                       hex: hex, fiberType: fiberType, barcodes: barcodes, variants: variants))
        }
        return result
    }
}
