import Fluent
import Foundation
import Vapor

/// At most `clientAttemptLimit` sign-ins, sign-ups and token refreshes per client address in
/// `clientAttemptWindow`, over every account (the per-account limit alone would let one address
/// try password after password on many accounts). Counted in the database, atomically, before the
/// route runs; past the limit a 429 with `Retry-After`, and the route doesn't run.
struct ClientThrottle: AsyncMiddleware {
    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let config = req.config
        let attempt = try await AttemptCounter.count(
            table: ClientThrottleModel.schema, key: "address", Self.clientAddress(req, trusted: config.trustedProxies), count: "attempts",
            now: req.now, window: config.clientAttemptWindow, on: req.db)
        guard attempt.number <= config.clientAttemptLimit else {
            throw APIError.tooManyRequests("Too many sign-in attempts from this address",
                                           until: attempt.windowStart.addingTimeInterval(config.clientAttemptWindow), now: req.now)
        }
        return try await next.respond(to: req)
    }

    /// The client's address: the connection's peer, or — only when the peer is one of the trusted
    /// proxies — the nearest address in `X-Forwarded-For` that isn't one of them (anyone can send
    /// the header; only a proxy we run appends the truth to it).
    static func clientAddress(_ req: Request, trusted: Set<String>) -> String {
        let peer = req.remoteAddress?.ipAddress ?? "unknown"
        let hops = req.headers[.xForwardedFor].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard trusted.contains(peer), !hops.isEmpty else { return peer }
        return hops.reversed().first { !trusted.contains($0) } ?? peer
    }
}
