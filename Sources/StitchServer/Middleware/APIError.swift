import Foundation
import ServerCommon
import StitchCore
import Vapor

/// A failure the client is meant to read: a status, a sentence, and for validation the fields.
public struct APIError: AbortError, Sendable {
    public var status: HTTPResponseStatus
    public var reason: String
    public var fields: [String: String]?
    public var headers: HTTPHeaders
    /// The record a conflicting create would duplicate.
    public var existingId: UUID?
    /// A provider sign-in that may be added to the account its address belongs to.
    public var linkToken: String?

    public init(_ status: HTTPResponseStatus, _ reason: String, fields: [String: String]? = nil, headers: HTTPHeaders = [:],
                existingId: UUID? = nil, linkToken: String? = nil) {
        self.status = status
        self.reason = reason
        self.fields = fields
        self.headers = headers
        self.existingId = existingId
        self.linkToken = linkToken
    }

    public static func validation(_ fields: [String: String]) -> APIError {
        APIError(.badRequest, "Some fields need attention", fields: fields)
    }

    /// A record names another (a canvas, a thread, a section, a picture) that the user doesn't
    /// have, or no longer has: the request is well formed but conflicts with what is stored.
    public static func missingReference(_ fields: [String: String]) -> APIError {
        APIError(.conflict, "Something this refers to isn't there", fields: fields)
    }

    /// A 429 for a count whose window ends at `end`: "`what`. Try again in N minute(s).", with
    /// `Retry-After` in seconds (at least 1).
    public static func tooManyRequests(_ what: String, until end: Date, now: Date) -> APIError {
        let wait = max(1, Int(end.timeIntervalSince(now).rounded(.up)))
        return APIError(.tooManyRequests, "\(what). Try again in \(max(1, wait / 60)) minute(s).", headers: ["Retry-After": String(wait)])
    }

    public static let notFound = APIError(.notFound, "Not found")
    public static let unauthorized = APIError(
        .unauthorized, "Sign in to continue", headers: ["WWW-Authenticate": "Bearer"])
}

/// Turns every error into `{"error": ..., "fields": {...}}` with the right status, and never
/// leaks internals: an unexpected error is a 500 with a generic sentence (and a log line).
/// (Future-based: it runs on every request, and an async middleware costs a task hop each.)
public struct JSONErrorMiddleware: Middleware {
    public init() {}

    public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).recover { error in Self.response(for: error, request: request) }
    }

    static func body(for error: any Error, logger: Logger) -> (HTTPResponseStatus, APIErrorBody, HTTPHeaders) {
        switch error {
        case let error as APIError:
            return (error.status, APIErrorBody(error: error.reason, fields: error.fields, existingId: error.existingId, linkToken: error.linkToken), error.headers)
        case let error as ValidationError:
            return (.badRequest, APIErrorBody(error: "Some fields need attention", fields: error.fields), [:])
        default:
            let common = ErrorEnvelope.describe(error, tooLarge: "The request is too large", logger: logger)
            return (common.status, APIErrorBody(error: common.error, fields: common.fields), common.headers)
        }
    }

    static func response(for error: any Error, request: Request) -> Response {
        if request.url.path == "/" || request.url.path.hasPrefix("/app/") || request.url.path == "/app" {
            return webResponse(for: error, request: request)
        }
        let (status, body, headers) = body(for: error, logger: request.logger)
        let response = Response(status: status, headers: headers)
        do {
            response.body = .init(data: try StitchJSON.makeEncoder().encode(body))
            response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
        } catch {
            response.body = .init(string: #"{"error":"Something went wrong on our side"}"#)
        }
        return response
    }
}

extension JSONErrorMiddleware {
    /// The web app's errors: a friendly page with the right status.
    static func webResponse(for error: any Error, request: Request) -> Response {
        let page: ErrorPage
        switch error {
        case WebError.csrf:
            page = ErrorPage(status: 403, title: "This form has expired", message: "Please go back, reload the page and try again.")
        case WebError.signInRequired:
            let response = Response(status: .seeOther)
            response.headers.replaceOrAdd(name: .location, value: SiteURL.signIn.path)
            return response
        default:
            let (status, body, _) = body(for: error, logger: request.logger)
            switch status.code {
            case 404: page = ErrorPage(status: 404, title: "Not found", message: "We couldn't find that page. It may have been deleted.")
            case 400..<500: page = ErrorPage(status: Int(status.code), title: "Something's not right", message: body.error)
            default: page = ErrorPage(status: Int(status.code), title: "Something went wrong", message: "Something went wrong on our side. Your data is safe; please try again.")
            }
        }
        let response = Response(status: HTTPResponseStatus(statusCode: page.status), headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"])
        response.body = .init(string: page.render().render())
        return response
    }
}
