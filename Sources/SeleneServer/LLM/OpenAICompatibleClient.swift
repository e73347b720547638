import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SeleneShared

/// The OpenAI protocol as local servers speak it (llama.cpp's llama-server, LM Studio, vLLM,
/// LocalAI, Jan; SELENE.md §11): `GET /v1/models`, `POST /v1/chat/completions` whole or streamed
/// as server-sent events ending in `data: [DONE]`, structured answers through
/// `response_format: json_schema` (or `json_object` where a server refuses schemas, the answer
/// validated either way), and `POST /v1/embeddings`. `baseURL` ends in `/v1` by convention;
/// it is given with or without it and `/v1` is added once.
public struct OpenAICompatibleClient: LLMBackend {
    public let settings: SeleneConfig.LLM
    let transport: LLMTransport
    /// Set once a server refused `json_schema`: later structured requests ask for `json_object`.
    private let schemasRefused = NIOLockedValueBox(false)
    private let penaltyRefused = NIOLockedValueBox(false)

    public var kind: LLMProviderKind { .openai }
    public var baseURL: String { transport.baseURL }

    public init(settings: SeleneConfig.LLM, baseURL: String? = nil, apiKey: String? = nil, http: HTTPClient, ledger: OutboundLedger? = nil) {
        self.settings = settings
        transport = LLMTransport(http: OutboundClient(http: http, ledger: ledger, purpose: "chat", noteDerived: true), baseURL: Self.apiBase(baseURL ?? settings.baseURL), apiKey: apiKey ?? settings.apiKey,
                                 requestTimeout: settings.requestTimeout, server: .openai)
    }

    public static func apiBase(_ url: String) -> String { OpenAIWire.apiBase(url) }

    public func models() async throws -> [String] {
        let (status, data) = try await transport.send(.GET, "/models", body: Optional<String>.none, timeout: min(settings.requestTimeout, 10))
        try check(status: status, body: data, model: nil)
        return try Self.wire { try OpenAIWire.modelIDs(data) }
    }

    public func has(_ model: String, in names: [String]) -> Bool { OpenAIWire.lists(model, in: names) }

    /// llama-server splits its context (`-c`) over its slots (`--parallel`) and says what one
    /// request gets at `GET /props` (`default_generation_settings.n_ctx`, beside the `/v1` API).
    /// Other servers don't have it: nil.
    public func contextWindow() async -> Int? {
        struct Props: Decodable { struct Settings: Decodable { var n_ctx: Int? }; var default_generation_settings: Settings? }
        var root = baseURL
        if root.hasSuffix("/v1") { root.removeLast(3) }
        let probe = LLMTransport(http: transport.http, baseURL: root, apiKey: transport.apiKey, requestTimeout: transport.requestTimeout, server: .openai)
        guard let (status, data) = try? await probe.send(.GET, "/props", body: Optional<String>.none, timeout: min(settings.requestTimeout, 10)),
              status == .ok, let props = try? JSONDecoder().decode(Props.self, from: data),
              let n = props.default_generation_settings?.n_ctx, n > 0 else { return nil }
        return n
    }

    public func embed(_ inputs: [String], model: String) async throws -> [[Float]] {
        struct Body: Encodable { var model: String; var input: [String]; var encoding_format = "float" }
        struct Answer: Decodable { struct Item: Decodable { var index: Int?; var embedding: [Float] }; var data: [Item] }
        let (status, data) = try await transport.send(.POST, "/embeddings", body: Body(model: model, input: inputs))
        try check(status: status, body: data, model: model, embedding: true)
        let items = try transport.decode(Answer.self, data).data
        // `data[i].index` says which input an embedding belongs to; order by it when given.
        if items.allSatisfy({ $0.index != nil }) {
            let sorted = items.sorted { $0.index! < $1.index! }
            guard sorted.map(\.index!) == Array(0..<sorted.count) else {
                throw LLMError.invalidAnswer("the embeddings' indexes are not 0…\(sorted.count - 1)")
            }
            return sorted.map(\.embedding)
        }
        return items.map(\.embedding)
    }

    public func chat(_ messages: [LLMMessage], model: String, temperature: Double?, schema: JSONValue?) async throws -> LLMAnswer {
        guard let schema else { return try await complete(messages, model: model, temperature: temperature, format: nil) }
        if schemasRefused.withLockedValue({ $0 }) {
            return try await complete(messages, model: model, temperature: temperature, format: .jsonObject(schema))
        }
        do {
            return try await complete(messages, model: model, temperature: temperature, format: .jsonSchema(schema))
        } catch LLMError.refused(let why, _) where Self.refusesSchema(why) {
            // An older server: ask for any JSON object (the schema in the prompt) and validate it ourselves.
            schemasRefused.withLockedValue { $0 = true }
            return try await complete(messages, model: model, temperature: temperature, format: .jsonObject(schema))
        }
    }

    private func complete(_ messages: [LLMMessage], model: String, temperature: Double?, format: OpenAIWire.ResponseFormat?) async throws -> LLMAnswer {
        // A structured answer goes with the repetition penalty, unless this server refused it once.
        let penalty = format == nil || penaltyRefused.withLockedValue({ $0 }) ? nil : settings.repeatPenalty
        let body = OpenAIWire.ChatBody(model: model, messages: messages, stream: false, temperature: temperature,
                                       maxTokens: settings.maxTokens, responseFormat: format, repeatPenalty: penalty)
        let (status, data) = try await transport.send(.POST, "/chat/completions", body: body)
        if penalty != nil, (400..<500).contains(Int(status.code)), String(decoding: data, as: UTF8.self).contains("repeat_penalty") {
            // A server that takes only OpenAI's own fields: the same request without it, from now on.
            penaltyRefused.withLockedValue { $0 = true }
            return try await complete(messages, model: model, temperature: temperature, format: format)
        }
        try check(status: status, body: data, model: model)
        let answer = try Self.wire { try OpenAIWire.completion(data) }
        return LLMAnswer(text: answer.text, truncated: answer.truncated, generatedTokens: answer.generatedTokens)
    }

    /// Server-sent events: `data: {…}` chunks carry `choices[0].delta.content`; `data: [DONE]`
    /// ends the answer. Comments (`:`) keep the connection alive; a last chunk may carry only
    /// `usage`. An `error` (as an event or inside a chunk) ends the stream with that error.
    public func chatStream(_ messages: [LLMMessage], model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error> {
        let body = OpenAIWire.ChatBody(model: model, messages: messages, stream: true, temperature: temperature, maxTokens: settings.maxTokens)
        let (response, failure) = try await transport.open("/chat/completions", body: body)
        if let failure { try check(status: response.status, body: failure, model: model) }
        return transport.lines(of: response, describeBadLine: "OpenAI-compatible servers stream `data: {json}` events") { line, continuation in
            switch try Self.wire({ try OpenAIWire.streamLine(line) }, stopped: true) {
            case .done: return true
            case .skip: return false
            case .piece(let piece): continuation.yield(piece); return false
            }
        }
    }

    /// The codec's errors as the server's: a server's own error message is an outage of the
    /// answer (retried), an answer of the wrong shape is invalid.
    private static func wire<T>(_ body: () throws -> T, stopped: Bool = false) throws -> T {
        do { return try body() } catch let error as OpenAIWire.WireError {
            switch error {
            case .server(let message): throw LLMError.unavailable(stopped ? "the answer stopped: \(message)" : message, server: .openai)
            case .invalid(let why): throw stopped ? LLMError.unavailable(why, server: .openai) : LLMError.invalidAnswer(why)
            }
        }
    }

    // MARK: Errors

    /// A 400 about the response format (not about the prompt): the server can't do schemas.
    static func refusesSchema(_ message: String) -> Bool {
        let lower = message.lowercased()
        return lower.contains("response_format") || lower.contains("json_schema") || lower.contains("schema")
    }

    private func check(status: HTTPResponseStatus, body: Data, model: String?, embedding: Bool = false) throws {
        guard status != .ok else { return }
        let message = OpenAIWire.errorMessage(body) ?? (String(data: body.prefix(300), encoding: .utf8).flatMap { $0.isEmpty ? nil : $0 } ?? "no message")
        let lower = message.lowercased()
        let described = "\(message) (HTTP \(status.code))"
        if status == .unauthorized || status == .forbidden { throw LLMError.unauthorized(described, server: .openai) }
        if embedding, status == .notImplemented || lower.contains("--embedding") || lower.contains("does not support embedding") {
            throw LLMError.embeddingsUnsupported(described, server: .openai)
        }
        if let model, status == .notFound || lower.contains("model"), lower.contains("not found") || lower.contains("does not exist") || lower.contains("not loaded") {
            throw LLMError.modelMissing(model, server: .openai)
        }
        if status == .notFound, model == nil {
            throw LLMError.refused("\(baseURL) has no such endpoint (\(described)): is SELENE_LLM_URL an OpenAI-compatible server's address?", server: .openai)
        }
        if status.code >= 500 || status == .tooManyRequests || status == .requestTimeout {
            throw LLMError.unavailable(described, server: .openai)
        }
        throw LLMError.refused(described, server: .openai)
    }
}
