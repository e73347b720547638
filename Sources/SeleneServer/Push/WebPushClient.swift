import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SeleneShared

/// Web Push to browsers (the installable web app on Linux, Android, desktops): each message
/// encrypted for its subscription (RFC 8291, `aes128gcm` of RFC 8188) and sent to the browser's
/// push service with a VAPID signature (RFC 8292, an ES256 JWT). A subscription the push service
/// says is gone (404/410) is forgotten, as APNs's dead tokens are.
///
/// An endpoint is whatever the browser (or whoever holds a session) says, so it is where the
/// server could be made to send requests: only https to a name that resolves to public addresses
/// is used, checked when subscribing and again at each send, and the connection goes to the
/// address that was checked (no second lookup a rebinding name could answer differently), with
/// no redirects followed.
final class WebPushClient: Sendable {
    let key: P256.Signing.PrivateKey
    let subject: String
    let eventLoopGroup: any EventLoopGroup
    let clock: SeleneClock
    let logger: Logger
    /// Tests' push services speak plain HTTP on loopback (only there); real ones are HTTPS only.
    let allowHTTP: Bool
    /// The name → addresses lookup (the system's resolver; tests give names of their own).
    let resolve: @Sendable (String) async throws -> [IPAddress]

    /// Where each push is written before it leaves.
    let ledger: OutboundLedger?

    init(key: P256.Signing.PrivateKey, subject: String, eventLoopGroup: any EventLoopGroup, clock: SeleneClock, logger: Logger, allowHTTP: Bool = false,
         resolve: @escaping @Sendable (String) async throws -> [IPAddress] = PushAddress.systemResolve, ledger: OutboundLedger? = nil) {
        self.ledger = ledger
        self.key = key
        self.subject = subject
        self.eventLoopGroup = eventLoopGroup
        self.clock = clock
        self.logger = logger
        self.allowHTTP = allowHTTP
        self.resolve = resolve
    }

    /// The public address to send to for `endpoint`, or a field error saying why it isn't used.
    /// A test's plain-HTTP loopback service (`allowHTTP`) is sent to as it is.
    func checkedAddress(of endpoint: String) async throws -> IPAddress? {
        guard let url = URL(string: endpoint), let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) else {
            throw FieldErrors(["endpoint": "endpoint must be the push service's https URL the browser gave"])
        }
        if allowHTTP && url.scheme == "http" { return nil }
        let addresses: [IPAddress]
        do { addresses = try await resolve(host) } catch {
            throw FieldErrors(["endpoint": "the push service's name \(host) can't be resolved"])
        }
        guard let first = addresses.first else { throw FieldErrors(["endpoint": "the push service's name \(host) has no address"]) }
        if let inside = addresses.first(where: { !$0.isPublic }) {
            throw FieldErrors(["endpoint": "the push service's address \(inside) is on this machine or a private network; push services are on the public internet"])
        }
        return first
    }

    /// The application server key the browser subscribes with (uncompressed point, base64url).
    var publicKey: String { Base64URL.encode(key.publicKey.x963Representation) }

    /// The VAPID key in `path`, made (0600) when there is none yet.
    static func loadOrCreateKey(at path: String) throws -> P256.Signing.PrivateKey {
        if let pem = try? String(contentsOfFile: path, encoding: .utf8) {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        }
        let key = P256.Signing.PrivateKey()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw WebPushError.invalid("the VAPID key could not be written to \(path)")
        }
        return key
    }

    enum WebPushError: Error, CustomStringConvertible {
        case invalid(String)
        var description: String { switch self { case .invalid(let why): why } }
    }

    /// A subscription as the browser gives it (`PushSubscription.toJSON()`), checked.
    struct Subscription: Sendable, Hashable {
        var endpoint: String
        var p256dh: Data
        var auth: Data

        init(endpoint: String, p256dh: String, auth: String, allowHTTP: Bool) throws {
            guard endpoint.count <= 2000, let url = URL(string: endpoint), let host = url.host, !host.isEmpty, url.user == nil,
                  url.scheme == "https" || (allowHTTP && url.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host)) else {
                throw FieldErrors(["endpoint": "endpoint must be the push service's https URL the browser gave"])
            }
            if url.scheme == "https", let ip = IPAddress(host), !ip.isPublic {
                throw FieldErrors(["endpoint": "the push service's address \(ip) is on this machine or a private network; push services are on the public internet"])
            }
            guard let key = Base64URL.decode(p256dh), key.count == 65, key.first == 4, (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
                throw FieldErrors(["keys.p256dh": "p256dh must be the subscription's P-256 public key (65 bytes, base64url)"])
            }
            guard let secret = Base64URL.decode(auth), secret.count == 16 else {
                throw FieldErrors(["keys.auth": "auth must be the subscription's 16-byte secret (base64url)"])
            }
            self.endpoint = endpoint
            self.p256dh = key
            self.auth = secret
        }
    }

    /// Sends one notification; the push service's answer sorted as APNs's are.
    func send(_ notification: PushNotification, to subscription: Subscription) async -> PushResult {
        let address: IPAddress?
        do { address = try await checkedAddress(of: subscription.endpoint) } catch {
            return .failed(status: 0, reason: "\(error)")
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        if let address, let host = URL(string: subscription.endpoint)?.host {
            configuration.dnsOverride = [host: address.description]
        }
        let client = Outbound.makeClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        let result = await send(notification, to: subscription, http: OutboundClient(http: client, ledger: ledger, purpose: "web-push", noteDerived: notification.fromNotes))
        try? await client.shutdown()
        return result
    }

    private func send(_ notification: PushNotification, to subscription: Subscription, http: OutboundClient) async -> PushResult {
        do {
            var payload: [String: String] = ["title": notification.title, "body": notification.body, "url": notification.link]
            if let tag = notification.collapseId { payload["tag"] = tag }
            let plaintext = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
            let body = try Self.encrypt(plaintext, for: subscription)
            var request = HTTPClientRequest(url: subscription.endpoint)
            request.method = .POST
            request.headers.add(name: "Content-Encoding", value: "aes128gcm")
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.headers.add(name: "TTL", value: "86400")
            request.headers.add(name: "Urgency", value: "normal")
            if let tag = notification.collapseId { request.headers.add(name: "Topic", value: String(tag.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }.prefix(32))) }
            request.headers.add(name: "Authorization", value: "vapid t=\(try vapidToken(for: subscription.endpoint)), k=\(publicKey)")
            request.body = .bytes(ByteBuffer(data: body))
            let response = try await http.execute(request, bytesOut: body.count, timeout: .seconds(30), purpose: "web-push", noteDerived: notification.fromNotes)
            let text = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            switch response.status.code {
            case 200..<300: return .delivered
            case 404, 410: return .removeDevice(reason: "\(response.status.code) \(text.prefix(200))")
            default: return .failed(status: Int(response.status.code), reason: String(text.prefix(300)))
            }
        } catch {
            return .failed(status: 0, reason: "\(error)")
        }
    }

    /// The VAPID JWT for an endpoint's origin, valid 12 hours.
    func vapidToken(for endpoint: String) throws -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else { throw WebPushError.invalid("bad endpoint") }
        let audience = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = try JSONSerialization.data(withJSONObject: ["aud": audience, "exp": Int(clock.now().timeIntervalSince1970) + 12 * 3600, "sub": subject],
                                                options: [.sortedKeys, .withoutEscapingSlashes])
        let input = header + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// RFC 8291: an ephemeral key agreed with the subscription's, mixed with its auth secret,
    /// gives the content key and nonce; one record (RFC 8188), padding delimiter 2.
    static func encrypt(_ plaintext: Data, for subscription: Subscription, ephemeral: P256.KeyAgreement.PrivateKey = .init(),
                        salt: Data = Data((0..<16).map { _ in UInt8.random(in: 0...255) })) throws -> Data {
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: subscription.p256dh)
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: receiver)
        let senderPublic = ephemeral.publicKey.x963Representation
        let keyInfo = Data("WebPush: info\0".utf8) + subscription.p256dh + senderPublic
        let ikm = shared.withUnsafeBytes { HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data($0)), salt: subscription.auth,
                                                                   info: keyInfo, outputByteCount: 32) }
        let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        let sealed = try AES.GCM.seal(plaintext + Data([2]), using: cek, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var header = salt
        let recordSize = UInt32(4096)
        header += withUnsafeBytes(of: recordSize.bigEndian) { Data($0) }
        header.append(UInt8(senderPublic.count))
        header += senderPublic
        return header + sealed.ciphertext + sealed.tag
    }
}

/// Looking a push service's name up, and which addresses it may have.
enum PushAddress {
    /// The system's lookup, with `hosts` answered first.
    static func resolver(hosts: [String: String]) -> @Sendable (String) async throws -> [IPAddress] {
        let fixed = hosts.reduce(into: [String: IPAddress]()) { $0[$1.key.lowercased()] = IPAddress($1.value) }
        return { host in
            if let ip = fixed[host.lowercased()] { return [ip] }
            return try await systemResolve(host)
        }
    }

    /// `getaddrinfo`, off the event loops.
    @Sendable static func systemResolve(_ host: String) async throws -> [IPAddress] {
        if let ip = IPAddress(host) { return [ip] }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_family = AF_UNSPEC
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(host, nil, &hints, &list)
                guard status == 0 else {
                    continuation.resume(throwing: WebPushClient.WebPushError.invalid("\(host): \(String(cString: gai_strerror(status)))"))
                    return
                }
                defer { freeaddrinfo(list) }
                var found: [IPAddress] = []
                var entry = list
                while let info = entry?.pointee {
                    if let address = info.ai_addr {
                        if info.ai_family == AF_INET {
                            let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                            found.append(IPAddress(bytes: withUnsafeBytes(of: v4) { Array($0) }))
                        } else if info.ai_family == AF_INET6 {
                            let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                            found.append(IPAddress(bytes: withUnsafeBytes(of: v6) { Array($0) }))
                        }
                    }
                    entry = info.ai_next
                }
                var unique: [IPAddress] = []
                for ip in found where !unique.contains(ip) { unique.append(ip) }
                continuation.resume(returning: unique)
            }
        }
    }
}

/// base64url without padding (JWTs, Web Push keys).
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=" }), text.allSatisfy(\.isASCII) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "=", with: "")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
