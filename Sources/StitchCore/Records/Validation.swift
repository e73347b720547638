import Foundation

/// Every failing field of a record, each with a message a person can act on.
public struct ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var fields: [String: String]

    public init(fields: [String: String]) { self.fields = fields }
    public init(_ field: String, _ message: String) { self.fields = [field: message] }

    public var description: String {
        fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: "; ")
    }
}

/// Collects field errors; the rules of SPEC §1 are written once, with it, in this module.
/// Lengths are counted in Unicode code points, as JSON Schema's `maxLength` counts them, so the
/// OpenAPI document states exactly the limits enforced here.
public struct Validator: Sendable {
    public private(set) var fields: [String: String] = [:]

    public init() {}

    public var isValid: Bool { fields.isEmpty }

    public mutating func fail(_ field: String, _ message: String) {
        if fields[field] == nil { fields[field] = message }
    }

    public mutating func required(_ value: String, _ field: String, label: String, max: Int) {
        let trimmed = value.trimmedWhitespace
        if trimmed.isEmpty {
            fail(field, "\(label) is required")
        } else if trimmed.unicodeScalars.count > max {
            fail(field, "\(label) must be at most \(max) characters")
        } else if Self.hasControlCharacters(trimmed) {
            fail(field, "\(label) can't contain control characters")
        }
    }

    public mutating func optional(_ value: String?, _ field: String, label: String, max: Int) {
        guard let value else { return }
        if value.unicodeScalars.count > max {
            fail(field, "\(label) must be at most \(max) characters")
        } else if Self.hasControlCharacters(value) {
            fail(field, "\(label) can't contain control characters")
        }
    }

    /// Text may hold tabs and line breaks (a CSV cell or a note can span lines) but no other
    /// control character (Unicode category Cc): no keyboard types them and no label can show them.
    static func hasControlCharacters(_ value: String) -> Bool {
        value.unicodeScalars.contains { scalar in
            let v = scalar.value
            guard v < 0x20 || (0x7F...0x9F).contains(v) else { return false }
            return v != 0x09 && v != 0x0A && v != 0x0D
        }
    }

    public func check() throws(ValidationError) {
        if !fields.isEmpty { throw ValidationError(fields: fields) }
    }
}

/// A record that knows its own rules.
public protocol Validatable {
    func validate(into validator: inout Validator)
}

extension Validatable {
    public var validationErrors: [String: String] {
        var validator = Validator()
        validate(into: &validator)
        return validator.fields
    }

    /// Throws every failing field at once.
    public func validated() throws(ValidationError) -> Self {
        var validator = Validator()
        validate(into: &validator)
        try validator.check()
        return self
    }
}

/// The longest text each field takes, and the other bounds records are held to.
public enum Limits {
    public static let brand = 100
    public static let number = 50
    public static let colorName = 100
    public static let barcode = 50
    public static let weightOrLength = 100
    public static let threadNotes = 1000
    public static let designer = 200
    public static let designName = 200
    public static let canvasSize = 100
    public static let longNotes = 10_000
    public static let sectionName = 100
    public static let displayName = 100
    public static let email = 254
    public static let passwordMinCharacters = 8
    /// Counted in code points like every limit here. bcrypt reads only 72 bytes, so the server
    /// pre-hashes longer passwords (see `PasswordService`); nothing past this limit is ignored.
    public static let passwordMaxCharacters = 128
    public static let maxQuantity = 1_000_000
    public static let maxMeshCount = 100
    public static let imageKey = 200
    /// A pattern's pages: a chart book is a few hundred at most.
    public static let maxPatternPages = 5000
}

/// The format checks the records' validation shares (colours, barcodes, text).
public enum Rules {
    public static func isHexColor(_ value: String) -> Bool {
        let scalars = Array(value.unicodeScalars)
        guard scalars.count == 7, scalars[0] == "#" else { return false }
        return scalars.dropFirst().allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) }
    }

    /// A pragmatic check: one "@", something before it, a dotted domain after it, no spaces.
    public static func isEmail(_ value: String) -> Bool {
        guard value.unicodeScalars.count <= Limits.email, !value.contains(where: \.isWhitespace),
              !Validator.hasControlCharacters(value) else { return false }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    public static func normalizedEmail(_ value: String) -> String {
        value.trimmedWhitespace.lowercased()
    }

    /// Notes keep their text exactly as written (line breaks and indentation are the writer's);
    /// only blank notes mean "not set".
    public static func cleanNotes(_ value: String?) -> String? {
        guard let value, !value.isBlank else { return nil }
        return value
    }

    /// Trims a free-text field; blank optional text means "not set".
    public static func clean(_ value: String?) -> String? {
        guard let trimmed = value?.trimmedWhitespace, !trimmed.isEmpty else { return nil }
        return trimmed
    }

    public static func validateEmail(_ email: String, into v: inout Validator) {
        let trimmed = email.trimmedWhitespace
        if trimmed.isEmpty { v.fail("email", "Email is required") }
        else if !isEmail(trimmed) { v.fail("email", "Enter a valid email address") }
    }

    /// A password's length rules, reported under `field` (`newPassword` when one is changed).
    public static func validatePassword(_ password: String, field: String = "password", into v: inout Validator) {
        if password.unicodeScalars.count < Limits.passwordMinCharacters {
            v.fail(field, "Password must be at least \(Limits.passwordMinCharacters) characters")
        } else if password.unicodeScalars.count > Limits.passwordMaxCharacters {
            v.fail(field, "Password must be at most \(Limits.passwordMaxCharacters) characters")
        }
    }

    public static func validateDisplayName(_ name: String, into v: inout Validator) {
        v.required(name, "displayName", label: "Name", max: Limits.displayName)
    }
}
