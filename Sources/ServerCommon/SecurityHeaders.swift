import Vapor

/// Headers every answer of both servers carries, pages and errors alike:
/// - no other site may frame a page (`X-Frame-Options: DENY`, CSP `frame-ancestors 'none'`), so
///   a click can't be borrowed under a decoy (clickjacking);
/// - scripts, styles' files, fonts, images and connections come from the app itself (`'self'`);
///   styles may be inline (`style=""` swatches), scripts never; no plugins, no `<base>` elsewhere;
/// - the address of a page isn't told to other sites (`Referrer-Policy: same-origin`), and a file
///   is taken as the type it is sent as (`nosniff`).
/// A response that set its own value keeps it.
public struct SecurityHeadersMiddleware: AsyncMiddleware {
    public static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
        "font-src 'self'", "connect-src 'self'", "media-src 'self' blob:", "object-src 'none'", "base-uri 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    public static let headers: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    public init() {}

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        for (name, value) in Self.headers where !response.headers.contains(name: name) {
            response.headers.replaceOrAdd(name: name, value: value)
        }
        return response
    }
}

extension HTTPServer.Configuration.ResponseCompressionConfiguration {
    /// Both servers' answers, gzip-compressed when the client accepts it: pages, styles, scripts,
    /// JSON (the sync API's pages and the web app's data), icons, CSV and text. Not pictures or
    /// fonts (compressed already) and not server-sent events (each piece must leave at once).
    public static var text: Self { .disabled(allowedTypes: HTTPMediaTypeSet(mediaTypes: textTypes), allowRequestOverrides: true) }

    /// Those types (`BrotliResponseMiddleware` compresses the same).
    public static let textTypes: [HTTPMediaType] = [
        .html, .css, HTTPMediaType(type: "text", subType: "javascript"), HTTPMediaType(type: "application", subType: "javascript"),
        .json, HTTPMediaType(type: "application", subType: "manifest+json"), HTTPMediaType(type: "image", subType: "svg+xml"),
        .plainText, HTTPMediaType(type: "text", subType: "csv"), HTTPMediaType(type: "application", subType: "problem+json"),
    ]
}
