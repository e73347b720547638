import Vapor

/// Every route behind this needs a valid access token; anything else is a 401.
struct RequireUser: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard let bearer = request.headers.bearerAuthorization else { throw APIError.unauthorized }
        let user = try await TokenService.verifyAccessToken(bearer.token, on: request)
        request.auth.login(user)
        return try await next.respond(to: request)
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
