import Foundation
import NIOCore
import Vapor

/// The names Selene answers to. A browser sends the name it looked up as `Host`; a page whose own
/// name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name, and is refused here before
/// it can read anything as "same-origin". An IP address can't be re-pointed, so any is accepted, and
/// so are `localhost`, this machine's name (and `NAME.local`), and what the person configured.
public struct AllowedHosts: Sendable, Equatable {
    /// Extra names (`SELENE_ALLOWED_HOSTS`, lower case, without port).
    public var names: Set<String> = []
    /// `SELENE_ALLOWED_HOSTS=*`: every name (behind a proxy that checks names itself).
    public var any = false
    /// `SELENE_PUBLIC_URL`'s origin (`https://selene.example`), accepted as `Origin` too.
    public var publicOrigin: String?

    public init(names: Set<String> = [], any: Bool = false, publicOrigin: String? = nil) {
        self.names = names
        self.any = any
        self.publicOrigin = publicOrigin
    }

    static func parse(_ raw: String?, publicURL: String?) throws -> AllowedHosts {
        var hosts = AllowedHosts()
        for item in (raw ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !item.isEmpty {
            if item == "*" { hosts.any = true; continue }
            guard item.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }), item.allSatisfy(\.isASCII) else {
                throw SeleneConfigError("SELENE_ALLOWED_HOSTS is a comma-separated list of host names (such as selene.example, my-mac.tailnet.ts.net), or *; \(item) isn't one")
            }
            hosts.names.insert(item)
        }
        if let publicURL {
            guard let url = URL(string: publicURL), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = url.host?.lowercased(), !host.isEmpty else {
                throw SeleneConfigError("SELENE_PUBLIC_URL must be the http(s) address people open Selene at, such as https://selene.example")
            }
            hosts.names.insert(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
            hosts.publicOrigin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        }
        return hosts
    }

    /// This machine's own name, as `gethostname` has it (lower case).
    static let machineName: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
        return name.isEmpty ? nil : name
    }()

    /// The name of a `Host` header value, without port or IPv6 brackets, in lower case.
    static func name(ofHost header: String) -> String {
        let value = header.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasPrefix("["), let end = value.firstIndex(of: "]") { return String(value[value.index(after: value.startIndex)..<end]) }
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") { return String(value[..<colon]) }
        return value
    }

    static func isIPAddress(_ name: String) -> Bool { IPAddress(name) != nil }

    /// Whether a request for `host` (a `Host` header's value) is one Selene answers.
    public func accepts(host header: String) -> Bool {
        if any { return true }
        var name = Self.name(ofHost: header)
        if name.hasSuffix(".") { name.removeLast() }
        if name.isEmpty { return false }
        if Self.isIPAddress(name) || name == "localhost" || names.contains(name) { return true }
        if let machine = Self.machineName, name == machine || name == machine + ".local" { return true }
        return false
    }

    /// Whether a browser's `Origin` may change things here: the page's own origin (the origin
    /// names the host the request went to), or the public address.
    func accepts(origin: String, host: String?) -> Bool {
        let origin = origin.lowercased()
        if let publicOrigin, origin == publicOrigin { return true }
        guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme), let originHost = url.host,
              let host else { return false }
        let port = url.port.map { ":\($0)" } ?? ""
        let bracketed = originHost.contains(":") && !originHost.hasPrefix("[") ? "[\(originHost)]" : originHost
        return (bracketed + port) == host.lowercased() || (port.isEmpty && bracketed + (scheme == "https" ? ":443" : ":80") == host.lowercased())
    }
}

/// Every request, before any route reads its body:
/// - its `Host` must be a name Selene answers to (421 otherwise, naming the setting);
/// - a request that changes something and carries an `Origin` must come from Selene's own pages
///   (403): browsers send `Origin` on every cross-site POST, `fetch(..., {mode: "no-cors"})` included;
/// - the API's and webhook's writes must not have a type another website's page can send without
///   asking first (a form's or `text/plain`: 415), so a page that sends no `Origin` still can't
///   write: a JSON body needs `Content-Type: application/json`, which only Selene's own pages and
///   clients send. The web app's forms carry their CSRF token instead.
struct RequestGuardMiddleware: AsyncMiddleware {
    let hosts: AllowedHosts

    static let safeMethods: [HTTPMethod] = [.GET, .HEAD, .OPTIONS]

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let host = request.headers.first(name: .host)
        if let host, !hosts.accepts(host: host) {
            throw SeleneError(.misdirectedRequest, """
                Selene doesn't answer to the name \(AllowedHosts.name(ofHost: host)): open it by its address \
                (http://127.0.0.1:PORT), or add the name to SELENE_ALLOWED_HOSTS.
                """)
        }
        guard !Self.safeMethods.contains(request.method) else { return try await next.respond(to: request) }
        if let origin = request.headers.first(name: .origin), !hosts.accepts(origin: origin, host: host) {
            throw SeleneError(.forbidden, "Requests from other websites are refused (Origin \(origin.prefix(100)))")
        }
        let path = request.url.path
        if path.hasPrefix("/api/") || path.hasPrefix("/webhook/"), Self.hasBody(request), Self.sendableCrossSite(request.headers.contentType) {
            let given = request.headers.contentType.map { "\($0.type)/\($0.subType)" } ?? "none"
            throw SeleneError(.unsupportedMediaType, """
                Send the request body as application/json (a recording with its audio type): a body of type \(given), \
                which any web page can send without asking, is refused
                """)
        }
        return try await next.respond(to: request)
    }

    static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers.first(name: .contentLength).flatMap(Int.init) { return length > 0 }
        return request.headers.contains(name: .transferEncoding)
    }

    /// No type, or one of the three a page may send anywhere without a CORS preflight.
    static func sendableCrossSite(_ type: HTTPMediaType?) -> Bool {
        guard let type else { return true }
        let full = "\(type.type)/\(type.subType)".lowercased()
        return ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"].contains(full)
    }
}

/// An IPv4 or IPv6 address's bytes, parsed from text (`inet_pton`), and where it points.
struct IPAddress: Equatable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = in_addr()
        var v6 = in6_addr()
        if trimmed.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if trimmed.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    /// Whether the address is one on the public internet: not loopback, private (RFC 1918),
    /// shared (100.64/10), link-local, unique-local (fc00::/7), multicast, reserved or unspecified.
    /// An IPv4 address mapped into IPv6 (or NAT64's 64:ff9b::/96) is judged as the IPv4 one.
    var isPublic: Bool {
        if bytes.count == 16 {
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            let nat64 = bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
            if mapped || nat64 { return IPAddress(bytes: Array(bytes[12..<16])).isPublic }
            if bytes.allSatisfy({ $0 == 0 }) || bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }
            if bytes[0] & 0xfe == 0xfc { return false }                       // fc00::/7 unique-local
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }   // fe80::/10 link-local
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return false }   // fec0::/10 site-local (deprecated)
            if bytes[0] == 0xff { return false }                              // multicast
            if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return false } // documentation
            return true
        }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xc0 == 64: return false   // 100.64.0.0/10, carrier-grade NAT
        case 169 where b == 254: return false          // link-local (cloud metadata lives here)
        case 172 where b & 0xf0 == 16: return false   // 172.16.0.0/12
        case 192 where b == 168: return false
        case 192 where b == 0 && bytes[2] == 0: return false
        case 198 where b & 0xfe == 18: return false   // benchmarking 198.18/15
        case 224...255: return false                   // multicast, reserved, broadcast
        default: return true
        }
    }
}
