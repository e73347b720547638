import AsyncHTTPClient
import Fluent
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SeleneShared
import SQLKit

/// The one way Selene's server sends anything off this process. Every HTTP client is made here
/// (`makeClient`; a test fails on any other), and every request goes through `OutboundClient`,
/// which writes it in the ledger (`OutboundLedger`) before it leaves: when, why, where, the bytes
/// each way, and whether anything from the notes was in it. The person reads the ledger on the
/// "What left this machine" page, `GET /api/outbound` and `selene outbound`.
public enum Outbound {
    /// Why a request goes out, when its caller knows better than the client's default (a chat
    /// request made while processing a note is `analysis`; the hosted model's router gives a reason).
    public struct Context: Sendable {
        public var purpose: String?
        public var noteDerived: Bool?
        public var reason: String?
        public init(purpose: String? = nil, noteDerived: Bool? = nil, reason: String? = nil) {
            self.purpose = purpose; self.noteDerived = noteDerived; self.reason = reason
        }
    }

    @TaskLocal public static var context = Context()

    /// Runs `body` with requests it makes marked `purpose` (and `noteDerived`, `reason` when given).
    public static func marked<T>(_ purpose: String, noteDerived: Bool? = nil, reason: String? = nil, _ body: () async throws -> T) async rethrows -> T {
        var context = Self.context
        context.purpose = purpose
        if let noteDerived { context.noteDerived = noteDerived }
        if let reason { context.reason = reason }
        return try await $context.withValue(context, operation: body)
    }

    /// An HTTP client: the only place Selene's server makes one.
    public static func makeClient(eventLoopGroup: any EventLoopGroup, configuration: HTTPClient.Configuration) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
    }

    /// What goes to a push service (which local-only mode still allows, without words from notes).
    static let pushes: Set<String> = ["apns", "web-push"]

    /// Throws unless `url`'s host is this machine or on the private network (every address it
    /// resolves to: loopback, RFC 1918, 100.64/10 — Tailscale —, link-local, fc00::/7).
    public static func requireLocal(_ url: String, what: String) async throws {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
            throw LocalOnlyError("SELENE_LOCAL_ONLY=on: the \(what) has no host to check (\(url))")
        }
        let name = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let addresses: [IPAddress]
        do { addresses = try await PushAddress.systemResolve(name) } catch {
            throw LocalOnlyError("SELENE_LOCAL_ONLY=on: the \(what) at \(url) can't be checked: \(error)")
        }
        if addresses.isEmpty || addresses.contains(where: \.isPublic) {
            let listed = addresses.map(\.description).joined(separator: ", ")
            throw LocalOnlyError("SELENE_LOCAL_ONLY=on: the \(what) at \(url) is not on this machine or the private network (\(host) is \(listed.isEmpty ? "nowhere" : listed))")
        }
    }

    /// `host:port` of a URL, as the ledger names a destination.
    static func destination(_ url: String) -> String {
        guard let parts = URLComponents(string: url), let host = parts.host else { return url }
        let port = parts.port ?? (parts.scheme == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// A request local-only mode refuses, in a sentence.
public struct LocalOnlyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// An HTTP client whose every request is in the ledger.
public struct OutboundClient: Sendable {
    public let http: HTTPClient
    let ledger: OutboundLedger?
    /// What its requests are for and whether they carry note text, unless `Outbound.context` says otherwise.
    let purpose: String
    let noteDerived: Bool

    public init(http: HTTPClient, ledger: OutboundLedger?, purpose: String, noteDerived: Bool) {
        self.http = http; self.ledger = ledger; self.purpose = purpose; self.noteDerived = noteDerived
    }

    /// Sends `request` (whose body is `bytesOut` long), written in the ledger first; the answer's
    /// bytes are counted as the caller reads them. Its purpose: `purpose` when the request itself
    /// says (an embedding), else what its caller marked (`Outbound.marked`), else the client's.
    public func execute(_ request: HTTPClientRequest, bytesOut: Int, timeout: TimeAmount,
                        purpose given: String? = nil, noteDerived derived: Bool? = nil) async throws -> HTTPClientResponse {
        let context = Outbound.context
        let kind = given ?? context.purpose ?? purpose
        if ledger?.localOnly == true, !Outbound.pushes.contains(kind) {
            // Checked before anything is sent, whatever the address resolves to now.
            try await Outbound.requireLocal(request.url, what: "\(kind) request")
        }
        let id = await ledger?.record(
            purpose: kind, destination: Outbound.destination(request.url), bytesOut: bytesOut,
            noteDerived: derived ?? context.noteDerived ?? noteDerived, reason: context.reason)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            if let id { await ledger?.finish(id, status: nil, bytesIn: 0, failure: "\(error)") }
            throw error
        }
        guard let ledger, let id else { return response }
        await ledger.finish(id, status: Int(response.status.code), bytesIn: nil, failure: nil)
        let counted = CountedBody(body: response.body) { total in await ledger.finish(id, status: nil, bytesIn: total, failure: nil) }
        return HTTPClientResponse(version: response.version, status: response.status, headers: response.headers, body: .stream(counted))
    }
}

/// A response body that tells how many bytes were read once it ends (or fails).
struct CountedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: HTTPClientResponse.Body
    let done: @Sendable (Int) async -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var inner: HTTPClientResponse.Body.AsyncIterator
        let done: @Sendable (Int) async -> Void
        var total = 0
        var finished = false

        mutating func next() async throws -> ByteBuffer? {
            do {
                guard let buffer = try await inner.next() else {
                    if !finished { finished = true; await done(total) }
                    return nil
                }
                total += buffer.readableBytes
                return buffer
            } catch {
                if !finished { finished = true; await done(total) }
                throw error
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inner: body.makeAsyncIterator(), done: done) }
}

/// The ledger's rows (`outbound`), kept `keptDays` (`SELENE_OUTBOUND_DAYS`, 30). A row that can't
/// be written is logged and the request still goes: the ledger must not stop Selene working —
/// but it is written before the request leaves, so nothing leaves unrecorded while it works.
public final class OutboundLedger: Sendable {
    private let database = NIOLockedValueBox<(any Database)?>(nil)
    let clock: SeleneClock
    public let keptDays: Int
    let logger: Logger

    /// `SELENE_LOCAL_ONLY`: requests other than pushes go only to this machine or the private network.
    public let localOnly: Bool

    init(clock: SeleneClock, keptDays: Int, localOnly: Bool = false, logger: Logger) {
        self.clock = clock; self.keptDays = keptDays; self.localOnly = localOnly; self.logger = logger
    }

    /// Where rows are written (the application's writer, once it is set up).
    func attach(_ db: any Database) { database.withLockedValue { $0 = db } }

    private var db: (any SQLDatabase)? { database.withLockedValue { $0 }.map(\.sql) }

    func record(purpose: String, destination: String, bytesOut: Int, noteDerived: Bool, reason: String?) async -> Int64? {
        guard let db else { return nil }
        struct Row: Decodable { var id: Int64 }
        do {
            return try await db.raw("""
                INSERT INTO outbound (at, purpose, destination, bytes_out, bytes_in, note_derived, reason)
                VALUES (\(bind: clock.now()), \(bind: purpose), \(bind: destination), \(bind: Int64(bytesOut)), 0, \(bind: noteDerived), \(bind: reason))
                RETURNING id
                """).first(decoding: Row.self)?.id
        } catch {
            logger.error("The outbound ledger could not record a request to \(destination) (\(purpose)): \(error)")
            return nil
        }
    }

    func finish(_ id: Int64, status: Int?, bytesIn: Int?, failure: String?) async {
        guard let db else { return }
        do {
            if let status { try await db.raw("UPDATE outbound SET status = \(bind: status) WHERE id = \(bind: id)").run() }
            if let bytesIn { try await db.raw("UPDATE outbound SET bytes_in = \(bind: Int64(bytesIn)) WHERE id = \(bind: id)").run() }
            if let failure { try await db.raw("UPDATE outbound SET failure = \(bind: String(failure.prefix(500))) WHERE id = \(bind: id)").run() }
        } catch {
            logger.error("The outbound ledger could not complete entry \(id): \(error)")
        }
    }

    /// The newest entries first.
    public static func list(_ db: any Database, limit: Int, purpose: String? = nil) async throws -> [OutboundEntry] {
        struct Row: Decodable {
            var id: Int64, at: Date, purpose: String, destination: String, bytes_out: Int64, bytes_in: Int64
            var status: Int?, note_derived: Bool, reason: String?, failure: String?
        }
        let rows: [Row]
        if let purpose {
            rows = try await db.sql.raw("SELECT * FROM outbound WHERE purpose = \(bind: purpose) ORDER BY id DESC LIMIT \(literal: limit)").all(decoding: Row.self)
        } else {
            rows = try await db.sql.raw("SELECT * FROM outbound ORDER BY id DESC LIMIT \(literal: limit)").all(decoding: Row.self)
        }
        return rows.map {
            OutboundEntry(id: $0.id, at: $0.at, purpose: $0.purpose, destination: $0.destination, bytesOut: Int($0.bytes_out),
                          bytesIn: Int($0.bytes_in), status: $0.status, noteDerived: $0.note_derived, reason: $0.reason, failure: $0.failure)
        }
    }

    /// Removes entries older than `keptDays`; returns how many.
    func prune(_ db: any Database, now: Date) async throws -> Int {
        struct Count: Decodable { var n: Int }
        let cutoff = now.addingTimeInterval(-Double(keptDays) * 86_400)
        let old = try await db.sql.raw("SELECT count(*) AS n FROM outbound WHERE at < \(bind: cutoff)").first(decoding: Count.self)?.n ?? 0
        if old > 0 { try await db.sql.raw("DELETE FROM outbound WHERE at < \(bind: cutoff)").run() }
        return old
    }
}
