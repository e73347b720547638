import Foundation
import Vapor

enum WebPages {
    /// A failure of a web page as a page with the right status.
    static func errorResponse(for error: any Error, request: Request) -> Response {
        let (status, body, _) = SeleneErrorMiddleware.body(for: error, logger: request.logger)
        let html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Selene</title></head><body><h1>\(status.code)</h1><p>\(body.error)</p></body></html>"
        return Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: .init(string: html))
    }
}
