import Foundation

/// Orders text the way people read thread numbers: "2" < "10" < "310" < "B5200", letters
/// compared without regard to case.
public enum NaturalOrder {
    public static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        var a = lhs.unicodeScalars.makeIterator()
        var b = rhs.unicodeScalars.makeIterator()
        var ca = a.next()
        var cb = b.next()
        while let x = ca, let y = cb {
            let xDigit = isDigit(x), yDigit = isDigit(y)
            if xDigit && yDigit {
                var runA = "", runB = ""
                while let c = ca, isDigit(c) { runA.unicodeScalars.append(c); ca = a.next() }
                while let c = cb, isDigit(c) { runB.unicodeScalars.append(c); cb = b.next() }
                let trimmedA = runA.drop { $0 == "0" }, trimmedB = runB.drop { $0 == "0" }
                if trimmedA.count != trimmedB.count { return trimmedA.count < trimmedB.count ? .orderedAscending : .orderedDescending }
                if trimmedA != trimmedB { return trimmedA < trimmedB ? .orderedAscending : .orderedDescending }
                if runA.count != runB.count { return runA.count < runB.count ? .orderedAscending : .orderedDescending }
                continue
            }
            if xDigit != yDigit { return xDigit ? .orderedAscending : .orderedDescending }
            let lx = String(x).lowercased(), ly = String(y).lowercased()
            if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
            ca = a.next()
            cb = b.next()
        }
        if ca == nil && cb == nil { return lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending) }
        return ca == nil ? .orderedAscending : .orderedDescending
    }

    public static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
}

extension InventoryThread {
    /// Brand, then number, both in natural order; the id settles exact ties so order is stable.
    public static func inventoryOrder(_ lhs: InventoryThread, _ rhs: InventoryThread) -> Bool {
        switch NaturalOrder.compare(lhs.brand, rhs.brand) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: break
        }
        switch NaturalOrder.compare(lhs.number, rhs.number) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return lhs.id.uuidString < rhs.id.uuidString
        }
    }

    /// The thread-list search: brand, number or colour name, case-insensitively.
    public func matches(search: String) -> Bool {
        let needle = search.trimmingCharacters(in: .whitespacesAndNewlines)
        if needle.isEmpty { return true }
        return [brand, number, colorName ?? ""].contains { $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}

extension Canvas {
    public func matches(search: String) -> Bool {
        let needle = search.trimmingCharacters(in: .whitespacesAndNewlines)
        if needle.isEmpty { return true }
        return [designer, designName].contains { $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}
