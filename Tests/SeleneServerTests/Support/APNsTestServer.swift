import Crypto
import Foundation
import JWT
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import X509

/// An APNs peer for the tests: HTTP/2 over TLS on loopback (a self-signed certificate made at
/// start, for `localhost`), checking every request as Apple does — the path, `apns-topic`,
/// `apns-push-type`, `apns-priority`, `apns-collapse-id`, the payload's size and shape, and the
/// provider token's ES256 signature, key id, team id and age — and answering each device token
/// with the statuses scripted for it (200 when none).
final class APNsTestServer: @unchecked Sendable {
    struct Received: @unchecked Sendable {
        var token: String
        var httpVersion: HTTPVersion
        var headers: [String: String]
        var payload: [String: Any]?
        var payloadBytes: Int
        var jwt: String
        var issuedAt: Date?
        /// What APNs would refuse in it (empty when it is fine).
        var problems: [String]
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let keyId = "SELENEKEY1"
    let teamId = "TEAMSELENE"
    let topic = "app.selene.test"
    /// The `.p8` signing key (PKCS#8 PEM), as downloaded from Apple.
    let signingKeyPEM: String
    /// The server's certificate, for the client to trust.
    let certificatePEM: String
    private(set) var port = 0
    var host: String { "https://localhost:\(port)" }
    private let verifier: JWTKeyCollection
    private let state = NIOLockedValueBox<(received: [Received], script: [String: [(UInt, String)]])>(([], [:]))
    private var channel: (any Channel)?
    let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) async throws {
        self.now = now
        let signing = P256.Signing.PrivateKey()
        signingKeyPEM = signing.pemRepresentation
        verifier = JWTKeyCollection()
        await verifier.add(ecdsa: try ES256PublicKey(pem: signing.publicKey.pemRepresentation), kid: JWKIdentifier(string: keyId))

        let tlsKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Selene APNs test peer") }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            SubjectAlternativeNames([.dnsName("localhost")])
        }
        let certificate = try Certificate(version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(tlsKey.publicKey),
                                          notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86_400),
                                          issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                                          issuerPrivateKey: .init(tlsKey))
        certificatePEM = try certificate.serializeAsPEM().pemString
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(tlsKey.pemRepresentation.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let server = self
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server, inboundStreamInitializer: { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), StreamHandler(server: server)])
                        }
                    }).map { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel?.localAddress?.port ?? 0
    }

    func stop() async { try? await channel?.close() }

    /// The next answers for a device token, in order: (status, reason).
    func script(_ token: String, _ answers: [(UInt, String)]) { state.withLockedValue { $0.script[token] = answers } }
    var received: [Received] { state.withLockedValue { $0.received } }

    /// Checks a request as APNs would; answers its status, reason and what was received.
    func handle(head: HTTPRequestHead, body: ByteBuffer) async -> (UInt, String) {
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        var problems: [String] = []
        let token = head.uri.hasPrefix("/3/device/") ? String(head.uri.dropFirst("/3/device/".count)) : ""
        if head.method != .POST { problems.append("MethodNotAllowed") }
        if token.isEmpty || !token.allSatisfy(\.isHexDigit) { problems.append("BadPath") }
        if headers["apns-topic"] != topic { problems.append("BadTopic") }
        if headers["apns-push-type"] != "alert" { problems.append("InvalidPushType") }
        if !["5", "10"].contains(headers["apns-priority"] ?? "10") { problems.append("BadPriority") }
        if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { problems.append("BadCollapseId") }
        if body.readableBytes > 4096 { problems.append("PayloadTooLarge") }
        let payload = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
        let alert = (payload?["aps"] as? [String: Any])?["alert"] as? [String: Any]
        if alert?["title"] as? String == nil { problems.append("PayloadEmpty") }
        let auth = headers["authorization"] ?? ""
        let jwt = auth.lowercased().hasPrefix("bearer ") ? String(auth.dropFirst(7)) : ""
        var issuedAt: Date?
        do {
            let header = try JSONDecoder().decode([String: String].self, from: Self.base64URL(String(jwt.split(separator: ".").first ?? "")))
            if header["alg"] != "ES256" || header["kid"] != keyId { problems.append("InvalidProviderToken") }
            let claims = try await verifier.verify(jwt, as: Claims.self)
            if claims.iss.value != teamId { problems.append("InvalidProviderToken") }
            issuedAt = claims.iat.value
            if now().timeIntervalSince(claims.iat.value) > 3600 { problems.append("ExpiredProviderToken") }
        } catch {
            problems.append("InvalidProviderToken")
        }
        let received = Received(token: token, httpVersion: head.version, headers: headers, payload: payload, payloadBytes: body.readableBytes,
                                jwt: jwt, issuedAt: issuedAt, problems: problems)
        let scripted: (UInt, String)? = state.withLockedValue { s in
            s.received.append(received)
            guard var answers = s.script[token], !answers.isEmpty else { return nil }
            let first = answers.removeFirst()
            s.script[token] = answers
            return first
        }
        if problems.contains("PayloadTooLarge") { return (413, "PayloadTooLarge") }
        if let provider = problems.first(where: { $0.hasSuffix("ProviderToken") }) { return (403, provider) }
        if let problem = problems.first { return (400, problem) }
        return scripted ?? (200, "")
    }

    static func base64URL(_ text: String) -> Data {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s) ?? Data()
    }

    /// One HTTP/2 stream: a request in, an answer out.
    final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: APNsTestServer
        var head: HTTPRequestHead?
        var body = ByteBuffer()

        init(server: APNsTestServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let h): head = h
            case .body(var b): body.writeBuffer(&b)
            case .end:
                guard let head else { return }
                let loop = context.eventLoop
                let bound = NIOLoopBound(context, eventLoop: loop)
                let server = self.server, body = self.body
                Task {
                    let (status, reason) = await server.handle(head: head, body: body)
                    loop.execute {
                        let context = bound.value
                        var headers = HTTPHeaders([("apns-id", UUID().uuidString)])
                        var out = ByteBuffer()
                        if status != 200 {
                            out.writeString(#"{"reason":"\#(reason)"}"#)
                            headers.add(name: "content-type", value: "application/json")
                        }
                        headers.add(name: "content-length", value: String(out.readableBytes))
                        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: .init(statusCode: Int(status)), headers: headers))), promise: nil)
                        if out.readableBytes > 0 { context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(out))), promise: nil) }
                        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
                    }
                }
            }
        }
    }
}
