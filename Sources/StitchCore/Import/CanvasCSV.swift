import Foundation

// Canvases: the columns a canvas CSV fills, how a row merges into a canvas already in the stash,
// and the file read and written.

/// The columns a canvas stash CSV may have, with the header spellings each accepts.
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
    /// The columns a canvas CSV may have.
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

/// Reads a canvas stash from CSV into an import plan.
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
