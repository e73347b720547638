import ServerCommon
import Crypto
import Foundation
import NIOConcurrencyHelpers
import SeleneShared
@testable import SeleneServer
import Testing
import Vapor
import VaporTesting

/// Web Push against a push-service stand-in that does what a browser's push service and the
/// browser do: checks the VAPID JWT (ES256 by the key in `k=`, audience, expiry, contact) and
/// decrypts the message (RFC 8291) with the subscription's private key and auth secret.
@Suite("Selene: Web Push")
struct WebPushTests {
    /// A browser's subscription: its key pair and auth secret.
    struct Browser {
        let key = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        var p256dh: String { Base64URL.encode(key.publicKey.x963Representation) }

        /// The receiving side of RFC 8291 (and RFC 8188's header), written apart from the sender.
        func decrypt(_ body: Data) throws -> Data {
            let salt = body.prefix(16)
            let recordSize = body.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
            let idLength = Int(body[body.startIndex + 20])
            let senderKey = body.dropFirst(21).prefix(idLength)
            #expect(recordSize >= 18 && idLength == 65)
            let sender = try P256.KeyAgreement.PublicKey(x963Representation: senderKey)
            let secret = try key.sharedSecretFromKeyAgreement(with: sender)
            let prkKey = secret.withUnsafeBytes { HMAC<SHA256>.authenticationCode(for: Data($0), using: SymmetricKey(data: auth)) }
            let keyInfo = Data("WebPush: info\0".utf8) + key.publicKey.x963Representation + senderKey + Data([1])
            let ikm = Data(HMAC<SHA256>.authenticationCode(for: keyInfo, using: SymmetricKey(data: Data(prkKey))))
            let prk = Data(HMAC<SHA256>.authenticationCode(for: ikm, using: SymmetricKey(data: salt)))
            let cek = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: aes128gcm\0".utf8) + Data([1]), using: SymmetricKey(data: prk))).prefix(16)
            let nonce = Data(HMAC<SHA256>.authenticationCode(for: Data("Content-Encoding: nonce\0".utf8) + Data([1]), using: SymmetricKey(data: prk))).prefix(12)
            let record = body.dropFirst(21 + idLength)
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16))
            var plain = try AES.GCM.open(box, using: SymmetricKey(data: cek))
            while plain.last == 0 { plain.removeLast() }
            #expect(plain.last == 2, "the last record's delimiter")
            return plain.dropLast()
        }
    }

    final class PushService: @unchecked Sendable {
        let app: Application
        let received = NIOLockedValueBox<[(path: String, payload: [String: String], headers: HTTPHeaders)]>([])
        var url: String { "http://127.0.0.1:\(app.http.server.shared.localAddress!.port!)" }

        init(browsers: [String: Browser], clock: @escaping @Sendable () -> Date) async throws {
            app = try await Application.make(.testing)
            app.logger.logLevel = .error
            let received = received
            app.post("push", ":id") { req -> Response in
                let id = req.parameters.get("id")!
                if id == "gone" { return Response(status: .gone) }
                guard let browser = browsers[id] else { return Response(status: .notFound) }
                guard req.headers.first(name: "Content-Encoding") == "aes128gcm", let ttl = req.headers.first(name: "TTL"), Int(ttl) != nil else {
                    return Response(status: .badRequest, body: .init(string: "Content-Encoding and TTL are required"))
                }
                // Authorization: vapid t=JWT, k=key
                guard let auth = req.headers.first(name: .authorization), auth.hasPrefix("vapid "),
                      let t = auth.dropFirst(6).split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("t=") })?.dropFirst(2),
                      let k = auth.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("k=") })?.dropFirst(2),
                      let keyData = Base64URL.decode(String(k)), let key = try? P256.Signing.PublicKey(x963Representation: keyData) else {
                    return Response(status: .unauthorized, body: .init(string: "no VAPID authorization"))
                }
                let parts = t.split(separator: ".").map(String.init)
                guard parts.count == 3, let signature = Base64URL.decode(parts[2]),
                      let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
                      key.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8)),
                      let claimsData = Base64URL.decode(parts[1]),
                      let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any],
                      claims["aud"] as? String == "http://127.0.0.1:\(req.application.http.server.shared.localAddress!.port!)",
                      let exp = claims["exp"] as? Int, Double(exp) > clock().timeIntervalSince1970, Double(exp) <= clock().timeIntervalSince1970 + 86_400,
                      (claims["sub"] as? String)?.hasPrefix("mailto:") == true else {
                    return Response(status: .forbidden, body: .init(string: "the VAPID JWT doesn't verify"))
                }
                let body = Data(buffer: req.body.data ?? ByteBuffer())
                let plain = try browser.decrypt(body)
                let payload = try JSONSerialization.jsonObject(with: plain) as? [String: String] ?? [:]
                received.withLockedValue { $0.append((id, payload, req.headers)) }
                return Response(status: .created)
            }
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        }

        func stop() async {
            await app.server.shutdown()
            try? await app.asyncShutdown()
        }
    }

    static func keyFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("selene-vapid-\(UUID())/vapid-key.pem").path
    }

    @Test("Briefing ready and a new thread reach each browser encrypted and VAPID-signed; a gone subscription is forgotten; phones untouched")
    func delivery() async throws {
        let browsers = ["a": Browser(), "b": Browser()]
        let file = Self.keyFile()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let clock = ManualClock()
        let service = try await PushService(browsers: browsers, clock: { clock.now })
        do {
            try await withSelene(clock: clock, adjust: { $0.webPush = .init(keyFile: file, subject: "mailto:me@example.com", allowHTTP: true) }) { app, _ in
                let store = ConversationStore(db: app.db)
                for (id, browser) in browsers {
                    _ = try await store.register(web: try .init(endpoint: service.url + "/push/\(id)", p256dh: browser.p256dh,
                                                                auth: Base64URL.encode(browser.auth), allowHTTP: true), now: clock.now)
                }
                _ = try await store.register(web: try .init(endpoint: service.url + "/push/gone", p256dh: Browser().p256dh,
                                                            auth: Base64URL.encode(Data(repeating: 7, count: 16)), allowHTTP: true), now: clock.now)
                #expect(try await store.devices().count == 3)
                let push = try #require(app.selene.push)
                let results = await push.broadcast(PushNotification(title: "Your morning briefing is ready", body: "Good morning. Two threads moved.",
                                                                    link: "/app/briefing", collapseId: "briefing-2026-11-25"))
                #expect(results.values.filter { $0 == .delivered }.count == 2, "\(results)")
                let got = service.received.withLockedValue { $0 }
                #expect(Set(got.map(\.path)) == ["a", "b"])
                for message in got {
                    #expect(message.payload == ["title": "Your morning briefing is ready", "body": "Good morning. Two threads moved.",
                                                "url": "/app/briefing", "tag": "briefing-2026-11-25"])
                    #expect(message.headers.first(name: "Topic") == "briefing-2026-11-25")
                }
                // The push service said the third is gone: it is forgotten.
                #expect(try await store.devices().map(\.token).sorted() == ["a", "b"].map { service.url + "/push/\($0)" })
                // Events go out the same way.
                await app.selene.events.announce(.threadDetected(NoteThread(id: 7, name: "Garden", summary: "Tomatoes and compost", status: .active,
                                                                            momentum: 1, lastActivityAt: clock.now, createdAt: clock.now, noteCount: 3)))
                #expect(service.received.withLockedValue { $0 }.suffix(2).allSatisfy { $0.payload["title"] == "New thread detected: Garden" && $0.payload["url"] == "/app/threads/7" })
                #expect(app.selene.pushStatus.contains("Web Push to browsers is on"))
                // Each push service's request is in the outbound ledger, with the thread's name from the notes.
                let ledger = try await OutboundLedger.list(app.db, limit: 50)
                let host = OutboundTestsSupport.destination(service.url)
                #expect(ledger.filter { $0.purpose == "web-push" && $0.destination == host && $0.noteDerived }.count == 5, "\(ledger)")
            }
            // The key is kept (0600) and the same after a restart.
            let first = try WebPushClient.loadOrCreateKey(at: file)
            #expect(try WebPushClient.loadOrCreateKey(at: file).rawRepresentation == first.rawRepresentation)
            #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        } catch {
            await service.stop()
            throw error
        }
        await service.stop()
    }

    @Test("Subscriptions are checked: an https push service (plain http only where allowed), a P-256 key, a 16-byte secret")
    func subscriptionChecks() throws {
        let key = Browser().p256dh, auth = Base64URL.encode(Data(repeating: 1, count: 16))
        #expect(throws: FieldErrors.self) { try WebPushClient.Subscription(endpoint: "http://push.example.com/x", p256dh: key, auth: auth, allowHTTP: false) }
        #expect(throws: FieldErrors.self) { try WebPushClient.Subscription(endpoint: "file:///etc/passwd", p256dh: key, auth: auth, allowHTTP: true) }
        #expect(throws: FieldErrors.self) { try WebPushClient.Subscription(endpoint: "https://push.example.com/x", p256dh: "AAAA", auth: auth, allowHTTP: false) }
        #expect(throws: FieldErrors.self) { try WebPushClient.Subscription(endpoint: "https://push.example.com/x", p256dh: key, auth: "AAAA", allowHTTP: false) }
        #expect(throws: Never.self) { try WebPushClient.Subscription(endpoint: "https://push.example.com/x", p256dh: key, auth: auth, allowHTTP: false) }
        // The API's device registration doesn't take browsers (they subscribe through the web app).
        #expect(throws: FieldErrors.self) { try DeviceRequest(token: String(repeating: "ab", count: 16), platform: .web).validated() }
    }
}
