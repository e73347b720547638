import Foundation
import Vapor

/// What both servers answer for a failure that isn't one of their own kinds, in the shape they
/// share (`{"error": sentence, "fields": {...}}`): a body that couldn't be decoded names its
/// field without echoing the input; Vapor's errors get a plain sentence; anything unexpected is a
/// 500 with a generic sentence and a log line, never internals.
public enum ErrorEnvelope {
    public struct Described: Sendable {
        public var status: HTTPResponseStatus
        public var error: String
        public var fields: [String: String]?
        public var headers: HTTPHeaders
    }

    /// `tooLarge`: the product's sentence for a 413 (what its limit is about).
    public static func describe(_ error: any Error, tooLarge: String, logger: Logger) -> Described {
        switch error {
        case let error as DecodingError:
            let (field, message) = DecodingFailure.describe(error)
            return Described(status: .badRequest, error: "The request body is not valid: \(message)", fields: field.map { [$0: message] }, headers: [:])
        case let error as any AbortError:
            let reason: String
            switch error.status {
            case .notFound: reason = "Not found"
            case .unauthorized: reason = "Sign in to continue"
            case .payloadTooLarge: reason = tooLarge
            case .unsupportedMediaType: reason = "Unsupported content type"
            default: reason = error.status.code < 500 ? error.reason : "Something went wrong on our side"
            }
            if error.status.code >= 500 { logger.error("\(error)") }
            return Described(status: error.status, error: reason, fields: nil, headers: error.headers)
        default:
            logger.error("Unexpected error: \(String(reflecting: error))")
            return Described(status: .internalServerError, error: "Something went wrong on our side", fields: nil, headers: [:])
        }
    }
}
