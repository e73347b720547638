import Foundation

/// Orders text the way people read thread numbers: "2" < "10" < "310" < "B5200", letters
/// compared without regard to case.
public enum NaturalOrder {
    public static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        // Walks both strings once without allocating (this runs ~10,000 times per sorted list).
        var a = lhs.unicodeScalars.makeIterator()
        var b = rhs.unicodeScalars.makeIterator()
        var ca = a.next()
        var cb = b.next()
        while let x = ca, let y = cb {
            let xDigit = isDigit(x), yDigit = isDigit(y)
            if xDigit && yDigit {
                // Numbers compare by value ("2" < "10"); equal values with fewer leading zeros first.
                var zerosA = 0, zerosB = 0
                while let c = ca, c.value == 48 { zerosA += 1; ca = a.next() }
                while let c = cb, c.value == 48 { zerosB += 1; cb = b.next() }
                var firstDifference: ComparisonResult = .orderedSame
                while true {
                    let moreA = ca.map(isDigit) ?? false, moreB = cb.map(isDigit) ?? false
                    if moreA != moreB { return moreA ? .orderedDescending : .orderedAscending }
                    if !moreA { break }
                    if firstDifference == .orderedSame, ca!.value != cb!.value {
                        firstDifference = ca!.value < cb!.value ? .orderedAscending : .orderedDescending
                    }
                    ca = a.next()
                    cb = b.next()
                }
                if firstDifference != .orderedSame { return firstDifference }
                if zerosA != zerosB { return zerosA < zerosB ? .orderedAscending : .orderedDescending }
                continue
            }
            if xDigit != yDigit { return xDigit ? .orderedAscending : .orderedDescending }
            if x.isASCII && y.isASCII {
                let lx = lowerASCII(x.value), ly = lowerASCII(y.value)
                if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
            } else if x != y {
                let lx = String(x).lowercased(), ly = String(y).lowercased()
                if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
            }
            ca = a.next()
            cb = b.next()
        }
        if ca == nil && cb == nil { return lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedAscending : .orderedDescending) }
        return ca == nil ? .orderedAscending : .orderedDescending
    }

    @inline(__always) private static func lowerASCII(_ v: UInt32) -> UInt32 { v >= 65 && v <= 90 ? v + 32 : v }

    public static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 48 && c.value <= 57 }
}

extension InventoryThread {
    /// Brand, then number, both in natural order; the id settles exact ties so order is stable.
    public static func inventoryOrder(_ lhs: InventoryThread, _ rhs: InventoryThread) -> Bool {
        inventoryOrder((lhs.brand, lhs.number, lhs.id), (rhs.brand, rhs.number, rhs.id))
    }

    private static func inventoryOrder(_ lhs: (brand: String, number: String, id: UUID), _ rhs: (brand: String, number: String, id: UUID)) -> Bool {
        switch NaturalOrder.compare(lhs.brand, rhs.brand) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: break
        }
        switch NaturalOrder.compare(lhs.number, rhs.number) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return lhs.id.text < rhs.id.text
        }
    }

    /// `threads` in `inventoryOrder`. It sorts positions by their keys and moves each record once:
    /// a sort that moves or compares the records themselves copies (retains and releases) every
    /// field of a record at each step, which took most of a 1,000-thread list's sort.
    public static func sortedInInventoryOrder(_ threads: [InventoryThread]) -> [InventoryThread] {
        let keys = threads.map { (brand: $0.brand, number: $0.number, id: $0.id) }
        return keys.withUnsafeBufferPointer { keys in
            (0..<keys.count).sorted { inventoryOrder(keys[$0], keys[$1]) }
        }.map { threads[$0] }
    }

    /// The thread-list search: brand, number or colour name, case-insensitively.
    public func matches(search: String) -> Bool {
        let needle = search.trimmedWhitespace
        if needle.isEmpty { return true }
        return [brand, number, colorName ?? ""].contains { $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}

extension Canvas {
    public func matches(search: String) -> Bool {
        let needle = search.trimmedWhitespace
        if needle.isEmpty { return true }
        return [designer, designName].contains { $0.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}
