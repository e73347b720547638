import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

/// The hosted model's switch on the server (SELENE_HOSTED_*): off by default; when on, the privacy
/// router decides per request, and the status says what went out.
@Suite("Selene: the hosted model's switch")
struct HostedSwitchTests {
    @Test("Settings: off unless SELENE_HOSTED_URL is set; a model is required; bad values are refused with the fix")
    func settings() throws {
        #expect(try SeleneConfig.fromEnvironment([:]).hosted == nil)
        let on = try SeleneConfig.fromEnvironment(["SELENE_HOSTED_URL": "https://api.example.com/v1", "SELENE_HOSTED_MODEL": "m", "SELENE_HOSTED_KEY": "k"])
        #expect(on.hosted == SeleneConfig.Hosted(url: "https://api.example.com/v1", model: "m", apiKey: "k", personal: false))
        #expect(try SeleneConfig.fromEnvironment(["SELENE_HOSTED_URL": "https://h", "SELENE_HOSTED_MODEL": "m", "SELENE_HOSTED_PERSONAL": "on"]).hosted?.personal == true)
        #expect { try SeleneConfig.fromEnvironment(["SELENE_HOSTED_URL": "https://h"]) } throws: { "\($0)".contains("SELENE_HOSTED_MODEL") }
        #expect { try SeleneConfig.fromEnvironment(["SELENE_HOSTED_URL": "ftp://h", "SELENE_HOSTED_MODEL": "m"]) } throws: { "\($0)".contains("http(s)") }
        #expect { try SeleneConfig.fromEnvironment(["SELENE_HOSTED_URL": "https://h", "SELENE_HOSTED_MODEL": "m", "SELENE_HOSTED_PERSONAL": "perhaps"]) } throws: {
            "\($0)".contains("on or off")
        }
    }

    @Test("On, personal content stays local (counted); what carries nothing personal goes out (counted, timed); allowed, a chat about notes goes out")
    @MainActor
    func routing() async throws {
        let hosted = try await RemoteServicesTests.HostedServer()
        do {
            try await withStub { stub in
                for personal in [false, true] {
                    hosted.received.withLockedValue { $0 = [] }
                    try await withSelene(stub: stub, adjust: {
                        $0.hosted = .init(url: hosted.url.absoluteString + "/v1", model: "hosted-model", apiKey: "hosted-key", personal: personal)
                    }) { app, clock in
                        try await app.note("Therapy session notes: talked about my sister")
                        try await app.process()
                        var health: LLMHealth = try await app.call(.GET, "/api/llm/health")
                        #expect(health.hosted == HostedUsage(url: hosted.url.absoluteString + "/v1", model: "hosted-model", personalContentAllowed: personal))
                        let ask = { await ChatRun.run(data: ServerDataProvider(app: app), llm: app.selene.chatLLM(db: app.writeDB), now: { clock.now },
                                                      sessionId: UUID(), question: "What did I write about my sister?", emit: { _ in }) }
                        var outcome = await ask()
                        if personal {
                            // The first request with the note is held for the person's yes (HostedConsentTests).
                            #expect(outcome.session?.messages.last?.content.hasPrefix("From your notes:") == true && hosted.received.withLockedValue { $0 }.isEmpty)
                            let _: HostedConsent = try await app.call(.POST, "/api/hosted/consent", json: HostedConsentAnswer(allow: true))
                            outcome = await ask()
                        }
                        let answer = try #require(outcome.session?.messages.last?.content)
                        health = try await app.call(.GET, "/api/llm/health")
                        let usage = try #require(health.hosted)
                        let received = hosted.received.withLockedValue { $0 }
                        if personal {
                            #expect(answer.hasPrefix("hosted streamed answer\n\nYour note says:") && received.contains { $0.contains("talked about my sister") })
                            #expect(usage.sent >= 1 && usage.keptLocal >= 1 && usage.lastSentAt == clock.now)
                        } else {
                            #expect(answer.hasPrefix("From your notes:") && received.isEmpty, "\(answer) \(received)")
                            #expect(usage.sent == 0 && usage.keptLocal >= 1 && usage.lastSentAt == nil)
                            // Nothing personal in it: it may go out.
                            #expect(try await app.selene.chatLLM(db: app.writeDB).generate("What is the capital of Portugal?", system: nil, model: nil) == "hosted answer")
                            let after = try #require(try await app.call(.GET, "/api/llm/health", as: LLMHealth.self).hosted)
                            #expect(after.sent == 1 && after.keptLocal == usage.keptLocal && after.lastSentAt == clock.now)
                            #expect(hosted.received.withLockedValue { $0 } == ["What is the capital of Portugal?"])
                            #expect(Pages.hostedLine(after).contains("1 request sent to it"))
                        }
                    }
                }
            }
        } catch {
            await hosted.stop()
            throw error
        }
        await hosted.stop()
        #expect(Pages.hostedLine(nil) == "No hosted model: everything stays on this machine.")
    }
}
