import ServerCommon
import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

/// A Selene server listening on a loopback port (with the Ollama stub as its LLM), and the
/// client library's Remote services pointed at it over HTTP.
struct LiveSelene {
    let app: Application
    let serverStopped: Flag
    let stub: OllamaStub
    let clock: ManualClock
    let url: URL

    var settings: ServerSettings { ServerSettings(url: url, token: testToken) }
    var data: RemoteDataService { RemoteDataService(settings: settings, timeout: 20) }
    var llm: RemoteLLMService { RemoteLLMService(settings: settings, timeout: 20) }
    var now: @Sendable () -> Date { { [clock] in clock.now } }

    /// The server stops listening (its database stays for the test to look at).
    func stopServer() async {
        guard !serverStopped.set() else { return }
        await app.server.shutdown()
    }

    /// Captures notes through the client and processes them.
    func notes(_ texts: [String]) async throws -> [Note] {
        var out: [Note] = []
        for text in texts { out.append(try await data.createNote(NewNote(content: text))) }
        try await app.process()
        return out
    }
}

func withLiveSelene(isolation: isolated (any Actor)? = #isolation, adjust: (inout SeleneConfig) -> Void = { _ in },
                    _ body: (LiveSelene) async throws -> Void) async throws {
    try await withStub { stub in
        try await withSelene(tokens: [testToken], stub: stub, adjust: adjust) { app, clock in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            let live = LiveSelene(app: app, serverStopped: Flag(), stub: stub, clock: clock, url: URL(string: "http://127.0.0.1:\(port)")!)
            do {
                try await body(live)
            } catch {
                await live.stopServer()
                throw error
            }
            await live.stopServer()
        }
    }
}

/// A flag set once.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    /// Sets it; answers whether it was already set.
    func set() -> Bool { lock.withLock { defer { value = true }; return value } }
}
