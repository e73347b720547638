import ServerCommon
import Foundation
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Push: the APNs client over HTTP/2 and TLS against a peer that checks everything")
struct PushTests {
    func settings(_ server: APNsTestServer) -> SeleneConfig.APNs {
        SeleneConfig.APNs(privateKeyPEM: server.signingKeyPEM, keyId: server.keyId, teamId: server.teamId, topic: server.topic,
                          host: server.host, extraRootCertificatePEM: server.certificatePEM)
    }

    @Test("A push goes over HTTP/2 with every header APNs wants and a valid ES256 provider token")
    func delivers() async throws {
        let clock = ManualClock(Date())
        let server = try await APNsTestServer(now: { clock.now })
        let client = try APNsClient(settings: settings(server), eventLoopGroup: .singletonMultiThreadedEventLoopGroup, clock: clock.clock,
                                    logger: Logger(label: "push"), retries: 2, retryDelay: 0.01)
        let token = String(repeating: "ab", count: 32)
        #expect(await client.send(PushNotification(title: "Your morning briefing is ready", body: "3 new notes", link: "/app/briefing",
                                                   collapseId: "briefing-2026-11-24"), to: token) == .delivered)
        let got = try #require(server.received.first)
        #expect(got.problems.isEmpty, "\(got.problems)")
        #expect(got.httpVersion.major == 2)
        #expect(got.token == token && got.headers["apns-topic"] == server.topic && got.headers["apns-push-type"] == "alert")
        #expect(got.headers["apns-priority"] == "10" && got.headers["apns-collapse-id"] == "briefing-2026-11-24")
        let aps = try #require(got.payload?["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String])?["title"] == "Your morning briefing is ready")
        #expect((got.payload?["selene"] as? [String: String])?["link"] == "/app/briefing")
        try await client.shutdown()
        await server.stop()
    }

    @Test("The provider token is reused for its lifetime (20–60 minutes) and renewed after")
    func tokenReuse() async throws {
        let clock = ManualClock(Date())
        let server = try await APNsTestServer(now: { clock.now })
        var config = settings(server)
        config.tokenLifetime = 40 * 60
        let client = try APNsClient(settings: config, eventLoopGroup: .singletonMultiThreadedEventLoopGroup, clock: clock.clock,
                                    logger: Logger(label: "push"), retries: 0, retryDelay: 0.01)
        let token = String(repeating: "cd", count: 32)
        let n = PushNotification(title: "t", body: "b", link: "/")
        #expect(await client.send(n, to: token) == .delivered)
        clock.advance(by: 25 * 60)
        #expect(await client.send(n, to: token) == .delivered)
        clock.advance(by: 16 * 60)
        #expect(await client.send(n, to: token) == .delivered)
        let jwts = server.received.map(\.jwt)
        #expect(jwts[0] == jwts[1] && jwts[1] != jwts[2])
        #expect(server.received[2].issuedAt.map { abs($0.timeIntervalSince(clock.now)) < 2 } == true)
        #expect(server.received.allSatisfy { $0.problems.isEmpty })
        // A lifetime outside 20–60 minutes is held to it: never an hour-old token.
        var tooLong = settings(server)
        tooLong.tokenLifetime = 3 * 3600
        let bounded = try APNsClient(settings: tooLong, eventLoopGroup: .singletonMultiThreadedEventLoopGroup, clock: clock.clock, logger: Logger(label: "push"))
        let first = try await bounded.providerToken()
        clock.advance(by: 61 * 60)
        #expect(try await bounded.providerToken() != first)
        try await bounded.shutdown()
        try await client.shutdown()
        await server.stop()
    }

    @Test("410 and BadDeviceToken forget the device; 429 and 5xx are retried; other refusals are reported with APNs's reason")
    func statuses() async throws {
        let clock = ManualClock(Date())
        let server = try await APNsTestServer(now: { clock.now })
        try await withSelene(clock: clock, adjust: { $0.apns = settings(server) }) { app, _ in
            let tokens = ["gone": "a1", "bad": "b2", "busy": "c3", "broken": "d4", "topic": "e5", "fine": "f6", "down": "07"]
                .mapValues { String(repeating: $0, count: 32) }
            for token in tokens.values { _ = try await app.call(.POST, "/api/devices/register", json: DeviceRequest(token: token), as: Device.self) }
            server.script(tokens["gone"]!, [(410, "Unregistered")])
            server.script(tokens["bad"]!, [(400, "BadDeviceToken")])
            server.script(tokens["busy"]!, [(429, "TooManyRequests"), (200, "")])
            server.script(tokens["broken"]!, [(500, "InternalServerError"), (503, "ServiceUnavailable"), (200, "")])
            server.script(tokens["topic"]!, [(400, "TopicDisallowed")])
            server.script(tokens["down"]!, Array(repeating: (503, "ServiceUnavailable"), count: 10))
            let client = try APNsClient(settings: settings(server), eventLoopGroup: .singletonMultiThreadedEventLoopGroup, clock: clock.clock,
                                        logger: app.logger, retries: 2, retryDelay: 0.01)
            let results = await PushService(client: client, app: app).broadcast(PushNotification(title: "New thread: Garden", body: "x", link: "/app/threads/1"))
            #expect(results[tokens["gone"]!] == .removeDevice(reason: "Unregistered"))
            #expect(results[tokens["bad"]!] == .removeDevice(reason: "BadDeviceToken"))
            #expect(results[tokens["busy"]!] == .delivered && results[tokens["broken"]!] == .delivered && results[tokens["fine"]!] == .delivered)
            #expect(results[tokens["topic"]!] == .failed(status: 400, reason: "TopicDisallowed"))
            #expect(results[tokens["down"]!] == .failed(status: 503, reason: "ServiceUnavailable"))
            #expect(server.received.filter { $0.token == tokens["down"]! }.count == 3)
            #expect(server.received.filter { $0.token == tokens["broken"]! }.count == 3)
            let left = Set(try await app.call(.GET, "/api/devices", as: DeviceList.self).devices.map(\.token))
            #expect(left == Set(tokens.values).subtracting([tokens["gone"]!, tokens["bad"]!]))
            try await client.shutdown()
        }
        await server.stop()
    }

    @Test("An expired provider token is renewed once and the push goes through; payloads stay within 4 KB")
    func renewalAndSize() async throws {
        let clock = ManualClock(Date())
        let server = try await APNsTestServer(now: { clock.now })
        let client = try APNsClient(settings: settings(server), eventLoopGroup: .singletonMultiThreadedEventLoopGroup, clock: clock.clock,
                                    logger: Logger(label: "push"), retries: 0, retryDelay: 0.01)
        let token = String(repeating: "9a", count: 32)
        server.script(token, [(403, "ExpiredProviderToken")])
        #expect(await client.send(PushNotification(title: "t", body: "b", link: "/"), to: token) == .delivered)
        #expect(server.received.count == 2 && server.received[0].jwt != server.received[1].jwt)
        let long = PushNotification(title: "New thread: Long", body: String(repeating: "é long summary ", count: 600), link: "/app/threads/9")
        #expect(await client.send(long, to: token) == .delivered)
        let last = try #require(server.received.last)
        #expect(last.payloadBytes <= 4096 && last.payloadBytes > 3000 && last.problems.isEmpty)
        #expect(APNsClient.payload(long).count <= 4096)
        try await client.shutdown()
        await server.stop()
    }

    @Test("A briefing and a new thread push to every device; without an APNs key push is off and says so")
    func triggers() async throws {
        let clock = ManualClock(Date())
        let server = try await APNsTestServer(now: { clock.now })
        try await withStub { stub in
            try await withSelene(stub: stub, clock: clock, adjust: { $0.apns = settings(server) }) { app, _ in
                let device = String(repeating: "5e", count: 32)
                _ = try await app.call(.POST, "/api/devices/register", json: DeviceRequest(token: device), as: Device.self)
                for text in ThreadsAndBriefingTests.garden { try await app.note(text) }
                try await app.process()
                _ = try await app.call(.GET, "/api/briefing", as: Briefing.self)
                let titles = server.received.compactMap { (($0.payload?["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String }
                #expect(titles == ["New thread detected: Garden Tomato", "Your morning briefing is ready"])
                #expect(server.received.map { ($0.payload?["selene"] as? [String: String])?["link"] } == ["/app/threads/1", "/app/briefing"])
                #expect(server.received.allSatisfy { $0.token == device && $0.problems.isEmpty })
                #expect(app.selene.pushStatus.hasPrefix("Push to phones is on"))
            }
        }
        await server.stop()
        try await withSelene { app, _ in
            #expect(app.selene.pushStatus.hasPrefix("Push to phones is off: no APNs key is configured"))
        }
        #expect(throws: SeleneConfigError.self) { try SeleneConfig.fromEnvironment(["SELENE_APNS_KEY_ID": "K"]) }
    }
}
