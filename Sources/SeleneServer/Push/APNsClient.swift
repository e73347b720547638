import AsyncHTTPClient
import Foundation
import JWT
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import SeleneShared

/// A notification for the phone.
public struct PushNotification: Sendable, Hashable {
    public var title: String
    public var body: String
    /// Where tapping it leads: the briefing, or a thread (`selene` in the payload).
    public var link: String
    /// Notifications with one collapse id replace each other on the phone.
    public var collapseId: String?
    /// Whether its words come from the notes (a thread's name, the briefing's first lines): so the
    /// outbound ledger says.
    public var fromNotes: Bool

    public init(title: String, body: String, link: String, collapseId: String? = nil, fromNotes: Bool = true) {
        self.title = title
        self.body = body
        self.link = link
        self.collapseId = collapseId
        self.fromNotes = fromNotes
    }
}

/// What became of one push to one device.
public enum PushResult: Sendable, Hashable {
    case delivered
    /// APNs says the token is dead (410 Unregistered, 400 BadDeviceToken): forget the device.
    case removeDevice(reason: String)
    /// Refused for another reason (logged with APNs's reason), or still failing after retries.
    case failed(status: Int, reason: String)
}

/// Apple Push Notification service over HTTP/2 with provider-token auth: an ES256 JWT (key id,
/// team id) made once and reused, renewed after `tokenLifetime` (20–60 minutes: more often is
/// 429 TooManyProviderTokenUpdates, older is 403 ExpiredProviderToken). 429 and 5xx are retried
/// with back-off; a payload is kept within 4 KB.
public final class APNsClient: Sendable {
    public let settings: SeleneConfig.APNs
    let client: HTTPClient
    /// Each push, written in the outbound ledger before it leaves.
    let ledger: OutboundLedger?
    let clock: SeleneClock
    let logger: Logger
    let tokens: ProviderTokens
    /// Retries of a 429 or 5xx, and the first delay (doubling).
    let retries: Int
    let retryDelay: TimeInterval

    public static let maxPayloadBytes = 4096

    public init(settings: SeleneConfig.APNs, eventLoopGroup: any EventLoopGroup, clock: SeleneClock, logger: Logger,
                retries: Int = 3, retryDelay: TimeInterval = 1, ledger: OutboundLedger? = nil) throws {
        self.ledger = ledger
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.retries = retries
        self.retryDelay = retryDelay
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = settings.extraRootCertificatePEM {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        client = Outbound.makeClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        let lifetime = min(60 * 60, max(20 * 60, settings.tokenLifetime))
        tokens = try ProviderTokens(pem: settings.privateKeyPEM, keyId: settings.keyId, teamId: settings.teamId, lifetime: lifetime)
    }

    public func shutdown() async throws { try await client.shutdown() }

    /// The provider token now (for tests and logs).
    func providerToken() async throws -> String { try await tokens.token(now: clock.now()) }

    /// Sends one notification to one device token.
    public func send(_ notification: PushNotification, to deviceToken: String) async -> PushResult {
        let payload = Self.payload(notification)
        var attempt = 0
        var renewed = false
        while true {
            do {
                let token = try await tokens.token(now: clock.now())
                var request = HTTPClientRequest(url: "\(settings.host)/3/device/\(deviceToken)")
                request.method = .POST
                request.headers.add(name: "authorization", value: "bearer \(token)")
                request.headers.add(name: "apns-topic", value: settings.topic)
                request.headers.add(name: "apns-push-type", value: "alert")
                request.headers.add(name: "apns-priority", value: "10")
                request.headers.add(name: "apns-expiration", value: String(Int(clock.now().timeIntervalSince1970) + 86_400))
                if let collapse = notification.collapseId { request.headers.add(name: "apns-collapse-id", value: String(collapse.prefix(64))) }
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: payload))
                let http = OutboundClient(http: client, ledger: ledger, purpose: "apns", noteDerived: notification.fromNotes)
                let response = try await http.execute(request, bytesOut: payload.count, timeout: .seconds(30), purpose: "apns", noteDerived: notification.fromNotes)
                let body = try await response.body.collect(upTo: 64 * 1024)
                let reason = (try? JSONDecoder().decode(Reason.self, from: Data(buffer: body)))?.reason ?? "HTTP \(response.status.code)"
                switch response.status.code {
                case 200:
                    return .delivered
                case 410:
                    return .removeDevice(reason: reason)
                case 400 where reason == "BadDeviceToken":
                    return .removeDevice(reason: reason)
                case 403 where reason == "ExpiredProviderToken" && !renewed:
                    renewed = true
                    await tokens.expire()
                    continue
                case 429, 500...599:
                    guard attempt < retries else { return .failed(status: Int(response.status.code), reason: reason) }
                default:
                    logger.warning("APNs refused a push to \(deviceToken.prefix(8))…: \(response.status.code) \(reason)")
                    return .failed(status: Int(response.status.code), reason: reason)
                }
            } catch {
                guard attempt < retries else { return .failed(status: 0, reason: "\(error)") }
            }
            attempt += 1
            try? await Task.sleep(nanoseconds: UInt64(retryDelay * pow(2, Double(attempt - 1)) * 1_000_000_000))
        }
    }

    struct Reason: Decodable { var reason: String }

    /// `{"aps": {"alert": {"title", "body"}, "sound"}, "selene": {"link"}}` within 4 KB (the
    /// body is shortened when it doesn't fit).
    static func payload(_ n: PushNotification) -> Data {
        func encode(_ body: String) -> Data {
            let value = JSONValue.object([
                "aps": .object(["alert": .object(["title": .string(n.title), "body": .string(body)]), "sound": "default"]),
                "selene": .object(["link": .string(n.link)]),
            ])
            return (try? SeleneJSON.encode(value)) ?? Data()
        }
        var body = n.body
        var data = encode(body)
        while data.count > maxPayloadBytes, !body.isEmpty {
            body = String(body.prefix(max(0, body.count - max(16, (data.count - maxPayloadBytes) + 1)))) + "…"
            if body == "…" { body = "" }
            data = encode(body)
        }
        return data
    }
}

/// The provider token: made once, reused until it is `lifetime` old.
actor ProviderTokens {
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let keys: JWTKeyCollection
    let keyId: String
    let teamId: String
    let lifetime: TimeInterval
    private var current: (token: String, issuedAt: Date)?

    init(pem: String, keyId: String, teamId: String, lifetime: TimeInterval) throws {
        let key = try ES256PrivateKey(pem: pem)
        keys = JWTKeyCollection()
        self.keyId = keyId
        self.teamId = teamId
        self.lifetime = lifetime
        self.key = key
    }

    private let key: ES256PrivateKey
    /// The key goes into the collection on first use (adding is async).
    private var added = false

    func token(now: Date) async throws -> String {
        if let current, now.timeIntervalSince(current.issuedAt) < lifetime, now >= current.issuedAt { return current.token }
        if !added {
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyId))
            added = true
        }
        // APNs reads iat in whole seconds.
        let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try await keys.sign(Claims(iss: IssuerClaim(value: teamId), iat: IssuedAtClaim(value: issued)), kid: JWKIdentifier(string: keyId))
        current = (token, issued)
        return token
    }

    func expire() { current = nil }
}
