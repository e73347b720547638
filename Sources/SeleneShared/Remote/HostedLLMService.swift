import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An optional hosted LLM behind an OpenAI-compatible chat completions API (`POST {base}/chat/completions`,
/// streamed as server-sent events, `GET {base}/models`), spoken through `OpenAIWire` — the same codec
/// as the server's own OpenAI-compatible backend. The base URL is given with or without its `/v1`.
/// Off by default, and only ever reached through `PrivacyRouter`.
public final class HostedLLMService: LLMProvider {
    /// Where the hosted model is and how to reach it.
    public struct Settings: Codable, Sendable, Hashable {
        public var baseURL: URL
        public var apiKey: String
        public var model: String
        public init(baseURL: URL, apiKey: String, model: String) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.model = model
        }
    }

    let settings: Settings
    let http: HTTPTransport

    public init(settings: Settings, timeout: TimeInterval = 120) {
        self.settings = settings
        let base = URL(string: OpenAIWire.apiBase(settings.baseURL.absoluteString)) ?? settings.baseURL
        http = HTTPTransport(settings: ServerSettings(url: base, token: settings.apiKey), timeout: timeout)
    }

    public func generate(_ prompt: String, system: String?, model: String?) async throws -> String {
        let data = try await http.send("POST", "/chat/completions",
                                       body: OpenAIWire.ChatBody(model: model ?? settings.model, messages: LLMMessage.prompt(prompt, system: system), stream: false))
        return try Self.wire { try OpenAIWire.completion(data) }.text
    }

    /// Embeddings never go to a hosted model: they must be the server's model's to compare.
    public func embed(_ text: String, model: String?) async throws -> [Float] {
        throw SeleneClientError.llmUnavailable("embeddings are made by your own Selene server only")
    }

    public func isAvailable() async -> Bool { (try? await http.send("GET", "/models")) != nil }

    public func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error> {
        let lines = try await http.lines("POST", "/chat/completions", body: OpenAIWire.ChatBody(model: model ?? settings.model, messages: messages, stream: true))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var ended = false
                    for try await line in lines {
                        switch try Self.wire({ try OpenAIWire.streamLine(line) }) {
                        case .done: ended = true
                        case .skip: continue
                        case .piece(let piece): continuation.yield(piece)
                        }
                        if ended { break }
                    }
                    guard ended else { throw SeleneClientError.llmUnavailable("the hosted answer was cut off") }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func wire<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as OpenAIWire.WireError {
            switch error {
            case .server(let message): throw SeleneClientError.llmUnavailable("the hosted model: \(message)")
            case .invalid(let why): throw SeleneClientError.invalidResponse(why)
            }
        }
    }
}

/// In front of an optional hosted model: it sends nothing of a note, a memory or a conversation
/// to the hosted model unless the person switched that on (`allowPersonalContent`); such a request
/// goes to the local LLM (through the person's own server). With the hosted model off (the
/// default) everything is local. Embeddings are always local.
public final class PrivacyRouter: LLMProvider {
    /// What the person allowed the hosted model to do.
    public struct Settings: Codable, Sendable, Hashable {
        /// Use the hosted model at all (off by default).
        public var hostedEnabled = false
        /// Let it see notes, memories and conversations (off by default).
        public var allowPersonalContent = false
        public init(hostedEnabled: Bool = false, allowPersonalContent: Bool = false) {
            self.hostedEnabled = hostedEnabled
            self.allowPersonalContent = allowPersonalContent
        }
    }

    /// Where one request went, and why.
    public enum Route: Sendable, Hashable {
        /// To the hosted model.
        case hosted
        /// Kept local: it carried notes, memories or a conversation, which may not go out.
        case keptPersonal
        /// Local: the hosted model is off.
        case local
    }

    public let local: any LLMProvider
    public let hosted: (any LLMProvider)?
    public let settings: Settings
    /// Told of every routing decision (a status page counts what went out).
    public let onRoute: (@Sendable (Route) -> Void)?
    /// Asked before anything personal goes out although `allowPersonalContent` lets it: given the
    /// exact messages the hosted model would receive, it answers whether the person said yes (the
    /// server keeps the first such request for them to read and decide). No: kept local.
    public let askFirst: (@Sendable ([LLMMessage]) async -> Bool)?

    public init(local: any LLMProvider, hosted: (any LLMProvider)?, settings: Settings = Settings(),
                askFirst: (@Sendable ([LLMMessage]) async -> Bool)? = nil, onRoute: (@Sendable (Route) -> Void)? = nil) {
        self.local = local
        self.hosted = hosted
        self.settings = settings
        self.askFirst = askFirst
        self.onRoute = onRoute
    }

    /// Whether text carries something personal: the markers every prompt with notes, memories,
    /// a conversation's summary or a transcript opens its sections with.
    public static func carriesPersonalContent(_ text: String) -> Bool {
        [PromptMarkers.contextHeader, PromptMarkers.memoriesHeader, PromptMarkers.memoryExtraction, PromptMarkers.compression,
         PromptMarkers.briefing, PromptMarkers.taskSuggestion, "Earlier in this conversation:"].contains { text.contains($0) }
    }

    /// What a chat's messages are judged by: their words, and a conversation's earlier turns are personal too.
    public static func texts(ofChat messages: [LLMMessage]) -> [String] {
        messages.map(\.content) + (messages.filter { $0.role != .system }.count > 1 ? [PromptMarkers.contextHeader] : [])
    }

    /// Where a request goes (without asking first: as `Settings` alone say).
    public func route(_ texts: [String]) -> any LLMProvider { chosen(texts, personalAllowed: settings.allowPersonalContent) }

    /// Where a request of `messages` goes, `askFirst` asked when something personal would go out.
    func route(_ messages: [LLMMessage], texts: [String]) async -> any LLMProvider {
        var allowed = settings.allowPersonalContent
        if allowed, settings.hostedEnabled, hosted != nil, let askFirst, texts.contains(where: Self.carriesPersonalContent) {
            allowed = await askFirst(messages)
        }
        return chosen(texts, personalAllowed: allowed)
    }

    private func chosen(_ texts: [String], personalAllowed: Bool) -> any LLMProvider {
        guard settings.hostedEnabled, let hosted else { onRoute?(.local); return local }
        if !personalAllowed, texts.contains(where: Self.carriesPersonalContent) { onRoute?(.keptPersonal); return local }
        onRoute?(.hosted)
        return hosted
    }

    public func generate(_ prompt: String, system: String?, model: String?) async throws -> String {
        try await route(LLMMessage.prompt(prompt, system: system), texts: [prompt, system ?? ""]).generate(prompt, system: system, model: model)
    }

    public func embed(_ text: String, model: String?) async throws -> [Float] { try await local.embed(text, model: model) }

    public func isAvailable() async -> Bool { await local.isAvailable() }

    public func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error> {
        try await route(messages, texts: Self.texts(ofChat: messages)).chat(messages, model: model)
    }
}
