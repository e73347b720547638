import Foundation
import StitchCore
import Vapor

extension Request {
    /// The body of a JSON request: 415 when it is labelled as something other than JSON, 400 when
    /// there is none. Every JSON endpoint reads its body through here, so all of them answer a
    /// missing or mislabelled body the same way (and the OpenAPI document says so).
    func jsonBodyBuffer() throws -> ByteBuffer {
        if let type = headers.contentType, !Self.isJSON(type) {
            throw APIError(.unsupportedMediaType, "Send the request body as application/json")
        }
        guard let buffer = body.data, buffer.readableBytes > 0 else {
            throw APIError(.badRequest, "A JSON request body is required")
        }
        return buffer
    }

    /// Decodes the JSON body with the wire decoder (see `jsonBodyBuffer` for the failures).
    func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        let buffer = try jsonBodyBuffer()
        return try buffer.withUnsafeReadableBytes { try StitchJSON.decode(T.self, from: $0) }
    }

    private static func isJSON(_ type: HTTPMediaType) -> Bool {
        let subType = type.subType.lowercased()
        return type.type.lowercased() == "application" && (subType == "json" || subType.hasSuffix("+json"))
    }
}
