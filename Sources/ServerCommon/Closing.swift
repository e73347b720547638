/// `body` with `resource`, then `close(resource)` — also when `body` throws, and then `body`'s
/// error is the one thrown (a close failing after it is not news). For what must be closed in
/// async code, where a `defer` can't wait: a connection, an HTTP client, a Vapor `Application`
/// (which asserts when it is freed unclosed).
public func withClosing<Resource, T>(_ resource: Resource, close: (Resource) async throws -> Void,
                                     _ body: (Resource) async throws -> T) async throws -> T {
    let result: T
    do {
        result = try await body(resource)
    } catch {
        try? await close(resource)
        throw error
    }
    try await close(resource)
    return result
}
