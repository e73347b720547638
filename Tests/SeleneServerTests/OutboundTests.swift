import AsyncHTTPClient
import Foundation
import NIOPosix
import OllamaStub
@testable import SeleneServer
import SeleneShared
import ServerCommon
import TestDatabases
import Testing
import VaporTesting

/// The ledger of what left the machine (`Outbound`): every request Selene's server sends, written
/// before it leaves, read on a page, over the API and by `selene outbound`.
@Suite("Selene: what left this machine")
struct OutboundTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SeleneServer")

    @Test("No request can leave around the ledger: Selene's server builds no HTTP client, socket or session but in Outbound.swift, and sends only through it")
    func oneWayOut() throws {
        let walk = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var files = 0
        for case let url as URL in walk where url.pathExtension == "swift" {
            files += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            let name = url.path.replacingOccurrences(of: Self.sources.path + "/", with: "")
            // What could send bytes elsewhere: an HTTP client, a URLSession, NIO's client bootstrap,
            // Foundation's streams, SeleneShared's own URLSession transports, another process.
            for maker in ["HTTPClient(", "URLSession", "ClientBootstrap", "NIOTSConnectionBootstrap", "Stream.getStreamsToHost", "HTTPTransport(",
                          "HostedLLMService(", "RemoteDataService(", "Process()", "posix_spawn"] where name != "Services/Outbound.swift" {
                // As a name of its own (makeHTTPClient( is the function that asks Outbound for one).
                let found = text.ranges(of: maker).contains { range in
                    range.lowerBound == text.startIndex || !(text[text.index(before: range.lowerBound)].isLetter || text[text.index(before: range.lowerBound)].isNumber)
                }
                #expect(!found, "\(name) uses \(maker): requests must go through Outbound")
            }
            // A client's execute is only ever OutboundClient's (which takes the body's length for the ledger).
            for line in text.split(separator: "\n") where line.contains(".execute(") && name != "Services/Outbound.swift" {
                #expect(line.contains("bytesOut:"), "\(name): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(files > 50)
    }

    @Test("Capture → processing → threads → briefing → chat → a push: each request in the ledger — to the model server or the push service only, why, the bytes each way, and whether words from the notes were in it")
    func everyRequest() async throws {
        let clock = ManualClock(Date())
        let apns = try await APNsTestServer(now: { clock.now })
        do {
            try await withStub { stub in
                try await withSelene(tokens: [testToken], stub: stub, clock: clock, adjust: { $0.apns = PushTests().settings(apns) }) { app, _ in
                    _ = try await app.call(.POST, "/api/devices/register", json: DeviceRequest(token: String(repeating: "5e", count: 32)), token: testToken, as: Device.self)
                    for text in ThreadsAndBriefingTests.garden { try await app.note(text, token: testToken) }
                    try await app.process()
                    _ = try await app.call(.GET, "/api/briefing", token: testToken, as: Briefing.self)
                    _ = try await app.send(.GET, "/api/llm/health", token: testToken)
                    let chat = try await app.send(.POST, "/api/llm/chat", token: testToken, json: LLMChatRequest(messages: [LLMMessage(role: .user, content: "What about the garden?")]))
                    #expect(chat.status == .ok)
                    let list = try await app.call(.GET, "/api/outbound?limit=500", token: testToken, as: OutboundList.self)
                    let model = "127.0.0.1:\(stub.port)", push = "localhost:\(apns.port)"
                    #expect(Set(list.entries.map(\.destination)) == [model, push], "\(Set(list.entries.map(\.destination)))")
                    let purposes = Set(list.entries.map(\.purpose))
                    #expect(purposes.isSuperset(of: ["embed", "analysis", "briefing", "model-check", "chat", "apns"]), "\(purposes)")
                    for entry in list.entries {
                        #expect(entry.bytesOut > 0 || entry.purpose == "model-check", "\(entry)")
                        // (APNs answers a delivered push with an empty body.)
                        #expect(entry.status == 200 && (entry.bytesIn > 0 || entry.purpose == "apns") && entry.failure == nil, "\(entry)")
                        // A model check carries nothing of the notes; everything else here does (the
                        // pushes name the thread and quote the briefing).
                        #expect(entry.noteDerived == (entry.purpose != "model-check"), "\(entry)")
                    }
                    #expect(list.entries.filter { $0.purpose == "apns" }.count == apns.received.count)
                    #expect(list.entries.map(\.id) == list.entries.map(\.id).sorted(by: >), "newest first")
                    // One purpose, a bad one refused by name.
                    let pushes = try await app.call(.GET, "/api/outbound?purpose=apns", token: testToken, as: OutboundList.self)
                    #expect(!pushes.entries.isEmpty && pushes.entries.allSatisfy { $0.purpose == "apns" })
                    let bad = try await app.send(.GET, "/api/outbound?purpose=everything", token: testToken)
                    #expect(bad.status == .badRequest && bad.text.contains("purpose"))
                    #expect(try await app.send(.GET, "/api/outbound?purpose=", token: testToken).status == .badRequest)
                    // The page says the same, from More.
                    let (cookie, _) = try await SafeDefaultTests.browserCookies(app, token: testToken)
                    #expect(try await app.send(.GET, "/app/more", headers: ["Cookie": cookie]).text.contains("What left this machine"))
                    let page = try await app.send(.GET, "/app/outbound", headers: ["Cookie": cookie]).text
                    #expect(page.contains(model) && page.contains(push) && page.contains("carried words from your notes"))
                    // Without a token nothing is shown.
                    #expect(try await app.send(.GET, "/api/outbound").status == .unauthorized)
                }
            }
        } catch {
            await apns.stop()
            throw error
        }
        await apns.stop()
    }

    @Test("A request that fails is in the ledger with what went wrong; entries older than SELENE_OUTBOUND_DAYS are removed")
    func failuresAndRetention() async throws {
        let port = try freeLoopbackPort()
        let clock = ManualClock(Date())
        let settings = SeleneConfig.LLM(provider: .ollama, baseURL: "http://127.0.0.1:\(port)", requestTimeout: 2, connectTimeout: 1)
        try await withSelene(tokens: [testToken], clock: clock, adjust: { $0.llm = settings; $0.outboundDays = 7 }) { app, _ in
            try await app.note("Nothing is listening on the model's port", token: testToken)
            _ = try await app.process()
            var list = try await app.call(.GET, "/api/outbound", token: testToken, as: OutboundList.self)
            let failed = try #require(list.entries.first)
            #expect(failed.destination == "127.0.0.1:\(port)" && failed.status == nil && failed.bytesIn == 0 && failed.failure != nil, "\(failed)")
            #expect(list.keptDays == 7)
            clock.advance(by: 8 * 86_400)
            list = try await app.call(.GET, "/api/outbound", token: testToken, as: OutboundList.self)
            #expect(list.entries.isEmpty)
        }
        #expect(throws: SeleneConfigError.self) { try SeleneConfig.fromEnvironment(["SELENE_OUTBOUND_DAYS": "0"]) }
    }
}

@Suite("Selene: local only (SELENE_LOCAL_ONLY)")
struct LocalOnlyTests {
    @Test("With local only on, capture → processing → thread → briefing → chat → a push leave only to this machine and the push service, and no push carries words from the notes")
    func holds() async throws {
        let clock = ManualClock(Date())
        let apns = try await APNsTestServer(now: { clock.now })
        do {
            try await withStub { stub in
                try await withSelene(tokens: [testToken], stub: stub, clock: clock, adjust: { $0.apns = PushTests().settings(apns); $0.localOnly = true }) { app, _ in
                    _ = try await app.call(.POST, "/api/devices/register", json: DeviceRequest(token: String(repeating: "5e", count: 32)), token: testToken, as: Device.self)
                    for text in ThreadsAndBriefingTests.garden { try await app.note(text, token: testToken) }
                    try await app.process()
                    let briefing = try await app.call(.GET, "/api/briefing", token: testToken, as: Briefing.self)
                    let chat = try await app.send(.POST, "/api/llm/chat", token: testToken, json: LLMChatRequest(messages: [LLMMessage(role: .user, content: "What about the garden?")]))
                    #expect(chat.status == .ok)
                    let list = try await app.call(.GET, "/api/outbound?limit=500", token: testToken, as: OutboundList.self)
                    #expect(Set(list.entries.map(\.purpose)).isSuperset(of: ["embed", "analysis", "briefing", "chat", "apns"]))
                    let pushes = list.entries.filter { $0.purpose == "apns" }
                    #expect(pushes.count == 2 && pushes.allSatisfy { !$0.noteDerived && $0.destination == "localhost:\(apns.port)" }, "\(pushes)")
                    for entry in list.entries where entry.purpose != "apns" {
                        #expect(entry.destination == "127.0.0.1:\(stub.port)", "\(entry)")
                    }
                    #expect(list.entries.filter(\.noteDerived).allSatisfy { $0.destination.hasPrefix("127.0.0.1:") })
                    // What Apple's service got: a sentence of Selene's, a link, nothing of the notes.
                    let alerts = apns.received.compactMap { ($0.payload?["aps"] as? [String: Any])?["alert"] as? [String: Any] }
                    #expect(alerts.count == 2 && alerts.allSatisfy { $0["title"] as? String == "Selene has something new" && $0["body"] as? String == "Open Selene to see it." })
                    let sent = apns.received.compactMap { $0.payload.flatMap { try? JSONSerialization.data(withJSONObject: $0) }.map { String(decoding: $0, as: UTF8.self).lowercased() } }
                    for word in ["garden", "tomato", "compost", "soil"] + briefing.text.lowercased().split(separator: " ").filter({ $0.count > 6 }).map(String.init) {
                        #expect(!sent.contains { $0.contains(word) }, "a push carried \(word)")
                    }
                }
            }
        } catch {
            await apns.stop()
            throw error
        }
        await apns.stop()
    }

    @Test("Local only refuses at start a model server beyond this machine or the private network, and a hosted model; a request to a public address is refused before it is sent")
    func refuses() async throws {
        await #expect(throws: SeleneConfigError.self) {
            try await withSelene(adjust: { $0.localOnly = true; $0.llm = SeleneConfig.LLM(baseURL: "http://8.8.8.8:11434") }) { _, _ in }
        }
        do {
            try await withSelene(adjust: { $0.localOnly = true; $0.llm = SeleneConfig.LLM(baseURL: "http://203.0.113.9:11434", embedding: .init(provider: .ollama, baseURL: "http://127.0.0.1:1")) }) { _, _ in }
            Issue.record("a public model server was accepted")
        } catch let error as SeleneConfigError {
            #expect(error.description.contains("not on this machine or the private network") && error.description.contains("203.0.113.9"))
        }
        // The private network (a Tailscale address, RFC 1918) and this machine are fine.
        try await withSelene(adjust: { $0.localOnly = true; $0.llm = SeleneConfig.LLM(baseURL: "http://100.101.102.103:11434", embedding: .init(provider: .ollama, baseURL: "http://192.168.1.20:8080")) }) { app, _ in
            #expect(app.selene.outbound.localOnly)
        }
        #expect(throws: SeleneConfigError.self) {
            try SeleneConfig.fromEnvironment(["SELENE_LOCAL_ONLY": "on", "SELENE_HOSTED_URL": "https://api.example.com/v1", "SELENE_HOSTED_MODEL": "m"])
        }
        #expect(throws: SeleneConfigError.self) { try SeleneConfig.fromEnvironment(["SELENE_LOCAL_ONLY": "maybe"]) }
        // Every request is checked again when it goes, whatever was configured.
        let ledger = OutboundLedger(clock: ManualClock(Date()).clock, keptDays: 30, localOnly: true, logger: Logger(label: "test"))
        let http = Outbound.makeClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: .init())
        let client = OutboundClient(http: http, ledger: ledger, purpose: "chat", noteDerived: true)
        await #expect(throws: LocalOnlyError.self) {
            _ = try await client.execute(HTTPClientRequest(url: "http://93.184.216.34/api/chat"), bytesOut: 0, timeout: .seconds(1))
        }
        try await http.shutdown()
    }
}

enum OutboundTestsSupport {
    /// `host:port` of a URL, as the ledger writes it.
    static func destination(_ url: String) -> String { Outbound.destination(url) }
}
