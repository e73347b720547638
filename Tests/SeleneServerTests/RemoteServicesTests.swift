import Foundation
import NIOConcurrencyHelpers
import NIOCore
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import Vapor
import VaporTesting

@Suite("SeleneShared's Remote services and the privacy router over HTTP")
struct RemoteServicesTests {
    @Test("Every DataProvider operation reaches its endpoint and reads its answer")
    func contract() async throws {
        try await withLiveSelene { live in
            let data = live.data
            let garden = try await live.notes(ThreadsAndBriefingTests.garden)
            let created = try await data.createNote(NewNote(content: "I need to buy compost for the garden tomatoes bed soil", title: "Compost run", source: .cli))
            #expect(created.source == .cli && created.title == "Compost run")
            try await live.app.process()
            #expect(try await data.notes(limit: 2).map(\.id) == [created.id, garden[2].id])
            #expect(try await data.note(id: created.id).analysis?.actionability == .actionable)
            #expect(try await data.searchNotes("compost", limit: 10).count == 4)
            let retrieved = try await data.retrieveNotes("garden compost", limit: 3, noteType: nil, actionability: nil)
            #expect(retrieved.source == .hybrid && retrieved.count == 3)
            #expect(try await data.retrieveNotes("compost", limit: 5, noteType: .task, actionability: nil).results.map(\.note.id) == [created.id])
            #expect(try await data.recentNotes(days: 1, limit: 10).count == 4)
            #expect(try await data.notes(since: live.clock.now.addingTimeInterval(-60), limit: 10).count == 4)
            let related = try await data.relatedNotes(to: garden[0].id, limit: 3)
            #expect(related.noteId == garden[0].id && !related.results.isEmpty)
            let thread = try #require(try await data.activeThreads(limit: 10).first)
            #expect(try await data.threadAssignments(noteIds: [garden[0].id]).first?.threadId == thread.id)
            #expect(try await data.threadAssignments(noteIds: []).isEmpty)
            #expect(try await data.thread(id: thread.id).notes.count == 4)
            #expect(try await data.thread(named: "garden tom")?.thread.id == thread.id)
            #expect(try await data.thread(named: "nothing like it") == nil)
            let tasks = try await data.tasks(threadId: thread.id)
            #expect(tasks.map(\.title) == ["Buy compost for the garden tomatoes bed soil"])
            let added = try await data.addTask(threadId: thread.id, title: "Order seeds")
            #expect(try await data.setTask(id: added.id, status: .done).status == .done)

            let session = ChatSession(title: "Plans", createdAt: live.clock.now, updatedAt: live.clock.now)
            try await data.saveSession(session)
            try await data.pinSession(id: session.id, pinned: true)
            try await data.saveMessage(NewMessage(role: .user, content: "one"), sessionId: session.id)
            try await data.saveMessage(NewMessage(role: .assistant, content: "two"), sessionId: session.id)
            #expect(try await data.sessions().map(\.isPinned) == [true])
            #expect(try await data.recentMessages(sessionId: session.id, limit: 1).map(\.content) == ["two"])
            #expect(try await data.recentMessages(limit: 5).map(\.content) == ["one", "two"])

            let id = try await data.insertMemory(NewMemory(content: "Likes figs", type: .preference, confidence: 0.6, sourceSessionId: session.id))
            try await data.saveMemoryEmbedding(id: id, embedding: [0.5, 0.5])
            #expect(try await data.memoriesWithEmbeddings(limit: 5).first?.embedding == [0.5, 0.5])
            #expect(try await data.memories(limit: 5).first?.embedding == nil)
            #expect(try await data.updateMemory(id: id, MemoryUpdate(confidence: 0.9)).confidence == 0.9)
            try await data.touchMemories(ids: [id])
            try await data.touchMemories(ids: [])
            try await data.deleteMemory(id: id)
            #expect(try await data.memories(limit: 5).isEmpty)
            try await data.deleteSession(id: session.id)
            #expect(try await data.sessions().isEmpty)

            #expect(try await data.briefing().notes.count == 4)
            #expect(try await data.regenerateBriefing().author == .llm)
            #expect(try await data.briefingAssociations(minSimilarity: 0.1, recentDays: 7, limit: 5).allSatisfy { $0.threadA?.id != $0.threadB?.id })
            #expect(try await data.registerDevice(token: String(repeating: "ab", count: 32), platform: .ios).platform == .ios)
            #expect(await data.isAvailable())

            let llm = live.llm
            #expect(await llm.isAvailable())
            #expect(try await llm.embed("garden") == OllamaStub.embedding("garden"))
            #expect(try await llm.generate("Write my morning briefing\n- a", system: nil).hasPrefix("Good morning"))
            var pieces: [String] = []
            for try await piece in try await llm.chat([LLMMessage(role: .user, content: "Summarise the conversation so far\nuser: x")]) { pieces.append(piece) }
            #expect(pieces.count > 1)
        }
    }

    @Test("Failures arrive typed: signed out, wrong token, not found, bad input, LLM unavailable, unreachable")
    func errors() async throws {
        try await withLiveSelene { live in
            let noToken = RemoteDataService(settings: ServerSettings(url: live.url, token: nil))
            await #expect { try await noToken.notes(limit: 1) } throws: { ($0 as? SeleneClientError).map { if case .signedOut = $0 { true } else { false } } == true }
            let wrong = RemoteDataService(settings: ServerSettings(url: live.url, token: "nope-nope-nope-nope-nope-nope-nope-nope"))
            await #expect { try await wrong.notes(limit: 1) } throws: { ($0 as? SeleneClientError).map { if case .wrongToken = $0 { true } else { false } } == true }
            #expect(await !wrong.isAvailable())
            await #expect { try await live.data.note(id: 999) } throws: { ($0 as? SeleneClientError).map { if case .notFound = $0 { true } else { false } } == true }
            await #expect { try await live.data.createNote(NewNote(content: " ")) } throws: { error in
                guard case .server(400, _, let fields)? = error as? SeleneClientError else { return false }
                return fields["content"] != nil
            }
            live.stub.setFault(.serverError)
            await #expect { try await live.llm.generate("x", system: nil) } throws: { ($0 as? SeleneClientError).map { if case .llmUnavailable = $0 { true } else { false } } == true }
            await #expect { for try await _ in try await live.llm.chat([LLMMessage(role: .user, content: "x")]) {} } throws: {
                ($0 as? SeleneClientError).map { if case .llmUnavailable = $0 { true } else { false } } == true
            }
            live.stub.setFault(.cutStream)
            await #expect { for try await _ in try await live.llm.chat([LLMMessage(role: .user, content: "a b c d e")]) {} } throws: {
                "\($0)".contains("cut off") || "\($0)".contains("broke")
            }
            live.stub.setFault(.none)
            await live.stopServer()
            await #expect { try await live.data.notes(limit: 1) } throws: { ($0 as? SeleneClientError)?.isUnreachable == true }
        }
    }

    /// A server speaking the OpenAI-compatible chat completions API, recording what it was sent.
    final class HostedServer: @unchecked Sendable {
        let app: Application
        let received = NIOLockedValueBox<[String]>([])
        var url: URL { URL(string: "http://127.0.0.1:\(app.http.server.shared.localAddress!.port!)")! }

        init() async throws {
            app = try await Application.make(.testing)
            app.logger.logLevel = .error
            let received = self.received
            app.get("v1", "models") { req -> Response in
                guard req.headers.bearerAuthorization?.token == "hosted-key" else { return Response(status: .unauthorized) }
                return Response(status: .ok, body: .init(string: #"{"data":[{"id":"hosted-model"}]}"#))
            }
            app.post("v1", "chat", "completions") { req -> Response in
                guard req.headers.bearerAuthorization?.token == "hosted-key" else { return Response(status: .unauthorized) }
                struct Body: Decodable { var model: String; var messages: [[String: String]]; var stream: Bool }
                let body = try JSONDecoder().decode(Body.self, from: Data(buffer: req.body.data!))
                received.withLockedValue { $0.append(body.messages.map { $0["content"] ?? "" }.joined(separator: "\n")) }
                if !body.stream {
                    return Response(status: .ok, body: .init(string: #"{"choices":[{"message":{"role":"assistant","content":"hosted answer"}}]}"#))
                }
                let response = Response(status: .ok, headers: ["Content-Type": "text/event-stream"])
                response.body = .init(asyncStream: { writer in
                    for piece in ["hosted", " streamed", " answer"] {
                        try await writer.write(.buffer(ByteBuffer(string: "data: {\"choices\":[{\"delta\":{\"content\":\"\(piece)\"}}]}\n\n")))
                    }
                    try await writer.write(.buffer(ByteBuffer(string: "data: [DONE]\n\n")))
                    try await writer.write(.end)
                })
                return response
            }
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        }

        func stop() async {
            await app.server.shutdown()
            try? await app.asyncShutdown()
        }
    }

    @Test("The privacy router: off by default; when on, only what carries nothing personal goes to the hosted model")
    @MainActor
    func privacyRouter() async throws {
        let hosted = try await HostedServer()
        do {
            try await withLiveSelene { live in
                _ = try await live.notes(["Therapy session notes: talked about my sister"])
                let service = HostedLLMService(settings: .init(baseURL: hosted.url, apiKey: "hosted-key", model: "hosted-model"))
                #expect(await service.isAvailable())
                #expect(try await service.generate("What is the capital of Portugal?", system: nil, model: nil) == "hosted answer")
                var streamed = ""
                for try await piece in try await service.chat([LLMMessage(role: .user, content: "Hi")]) { streamed += piece }
                #expect(streamed == "hosted streamed answer")
                // A base URL that ends in /v1, as hosted APIs document theirs, means the same API.
                let v1 = HostedLLMService(settings: .init(baseURL: hosted.url.appendingPathComponent("v1"), apiKey: "hosted-key", model: "hosted-model"))
                #expect(await v1.isAvailable())
                #expect(try await v1.generate("Hello?", system: nil, model: nil) == "hosted answer")
                hosted.received.withLockedValue { $0 = [] }

                // Off by default: a chat about notes never leaves the machine.
                let off = ChatViewModel(data: live.data, llm: PrivacyRouter(local: live.llm, hosted: service), now: live.now)
                await off.ask("What did I write about my sister?")
                #expect(off.lastAnswer != nil && hosted.received.withLockedValue { $0 }.isEmpty)
                // On, but not for personal content: notes, memories and transcripts stay local too.
                let router = PrivacyRouter(local: live.llm, hosted: service, settings: .init(hostedEnabled: true))
                let on = ChatViewModel(data: live.data, llm: router, now: live.now)
                await on.ask("What did I write about my sister?")
                #expect(on.lastAnswer?.text.hasPrefix("From your notes") == true)
                #expect(hosted.received.withLockedValue { $0 }.allSatisfy { !$0.contains("Therapy") && !$0.contains("sister") })
                #expect(try await router.generate("What is the capital of Portugal?", system: nil, model: nil) == "hosted answer")
                #expect(hosted.received.withLockedValue { $0 }.last == "What is the capital of Portugal?")
                #expect(try await router.embed("garden", model: nil) == OllamaStub.embedding("garden"))
                // Allowed explicitly: then it may see notes.
                let all = PrivacyRouter(local: live.llm, hosted: service, settings: .init(hostedEnabled: true, allowPersonalContent: true))
                let open = ChatViewModel(data: live.data, llm: all, now: live.now)
                await open.ask("What did I write about my sister?")
                // The hosted answer cites no note, so Selene quotes the note about the question under it.
                #expect(open.lastAnswer?.text == "hosted streamed answer\n\nYour note says: “Therapy session notes: talked about my sister” [1]")
                #expect(open.lastAnswer?.seleneCitedNoteIds.count == 1)
                #expect(hosted.received.withLockedValue { $0 }.contains { $0.contains("Therapy session notes") })
            }
        } catch {
            await hosted.stop()
            throw error
        }
        await hosted.stop()
    }
}
