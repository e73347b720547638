import Foundation

/// Collects the parts of a multipart/form-data body (RFC 7578): each part's field name, file name
/// and bytes. Our own small parser over the collected body: MultipartKit 4.7.1 (the newest we can
/// resolve) traps on a byte above 0x7F in a part's header name, which let one malformed request
/// crash the server (found by schemathesis). Anything malformed here is a 400.
enum MultipartCollector {
    struct Part {
        var name: String
        var filename: String?
        var body: Data
    }

    static let maxParts = 1000
    private static let crlf: [UInt8] = [13, 10]
    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    static func parse(_ data: Data, boundary: String) throws -> [Part] {
        let malformed = APIError(.badRequest, "The multipart body is malformed")
        // RFC 2046: 1 to 70 characters; anything else can't delimit a body we'd accept.
        guard (1...70).contains(boundary.utf8.count) else { throw malformed }
        let bytes = [UInt8](data)
        let dashBoundary = Array("--\(boundary)".utf8)
        let delimiter = crlf + dashBoundary

        // The first boundary opens the body, or follows a preamble that ends with CRLF.
        var index: Int
        if bytes.starts(with: dashBoundary) {
            index = dashBoundary.count
        } else if let found = find(delimiter, in: bytes, from: 0) {
            index = found + delimiter.count
        } else {
            throw malformed
        }

        var parts: [Part] = []
        while true {
            // After a boundary: "--" ends the body; otherwise optional padding, then CRLF.
            if index + 1 < bytes.count, bytes[index] == 45, bytes[index + 1] == 45 { return parts }
            while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
            guard index + 1 < bytes.count, bytes[index] == 13, bytes[index + 1] == 10 else { throw malformed }
            index += 2

            // Header lines up to an empty line.
            var headers: [(String, String)] = []
            while true {
                guard let lineEnd = find(crlf, in: bytes, from: index) else { throw malformed }
                if lineEnd == index { index += 2; break }
                headers.append(try header(bytes[index..<lineEnd], malformed: malformed))
                index = lineEnd + 2
            }

            guard let end = find(delimiter, in: bytes, from: index) else { throw malformed }
            let disposition = headers.first { $0.0 == "content-disposition" }?.1 ?? ""
            let params = Self.parameters(disposition)
            parts.append(Part(name: params["name"] ?? "", filename: params["filename"], body: Data(bytes[index..<end])))
            guard parts.count <= maxParts else { throw APIError(.payloadTooLarge, "Too many parts in one request") }
            index = end + delimiter.count
        }
    }

    /// `Name: value`, with a name of visible ASCII token characters (RFC 9110) and a UTF-8 value.
    private static func header(_ line: ArraySlice<UInt8>, malformed: APIError) throws -> (String, String) {
        guard let colon = line.firstIndex(of: 58), colon > line.startIndex else { throw malformed }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy({ byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || tokenSymbols.contains(byte)
        }) else { throw malformed }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return (String(decoding: name, as: UTF8.self).lowercased(), value)
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var i = start
                let last = hay.count - pin.count
                while i <= last {
                    if hay[i] == first {
                        var j = 1
                        while j < pin.count, hay[i + j] == pin[j] { j += 1 }
                        if j == pin.count { return i }
                    }
                    i += 1
                }
                return nil
            }
        }
    }

    /// `form-data; name="image"; filename="a.jpg"` → ["name": "image", "filename": "a.jpg"].
    static func parameters(_ header: String) -> [String: String] {
        var result: [String: String] = [:]
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            result[pair[0].lowercased()] = value
        }
        return result
    }
}
