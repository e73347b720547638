import Foundation

// Two text conversions every record passes through several times per sync (ids on the wire, text
// trimmed before it is stored). Foundation's versions go through the C library's formatted
// printing and scanning (UUID) and through NSString (trimming), which together were a tenth of a
// sync push; these give the same answers (tested against Foundation) without either.

extension UUID {
    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)
    private static let lowerHex: [UInt8] = Array("0123456789abcdef".utf8)

    /// The same text as `uuidString`: upper-case hex in the 8-4-4-4-12 layout. What the servers'
    /// SQLite tables hold (and compare), so it stays as it has always been stored.
    public var text: String {
        String(unsafeUninitializedCapacity: 36) { out in
            write(to: out.baseAddress!, digits: Self.upperHex)
            return 36
        }
    }

    /// Lower-case hex in the 8-4-4-4-12 layout, as RFC 9562 asks of UUIDs written out: what the
    /// wire, the exports and the command line show. (Reading accepts either case.)
    public var wireText: String {
        String(unsafeUninitializedCapacity: 36) { out in
            write(to: out.baseAddress!, digits: Self.lowerHex)
            return 36
        }
    }

    /// `wireText`'s 36 characters, appended to `out`.
    func write(into out: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            write(to: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), digits: Self.lowerHex)
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<36]))
        }
    }

    private func write(to out: UnsafeMutablePointer<UInt8>, digits: [UInt8]) {
        withUnsafeBytes(of: uuid) { bytes in
            digits.withUnsafeBufferPointer { hex in
                var o = 0
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                    out[o] = hex[Int(bytes[i] >> 4)]
                    out[o + 1] = hex[Int(bytes[i] & 0x0F)]
                    o += 2
                }
            }
        }
    }

    /// `init?(text:)` on UTF-8 bytes.
    init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var parsed: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        guard Self.parse(UnsafeRawBufferPointer(bytes), into: &parsed) else { return nil }
        self.init(uuid: parsed)
    }

    /// Parses the 8-4-4-4-12 hex layout in either case, as `UUID(text:)` does; anything
    /// else is nil.
    public init?(text: some StringProtocol) {
        var parsed: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            Self.parse(UnsafeRawBufferPointer(bytes), into: &parsed)
        }
        if let ok {
            guard ok else { return nil }
        } else {
            guard Array(text.utf8).withUnsafeBytes({ Self.parse($0, into: &parsed) }) else { return nil }
        }
        self.init(uuid: parsed)
    }

    /// Hex digit values by byte (0xFF: not a hex digit).
    private static let hexValues: [UInt8] = (0..<256).map { c in
        switch UInt8(c) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(c) - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(c) - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(c) - UInt8(ascii: "a") + 10
        default: 0xFF
        }
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, into result: inout uuid_t) -> Bool {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"), bytes[18] == UInt8(ascii: "-"),
              bytes[23] == UInt8(ascii: "-")
        else { return false }
        return hexValues.withUnsafeBufferPointer { hex in
            withUnsafeMutableBytes(of: &result) { out in
                // Where each output byte's two digits start in the 8-4-4-4-12 layout.
                var invalid: UInt8 = 0
                var i = 0
                for o in 0..<16 {
                    if o == 4 || o == 6 || o == 8 || o == 10 { i += 1 }
                    let high = hex[Int(bytes[i])], low = hex[Int(bytes[i + 1])]
                    invalid |= (high | low) & 0xF0
                    out[o] = high << 4 | (low & 0x0F)
                    i += 2
                }
                return invalid == 0
            }
        }
    }
}

extension String {
    /// The same as `trimmingCharacters(in: .whitespacesAndNewlines)`: that set is Unicode's
    /// White_Space property plus the zero-width space. Text with nothing to trim comes back as is.
    public var trimmedWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhitespaceOrNewline }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isWhitespaceOrNewline })!
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }

    /// Whether the text is empty or only white space and line breaks.
    public var isBlank: Bool { unicodeScalars.allSatisfy(\.isWhitespaceOrNewline) }
}

extension Unicode.Scalar {
    /// Membership in `CharacterSet.whitespacesAndNewlines` (White_Space and U+200B), ASCII first.
    @inline(__always) public var isWhitespaceOrNewline: Bool {
        if value < 0x80 { return value == 0x20 || (0x09...0x0D).contains(value) }
        return value == 0x200B || properties.isWhitespace
    }
}
