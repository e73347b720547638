import Fluent
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Vapor

/// At most `clientAttemptLimit` sign-ins, sign-ups and token refreshes per client in
/// `clientAttemptWindow`, over every account (the per-account limit alone would let one address
/// try password after password on many accounts). Counted in the database, atomically, before the
/// route runs; past the limit a 429 with `Retry-After`, and the route doesn't run.
struct ClientThrottle: AsyncMiddleware {
    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let config = req.config
        let attempt = try await AttemptCounter.count(
            table: ClientThrottleModel.schema, key: "address", Self.clientKey(req), count: "attempts",
            now: req.now, window: config.clientAttemptWindow, on: req.db)
        guard attempt.number <= config.clientAttemptLimit else {
            throw APIError.tooManyRequests("Too many sign-in attempts from this address",
                                           until: attempt.windowStart.addingTimeInterval(config.clientAttemptWindow), now: req.now)
        }
        return try await next.respond(to: req)
    }

    /// The client as counted: its address, an IPv6 one by its /64 (one home or phone's network
    /// has a whole /64, so counting each /128 would give it endless fresh limits).
    static func clientKey(_ req: Request) -> String {
        IPAddress.countingKey(clientAddress(req, config: req.config))
    }

    /// The client's address: the connection's peer, or — only when the peer is one of the trusted
    /// proxies (`TRUSTED_PROXIES`: addresses or ranges) — the address that proxy vouches for: its
    /// `CLIENT_IP_HEADER` (Fly's `Fly-Client-IP`, which Fly's proxy always sets) when configured,
    /// else the nearest address in `X-Forwarded-For` that isn't a trusted proxy (anyone can send
    /// the header; only a proxy we run appends the truth to it).
    static func clientAddress(_ req: Request, config: AppConfig) -> String {
        clientAddress(req, trusted: config.trustedProxies, header: config.clientIPHeader)
    }

    static func clientAddress(_ req: Request, trusted entries: Set<String>, header: String? = nil) -> String {
        let peer = req.remoteAddress?.ipAddress ?? "unknown"
        let trusted = TrustedProxies(entries)
        guard trusted.contains(peer) else { return peer }
        if let header {
            guard let value = req.headers.first(name: header)?.trimmingCharacters(in: .whitespaces), IPAddress.bytes(value) != nil else { return peer }
            return value
        }
        let hops = req.headers[.xForwardedFor].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.reversed().first { !trusted.contains($0) } ?? peer
    }
}

/// `TRUSTED_PROXIES`' entries: exact addresses (or names, as a test's "unknown") and ranges
/// (`10.0.0.0/8`, `fdaa::/16`).
struct TrustedProxies {
    let exact: Set<String>
    let ranges: [(bytes: [UInt8], prefix: Int)]

    init(_ entries: Set<String>) {
        var exact: Set<String> = []
        var ranges: [(bytes: [UInt8], prefix: Int)] = []
        for entry in entries {
            if let range = IPAddress.range(entry) { ranges.append(range) } else { exact.insert(entry) }
        }
        self.exact = exact
        self.ranges = ranges
    }

    func contains(_ address: String) -> Bool {
        if exact.contains(address) { return true }
        guard !ranges.isEmpty, let bytes = IPAddress.bytes(address) else { return false }
        return ranges.contains { IPAddress.prefixMatches(bytes, $0.bytes, bits: $0.prefix) }
    }

    /// Whether `entry` is something `TRUSTED_PROXIES` can hold: an address or a range.
    static func isValid(_ entry: String) -> Bool { IPAddress.bytes(entry) != nil || IPAddress.range(entry) != nil }
}

enum IPAddress {
    /// An address's bytes (4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address as its IPv4).
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return Array(bytes[12...]) }
        return bytes
    }

    /// `address/prefix` as bytes and prefix length; nil if it isn't one.
    static func range(_ text: String) -> (bytes: [UInt8], prefix: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = bytes(String(parts[0])), let prefix = Int(parts[1]), prefix >= 0, prefix <= bytes.count * 8 else { return nil }
        return (bytes, prefix)
    }

    static func prefixMatches(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        guard a.count == b.count else { return false }
        var left = bits
        for i in a.indices where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - left))
            if a[i] & mask != b[i] & mask { return false }
            left -= 8
        }
        return true
    }

    /// An IPv6 address counted by its /64 (`2001:db8:1:2::/64`); anything else as it is.
    static func countingKey(_ address: String) -> String {
        guard let bytes = bytes(address), bytes.count == 16 else { return address }
        let groups = stride(from: 0, to: 8, by: 2).map { String((UInt16(bytes[$0]) << 8) | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
