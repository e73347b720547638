import Fluent
import Foundation
import SeleneShared
import Vapor

extension Request {
    /// The JSON body decoded with the wire decoder: 415 for a body labelled as something else,
    /// 400 for none, malformed JSON or wrong types (naming the field).
    func decodeBody<T: Decodable>(_ type: T.Type) throws -> T {
        if let contentType = headers.contentType {
            let sub = contentType.subType.lowercased()
            guard contentType.type.lowercased() == "application", sub == "json" || sub.hasSuffix("+json") else {
                throw SeleneError(.unsupportedMediaType, "Send the request body as application/json")
            }
        }
        guard let buffer = body.data, buffer.readableBytes > 0 else {
            throw SeleneError(.badRequest, "A JSON request body is required")
        }
        return try SeleneJSON.makeDecoder().decode(T.self, from: Data(buffer: buffer))
    }

    /// A positive integer id from the path: 400 when it isn't one.
    func id(_ name: String) throws -> Int {
        guard let raw = parameters.get(name), let value = Int(raw), value >= 1 else {
            throw SeleneError(.badRequest, "\(name) must be a positive whole number", fields: [name: "must be a positive whole number"])
        }
        return value
    }

    func uuid(_ name: String) throws -> UUID {
        guard let raw = parameters.get(name), let value = UUID(uuidString: raw) else {
            throw SeleneError(.badRequest, "\(name) must be a UUID", fields: [name: "must be a UUID"])
        }
        return value
    }

    /// An integer query parameter within `range`, or its default when absent.
    func intQuery(_ name: String, default fallback: Int, range: ClosedRange<Int> = SeleneLimits.limitRange) throws -> Int {
        guard let raw = url.query.flatMap({ Self.queryValue(name, in: $0) }) else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            let message = "must be a whole number from \(range.lowerBound) to \(range.upperBound)"
            throw SeleneError(.badRequest, "\(name) \(message)", fields: [name: message])
        }
        return value
    }

    func doubleQuery(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws -> Double {
        guard let raw = url.query.flatMap({ Self.queryValue(name, in: $0) }) else { return fallback }
        guard let value = Double(raw), value.isFinite, range.contains(value) else {
            let message = "must be a number from \(range.lowerBound) to \(range.upperBound)"
            throw SeleneError(.badRequest, "\(name) \(message)", fields: [name: message])
        }
        return value
    }

    func boolQuery(_ name: String) throws -> Bool {
        guard let raw = url.query.flatMap({ Self.queryValue(name, in: $0) }) else { return false }
        switch raw.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw SeleneError(.badRequest, "\(name) must be true or false", fields: [name: "must be true or false"])
        }
    }

    /// The last value of `name` in a query string, percent-decoded ("" for `?name=`).
    static func queryValue(_ name: String, in query: String) -> String? {
        var found: String?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0].removingPercentEncoding == name else { continue }
            found = parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" : ""
        }
        return found
    }

    var selene: SeleneServices { application.selene }
    /// See `Application.writeDB`.
    var writeDB: any Database { application.writeDB }
    var now: Date { application.selene.clock.now() }
}

/// Encodes a wire value with the shared encoder.
func json<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok) throws -> Response {
    let response = Response(status: status)
    response.body = .init(data: try SeleneJSON.encode(value))
    response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
    return response
}
