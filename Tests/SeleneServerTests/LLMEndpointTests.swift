import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import VaporTesting

@Suite("/api/llm/* behind Selene's auth, and reindexing")
struct LLMEndpointTests {
    func lines(_ res: TestingHTTPResponse) throws -> [LLMStreamChunk] {
        try res.text.split(separator: "\n").map { try SeleneJSON.decode(LLMStreamChunk.self, from: Data($0.utf8)) }
    }

    @Test("generate (whole and streamed), embed, chat (streamed), health; the LLM failing is 502 or an error line")
    func proxy() async throws {
        try await withStub { stub in
            try await withSelene(tokens: [testToken], stub: stub) { app, _ in
                #expect(try await app.send(.POST, "/api/llm/generate", json: GenerateRequest(prompt: "x")).status == .unauthorized)
                let health: LLMHealth = try await app.call(.GET, "/api/llm/health", token: testToken)
                #expect(health.available && health.chatModel == OllamaStub.chatModel)
                let whole: GenerateResponse = try await app.call(.POST, "/api/llm/generate", json: GenerateRequest(prompt: "Write my morning briefing\n- tea"), token: testToken)
                #expect(whole.response.hasPrefix("Good morning") && whole.model == OllamaStub.chatModel)
                let streamed = try await app.send(.POST, "/api/llm/generate", token: testToken, json: GenerateRequest(prompt: "Write my morning briefing\n- tea", stream: true))
                #expect(streamed.status == .ok && streamed.headers.contentType?.description.contains("ndjson") == true)
                let chunks = try lines(streamed)
                #expect(chunks.count > 3 && chunks.last == LLMStreamChunk(done: true))
                #expect(chunks.compactMap(\.delta).joined() == whole.response)
                let embed: EmbedResponse = try await app.call(.POST, "/api/llm/embed", json: EmbedRequest(text: "garden"), token: testToken)
                #expect(embed.embedding == OllamaStub.embedding("garden") && embed.model == OllamaStub.embeddingModel)
                let chat = try await app.send(.POST, "/api/llm/chat", token: testToken,
                                              json: LLMChatRequest(messages: [LLMMessage(role: .system, content: "\(PromptMarkers.contextHeader)\n[1] Tomatoes: plant tomatoes (written 1 Jan 2026)"),
                                                                              LLMMessage(role: .user, content: "Question: when do I plant tomatoes?")]))
                let chatChunks = try lines(chat)
                #expect(chatChunks.compactMap(\.delta).joined() == "From your notes: Tomatoes [1].")
                #expect(stub.requests.last?.numCtx == 4096)

                stub.setFault(.serverError, times: 1)
                let failed = try await app.send(.POST, "/api/llm/generate", token: testToken, json: GenerateRequest(prompt: "x"))
                #expect(failed.status == .badGateway && failed.error?.error.contains("unavailable") == true)
                stub.setFault(.modelMissing, times: 1)
                let missing = try await app.send(.POST, "/api/llm/embed", token: testToken, json: EmbedRequest(text: "x"))
                #expect(missing.status == .serviceUnavailable && missing.error?.error.contains("ollama pull \(OllamaStub.embeddingModel)") == true)
                stub.setFault(.streamError, times: 1)
                let broken = try lines(try await app.send(.POST, "/api/llm/chat", token: testToken, json: LLMChatRequest(messages: [LLMMessage(role: .user, content: "a b c d e")])))
                #expect(broken.last?.done == true && broken.last?.error?.contains("stub stream failure") == true)
                let unknownModel = try await app.send(.POST, "/api/llm/generate", token: testToken, json: GenerateRequest(prompt: "x", model: "llama9"))
                #expect(unknownModel.status == .badRequest && unknownModel.error?.fields?["model"]?.contains("ollama pull llama9") == true)
                let unknownChat = try await app.send(.POST, "/api/llm/chat", token: testToken, json: LLMChatRequest(messages: [LLMMessage(role: .user, content: "x")], model: "llama9"))
                #expect(unknownChat.status == .badRequest && unknownChat.error?.fields?["model"] != nil)
                for (body, field) in [(#"{"prompt":""}"#, "prompt"), (#"{"prompt":"x","temperature":3}"#, "temperature"), (#"{"messages":[]}"#, "messages")] {
                    let path = body.contains("messages") ? "/api/llm/chat" : "/api/llm/generate"
                    let res = try await app.send(.POST, path, token: testToken, raw: body)
                    #expect(res.status == .badRequest && res.error?.fields?[field] != nil, "\(body)")
                }
            }
        }
    }

    @Test("Reindex: notes embedded by another model are embedded again, and the stored model says so")
    func reindex() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                for text in ThreadsAndBriefingTests.garden { try await app.note(text) }
                try await app.process()
                let sql = app.db as! any SQLDatabase
                try await sql.raw("UPDATE note_embeddings SET model = 'old-model' WHERE note_id IN (1, 2)").run()
                app.selene.vectors.removeAll()
                var seen: [(Int, Int)] = []
                let report = try await SeleneAdmin.reindex(app, all: false) { seen.append(($0, $1)) }
                #expect(report.embedded == 2 && report.threads == 1 && seen.last.map { $0 == (2, 2) } == true)
                let models = try await sql.raw("SELECT DISTINCT model FROM note_embeddings").all().map { try $0.decode(column: "model", as: String.self) }
                #expect(models == [OllamaStub.embeddingModel])
                #expect(try await SeleneAdmin.reindex(app, all: false) { _, _ in }.embedded == 0)
                #expect(try await SeleneAdmin.reindex(app, all: true) { _, _ in }.embedded == 3)
                #expect(app.selene.vectors.count == 3)
                let res: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "garden"))
                #expect(res.source == .hybrid && res.count == 3)
            }
        }
    }
}
