import AsyncHTTPClient
import Foundation
import NIOPosix
import OllamaStub
import SeleneShared
import ServerCommon
@testable import SeleneServer
import TestDatabases
import Testing

@Suite("The LLM client against Ollama- and OpenAI-protocol servers")
struct LLMClientTests {
    /// The client's timeout: 30 s, which a loaded machine can't reach by accident (5 s was, by a health
    /// check at the start of a full run); a test of timeouts passes its own.
    func withClient(_ provider: LLMProviderKind = .ollama, timeout: TimeInterval = 30, adjust: (inout SeleneConfig.LLM) -> Void = { _ in },
                    _ body: (LLMClient, OllamaStub) async throws -> Void) async throws {
        try await withStub { stub in
            var settings = stubSettings(stub, provider: provider)
            settings.requestTimeout = timeout
            adjust(&settings)
            let http = LLMClient.makeHTTPClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            try await withClosing(http, close: { try await $0.shutdown() }) { try await body(LLMClient(settings: settings, http: $0), stub) }
        }
    }

    @Test("Ollama: every request names its model and sends num_ctx and keep_alive; embed is one batched request")
    func ollamaRequestShape() async throws {
        try await withClient { client, stub in
            let vectors = try await client.embed(["one text", "another text", "one text"])
            #expect(vectors.count == 3 && vectors[0] == vectors[2] && vectors[0] != vectors[1] && vectors[0].count == OllamaStub.dimension)
            _ = try await client.generate("Say hello")
            _ = try await client.chat([LLMMessage(role: .user, content: "hello")])
            _ = try await client.structured(NoteAnalysis.self, system: "s", prompt: "A garden note")
            let requests = stub.requests
            #expect(requests.map(\.path) == ["/api/embed", "/api/generate", "/api/chat", "/api/chat"])
            #expect(requests[0].inputs == 3)
            #expect(requests.allSatisfy { $0.numCtx == 4096 && $0.keepAlive == "10m" })
            #expect(requests.map(\.model) == [OllamaStub.embeddingModel, OllamaStub.chatModel, OllamaStub.chatModel, OllamaStub.chatModel])
            #expect(requests.map(\.hasFormat) == [false, false, false, true])
            #expect(requests.dropFirst().allSatisfy { !$0.stream })
        }
    }

    @Test("OpenAI-compatible: /v1 once, the key as Bearer, embeddings put back in input order, a schema as response_format")
    func openAIRequestShape() async throws {
        #expect(OpenAICompatibleClient.apiBase("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1")
        #expect(OpenAICompatibleClient.apiBase("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/v1")
        #expect(OpenAICompatibleClient.apiBase("http://h:1234/v1") == "http://h:1234/v1")
        try await withClient(.openai, adjust: { $0.apiKey = "local-key-123" }) { client, stub in
            stub.openAI = .init(requiredKey: "local-key-123")
            let texts = ["one text", "another text", "a third text"]
            let vectors = try await client.embed(texts)
            #expect(vectors == texts.map { OllamaStub.embedding($0) })
            _ = try await client.generate("Say hello")
            let analysis = try await client.structured(NoteAnalysis.self, system: "s", prompt: "Worried about the garden?")
            #expect(analysis.noteType == .question)
            #expect(stub.requests.map(\.path) == ["/v1/embeddings", "/v1/chat/completions", "/v1/chat/completions"])
            #expect(stub.requests.map(\.hasFormat) == [false, false, true])
            #expect(await client.health().available && client.chatBackend.kind == .openai)
        }
    }

    @Test("Health says which backend serves, and a missing model what to do", arguments: LLMProviderKind.allCases)
    func health(provider: LLMProviderKind) async throws {
        try await withClient(provider) { client, stub in
            let up = await client.health()
            #expect(up.available && up.chatModel == OllamaStub.chatModel && up.embeddingModel == OllamaStub.embeddingModel)
            #expect(up.provider == provider.rawValue && up.url == client.chatBackend.baseURL && up.embeddingProvider == provider.rawValue)
            stub.setFault(.modelMissing)
            let missing = await client.health()
            #expect(!missing.available)
            if provider == .ollama {
                #expect(missing.reason?.contains("ollama pull \(OllamaStub.chatModel)") == true)
                #expect(LLMError.modelMissing("llama3.2").description.contains("run `ollama pull llama3.2`"))
                #expect(client.chatBackend.has("llama3.2", in: ["llama3.2:latest"]) && !client.chatBackend.has("llama3", in: ["llama3.2:latest"]))
            } else {
                #expect(missing.reason?.contains("GET /v1/models") == true)
                #expect(client.chatBackend.has("gemma", in: ["/models/gemma.gguf"]))
            }
            await #expect { try await client.embed(["x"]) } throws: { ($0 as? LLMError) == .modelMissing(OllamaStub.embeddingModel, server: provider) }
            stub.setFault(.none)
            // A model the request names that the server doesn't list (llama-server would answer anyway).
            await #expect { try await client.generate("x", model: "llama9") } throws: { ($0 as? LLMError) == .modelMissing("llama9", server: provider) }
        }
    }

    @Test("A streamed chat arrives in pieces and ends; a cut-off stream or an error is an error", arguments: LLMProviderKind.allCases)
    func streaming(provider: LLMProviderKind) async throws {
        try await withClient(provider) { client, stub in
            var pieces: [String] = []
            for try await piece in try await client.chatStream([LLMMessage(role: .user, content: "Summarise the conversation so far\nuser: one. two")]) { pieces.append(piece) }
            #expect(pieces.count > 2 && pieces.joined() == "Summarise the conversation so far. one.")
            stub.setFault(.cutStream, times: 1)
            await #expect { for try await _ in try await client.chatStream([LLMMessage(role: .user, content: "a b c d e f")]) {} } throws: { error in
                guard case .unavailable(let why, _)? = error as? LLMError else { return false }
                return why.contains("cut off")
            }
            stub.setFault(.streamError, times: 1)
            await #expect { for try await _ in try await client.generateStream("a b c d e f") {} } throws: { error in
                guard case .unavailable(let why, _)? = error as? LLMError else { return false }
                return why.contains("stub stream failure")
            }
            var again = ""
            for try await piece in try await client.generateStream("Write my morning briefing\n- first") { again += piece }
            #expect(again.hasPrefix("Good morning"))
        }
    }

    @Test("Faults: a 500 and a slow answer are 'unavailable'; nothing listening is 'unreachable'", arguments: LLMProviderKind.allCases)
    func faults(provider: LLMProviderKind) async throws {
        // A timeout a loaded machine can't reach by accident (a 1 s one did, answering the 500 late,
        // with a model server and PostgreSQL beside it).
        try await withClient(provider, timeout: 5) { client, stub in
            stub.setFault(.serverError, times: 1)
            await #expect { try await client.generate("x") } throws: { ($0 as? LLMError)?.isTransient == true && "\($0)".contains("500") }
            // The answer would come after 12 s and succeed: only the client's 5 s timeout makes this throw.
            stub.setFault(.slow, times: 1, slowSeconds: 12)
            await #expect { try await client.embed(["x"]) } throws: { ($0 as? LLMError)?.isTransient == true && ($0 as? LLMError)?.isOutage == false }
            let recovered = try await client.embed(["x"])
            #expect(recovered.count == 1)
        }
        let http = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton))
        let port = try freeLoopbackPort()
        let down = LLMClient(settings: SeleneConfig.LLM(provider: provider, baseURL: "http://127.0.0.1:\(port)", requestTimeout: 2, connectTimeout: 1), http: http)
        await #expect { try await down.embed(["x"]) } throws: { error in
            guard case .unreachable(let why, let server)? = error as? LLMError else { return false }
            return why.contains("connection refused") && server == provider && (error as! LLMError).isOutage
        }
        #expect(await down.health().available == false)
        try await http.shutdown()
    }

    @Test("An invalid structured answer is asked for again, then reported as invalid", arguments: LLMProviderKind.allCases)
    func invalidAnswers(provider: LLMProviderKind) async throws {
        try await withClient(provider) { client, stub in
            stub.setFault(.invalidJSON, times: 1)
            let analysis = try await client.structured(NoteAnalysis.self, system: "s", prompt: "Worried about the garden?")
            #expect(analysis.noteType == .question && analysis.sentiment == .negative)
            #expect(stub.requests.count == 2)
            // Greedy first; the retry samples, or a deterministic server would answer the same again.
            #expect(stub.requests.map(\.temperature) == [0, 0.4])
            stub.clearRequests()
            stub.setFault(.invalidJSON)
            await #expect { try await client.structured(NoteAnalysis.self, system: "s", prompt: "x") } throws: { error in
                guard case .invalidAnswer? = error as? LLMError else { return false }
                return !(error as! LLMError).isTransient
            }
            #expect(stub.requests.count == 2)
        }
    }

    @Test("An answer cut at the token limit is asked again, then refused saying so: never taken as whole", arguments: LLMProviderKind.allCases)
    func truncatedAnswers(provider: LLMProviderKind) async throws {
        try await withClient(provider, adjust: { $0.maxTokens = 3 }) { client, stub in
            await #expect { try await client.structured(NoteAnalysis.self, system: "s", prompt: "A long garden note about soil") } throws: { error in
                guard case .invalidAnswer(let why)? = error as? LLMError else { return false }
                return why.contains("cut off at the token limit (SELENE_MAX_TOKENS=3)") && why.contains("2 tries")
            }
            #expect(stub.requests.count == 2)
        }
    }

    @Test("Structured answers go with a repetition penalty (1.1 unless set; off sends none), chat answers without", arguments: LLMProviderKind.allCases)
    func repeatPenalty(provider: LLMProviderKind) async throws {
        try await withClient(provider) { client, stub in
            _ = try await client.structured(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: "Worried about the garden?")
            _ = try await client.chat([LLMMessage(role: .user, content: "What about the garden?")])
            for try await _ in try await client.chatStream([LLMMessage(role: .user, content: "And the soil?")]) {}
            #expect(stub.requests.map(\.repeatPenalty) == [1.1, nil, nil])
        }
        try await withClient(provider, adjust: { $0.repeatPenalty = nil }) { client, stub in
            _ = try await client.structured(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: "Worried about the garden?")
            #expect(stub.requests.map(\.repeatPenalty) == [nil])
        }
        func penalty(_ env: [String: String]) throws -> Double? { try SeleneConfig.fromEnvironment(env).llm?.repeatPenalty }
        #expect(try penalty(["SELENE_REPEAT_PENALTY": "off"]) == nil)
        #expect(try penalty(["SELENE_REPEAT_PENALTY": "1.3"]) == 1.3)
        #expect(try penalty([:]) == 1.1)
        #expect { try penalty(["SELENE_REPEAT_PENALTY": "0.5"]) } throws: { "\($0)".contains("SELENE_REPEAT_PENALTY must be a number from 1 to 2, or off") }
    }

    @Test("OpenAI-compatible: a server that refuses repeat_penalty is asked again without it, and not sent it again")
    func penaltyRefused() async throws {
        try await withClient(.openai) { client, stub in
            stub.openAI = .init(refusePenalty: true)
            let analysis = try await client.structured(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: "Worried about the garden?")
            #expect(analysis.noteType == .question)
            #expect(stub.requests.map(\.repeatPenalty) == [1.1, nil])
            stub.clearRequests()
            _ = try await client.structured(ThreadNaming.self, system: ProcessingPrompts.threadSystem, prompt: "1. Soil: compost soil")
            #expect(stub.requests.map(\.repeatPenalty) == [nil], "the refusal is remembered")
        }
    }

    @Test("OpenAI-compatible: a server that refuses json_schema is asked for json_object with the schema in the prompt")
    func schemaFallback() async throws {
        try await withClient(.openai) { client, stub in
            stub.openAI = .init(refuseSchemas: true)
            let analysis = try await client.structured(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: "Worried about the garden?")
            #expect(analysis.noteType == .question)
            #expect(stub.requests.count == 2 && stub.requests[1].prompt.contains(PromptMarkers.jsonSchema))
            stub.clearRequests()
            let naming = try await client.structured(ThreadNaming.self, system: ProcessingPrompts.threadSystem, prompt: "1. Soil: compost soil")
            #expect(!naming.name.isEmpty && stub.requests.count == 1, "the refusal is remembered")
        }
    }

    @Test("OpenAI-compatible: a wrong key and a server without embeddings say how to fix them")
    func openAIErrors() async throws {
        try await withClient(.openai, adjust: { $0.apiKey = "wrong" }) { client, stub in
            stub.openAI = .init(requiredKey: "right-key")
            await #expect { try await client.generate("x") } throws: { ($0 as? LLMError).map { "\($0)".contains("SELENE_LLM_API_KEY") && $0.isOutage } == true }
            #expect(await client.health().reason?.contains("SELENE_LLM_API_KEY") == true)
            stub.openAI = .init(embeddingsOff: true)
            await #expect { try await client.embed(["x"]) } throws: { error in
                guard case .embeddingsUnsupported? = error as? LLMError else { return false }
                return "\(error)".contains("--embeddings")
            }
            #expect(await client.health().embeddings?.contains("keyword-only") == true)
        }
    }

    @Test("Structured answers are validated: ranges, blanks, fences")
    func structuredValidation() throws {
        let good = #"{"concepts":[{"name":" soil ","confidence":0.9}],"primaryTheme":"garden","secondaryThemes":["", "food"],"sentiment":"positive","sentimentScore":0.5,"emotionalTone":"calm","energyLevel":"low","noteType":"idea","actionability":"someday"}"#
        let parsed = try NoteAnalysis.parse("```json\n" + good + "\n```")
        #expect(parsed.concepts == [Concept(name: "soil", confidence: 0.9)] && parsed.secondaryThemes == ["food"])
        // Numbers out of range are clamped (a small model's confidence of 85 or 1e15), not refused.
        let wild = try NoteAnalysis.parse(good.replacingOccurrences(of: "0.5", with: "1.5").replacingOccurrences(of: "0.9", with: "1000000000000000"))
        #expect(wild.sentimentScore == 1 && wild.concepts == [Concept(name: "soil", confidence: 1)])
        #expect(try NoteAnalysis.parse(good.replacingOccurrences(of: "0.5", with: "-3").replacingOccurrences(of: "0.9", with: "-0.2")).sentimentScore == -1)
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "0.5", with: "\"high\"")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "\"garden\"", with: "\" \"")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "idea", with: "poem")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse("not json") }
        #expect(try ThreadNaming.parse(#"{"name":"\"Garden\"","summary":" Plans. "}"#) == ThreadNaming(name: "Garden", summary: "Plans."))
        #expect(throws: InvalidAnswer.self) { try ThreadNaming.parse(#"{"name":"two\nlines","summary":"x"}"#) }
    }
}
