import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SeleneShared

/// Ollama's API: `/api/chat` (streamed NDJSON or whole), `/api/generate`, `/api/embed` (batched)
/// and `/api/tags`. Every request names its model, sends `num_ctx` (Ollama's default context is
/// small and cuts long prompts silently), `keep_alive`, and `num_predict` when a limit is set.
public struct OllamaClient: LLMBackend {
    public let settings: SeleneConfig.LLM
    let transport: LLMTransport

    public var kind: LLMProviderKind { .ollama }
    public var baseURL: String { transport.baseURL }

    /// `baseURL` and `apiKey` are this server's (the chat server's, or the embedding server's).
    public init(settings: SeleneConfig.LLM, baseURL: String? = nil, apiKey: String? = nil, http: HTTPClient, ledger: OutboundLedger? = nil) {
        self.settings = settings
        transport = LLMTransport(http: OutboundClient(http: http, ledger: ledger, purpose: "chat", noteDerived: true), baseURL: baseURL ?? settings.baseURL, apiKey: apiKey ?? settings.apiKey,
                                 requestTimeout: settings.requestTimeout, server: .ollama)
    }

    /// The models Ollama has pulled (`name` as Ollama lists it, e.g. `llama3.2:latest`).
    public func models() async throws -> [String] {
        struct Tags: Decodable { struct Model: Decodable { var name: String }; var models: [Model] }
        let (status, data) = try await transport.send(.GET, "/api/tags", body: Optional<String>.none, timeout: min(settings.requestTimeout, 10))
        try check(status: status, body: data, model: nil)
        return try transport.decode(Tags.self, data).models.map(\.name)
    }

    /// `llama3.2` is pulled as `llama3.2:latest`.
    public func has(_ model: String, in names: [String]) -> Bool {
        names.contains { $0 == model || $0 == model + ":latest" || (model.hasSuffix(":latest") && $0 == String(model.dropLast(7))) }
    }

    public func embed(_ inputs: [String], model: String) async throws -> [[Float]] {
        struct Body: Encodable {
            var model: String
            var input: [String]
            var keepAlive: String
            var options: Options
            var truncate = true
            enum CodingKeys: String, CodingKey { case model, input, keepAlive = "keep_alive", options, truncate }
        }
        struct Answer: Decodable { var embeddings: [[Float]] }
        let (status, data) = try await transport.send(.POST, "/api/embed", body: Body(model: model, input: inputs, keepAlive: settings.keepAlive,
                                                                                    options: Options(numCtx: settings.numCtx)))
        try check(status: status, body: data, model: model)
        return try transport.decode(Answer.self, data).embeddings
    }

    public func generate(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> String {
        let body = GenerateBody(model: model, prompt: prompt, system: system, stream: false, format: nil,
                                options: options(temperature), keepAlive: settings.keepAlive)
        let (status, data) = try await transport.send(.POST, "/api/generate", body: body)
        try check(status: status, body: data, model: model)
        struct Answer: Decodable { var response: String }
        return try transport.decode(Answer.self, data).response
    }

    public func generateStream(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error> {
        let body = GenerateBody(model: model, prompt: prompt, system: system, stream: true, format: nil,
                                options: options(temperature), keepAlive: settings.keepAlive)
        return try await stream("/api/generate", body: body, model: model) { line in
            struct Line: Decodable { var response: String?; var done: Bool?; var error: String? }
            let parsed = try SeleneJSON.decode(Line.self, from: line)
            return (parsed.response, parsed.done ?? false, parsed.error)
        }
    }

    public func chat(_ messages: [LLMMessage], model: String, temperature: Double?, schema: JSONValue?) async throws -> LLMAnswer {
        let body = ChatBody(model: model, messages: messages.map(ChatBody.Message.init), stream: false, format: schema,
                            options: options(temperature, repeatPenalty: schema == nil ? nil : settings.repeatPenalty), keepAlive: settings.keepAlive)
        let (status, data) = try await transport.send(.POST, "/api/chat", body: body)
        try check(status: status, body: data, model: model)
        struct Answer: Decodable {
            struct Message: Decodable { var content: String }
            var message: Message
            var done_reason: String?
            var eval_count: Int?
        }
        let answer = try transport.decode(Answer.self, data)
        return LLMAnswer(text: answer.message.content, truncated: answer.done_reason == "length", generatedTokens: answer.eval_count)
    }

    /// An `{"error": …}` line (Ollama keeps status 200 for errors during a stream) or an answer
    /// without its final `done` line ends the stream with an error.
    public func chatStream(_ messages: [LLMMessage], model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error> {
        let body = ChatBody(model: model, messages: messages.map(ChatBody.Message.init), stream: true, format: nil,
                            options: options(temperature), keepAlive: settings.keepAlive)
        return try await stream("/api/chat", body: body, model: model) { line in
            struct Line: Decodable { struct Message: Decodable { var content: String? }; var message: Message?; var done: Bool?; var error: String? }
            let parsed = try SeleneJSON.decode(Line.self, from: line)
            return (parsed.message?.content, parsed.done ?? false, parsed.error)
        }
    }

    // MARK: Transport

    private func options(_ temperature: Double?, repeatPenalty: Double? = nil) -> Options {
        Options(numCtx: settings.numCtx, temperature: temperature, numPredict: settings.maxTokens, stop: TemplateTokens.stopSequences,
                repeatPenalty: repeatPenalty)
    }

    struct Options: Encodable {
        var numCtx: Int
        var temperature: Double?
        var numPredict: Int?
        /// Turn markers: the answer ends where the model starts another turn.
        var stop: [String]?
        var repeatPenalty: Double?
        enum CodingKeys: String, CodingKey { case numCtx = "num_ctx", temperature, numPredict = "num_predict", stop, repeatPenalty = "repeat_penalty" }
    }

    struct GenerateBody: Encodable {
        var model: String
        var prompt: String
        var system: String?
        var stream: Bool
        var format: JSONValue?
        var options: Options
        var keepAlive: String
        enum CodingKeys: String, CodingKey { case model, prompt, system, stream, format, options, keepAlive = "keep_alive" }
    }

    struct ChatBody: Encodable {
        struct Message: Encodable {
            var role: String
            var content: String
            init(_ m: LLMMessage) { role = m.role.rawValue; content = m.content }
        }
        var model: String
        var messages: [Message]
        var stream: Bool
        var format: JSONValue?
        var options: Options
        var keepAlive: String
        enum CodingKeys: String, CodingKey { case model, messages, stream, format, options, keepAlive = "keep_alive" }
    }

    /// Opens a streamed answer (a missing model or a refusal is thrown before anything is passed
    /// on), then yields the text as it comes.
    private func stream<B: Encodable>(_ path: String, body: B, model: String,
                                      parse: @escaping @Sendable (Data) throws -> (String?, Bool, String?)) async throws -> AsyncThrowingStream<String, any Error> {
        let (response, failure) = try await transport.open(path, body: body)
        if let failure { try check(status: response.status, body: failure, model: model) }
        return transport.lines(of: response, describeBadLine: "Ollama streams NDJSON") { line, continuation in
            let (text, done, error) = try parse(line)
            if let error { throw LLMError.unavailable("the answer stopped: \(error)") }
            if let text, !text.isEmpty { continuation.yield(text) }
            return done
        }
    }

    private func check(status: HTTPResponseStatus, body: Data, model: String?) throws {
        guard status != .ok else { return }
        struct Failure: Decodable { var error: String }
        let message = (try? SeleneJSON.decode(Failure.self, from: body).error) ?? "HTTP \(status.code)"
        if status == .notFound, let model, message.lowercased().contains("not found") {
            throw LLMError.modelMissing(model)
        }
        if status == .unauthorized || status == .forbidden { throw LLMError.unauthorized("HTTP \(status.code)", server: .ollama) }
        if status.code >= 500 || status == .tooManyRequests || status == .requestTimeout {
            throw LLMError.unavailable("\(message) (HTTP \(status.code))")
        }
        throw LLMError.refused("\(message) (HTTP \(status.code))")
    }
}
