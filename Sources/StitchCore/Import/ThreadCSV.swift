import Foundation

// Threads: the columns a thread CSV fills, how a row merges into a thread already in the stash,
// and the file read and written.

/// The columns a thread inventory CSV may have, with the header spellings each accepts.
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
    /// The columns a thread CSV may have.
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

/// Reads a thread inventory from CSV into an import plan.
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
