import Foundation
import Vapor

/// The web app's failures as pages (its routes live under `/app`); API paths get JSON.
enum WebErrorPage {
    static func response(for error: any Error, request: Request) -> Response? {
        guard request.url.path == "/" || request.url.path == "/app" || request.url.path.hasPrefix("/app/") else { return nil }
        return WebPages.errorResponse(for: error, request: request)
    }
}
