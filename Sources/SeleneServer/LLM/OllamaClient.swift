import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SeleneShared

/// Why the LLM could not answer, in words the person can act on.
public enum LLMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `SELENE_OLLAMA_URL=off`.
    case notConfigured
    /// Ollama isn't there, is too slow, failed on its side, or cut an answer off: try again later.
    case unavailable(String)
    /// The model isn't pulled.
    case modelMissing(String)
    /// The answer came but isn't what was asked for (after retries).
    case invalidAnswer(String)
    /// Ollama refused the request itself.
    case refused(String)

    public var description: String {
        switch self {
        case .notConfigured: "No LLM is configured (SELENE_OLLAMA_URL is off)"
        case .unavailable(let why): "Ollama is unavailable: \(why)"
        case .modelMissing(let model): "The model \(model) is not available in Ollama: run `ollama pull \(model)`"
        case .invalidAnswer(let why): "The LLM's answer was not usable: \(why)"
        case .refused(let why): "Ollama refused the request: \(why)"
        }
    }

    /// Whether waiting helps (the note isn't at fault).
    public var isTransient: Bool {
        switch self {
        case .unavailable, .modelMissing, .notConfigured: true
        case .invalidAnswer, .refused: false
        }
    }
}

/// Selene's one Ollama client: `/api/chat` (streamed NDJSON or whole), `/api/generate`,
/// `/api/embed` (batched) and `/api/tags`. Every request names its model, sends `num_ctx`
/// (Ollama's default context is small and cuts long prompts silently) and `keep_alive`.
public final class OllamaClient: Sendable {
    public let settings: SeleneConfig.Ollama
    private let http: HTTPClient

    public init(settings: SeleneConfig.Ollama, http: HTTPClient) {
        self.settings = settings
        self.http = http
    }

    /// An HTTP client with Selene's timeouts; shut it down with the application.
    public static func makeHTTPClient(settings: SeleneConfig.Ollama, eventLoopGroup: any EventLoopGroup) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .milliseconds(Int64(settings.connectTimeout * 1000)),
                                      read: .milliseconds(Int64(settings.requestTimeout * 1000)))
        configuration.decompression = .enabled(limit: .ratio(50))
        return HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
    }

    // MARK: Operations

    /// The models Ollama has pulled (`name` as Ollama lists it, e.g. `llama3.2:latest`).
    public func models() async throws -> [String] {
        struct Tags: Decodable { struct Model: Decodable { var name: String }; var models: [Model] }
        let data = try await send("GET", "/api/tags", body: Optional<String>.none, timeout: min(settings.requestTimeout, 10))
        return try decodeAnswer(Tags.self, data).models.map(\.name)
    }

    /// Whether Ollama answers and has both models.
    public func health() async -> LLMHealth {
        do {
            let names = try await models()
            for model in [settings.chatModel, settings.embeddingModel] where !Self.has(model, in: names) {
                return LLMHealth(available: false, chatModel: settings.chatModel, embeddingModel: settings.embeddingModel,
                                 reason: LLMError.modelMissing(model).description)
            }
            return LLMHealth(available: true, chatModel: settings.chatModel, embeddingModel: settings.embeddingModel)
        } catch {
            return LLMHealth(available: false, chatModel: settings.chatModel, embeddingModel: settings.embeddingModel,
                             reason: (error as? LLMError)?.description ?? "\(error)")
        }
    }

    /// `llama3.2` is pulled as `llama3.2:latest`.
    static func has(_ model: String, in names: [String]) -> Bool {
        names.contains { $0 == model || $0 == model + ":latest" || (model.hasSuffix(":latest") && $0 == String(model.dropLast(7))) }
    }

    /// Embeddings of `inputs`, one request for all of them, in order.
    public func embed(_ inputs: [String], model: String? = nil) async throws -> [[Float]] {
        guard !inputs.isEmpty else { return [] }
        struct Body: Encodable {
            var model: String
            var input: [String]
            var keepAlive: String
            var options: Options
            var truncate = true
            enum CodingKeys: String, CodingKey { case model, input, keepAlive = "keep_alive", options, truncate }
        }
        struct Answer: Decodable { var embeddings: [[Float]] }
        let name = model ?? settings.embeddingModel
        let data = try await send("POST", "/api/embed", body: Body(model: name, input: inputs, keepAlive: settings.keepAlive,
                                                                      options: Options(numCtx: settings.numCtx)),
                                  model: name)
        let answer = try decodeAnswer(Answer.self, data)
        guard answer.embeddings.count == inputs.count, let first = answer.embeddings.first, !first.isEmpty,
              answer.embeddings.allSatisfy({ $0.count == first.count && $0.allSatisfy(\.isFinite) }) else {
            throw LLMError.invalidAnswer("Ollama answered \(answer.embeddings.count) embeddings for \(inputs.count) texts")
        }
        return answer.embeddings
    }

    /// A whole answer to a prompt (`/api/generate`).
    public func generate(_ prompt: String, system: String? = nil, model: String? = nil, temperature: Double? = nil,
                         format: JSONValue? = nil) async throws -> String {
        let name = model ?? settings.chatModel
        let data = try await send("POST", "/api/generate",
                                  body: GenerateBody(model: name, prompt: prompt, system: system, stream: false, format: format,
                                                     options: Options(numCtx: settings.numCtx, temperature: temperature),
                                                     keepAlive: settings.keepAlive),
                                  model: name)
        struct Answer: Decodable { var response: String }
        return try decodeAnswer(Answer.self, data).response
    }

    /// The answer to a prompt as it is written (`/api/generate`, streamed).
    public func generateStream(_ prompt: String, system: String? = nil, model: String? = nil,
                               temperature: Double? = nil) async throws -> AsyncThrowingStream<String, any Error> {
        let name = model ?? settings.chatModel
        let body = GenerateBody(model: name, prompt: prompt, system: system, stream: true, format: nil,
                                options: Options(numCtx: settings.numCtx, temperature: temperature), keepAlive: settings.keepAlive)
        return try await stream("/api/generate", body: body, model: name) { line in
            struct Line: Decodable { var response: String?; var done: Bool?; var error: String? }
            let parsed = try SeleneJSON.decode(Line.self, from: line)
            return (parsed.response, parsed.done ?? false, parsed.error)
        }
    }

    /// A whole chat answer (`/api/chat`), optionally as JSON under `format`.
    public func chat(_ messages: [LLMMessage], model: String? = nil, temperature: Double? = nil,
                     format: JSONValue? = nil) async throws -> String {
        let name = model ?? settings.chatModel
        let data = try await send("POST", "/api/chat",
                                  body: ChatBody(model: name, messages: messages.map(ChatBody.Message.init), stream: false,
                                                 format: format, options: Options(numCtx: settings.numCtx, temperature: temperature),
                                                 keepAlive: settings.keepAlive),
                                  model: name)
        struct Answer: Decodable { struct Message: Decodable { var content: String }; var message: Message }
        return try decodeAnswer(Answer.self, data).message.content
    }

    /// A chat answer as it is written (`/api/chat`, streamed NDJSON). An `{"error": …}` line
    /// (Ollama keeps status 200 for errors during a stream) or an answer without its final
    /// `done` line ends the stream with an error.
    public func chatStream(_ messages: [LLMMessage], model: String? = nil, temperature: Double? = nil) async throws -> AsyncThrowingStream<String, any Error> {
        let name = model ?? settings.chatModel
        let body = ChatBody(model: name, messages: messages.map(ChatBody.Message.init), stream: true, format: nil,
                            options: Options(numCtx: settings.numCtx, temperature: temperature), keepAlive: settings.keepAlive)
        return try await stream("/api/chat", body: body, model: name) { line in
            struct Line: Decodable { struct Message: Decodable { var content: String? }; var message: Message?; var done: Bool?; var error: String? }
            let parsed = try SeleneJSON.decode(Line.self, from: line)
            return (parsed.message?.content, parsed.done ?? false, parsed.error)
        }
    }

    /// A structured answer: asked with its JSON schema as `format`, parsed and validated; an
    /// invalid answer is asked for again up to `structuredRetries` times, then `.invalidAnswer`.
    public func structured<T: StructuredAnswer>(_ type: T.Type, system: String, prompt: String, model: String? = nil) async throws -> T {
        var lastProblem = ""
        for _ in 0...settings.structuredRetries {
            let text = try await chat([LLMMessage(role: .system, content: system), LLMMessage(role: .user, content: prompt)],
                                      model: model, temperature: 0, format: T.jsonSchema)
            do {
                return try T.parse(text)
            } catch let invalid as InvalidAnswer {
                lastProblem = invalid.description
            }
        }
        throw LLMError.invalidAnswer(lastProblem)
    }

    // MARK: Transport

    struct Options: Encodable {
        var numCtx: Int
        var temperature: Double?
        enum CodingKeys: String, CodingKey { case numCtx = "num_ctx", temperature }
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

    private func request<B: Encodable>(_ method: HTTPMethod, _ path: String, body: B?) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(url: settings.baseURL + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try SeleneJSON.encode(body)))
        }
        return request
    }

    private func send<B: Encodable>(_ method: String, _ path: String, body: B?, model: String? = nil,
                                    timeout: TimeInterval? = nil) async throws -> Data {
        let request = try self.request(HTTPMethod(rawValue: method), path, body: body)
        let response: HTTPClientResponse
        let data: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .milliseconds(Int64((timeout ?? settings.requestTimeout) * 1000)))
            data = try await response.body.collect(upTo: 64 * 1024 * 1024)
        } catch {
            throw Self.transportError(error)
        }
        try Self.check(status: response.status, body: Data(buffer: data), model: model)
        return Data(buffer: data)
    }

    /// Opens a streamed answer: waits for Ollama's response head (so a missing model or a
    /// refusal is thrown here, before anything is passed on), then yields the text as it comes.
    private func stream<B: Encodable>(_ path: String, body: B, model: String,
                                      parse: @escaping @Sendable (Data) throws -> (String?, Bool, String?)) async throws -> AsyncThrowingStream<String, any Error> {
        let request = try self.request(.POST, path, body: body)
        let response: HTTPClientResponse
        do {
            // The read timeout (between chunks) catches a stalled answer; the whole may take long.
            response = try await http.execute(request, timeout: .seconds(Int64(max(settings.requestTimeout * 10, 600))))
        } catch {
            throw Self.transportError(error)
        }
        if response.status != .ok {
            let data: ByteBuffer
            do { data = try await response.body.collect(upTo: 1024 * 1024) } catch { throw Self.transportError(error) }
            try Self.check(status: response.status, body: Data(buffer: data), model: model)
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var pending = Data()
                    var finished = false
                    func handle(_ line: Data) throws {
                        guard !line.allSatisfy({ $0 == 32 || $0 == 13 }) else { return }
                        let (text, done, error) = try parse(line)
                        if let error { throw LLMError.unavailable("the answer stopped: \(error)") }
                        if let text, !text.isEmpty { continuation.yield(text) }
                        if done { finished = true }
                    }
                    for try await buffer in response.body {
                        pending.append(contentsOf: buffer.readableBytesView)
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = Data(pending[pending.startIndex..<newline])
                            pending = Data(pending[(newline + 1)...])
                            try handle(line)
                        }
                    }
                    if !pending.isEmpty { try handle(pending) }
                    guard finished else { throw LLMError.unavailable("the answer was cut off before it ended") }
                    continuation.finish()
                } catch let error as LLMError {
                    continuation.finish(throwing: error)
                } catch is DecodingError {
                    continuation.finish(throwing: LLMError.unavailable("Ollama sent a line that isn't JSON"))
                } catch {
                    continuation.finish(throwing: Self.transportError(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func check(status: HTTPResponseStatus, body: Data, model: String?) throws {
        guard status != .ok else { return }
        struct Failure: Decodable { var error: String }
        let message = (try? SeleneJSON.decode(Failure.self, from: body).error) ?? "HTTP \(status.code)"
        if status == .notFound, let model, message.lowercased().contains("not found") {
            throw LLMError.modelMissing(model)
        }
        if status.code >= 500 || status == .tooManyRequests || status == .requestTimeout {
            throw LLMError.unavailable("\(message) (HTTP \(status.code))")
        }
        throw LLMError.refused("\(message) (HTTP \(status.code))")
    }

    private func decodeAnswer<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try SeleneJSON.decode(T.self, from: data) } catch {
            throw LLMError.invalidAnswer("Ollama's answer could not be read")
        }
    }

    static func transportError(_ error: any Error) -> LLMError {
        if let llm = error as? LLMError { return llm }
        if error is CancellationError { return .unavailable("the request was cancelled") }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return .unavailable("no answer in time (\(client))")
            default:
                return .unavailable("\(client)")
            }
        }
        let text = "\(error)"
        if text.lowercased().contains("refused") { return .unavailable("nothing is listening (connection refused)") }
        return .unavailable(text)
    }
}
