import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SeleneShared

/// Which protocol a model server speaks (`SELENE_LLM_PROVIDER`, `SELENE_EMBED_PROVIDER`).
public enum LLMProviderKind: String, Sendable, CaseIterable, Codable {
    /// Ollama's own API (`/api/chat`, `/api/embed`, `/api/tags`).
    case ollama
    /// Any OpenAI-compatible server: llama.cpp's llama-server, LM Studio, vLLM, LocalAI, Jan
    /// (`/v1/chat/completions`, `/v1/embeddings`, `/v1/models`).
    case openai

    /// How errors name the server.
    public var serverName: String {
        switch self {
        case .ollama: "Ollama"
        case .openai: "The OpenAI-compatible model server"
        }
    }
}

/// Why the LLM could not answer, in words the person can act on.
public enum LLMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `SELENE_LLM_URL=off`.
    case notConfigured
    /// Nothing answers at the server's address (refused, no route, no name): it is down.
    case unreachable(String, server: LLMProviderKind = .ollama)
    /// The server answered but too slowly, failed on its side, or cut an answer off: try again.
    case unavailable(String, server: LLMProviderKind = .ollama)
    /// The model isn't there (not pulled, not loaded).
    case modelMissing(String, server: LLMProviderKind = .ollama)
    /// The answer came but isn't what was asked for (after retries).
    case invalidAnswer(String)
    /// The server refused the request itself.
    case refused(String, server: LLMProviderKind = .ollama)
    /// The server wants a key, or another one (`SELENE_LLM_API_KEY`).
    case unauthorized(String, server: LLMProviderKind = .openai)
    /// The server can't embed at all (llama-server started without `--embeddings`).
    case embeddingsUnsupported(String, server: LLMProviderKind = .openai)

    public var description: String {
        switch self {
        case .notConfigured: "No LLM is configured (SELENE_LLM_URL is off)"
        case .unreachable(let why, let server): "\(server.serverName) is not reachable: \(why)"
        case .unavailable(let why, let server): "\(server.serverName) is unavailable: \(why)"
        case .modelMissing(let model, .ollama): "The model \(model) is not available in Ollama: run `ollama pull \(model)`"
        case .modelMissing(let model, _):
            "The model \(model) is not served by the OpenAI-compatible server: load it there (llama-server serves the model it was started with, see GET /v1/models), or set SELENE_CHAT_MODEL / SELENE_EMBED_MODEL to a model it lists"
        case .invalidAnswer(let why): "The LLM's answer was not usable: \(why)"
        case .refused(let why, let server): "\(server == .ollama ? "Ollama" : "The model server") refused the request: \(why)"
        case .unauthorized(let why, _): "The model server refused Selene's key (\(why)): set SELENE_LLM_API_KEY (or SELENE_EMBED_API_KEY) to the key the server expects"
        case .embeddingsUnsupported(let why, _):
            "The model server does not make embeddings (\(why)): start llama-server with --embeddings (and an embedding model), or point SELENE_EMBED_URL at a server that does"
        }
    }

    /// Whether waiting helps (the note isn't at fault).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .unavailable, .modelMissing, .notConfigured, .unauthorized, .embeddingsUnsupported: true
        case .invalidAnswer, .refused: false
        }
    }

    /// Whether the server as a whole can't serve (down, a model missing, a wrong key): the
    /// queue pauses and probes rather than spending a note's attempts.
    /// A kept-alive connection the server had closed: nothing was answered, the request may go again.
    var isStaleConnection: Bool {
        if case .unavailable(let why, _) = self { return why == LLMTransport.staleConnection || why == LLMTransport.closedMidAnswer }
        return false
    }

    public var isOutage: Bool {
        switch self {
        case .unreachable, .modelMissing, .notConfigured, .unauthorized, .embeddingsUnsupported: true
        case .unavailable, .invalidAnswer, .refused: false
        }
    }
}

/// A whole answer and whether the server stopped it at its token limit.
public struct LLMAnswer: Sendable, Hashable {
    public var text: String
    /// `finish_reason: length` / `done_reason: length`: the words end where the limit fell.
    public var truncated: Bool
    /// Tokens the model generated, when the server says (`usage`, `eval_count`).
    public var generatedTokens: Int?
    public init(text: String, truncated: Bool = false, generatedTokens: Int? = nil) {
        self.text = text
        self.truncated = truncated
        self.generatedTokens = generatedTokens
    }
}

/// One model server's protocol. One file per backend (`OllamaClient`, `OpenAICompatibleClient`);
/// everything else holds an `LLMClient`, never a backend.
public protocol LLMBackend: Sendable {
    var kind: LLMProviderKind { get }
    /// The server this backend talks to.
    var baseURL: String { get }
    /// The models the server lists.
    func models() async throws -> [String]
    /// Whether `model` is among `names` as this server spells them.
    func has(_ model: String, in names: [String]) -> Bool
    /// Embeddings of `inputs`, in order.
    func embed(_ inputs: [String], model: String) async throws -> [[Float]]
    /// A whole chat answer; with `schema`, JSON under that schema.
    func chat(_ messages: [LLMMessage], model: String, temperature: Double?, schema: JSONValue?) async throws -> LLMAnswer
    /// A chat answer as it is written. Errors before the first piece are thrown here.
    func chatStream(_ messages: [LLMMessage], model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error>
    /// A whole answer to one prompt.
    func generate(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> String
    /// The answer to one prompt as it is written.
    func generateStream(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error>
    /// How many tokens the server gives one request, when it says (nil: it takes what Selene sends).
    func contextWindow() async -> Int?
}

extension LLMBackend {
    public func contextWindow() async -> Int? { nil }

    public func generate(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> String {
        try await chat(LLMMessage.prompt(prompt, system: system), model: model, temperature: temperature, schema: nil).text
    }

    public func generateStream(_ prompt: String, system: String?, model: String, temperature: Double?) async throws -> AsyncThrowingStream<String, any Error> {
        try await chatStream(LLMMessage.prompt(prompt, system: system), model: model, temperature: temperature)
    }
}

/// The HTTP both backends share: one client with Selene's timeouts, a bearer key when set, whole
/// answers read up to a limit, streamed answers split into lines, and transport errors sorted
/// into "down" (unreachable) and "failed" (unavailable).
struct LLMTransport: Sendable {
    let http: OutboundClient
    let baseURL: String
    let apiKey: String?
    let requestTimeout: TimeInterval
    let server: LLMProviderKind

    /// The request and its body's length (for the outbound ledger).
    func request<B: Encodable>(_ method: HTTPMethod, _ path: String, body: B?) throws -> (HTTPClientRequest, Int) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let apiKey { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        var length = 0
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            let data = try SeleneJSON.encode(body)
            length = data.count
            request.body = .bytes(ByteBuffer(data: data))
        }
        return (request, length)
    }

    /// How the ledger names a request to `path` when its caller doesn't say: embeddings and
    /// model checks by their path (a check carries nothing of the notes); answers are `chat`
    /// unless the caller marked them (processing marks its own `analysis`).
    static func purpose(of path: String) -> (purpose: String?, noteDerived: Bool?) {
        if path.contains("embed") { return ("embed", true) }
        if ["/api/tags", "/api/show", "/api/version", "/models", "/props", "/health"].contains(where: { path.hasSuffix($0) }) { return ("model-check", false) }
        return (nil, nil)
    }

    /// A whole exchange: the status and the body.
    func send<B: Encodable>(_ method: HTTPMethod, _ path: String, body: B?, timeout: TimeInterval? = nil) async throws -> (HTTPResponseStatus, Data) {
        let (request, length) = try self.request(method, path, body: body)
        let kind = Self.purpose(of: path)
        return try await Self.once(retryingStaleConnection: true) {
            do {
                let response = try await http.execute(request, bytesOut: length, timeout: .milliseconds(Int64((timeout ?? requestTimeout) * 1000)),
                                                      purpose: kind.purpose, noteDerived: kind.noteDerived)
                let data = try await response.body.collect(upTo: 64 * 1024 * 1024)
                return (response.status, Data(buffer: data))
            } catch {
                throw transportError(error)
            }
        }
    }

    /// A kept-alive connection the server had already closed (Python's http.server, llama-server
    /// and some proxies close idle ones without a word) fails the next request on it: that request
    /// is sent once more, on a new connection (asking a model again has no side effects). Any
    /// other failure is the caller's to judge.
    static func once<T>(retryingStaleConnection: Bool, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as LLMError where retryingStaleConnection && error.isStaleConnection {
            return try await body()
        }
    }

    static let staleConnection = "the connection was closed before the request was answered"
    static let closedMidAnswer = "the server closed the connection mid-answer"

    /// Opens a streamed answer and waits for its head; a status other than 200 comes back with
    /// its body read, so the backend can say what went wrong before anything is passed on.
    func open<B: Encodable>(_ path: String, body: B) async throws -> (HTTPClientResponse, Data?) {
        let (request, length) = try self.request(.POST, path, body: body)
        return try await Self.once(retryingStaleConnection: true) {
            do {
                // The read timeout (between chunks) catches a stalled answer; the whole may take long.
                let response = try await http.execute(request, bytesOut: length, timeout: .seconds(Int64(max(requestTimeout * 10, 600))))
                guard response.status == .ok else { return (response, Data(buffer: try await response.body.collect(upTo: 1024 * 1024))) }
                return (response, nil)
            } catch {
                throw transportError(error)
            }
        }
    }

    /// The body's lines as they arrive, each handed to `handle` (which yields text, or says the
    /// answer ended); an answer whose end never came is an error, never a whole answer.
    func lines(of response: HTTPClientResponse, describeBadLine: String,
               handle: @escaping @Sendable (Data, AsyncThrowingStream<String, any Error>.Continuation) throws -> Bool) -> AsyncThrowingStream<String, any Error> {
        let server = self.server
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var pending = Data()
                    var finished = false
                    func take(_ line: Data) throws {
                        guard !finished, !line.allSatisfy({ $0 == 32 || $0 == 13 }) else { return }
                        if try handle(line, continuation) { finished = true }
                    }
                    for try await buffer in response.body {
                        pending.append(contentsOf: buffer.readableBytesView)
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = Data(pending[pending.startIndex..<newline])
                            pending = Data(pending[(newline + 1)...])
                            try take(line)
                        }
                    }
                    if !pending.isEmpty { try take(pending) }
                    guard finished else { throw LLMError.unavailable("the answer was cut off before it ended", server: server) }
                    continuation.finish()
                } catch let error as LLMError {
                    continuation.finish(throwing: error)
                } catch is DecodingError {
                    continuation.finish(throwing: LLMError.unavailable("the server sent a line that isn't JSON (\(describeBadLine))", server: server))
                } catch {
                    continuation.finish(throwing: transportError(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do { return try SeleneJSON.decode(T.self, from: data) } catch {
            throw LLMError.invalidAnswer("\(server.serverName)'s answer could not be read")
        }
    }

    func transportError(_ error: any Error) -> LLMError {
        if let llm = error as? LLMError { return llm }
        if error is CancellationError { return .unavailable("the request was cancelled", server: server) }
        if let channel = error as? ChannelError, channel == .ioOnClosedChannel || channel == .eof {
            return .unavailable(Self.staleConnection, server: server)
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return .unreachable("no connection in time", server: server)
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .unavailable("no answer in time (\(client))", server: server)
            case .remoteConnectionClosed: return .unavailable(Self.closedMidAnswer, server: server)
            default: return .unavailable("\(client)", server: server)
            }
        }
        let text = "\(error)"
        let lower = text.lowercased()
        if lower.contains("refused") { return .unreachable("nothing is listening at \(baseURL) (connection refused)", server: server) }
        if lower.contains("no route") || lower.contains("unreachable") || lower.contains("name resolution") || lower.contains("could not resolve") {
            return .unreachable("\(baseURL): \(text)", server: server)
        }
        return .unavailable(text, server: server)
    }

    /// An HTTP client with Selene's timeouts; shut it down with the application.
    static func makeHTTPClient(settings: SeleneConfig.LLM, eventLoopGroup: any EventLoopGroup) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .milliseconds(Int64(settings.connectTimeout * 1000)),
                                      read: .milliseconds(Int64(settings.requestTimeout * 1000)))
        configuration.decompression = .enabled(limit: .ratio(50))
        return Outbound.makeClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }
}
