import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// A failure the client is meant to read: a status, a sentence, and for bad input the fields.
public struct SeleneError: AbortError, Sendable {
    public var status: HTTPResponseStatus
    public var reason: String
    public var fields: [String: String]?
    public var headers: HTTPHeaders

    public init(_ status: HTTPResponseStatus, _ reason: String, fields: [String: String]? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason
        self.fields = fields
        self.headers = headers
    }

    static func badInput(_ fields: [String: String]) -> SeleneError {
        SeleneError(.badRequest, "Some fields need attention: " + fields.sorted { $0.key < $1.key }.map { $0.value }.joined(separator: "; "), fields: fields)
    }

    /// The request is well formed but names something (a thread, a session) that isn't there.
    static func missingReference(_ fields: [String: String]) -> SeleneError {
        SeleneError(.conflict, "Something this refers to isn't there: " + fields.sorted { $0.key < $1.key }.map { $0.value }.joined(separator: "; "), fields: fields)
    }

    static func notFound(_ what: String) -> SeleneError { SeleneError(.notFound, "\(what) not found") }

    static let llmNotConfigured = SeleneError(
        .serviceUnavailable, "No LLM is configured: set SELENE_OLLAMA_URL to your Ollama server (for example http://127.0.0.1:11434)")
}

/// Every failure answers `{"error": ..., "fields": {...}}` with the right status; an unexpected
/// error is a 500 with a generic sentence and a log line, never internals.
struct SeleneErrorMiddleware: Middleware {
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).recover { error in
            if let web = WebErrorPage.response(for: error, request: request) { return web }
            let (status, body, headers) = Self.body(for: error, logger: request.logger)
            return Self.json(body, status: status, headers: headers)
        }
    }

    static func body(for error: any Error, logger: Logger) -> (HTTPResponseStatus, ErrorBody, HTTPHeaders) {
        switch error {
        case let error as SeleneError:
            if error.status.code >= 500 { logger.warning("\(error.status.code): \(error.reason)") }
            return (error.status, ErrorBody(error: error.reason, fields: error.fields), error.headers)
        case let error as FieldErrors:
            let e = SeleneError.badInput(error.fields)
            return (e.status, ErrorBody(error: e.reason, fields: e.fields), [:])
        case let error as NoteTooLarge:
            return (.payloadTooLarge, ErrorBody(error: error.description, fields: ["content": "at most \(SeleneLimits.maxContentBytes) bytes"]), [:])
        default:
            let common = ErrorEnvelope.describe(error, tooLarge: "The request is too large (notes are limited to 1 MB)", logger: logger)
            return (common.status, ErrorBody(error: common.error, fields: common.fields), common.headers)
        }
    }

    static func json(_ body: ErrorBody, status: HTTPResponseStatus, headers: HTTPHeaders) -> Response {
        let response = Response(status: status, headers: headers)
        response.body = .init(data: (try? SeleneJSON.encode(body)) ?? Data(#"{"error":"Something went wrong on our side"}"#.utf8))
        response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
        return response
    }
}
