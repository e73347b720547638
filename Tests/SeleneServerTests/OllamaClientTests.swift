import AsyncHTTPClient
import Foundation
import NIOPosix
import OllamaStub
import SeleneShared
@testable import SeleneServer
import TestDatabases
import Testing

@Suite("The Ollama client against an Ollama-protocol server")
struct OllamaClientTests {
    func withClient(timeout: TimeInterval = 5, _ body: (OllamaClient, OllamaStub) async throws -> Void) async throws {
        try await withStub { stub in
            var settings = stubSettings(stub)
            settings.requestTimeout = timeout
            let http = OllamaClient.makeHTTPClient(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            do {
                try await body(OllamaClient(settings: settings, http: http), stub)
            } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test("Every request names its model and sends num_ctx and keep_alive; embed is one batched request")
    func requestShape() async throws {
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

    @Test("Health: up with both models; a missing model says which ollama pull to run")
    func health() async throws {
        try await withClient { client, stub in
            #expect(await client.health() == LLMHealth(available: true, chatModel: OllamaStub.chatModel, embeddingModel: OllamaStub.embeddingModel))
            stub.setFault(.modelMissing)
            let missing = await client.health()
            #expect(!missing.available && missing.reason?.contains("ollama pull \(OllamaStub.chatModel)") == true)
            await #expect { try await client.embed(["x"]) } throws: { ($0 as? LLMError) == .modelMissing(OllamaStub.embeddingModel) }
            #expect(LLMError.modelMissing("llama3.2").description.contains("run `ollama pull llama3.2`"))
            #expect(OllamaClient.has("llama3.2", in: ["llama3.2:latest"]) && !OllamaClient.has("llama3", in: ["llama3.2:latest"]))
        }
    }

    @Test("A streamed chat arrives in pieces and ends; a cut-off stream or an error line is an error")
    func streaming() async throws {
        try await withClient { client, stub in
            var pieces: [String] = []
            for try await piece in try await client.chatStream([LLMMessage(role: .user, content: "Summarise the conversation so far\nuser: one. two")]) { pieces.append(piece) }
            #expect(pieces.count > 2 && pieces.joined() == "Summarise the conversation so far. one.")
            stub.setFault(.cutStream, times: 1)
            await #expect { for try await _ in try await client.chatStream([LLMMessage(role: .user, content: "a b c d e f")]) {} } throws: { error in
                guard case .unavailable(let why)? = error as? LLMError else { return false }
                return why.contains("cut off")
            }
            stub.setFault(.streamError, times: 1)
            await #expect { for try await _ in try await client.generateStream("a b c d e f") {} } throws: { error in
                guard case .unavailable(let why)? = error as? LLMError else { return false }
                return why.contains("stub stream failure")
            }
            var again = ""
            for try await piece in try await client.generateStream("Write my morning briefing\n- first") { again += piece }
            #expect(again.hasPrefix("Good morning"))
        }
    }

    @Test("Faults: a 500 and a slow answer are 'unavailable'; so is nothing listening")
    func faults() async throws {
        try await withClient(timeout: 1) { client, stub in
            stub.setFault(.serverError, times: 1)
            await #expect { try await client.generate("x") } throws: { ($0 as? LLMError)?.isTransient == true && "\($0)".contains("500") }
            stub.setFault(.slow, times: 1, slowSeconds: 3)
            let started = Date()
            await #expect { try await client.embed(["x"]) } throws: { ($0 as? LLMError)?.isTransient == true }
            #expect(Date().timeIntervalSince(started) < 2.5)
            let recovered = try await client.embed(["x"])
            #expect(recovered.count == 1)
        }
        let http = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton))
        let port = try freeLoopbackPort()
        let down = OllamaClient(settings: SeleneConfig.Ollama(baseURL: "http://127.0.0.1:\(port)", requestTimeout: 2, connectTimeout: 1), http: http)
        await #expect { try await down.embed(["x"]) } throws: { ($0 as? LLMError)?.isTransient == true }
        #expect(await down.health().available == false)
        try await http.shutdown()
    }

    @Test("An invalid structured answer is asked for again, then reported as invalid")
    func invalidAnswers() async throws {
        try await withClient { client, stub in
            stub.setFault(.invalidJSON, times: 1)
            let analysis = try await client.structured(NoteAnalysis.self, system: "s", prompt: "Worried about the garden?")
            #expect(analysis.noteType == .question && analysis.sentiment == .negative)
            #expect(stub.requests.count == 2)
            stub.clearRequests()
            stub.setFault(.invalidJSON)
            await #expect { try await client.structured(NoteAnalysis.self, system: "s", prompt: "x") } throws: { error in
                guard case .invalidAnswer? = error as? LLMError else { return false }
                return !(error as! LLMError).isTransient
            }
            #expect(stub.requests.count == 2)
        }
    }

    @Test("Structured answers are validated: ranges, blanks, fences")
    func structuredValidation() throws {
        let good = #"{"concepts":[{"name":" soil ","confidence":0.9}],"primaryTheme":"garden","secondaryThemes":["", "food"],"sentiment":"positive","sentimentScore":0.5,"emotionalTone":"calm","energyLevel":"low","noteType":"idea","actionability":"someday"}"#
        let parsed = try NoteAnalysis.parse("```json\n" + good + "\n```")
        #expect(parsed.concepts == [Concept(name: "soil", confidence: 0.9)] && parsed.secondaryThemes == ["food"])
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "0.5", with: "1.5")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "\"garden\"", with: "\" \"")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse(good.replacingOccurrences(of: "idea", with: "poem")) }
        #expect(throws: InvalidAnswer.self) { try NoteAnalysis.parse("not json") }
        #expect(try ThreadNaming.parse(#"{"name":"\"Garden\"","summary":" Plans. "}"#) == ThreadNaming(name: "Garden", summary: "Plans."))
        #expect(throws: InvalidAnswer.self) { try ThreadNaming.parse(#"{"name":"two\nlines","summary":"x"}"#) }
    }
}
