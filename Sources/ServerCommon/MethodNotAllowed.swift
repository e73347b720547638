import Vapor

/// Answers a request whose path exists under other methods with `405 Method Not Allowed` and an
/// `Allow` header (RFC 9110), and `OPTIONS` on such a path with `204` and the same header, instead
/// of the router's plain 404. The methods come from the route table, so they can't drift from it.
/// (A future-based middleware: it runs on every request, and an async one costs a task hop each.)
public struct MethodNotAllowedMiddleware: Middleware {
    /// Builds the error a refused method answers: each server has its own error type and shape.
    let refusal: @Sendable (_ method: String, _ allow: String) -> any Error

    public init(refusal: @escaping @Sendable (_ method: String, _ allow: String) -> any Error) { self.refusal = refusal }

    public func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).flatMapErrorThrowing { error in
            let routes = request.application.routes.all
            // A fixed path (`/threads/brands`) asked with a method only a parameter route has
            // (`PUT /threads/:id`) reaches that route and fails there (not found, or a bad id);
            // it is still the fixed path's 405.
            var methods = Self.methods(for: request.url.path, in: routes.filter { $0.path.allSatisfy(\.isConstant) })
            if methods.isEmpty {
                guard let abort = error as? any AbortError, abort.status == .notFound, request.route == nil else { throw error }
                methods = Self.methods(for: request.url.path, in: routes)
            }
            guard !methods.isEmpty, request.method == .OPTIONS || !methods.contains(request.method.rawValue) else { throw error }
            let allow = methods.joined(separator: ", ")
            if request.method == .OPTIONS {
                return Response(status: .noContent, headers: ["Allow": allow])
            }
            throw refusal(request.method.rawValue, allow)
        }
    }

    /// The methods the routes matching `path` answer, with the ones the server adds itself
    /// (HEAD wherever GET is, OPTIONS everywhere), sorted.
    public static func methods(for path: String, in routes: [Route]) -> [String] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var methods = Set<String>()
        for route in routes where matches(route.path, parts) {
            methods.insert(route.method.rawValue)
        }
        guard !methods.isEmpty else { return [] }
        if methods.contains("GET") { methods.insert("HEAD") }
        methods.insert("OPTIONS")
        return methods.sorted()
    }

    fileprivate static func matches(_ pattern: [PathComponent], _ parts: [String]) -> Bool {
        var index = 0
        for component in pattern {
            switch component {
            case .catchall:
                return index < parts.count
            case .constant(let value):
                guard index < parts.count, parts[index] == value else { return false }
            case .parameter, .anything:
                guard index < parts.count else { return false }
            }
            index += 1
        }
        return index == parts.count
    }
}

private extension PathComponent {
    var isConstant: Bool { if case .constant = self { true } else { false } }
}
