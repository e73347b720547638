import Foundation

/// The retail barcodes on thread labels: EAN-13, UPC-A (an EAN-13 that starts with 0) and EAN-8.
public enum Barcodes {
    /// The code as the catalog and the inventory compare it: digits only, a 12-digit UPC-A as the
    /// EAN-13 it is (a leading 0), so "0 12345 67890 5" and "0012345678905" are one code.
    /// Nil when it isn't 8, 12 or 13 digits with a correct check digit.
    public static func normalized(_ text: String) -> String? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        switch digits.count {
        case 8, 13: return hasValidCheckDigit(digits) ? digits : nil
        case 12: return hasValidCheckDigit(digits) ? "0" + digits : nil
        default: return nil
        }
    }

    /// Why a typed code is not a barcode, in a sentence; nil when it is one.
    public static func problem(_ text: String) -> String? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        if digits.isEmpty { return "Type the digits under the bars" }
        guard digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return "A barcode has only digits" }
        guard [8, 12, 13].contains(digits.count) else {
            return "A barcode has 13 digits (EAN-13), 12 (UPC-A) or 8 (EAN-8); this has \(digits.count)"
        }
        guard hasValidCheckDigit(digits) else {
            return "\(digits) is not a valid barcode: its last digit should be \(checkDigit(of: String(digits.dropLast())))"
        }
        return nil
    }

    /// The GS1 check digit of the digits before it (weights 3 and 1 from the right).
    public static func checkDigit(of payload: String) -> Int {
        var sum = 0
        for (index, character) in payload.reversed().enumerated() {
            let digit = Int(character.asciiValue! - 48)
            sum += index % 2 == 0 ? digit * 3 : digit
        }
        return (10 - sum % 10) % 10
    }

    private static func hasValidCheckDigit(_ digits: String) -> Bool {
        checkDigit(of: String(digits.dropLast())) == Int(digits.last!.asciiValue! - 48)
    }
}

/// What `POST /threads/scan` found for a barcode: the owner's thread(s) carrying it, else the
/// catalog colour that lists it, else nothing (the client offers to add the thread with the code).
public struct BarcodeScan: Codable, Sendable, Equatable {
    /// What a scanned code turned out to be.
    public enum Outcome: String, Codable, Sendable {
        /// One or more of the owner's threads carry the code.
        case owned
        /// No thread of theirs does; a catalog colour lists the code.
        case catalog
        /// Nobody knows the code yet.
        case unknown
    }

    /// The code, normalised (`Barcodes.normalized`).
    public var code: String
    /// "EAN-13", "UPC-A", "EAN-8" as read from the picture, or "typed".
    public var source: String
    public var outcome: Outcome
    public var threads: [InventoryThread]
    public var catalogEntry: CatalogEntry?
    /// Every code the picture held (usually one), normalised.
    public var codes: [String]
    /// What happened, as a sentence for a person.
    public var message: String

    public init(code: String, source: String, outcome: Outcome, threads: [InventoryThread], catalogEntry: CatalogEntry?,
                codes: [String], message: String) {
        self.code = code
        self.source = source
        self.outcome = outcome
        self.threads = threads
        self.catalogEntry = catalogEntry
        self.codes = codes
        self.message = message
    }
}
