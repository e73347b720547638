import Foundation
import ServerCommon
import Vapor

/// The web app's failures as pages (its routes live under `/app`); API paths get JSON.
enum WebErrorPage {
    static func response(for error: any Error, request: Request) -> Response? {
        let path = request.url.path
        guard path == "/" || path == "/app" || path.hasPrefix("/app/") else { return nil }
        let page: Node
        let status: HTTPResponseStatus
        switch error {
        case WebError.signInRequired:
            let response = Response(status: .seeOther)
            response.headers.replaceOrAdd(name: .location, value: request.application.selene.config.apiTokens.isEmpty ? SiteURL.setup.path : SiteURL.signIn.path)
            // A session cookie the server no longer knows (ended elsewhere): the browser forgets
            // it and its HTTP cache, as on signing out; the worker forgets its copies there.
            if request.browserSession.session(request) != nil {
                request.browserSession.clearSession(req: request, on: response)
                response.headers.replaceOrAdd(name: "Clear-Site-Data", value: BrowserSession.clearCache)
            }
            return response
        case WebError.csrf:
            status = .forbidden
            page = Pages.error(status: 403, title: "This form has expired", message: "Please go back, reload the page and try again.")
        default:
            let (code, body, _) = SeleneErrorMiddleware.body(for: error, logger: request.logger)
            status = code
            switch code.code {
            case 404: page = Pages.error(status: 404, title: "Not found", message: "We couldn't find that page. It may have been deleted.")
            case 400..<500: page = Pages.error(status: Int(code.code), title: "Something's not right", message: body.error)
            default: page = Pages.error(status: Int(code.code), title: "Something went wrong", message: "Something went wrong on our side. Your notes are safe; please try again.")
            }
        }
        return Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"], body: .init(string: page.render()))
    }
}
