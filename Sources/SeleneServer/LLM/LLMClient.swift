import AsyncHTTPClient
import Foundation
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import SeleneShared

/// The one LLM interface the rest of the server holds: the queue, chat, the briefing, retrieval
/// and the `/api/llm` routes never know which protocol answers. Chat and embeddings may come from
/// two servers (llama-server serves one model per process), each behind its own backend. Every
/// rule that isn't a protocol's lives here once: default models, structured answers asked again
/// until valid, a cut-off answer never taken as whole, a model the request names checked against
/// the server's list, and the health the status page shows.
public final class LLMClient: Sendable {
    public let settings: SeleneConfig.LLM
    public let chatBackend: any LLMBackend
    public let embedBackend: any LLMBackend
    /// What the last embedding request learned about the embedding server (nil: fine or unknown).
    private let embeddingProblem = NIOLockedValueBox<String?>(nil)
    /// What the chat server said one request may hold (nil inside: it says nothing; unset: not asked yet).
    private let serverContext = NIOLockedValueBox<Int??>(nil)

    public init(settings: SeleneConfig.LLM, chat: any LLMBackend, embed: (any LLMBackend)? = nil) {
        self.settings = settings
        chatBackend = chat
        embedBackend = embed ?? chat
    }

    /// The backends `settings` name, over one HTTP client.
    public convenience init(settings: SeleneConfig.LLM, http: HTTPClient, ledger: OutboundLedger? = nil) {
        func backend(_ kind: LLMProviderKind, _ url: String, _ key: String?) -> any LLMBackend {
            switch kind {
            case .ollama: OllamaClient(settings: settings, baseURL: url, apiKey: key, http: http, ledger: ledger)
            case .openai: OpenAICompatibleClient(settings: settings, baseURL: url, apiKey: key, http: http, ledger: ledger)
            }
        }
        let chat = backend(settings.provider, settings.baseURL, settings.apiKey)
        let embed = settings.embedding.map { backend($0.provider, $0.baseURL, $0.apiKey) }
        self.init(settings: settings, chat: chat, embed: embed)
    }

    public static func makeHTTPClient(settings: SeleneConfig.LLM, eventLoopGroup: any EventLoopGroup) -> HTTPClient {
        LLMTransport.makeHTTPClient(settings: settings, eventLoopGroup: eventLoopGroup)
    }

    /// The tokens a prompt and its answer may take: `SELENE_NUM_CTX`, or less when the chat
    /// server gives one request less (llama-server with several slots). Asked once, when the
    /// server first answers.
    public func contextTokens() async -> Int {
        if let known = serverContext.withLockedValue({ $0 }) { return min(settings.numCtx, known ?? .max) }
        let window = await chatBackend.contextWindow()
        // Remembered once the server has answered (a server that is down says nothing yet).
        var answered = window != nil
        if !answered { answered = (try? await chatBackend.models()) != nil }
        if answered { serverContext.withLockedValue { $0 = .some(window) } }
        return min(settings.numCtx, window ?? .max)
    }

    // MARK: Health

    /// The chat server's model list (a cheap probe of whether it answers).
    public func models() async throws -> [String] { try await chatBackend.models() }

    /// Whether both servers answer and list their models, and which backends serve.
    public func health() async -> LLMHealth {
        var health = LLMHealth(available: true, chatModel: settings.chatModel, embeddingModel: settings.embeddingModel,
                               provider: chatBackend.kind.rawValue, url: chatBackend.baseURL,
                               embeddingProvider: embedBackend.kind.rawValue, embeddingURL: embedBackend.baseURL)
        do {
            try await requireModel(settings.chatModel, on: chatBackend)
            try await requireModel(settings.embeddingModel, on: embedBackend)
        } catch {
            health.available = false
            health.reason = (error as? LLMError)?.description ?? "\(error)"
        }
        if let problem = embeddingProblem.withLockedValue({ $0 }) {
            health.embeddings = "Search is keyword-only: \(problem)"
        }
        return health
    }

    /// Throws `.modelMissing` unless `backend` lists `model`.
    private func requireModel(_ model: String, on backend: any LLMBackend) async throws {
        let names = try await backend.models()
        guard backend.has(model, in: names) else { throw LLMError.modelMissing(model, server: backend.kind) }
    }

    /// A model a request names must be one the server has. Ollama says so itself (404); an
    /// OpenAI-compatible server like llama-server answers with whatever it loaded, so it is
    /// checked against its list first.
    private func checked(_ requested: String?, default fallback: String, on backend: any LLMBackend) async throws -> String {
        guard let requested, requested != fallback else { return fallback }
        if backend.kind == .openai { try await requireModel(requested, on: backend) }
        return requested
    }

    // MARK: Operations

    /// Records a model call's latency (`selene_llm_request_duration_seconds`, by operation,
    /// backend and whether it answered). A streamed answer is timed to its first byte elsewhere.
    private func timed<T>(_ operation: String, on backend: any LLMBackend, _ body: () async throws -> T) async throws -> T {
        let started = DispatchTime.now().uptimeNanoseconds
        var outcome = "ok"
        defer {
            Metrics.Timer(label: "selene_llm_request_duration_seconds",
                          dimensions: [("operation", operation), ("provider", backend.kind.rawValue), ("outcome", outcome)],
                          preferredDisplayUnit: .seconds)
                .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        }
        do { return try await body() } catch { outcome = "error"; throw error }
    }

    /// Embeddings of `inputs`, one request for all of them, in order; each finite and of one size.
    public func embed(_ inputs: [String], model: String? = nil) async throws -> [[Float]] {
        guard !inputs.isEmpty else { return [] }
        let name = try await checked(model, default: settings.embeddingModel, on: embedBackend)
        do {
            let vectors = try await timed("embed", on: embedBackend) { try await embedBackend.embed(inputs, model: name) }
            guard vectors.count == inputs.count, let first = vectors.first, !first.isEmpty,
                  vectors.allSatisfy({ $0.count == first.count && $0.allSatisfy(\.isFinite) }) else {
                throw LLMError.invalidAnswer("the server answered \(vectors.count) embeddings for \(inputs.count) texts")
            }
            embeddingProblem.withLockedValue { $0 = nil }
            return vectors
        } catch let error as LLMError {
            if case .embeddingsUnsupported = error { embeddingProblem.withLockedValue { $0 = error.description } }
            throw error
        }
    }

    // Every text a model writes passes `TemplateTokens` here, whichever backend answered: its
    // template tokens never go further, and how many were taken out is counted
    // (`selene_llm_template_tokens_removed_total`, by operation). Without a temperature of its
    // own, a request is sent with `settings.chatTemperature`.

    static func countRemoved(_ removed: Int, operation: String) {
        guard removed > 0 else { return }
        Counter(label: "selene_llm_template_tokens_removed_total", dimensions: [("operation", operation)]).increment(by: Int64(removed))
    }

    static func cleaned(_ text: String, operation: String) -> String {
        let (clean, removed) = TemplateTokens.clean(text)
        countRemoved(removed, operation: operation)
        return clean
    }

    /// A streamed answer, cleaned as it arrives.
    static func cleaned(_ stream: AsyncThrowingStream<String, any Error>, operation: String) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var filter = TemplateTokens.StreamFilter()
                do {
                    for try await piece in stream {
                        let out = filter.feed(piece)
                        if !out.isEmpty { continuation.yield(out) }
                        if filter.ended { break }
                    }
                    let rest = filter.finish()
                    if !rest.isEmpty { continuation.yield(rest) }
                    countRemoved(filter.removed, operation: operation)
                    continuation.finish()
                } catch {
                    countRemoved(filter.removed, operation: operation)
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func generate(_ prompt: String, system: String? = nil, model: String? = nil, temperature: Double? = nil) async throws -> String {
        let name = try await checked(model, default: settings.chatModel, on: chatBackend)
        let text = try await timed("generate", on: chatBackend) {
            try await chatBackend.generate(prompt, system: system, model: name, temperature: temperature ?? settings.chatTemperature)
        }
        return Self.cleaned(text, operation: "generate")
    }

    public func generateStream(_ prompt: String, system: String? = nil, model: String? = nil,
                               temperature: Double? = nil) async throws -> AsyncThrowingStream<String, any Error> {
        let name = try await checked(model, default: settings.chatModel, on: chatBackend)
        let stream = try await timed("stream_open", on: chatBackend) {
            try await chatBackend.generateStream(prompt, system: system, model: name, temperature: temperature ?? settings.chatTemperature)
        }
        return Self.cleaned(stream, operation: "generate_stream")
    }

    public func chat(_ messages: [LLMMessage], model: String? = nil, temperature: Double? = nil) async throws -> LLMAnswer {
        let name = try await checked(model, default: settings.chatModel, on: chatBackend)
        var answer = try await timed("chat", on: chatBackend) {
            try await chatBackend.chat(messages, model: name, temperature: temperature ?? settings.chatTemperature, schema: nil)
        }
        answer.text = Self.cleaned(answer.text, operation: "chat")
        return answer
    }

    public func chatStream(_ messages: [LLMMessage], model: String? = nil, temperature: Double? = nil) async throws -> AsyncThrowingStream<String, any Error> {
        let name = try await checked(model, default: settings.chatModel, on: chatBackend)
        let stream = try await timed("stream_open", on: chatBackend) {
            try await chatBackend.chatStream(messages, model: name, temperature: temperature ?? settings.chatTemperature)
        }
        return Self.cleaned(stream, operation: "chat_stream")
    }

    /// A structured answer: asked under its JSON schema, parsed and validated. An answer that is
    /// invalid, or cut off at the token limit, is asked for again up to `structuredRetries`
    /// times, then `.invalidAnswer` says what was wrong with the last one: never a default.
    /// - Parameter check: what the caller knows that the schema doesn't (the note an analysis is
    ///   of); an `InvalidAnswer` it throws is asked for again like any other.
    public func structured<T: StructuredAnswer>(_ type: T.Type, system: String, prompt: String, model: String? = nil,
                                                check: (T) throws -> T = { $0 }) async throws -> T {
        try await structuredWithStats(type, system: system, prompt: prompt, model: model, check: check).value
    }

    /// What the model reads in a note (concepts, themes, sentiment, its type, the people and
    /// places it names) as processing asks for it, checked for instructions the note itself didn't
    /// contain. A note with no name in it (`ProperNames`) isn't asked for people and places (#85);
    /// one with names is asked for them among its names (`NoteAnalysis.schema(naming:)`).
    /// The queue and `selene-bench`'s model-read facts ask the same way.
    public func analyse(title: String?, content: String) async throws -> NoteAnalysis {
        try await analyseWithStats(title: title, content: content).value
    }

    /// `analyse`, and how many tries it took and the tokens the model wrote (the llm benchmark).
    public func analyseWithStats(title: String?, content: String, numCtx: Int? = nil) async throws -> (value: NoteAnalysis, tries: Int, tokens: Int?) {
        let numCtx = if let numCtx { numCtx } else { await contextTokens() }
        let text = [title ?? "", content].joined(separator: "\n")
        let prompt = ProcessingPrompts.analysis(title: title, content: content, numCtx: numCtx)
        let names = ProperNames.candidates(in: text).map(\.name)
        guard !names.isEmpty else {
            let answer = try await structuredWithStats(AnalysisWithoutNames.self, system: ProcessingPrompts.analysisSystem(askingNames: false), prompt: prompt,
                                                       check: { AnalysisWithoutNames(value: try $0.value.withoutInstructionWords(note: text)) })
            return (answer.value.value, answer.tries, answer.tokens)
        }
        // The people and places among the note's own names (`NoteAnalysis.schema(naming:)`).
        return try await structuredWithStats(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: prompt,
                                             schema: NoteAnalysis.schema(naming: names), check: { try $0.withoutInstructionWords(note: text) })
    }

    /// The first try is greedy (temperature 0); asking a deterministic server again the same way
    /// would get the same answer back, so each retry samples a little more freely.
    static func structuredTemperature(attempt: Int) -> Double { attempt <= 1 ? 0 : min(0.4 * Double(attempt - 1), 1) }

    /// `structured`, and how many tries it took (the llm benchmark's "valid at the first try").
    /// - Parameter schema: the answer's schema for this question, when it narrows `T.jsonSchema` (an enum of the note's names).
    public func structuredWithStats<T: StructuredAnswer>(_ type: T.Type, system: String, prompt: String, model: String? = nil, schema: JSONValue? = nil,
                                                         check: (T) throws -> T = { $0 }) async throws -> (value: T, tries: Int, tokens: Int?) {
        let name = try await checked(model, default: settings.chatModel, on: chatBackend)
        var lastProblem = ""
        for attempt in 1...(settings.structuredRetries + 1) {
            let answer = try await timed("structured", on: chatBackend) {
                try await chatBackend.chat(LLMMessage.prompt(prompt, system: system), model: name, temperature: Self.structuredTemperature(attempt: attempt), schema: schema ?? T.jsonSchema)
            }
            if answer.truncated {
                lastProblem = "the answer was cut off at the token limit\(settings.maxTokens.map { " (SELENE_MAX_TOKENS=\($0))" } ?? "") before its JSON ended"
                continue
            }
            do {
                return (try check(T.parse(Self.cleaned(answer.text, operation: "structured"))), attempt, answer.generatedTokens)
            } catch let invalid as InvalidAnswer {
                lastProblem = invalid.description
            }
        }
        throw LLMError.invalidAnswer("\(lastProblem) (\(settings.structuredRetries + 1) tries)")
    }
}
