import Foundation

/// What "match my inventory to the catalog" did, thread by thread.
public struct CatalogMatchReport: Codable, Sendable, Hashable {
    /// A thread given its catalog name and, where it had none, its swatch and colour name.
    public struct Matched: Codable, Sendable, Hashable {
        public var id: UUID
        public var brand: String
        public var number: String
        public var name: String
        public var hex: String
    }

    /// A thread the catalogs don't list, and why.
    public struct Unmatched: Codable, Sendable, Hashable {
        public var id: UUID
        public var brand: String
        public var number: String
        public var reason: String
    }

    public var matched: [Matched]
    public var unmatched: [Unmatched]
    /// Threads that already carried everything the catalog would give.
    public var unchanged: Int

    public init(matched: [Matched] = [], unmatched: [Unmatched] = [], unchanged: Int = 0) {
        self.matched = matched
        self.unmatched = unmatched
        self.unchanged = unchanged
    }
}

extension ThreadCatalog {
    /// Matches live threads to the catalog by brand and number (any case): each found gets the
    /// catalog's name, and a swatch and colour name where it has none (a stitcher's own are
    /// kept). Answers the changed threads (not yet re-stamped) and what happened to every one.
    public func match(_ threads: [InventoryThread]) -> (changed: [InventoryThread], report: CatalogMatchReport) {
        var changed: [InventoryThread] = []
        var report = CatalogMatchReport()
        let known = Set(brands.map { $0.lowercased() })
        for thread in threads where thread.deletedAt == nil {
            guard let entry = entry(brand: thread.brand, number: thread.number) else {
                let reason = known.contains(thread.brand.lowercased())
                    ? "\(thread.brand) \(thread.number) is not in the \(thread.brand) catalog"
                    : "No catalog for \(thread.brand) (there are: \(brands.joined(separator: ", ")))"
                report.unmatched.append(.init(id: thread.id, brand: thread.brand, number: thread.number, reason: reason))
                continue
            }
            var updated = thread
            updated.catalogColorName = entry.colorName
            if updated.colorHex == nil { updated.colorHex = entry.hex }
            if updated.colorName == nil { updated.colorName = entry.colorName }
            if updated == thread {
                report.unchanged += 1
            } else {
                changed.append(updated)
                report.matched.append(.init(id: thread.id, brand: thread.brand, number: thread.number, name: entry.name,
                                            hex: updated.colorHex ?? entry.hex))
            }
        }
        return (changed, report)
    }
}
