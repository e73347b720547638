import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import VaporTesting

/// With SELENE_HOSTED_PERSONAL=on, the first request that would carry something from notes to the
/// hosted model is kept on the person's own model and shown to them word for word; nothing of it
/// leaves until they say yes, and a no (or another hosted address) keeps it here.
@Suite("Selene: the hosted model asks before it sees notes")
struct HostedConsentTests {
    typealias HostedServer = RemoteServicesTests.HostedServer

    /// The hosted stand-in and a Selene sending notes to it only after a yes (`personal`).
    func withHosted(personal: Bool = true, _ body: (Application, HostedServer) async throws -> Void) async throws {
        let hosted = try await HostedServer()
        do {
            try await withStub { stub in
                try await withSelene(tokens: [testToken], stub: stub, adjust: {
                    $0.hosted = .init(url: hosted.url.absoluteString + "/v1", model: "hosted-model", apiKey: "hosted-key", personal: personal)
                }) { app, _ in try await body(app, hosted) }
            }
        } catch {
            await hosted.stop()
            throw error
        }
        await hosted.stop()
    }

    func consent(_ app: Application) async throws -> HostedConsent { try await app.call(.GET, "/api/hosted/consent", token: testToken) }

    func hostedEntries(_ app: Application) async throws -> [OutboundEntry] {
        try await app.call(.GET, "/api/outbound?purpose=hosted", token: testToken, as: OutboundList.self).entries
    }

    /// A question about the notes, asked as the web app's chat asks it.
    func ask(_ app: Application, _ question: String) async -> String {
        let services = app.selene
        let outcome = await ChatRun.run(data: ServerDataProvider(app: app), llm: services.chatLLM(db: app.writeDB), now: { services.clock.now() },
                                        sessionId: UUID(), question: question, emit: { _ in })
        return outcome.session?.messages.last?.content ?? ""
    }

    @Test("Held: the first request with a note stays here and is shown word for word; a page from another site can't say yes; the person's yes lets the next go, written in the ledger")
    func heldUntilYes() async throws {
        try await withHosted { app, hosted in
            try await app.note("Therapy session notes: talked about my sister", token: testToken)
            try await app.process()
            #expect(try await consent(app).state == .notAsked)

            // The exact messages the hosted model would receive: a conversation with the note in it.
            let llm = app.selene.chatLLM(db: app.writeDB)
            let messages = [LLMMessage(role: .system, content: "\(PromptMarkers.contextHeader)\nTherapy session notes: talked about my sister"),
                            LLMMessage(role: .user, content: "What did I write about my sister?")]
            var words = ""
            for try await piece in try await llm.chat(messages, model: nil) { words += piece }
            #expect(!words.hasPrefix("hosted"), "answered by the person's own model: \(words)")
            #expect(await ask(app, "What did I write about my sister?").hasPrefix("From your notes:"))
            #expect(hosted.received.withLockedValue { $0 }.isEmpty)
            #expect(try await hostedEntries(app).isEmpty, "nothing went to the hosted model, so nothing is in the ledger")
            let held = try await consent(app)
            #expect(held.state == .waiting && held.messages == messages && held.url == hosted.url.absoluteString + "/v1" && held.model == "hosted-model")

            // The web app: a notice above the conversation, and the page with the request word for word.
            let (cookie, csrf) = try await SafeDefaultTests.browserCookies(app, token: testToken)
            let chat = try await app.send(.GET, "/app/chat/\(UUID().uuidString.lowercased())", headers: ["Cookie": cookie])
            #expect(chat.text.contains(#"id="hosted-waiting""#) && chat.text.contains(#"href="/app/hosted""#))
            let page = try await app.send(.GET, "/app/hosted", headers: ["Cookie": cookie])
            #expect(page.status == .ok && page.text.contains("Therapy session notes: talked about my sister")
                    && page.text.contains("What did I write about my sister?") && page.text.contains("Yes, send them"))

            // Another site's page (no token of this browser's) can't answer for the person.
            let forged = try await app.send(.POST, "/app/hosted", raw: "answer=yes", headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            #expect(forged.status == .forbidden)
            #expect(try await consent(app).state == .waiting)
            let bad = try await app.send(.POST, "/app/hosted", raw: "answer=maybe&_csrf=\(csrf)", headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            #expect(bad.status == .badRequest)
            #expect(try await consent(app).state == .waiting)

            let yes = try await app.send(.POST, "/app/hosted", raw: "answer=yes&_csrf=\(csrf)", headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            #expect(yes.status == .seeOther)
            let allowed = try await consent(app)
            #expect(allowed.state == .allowed && allowed.decidedAt != nil && allowed.messages == messages)
            #expect((try await app.send(.GET, "/app/chat/\(UUID().uuidString.lowercased())", headers: ["Cookie": cookie])).text.contains("hosted-waiting") == false)

            // Now it goes, with the words the page showed, and the ledger says why.
            words = ""
            for try await piece in try await app.selene.chatLLM(db: app.writeDB).chat(messages, model: nil) { words += piece }
            #expect(words == "hosted streamed answer")
            #expect(hosted.received.withLockedValue { $0 } == [messages.map(\.content).joined(separator: "\n")])
            var entries = try await hostedEntries(app)
            #expect(entries.count == 1 && entries[0].noteDerived && entries[0].reason?.contains("you said yes") == true, "\(entries)")
            // Something with nothing personal in it is written as such.
            #expect(try await app.selene.chatLLM(db: app.writeDB).generate("What is the capital of Portugal?", system: nil, model: nil) == "hosted answer")
            entries = try await hostedEntries(app)
            #expect(entries.count == 2 && !entries[0].noteDerived && entries[0].reason?.contains("found nothing") == true)
        }
    }

    @Test("No, and ask again: after a no the notes stay here; forgetting the answer holds the next request; another hosted address asks afresh")
    func noAndAgain() async throws {
        try await withHosted { app, hosted in
            try await app.note("My sister's wedding is in June", token: testToken)
            try await app.process()
            // Nothing to answer before anything was held.
            let early = try await app.send(.POST, "/api/hosted/consent", token: testToken, json: HostedConsentAnswer(allow: true))
            #expect(early.status == .conflict && early.error?.error.contains("Nothing is waiting") == true)
            _ = await ask(app, "When is the wedding?")
            #expect(try await consent(app).state == .waiting)

            let no: HostedConsent = try await app.call(.POST, "/api/hosted/consent", json: HostedConsentAnswer(allow: false), token: testToken)
            #expect(no.state == .refused && no.decidedAt != nil)
            // The held request's words from the notes are forgotten with the no.
            #expect(no.messages.isEmpty)
            let stored = try await app.db.sql.raw("SELECT messages FROM hosted_consent").all().map { try $0.decode(column: "messages", as: String.self) }
            #expect(stored == ["[]"] && !stored.joined().contains("wedding"))
            #expect(await ask(app, "When is the wedding?").hasPrefix("From your notes:"))
            #expect(hosted.received.withLockedValue { $0 }.isEmpty)
            #expect(try await hostedEntries(app).isEmpty)

            let again: HostedConsent = try await app.call(.DELETE, "/api/hosted/consent", token: testToken)
            #expect(again.state == .notAsked && again.messages.isEmpty)
            _ = await ask(app, "Whose wedding is in June?")
            let held = try await consent(app)
            #expect(held.state == .waiting && held.messages.contains { $0.content.contains("Whose wedding is in June?") })
            #expect(hosted.received.withLockedValue { $0 }.isEmpty)

            // Many at once: one request is held, the rest stay here too.
            _ = try await app.call(.DELETE, "/api/hosted/consent", token: testToken, as: HostedConsent.self)
            await withTaskGroup(of: String.self) { group in
                for i in 0..<8 { group.addTask { await ask(app, "Question \(i) about the wedding?") } }
                for await _ in group {}
            }
            let one = try await consent(app)
            #expect(one.state == .waiting && one.messages.filter { $0.content.contains("about the wedding?") }.count == 1)
            #expect(hosted.received.withLockedValue { $0 }.isEmpty)

            // A yes is for the address it was given to.
            _ = try await app.call(.POST, "/api/hosted/consent", json: HostedConsentAnswer(allow: true), token: testToken, as: HostedConsent.self)
            let elsewhere = HostedConsentStore(db: app.db, hosted: .init(url: "https://other.example/v1", model: "m", personal: true))
            #expect(try await elsewhere.current().state == .notAsked)
            #expect(try await elsewhere.allows([LLMMessage(role: .user, content: "x")], now: Date()) == false)
        }
    }

    @Test("Off: with notes kept from the hosted model (the default) nothing is held and there is nothing to answer")
    func offHoldsNothing() async throws {
        try await withHosted(personal: false) { app, hosted in
            try await app.note("Therapy session notes: talked about my sister", token: testToken)
            try await app.process()
            #expect(await ask(app, "What did I write about my sister?").hasPrefix("From your notes:"))
            let state = try await consent(app)
            #expect(state.state == .off && state.messages.isEmpty)
            let answer = try await app.send(.POST, "/api/hosted/consent", token: testToken, json: HostedConsentAnswer(allow: true))
            #expect(answer.status == .conflict)
            #expect(hosted.received.withLockedValue { $0 }.isEmpty)
            let (cookie, _) = try await SafeDefaultTests.browserCookies(app, token: testToken)
            let page = try await app.send(.GET, "/app/hosted", headers: ["Cookie": cookie])
            #expect(page.text.contains("SELENE_HOSTED_PERSONAL is off"))
        }
        try await withSelene { app, _ in
            let none: HostedConsent = try await app.call(.GET, "/api/hosted/consent")
            #expect(none == HostedConsent(state: .off))
        }
    }
}
