import Foundation
import MultipartKit
import NIOCore

/// Collects the parts of a multipart/form-data body: each part's field name, file name and bytes.
enum MultipartCollector {
    struct Part {
        var name: String
        var filename: String?
        var body: Data
    }

    static func parse(_ data: Data, boundary: String) throws -> [Part] {
        let parser = MultipartParser(boundary: boundary)
        var parts: [Part] = []
        var headers: [(String, String)] = []
        var body = Data()
        parser.onHeader = { name, value in headers.append((name.lowercased(), value)) }
        parser.onBody = { buffer in
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { body.append(contentsOf: bytes) }
        }
        parser.onPartComplete = {
            let disposition = headers.first { $0.0 == "content-disposition" }?.1 ?? ""
            let params = Self.parameters(disposition)
            parts.append(Part(name: params["name"] ?? "", filename: params["filename"], body: body))
            headers = []
            body = Data()
        }
        do {
            try parser.execute([UInt8](data))
        } catch {
            throw APIError(.badRequest, "The multipart body is malformed")
        }
        return parts
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
