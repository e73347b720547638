import Vapor

/// Every route behind this needs a valid access token; anything else is a 401. Runs on the
/// request's event loop (see `TokenService.authenticate`).
struct RequireUser: Middleware {
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        guard let token = request.headers.bearerToken else { return request.eventLoop.makeFailedFuture(APIError.unauthorized) }
        return TokenService.authenticate(token, app: request.application, on: request.eventLoop).flatMap { user in
            request.auth.login(user)
            return next.respond(to: request)
        }
    }
}

extension HTTPHeaders {
    /// The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 9110),
    /// nil for any other value. Read from the value's bytes: Vapor's `bearerAuthorization` splits
    /// the whole value by `Character`s, which was 7% of a cached list request's work.
    var bearerToken: String? {
        guard let value = first(name: .authorization) else { return nil }
        var rest = value.utf8[...]
        for expected in "bearer".utf8 {
            // `| 0x20` lowercases an ASCII letter and never turns another byte into one of these.
            guard let byte = rest.popFirst(), byte | 0x20 == expected else { return nil }
        }
        let space = UInt8(ascii: " ")
        guard rest.first == space else { return nil }
        while rest.first == space { rest.removeFirst() }
        while rest.last == space { rest.removeLast() }
        guard !rest.isEmpty, !rest.contains(space) else { return nil }
        return String(Substring(rest))
    }
}

extension Request {
    /// The signed-in user; only reachable behind `RequireUser`.
    var user: AuthenticatedUser {
        get throws {
            guard let user = auth.get(AuthenticatedUser.self) else { throw APIError.unauthorized }
            return user
        }
    }
}
