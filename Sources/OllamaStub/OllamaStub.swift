import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SeleneShared
import Vapor

/// A server speaking Ollama's HTTP API (`/api/tags`, `/api/embed`, `/api/embeddings`,
/// `/api/generate`, `/api/chat`, streamed NDJSON or whole) on loopback, with deterministic answers
/// and faults on demand. Nothing in it needs a model:
/// - embeddings hash a text's content words into a fixed number of dimensions (texts sharing
///   words are similar, the same text always gets the same vector);
/// - a request with a JSON schema (`format`) gets JSON valid for it: a note's analysis is read off
///   its words (themes by frequency, sentiment from a small lexicon, type from its markers);
/// - chat answers cite the context notes that share words with the question, summaries keep each
///   message's first sentence, memory extraction picks "I prefer…/I am…" sentences.
/// The same answers and faults also come over the OpenAI protocol local servers speak
/// (`/v1/models`, `/v1/chat/completions` whole or as server-sent events, `/v1/embeddings`), with
/// that protocol's own ways to fail: a key required, `json_schema` refused (as older servers do),
/// no embeddings (llama-server without `--embeddings`: 501), answers cut at `max_tokens`.
/// Faults: slow answers, 500s, streams cut off or ending in an error line, invalid JSON, a
/// missing model; and it can be stopped (down) and started again on the same port.
public final class OllamaStub: Sendable {
    public enum Fault: String, Sendable, Codable, CaseIterable {
        case none, slow, serverError, cutStream, streamError, invalidJSON, modelMissing
        /// A plain-text answer of words of no note or question, as a small model writes a story of its own.
        case invented
    }

    /// What `.invented` answers (SmolLM2-135M's briefing on the real-model tier, 2026-11-26).
    public static let inventedAnswer = "The day I woke up and I had to make a decision, I had to make a choice, and I had to make it right. I was in the kitchen."

    public struct Recorded: Sendable, Codable, Hashable {
        public var path: String
        public var model: String?
        public var numCtx: Int?
        public var keepAlive: String?
        public var stream: Bool
        public var hasFormat: Bool
        /// The prompt, the last chat message, or the embedded inputs joined.
        public var text: String
        public var inputs: Int
        /// Every message of a chat (or the system and prompt of a generate), joined.
        public var prompt: String
        /// `options.temperature` (Ollama) or `temperature` (OpenAI).
        public var temperature: Double?
        /// `options.repeat_penalty` (Ollama) or `repeat_penalty` (llama.cpp's OpenAI-compatible side).
        public var repeatPenalty: Double? = nil
        /// The answer's JSON Schema: Ollama's `format`, or OpenAI's `response_format.json_schema.schema`.
        public var schema: JSONValue? = nil
    }

    public static let chatModel = "stub-chat"
    public static let embeddingModel = "stub-embed"
    public static let dimension = 128

    /// How the stub's OpenAI-compatible side behaves (Ollama's side ignores it).
    public struct OpenAIOptions: Sendable, Codable, Hashable {
        /// Requests without `Authorization: Bearer <key>` get 401.
        public var requiredKey: String?
        /// `response_format: json_schema` gets a 400, as from a server that only knows `json_object`.
        public var refuseSchemas = false
        /// `/v1/embeddings` answers 501, as llama-server does without `--embeddings`.
        public var embeddingsOff = false
        /// A request with `repeat_penalty` gets a 400, as from a server that takes only OpenAI's own fields.
        public var refusePenalty = false
        public init(requiredKey: String? = nil, refuseSchemas: Bool = false, embeddingsOff: Bool = false, refusePenalty: Bool = false) {
            self.requiredKey = requiredKey
            self.refuseSchemas = refuseSchemas
            self.embeddingsOff = embeddingsOff
            self.refusePenalty = refusePenalty
        }
    }

    private struct State {
        var openAI = OpenAIOptions()
        var fault: Fault = .none
        var remaining: Int?
        var skip = 0
        var slowSeconds: Double = 3
        var chunkDelay: Double = 0.005
        var requests: [Recorded] = []
        var understood: [(containing: String, analysis: NoteAnalysis)] = []
    }

    private let state = NIOLockedValueBox(State())
    private let app: Application
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(app: Application, port: Int) {
        self.app = app
        self.port = port
    }

    /// Starts a stub on `port` (0: any free port).
    public static func start(port: Int = 0, logLevel: Logger.Level = .error) async throws -> OllamaStub {
        let app = try await Application.make(.testing)
        app.logger.logLevel = logLevel
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = port
        app.routes.defaultMaxBodySize = "32mb"
        let box = NIOLockedValueBox<OllamaStub?>(nil)
        StubRoutes.register(on: app) { box.withLockedValue { $0! } }
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        guard let bound = app.http.server.shared.localAddress?.port else {
            try await app.asyncShutdown()
            throw Abort(.internalServerError, reason: "the stub did not bind")
        }
        let stub = OllamaStub(app: app, port: bound)
        box.withLockedValue { $0 = stub }
        return stub
    }

    private let stopped = NIOLockedValueBox(false)

    /// Stops listening: Ollama is down (connections are refused) until a stub starts again.
    /// Stopping a stopped stub does nothing.
    public func stop() async {
        guard !stopped.withLockedValue({ s in defer { s = true }; return s }) else { return }
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// Sets a fault for `times` requests (all, until changed, when nil), starting after the next
    /// `after` requests.
    public func setFault(_ fault: Fault, times: Int? = nil, after: Int = 0, slowSeconds: Double? = nil) {
        state.withLockedValue {
            $0.fault = fault
            $0.remaining = times
            $0.skip = after
            if let slowSeconds { $0.slowSeconds = slowSeconds }
        }
    }

    /// What the stand-in "understands" of a note containing `text`, as a model would (a person
    /// named, a move inferred), instead of its analysis from the note's own words.
    public func understand(containing text: String, as analysis: NoteAnalysis) {
        state.withLockedValue { $0.understood.append((text, analysis)) }
    }

    func understood(_ prompt: String) -> NoteAnalysis? {
        state.withLockedValue { s in s.understood.first { prompt.contains($0.containing) }?.analysis }
    }

    public var openAI: OpenAIOptions {
        get { state.withLockedValue { $0.openAI } }
        set { state.withLockedValue { $0.openAI = newValue } }
    }

    /// Delay between streamed chunks.
    public func setChunkDelay(_ seconds: Double) { state.withLockedValue { $0.chunkDelay = seconds } }

    public var requests: [Recorded] { state.withLockedValue { $0.requests } }
    public func clearRequests() { state.withLockedValue { $0.requests = [] } }

    /// The fault for this request (consuming one of a limited run).
    func takeFault() -> (Fault, Double) {
        state.withLockedValue { s in
            if s.skip > 0 { s.skip -= 1; return (.none, s.slowSeconds) }
            let fault = s.fault
            if fault != .none, let left = s.remaining {
                s.remaining = left - 1
                if left - 1 <= 0 { s.fault = .none; s.remaining = nil }
            }
            return (fault, s.slowSeconds)
        }
    }

    var chunkDelay: Double { state.withLockedValue { $0.chunkDelay } }

    func record(_ r: Recorded) { state.withLockedValue { $0.requests.append(r) } }

    // MARK: Deterministic answers

    /// The embedding of a text: its content words (lightly stemmed) hashed into `dimension`
    /// signed buckets, normalised.
    public static func embedding(_ text: String, dimension: Int = OllamaStub.dimension) -> [Float] {
        var v = [Float](repeating: 0, count: dimension)
        for word in TextTokens.words(text) where word.count > 1 && !TextTokens.stopWords.contains(word) {
            let h = fnv1a(stem(word))
            v[Int(h % UInt64(dimension))] += (h >> 63) == 0 ? 1 : -1
        }
        if v.allSatisfy({ $0 == 0 }) { v[Int(fnv1a(text) % UInt64(dimension))] = 1 }
        return VectorUtility.normalized(v)
    }

    static func stem(_ word: String) -> String {
        for suffix in ["ing", "ed", "es", "s"] where word.count > suffix.count + 2 && word.hasSuffix(suffix) {
            return String(word.dropLast(suffix.count))
        }
        return word
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// Content words of a text by frequency (ties by first appearance), stemmed.
    static func keywords(_ text: String) -> [String] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for word in TextTokens.words(text) where word.count > 2 && !TextTokens.stopWords.contains(word) {
            let s = stem(word)
            if counts[s] == nil { order.append(s) }
            counts[s, default: 0] += 1
        }
        return order.enumerated().sorted { (counts[$0.element]!, -$0.offset) > (counts[$1.element]!, -$1.offset) }.map(\.element)
    }

    static let positive: Set<String> = ["love", "great", "happy", "good", "excited", "wonderful", "glad", "enjoy", "enjoyed", "calm", "grateful", "proud", "fun"]
    static let negative: Set<String> = ["sad", "angry", "tired", "bad", "worried", "anxious", "hate", "frustrated", "stressed", "awful", "annoyed"]

    public static func analysis(of text: String) -> NoteAnalysis {
        let words = TextTokens.words(text)
        let keys = keywords(text)
        let p = words.filter { positive.contains($0) }.count, n = words.filter { negative.contains($0) }.count
        let score = p + n == 0 ? 0 : Double(p - n) / Double(p + n)
        let sentiment: Sentiment = p > 0 && n > 0 ? .mixed : p > 0 ? .positive : n > 0 ? .negative : .neutral
        let lower = text.lowercased()
        let actions = ActionExtractor.actions(in: text)
        let type: NoteType = !actions.isEmpty || lower.contains("todo") ? .task
            : text.contains("?") ? .question
            : lower.contains("idea") ? .idea
            : lower.contains("http://") || lower.contains("https://") ? .reference
            : lower.hasPrefix("today") ? .log : .reflection
        let actionability: Actionability = type == .task ? .actionable : lower.contains("someday") || lower.contains("maybe") ? .someday : .none
        let named = names(in: text)
        let energy: EnergyLevel = text.contains("!") || words.contains("excited") ? .high : words.contains("tired") ? .low : .medium
        return NoteAnalysis(
            concepts: keys.prefix(3).enumerated().map { Concept(name: $0.element, confidence: 0.9 - Double($0.offset) * 0.1) },
            primaryTheme: keys.first ?? "notes", secondaryThemes: Array(keys.dropFirst(3).prefix(2)), sentiment: sentiment,
            sentimentScore: score, emotionalTone: sentiment == .negative ? "worried" : sentiment == .positive ? "hopeful" : "calm",
            energyLevel: energy, noteType: type, actionability: actionability,
            people: named.people, places: named.places)
    }

    /// The stand-in's people and places: the note's names (`ProperNames`); after "in", "to", "at",
    /// "from" or "near" (`ProperNames.placeWords`) a place, else a person. Up to five each.
    static func names(in text: String) -> (people: [String], places: [String]) {
        var people: [String] = [], places: [String] = []
        for (name, after) in ProperNames.candidates(in: text) {
            if ProperNames.placeWords.contains(after) {
                if places.count < NoteAnalysis.maxNames { places.append(name) }
            } else if people.count < NoteAnalysis.maxNames {
                people.append(name)
            }
        }
        return (people, places)
    }

    /// JSON for a `format` schema: a note's analysis, a thread's name, or the smallest valid value.
    static func structured(schema: JSONValue, text: String) -> String {
        let properties = schema["properties"]
        if properties?["primaryTheme"] != nil {
            return (try? String(decoding: SeleneJSON.encode(analysis(of: text)), as: UTF8.self)) ?? "{}"
        }
        if properties?["name"] != nil, properties?["summary"] != nil {
            let keys = keywords(text).prefix(2).map { $0.prefix(1).uppercased() + $0.dropFirst() }
            let naming = ThreadNaming(name: keys.isEmpty ? "Notes" : keys.joined(separator: " "),
                                      summary: "Notes about \(keys.joined(separator: " and ").lowercased()).")
            return (try? String(decoding: SeleneJSON.encode(naming), as: UTF8.self)) ?? "{}"
        }
        return (try? String(decoding: SeleneJSON.encode(minimal(schema)), as: UTF8.self)) ?? "{}"
    }

    static func minimal(_ schema: JSONValue) -> JSONValue {
        if case .array(let values)? = schema["enum"], let first = values.first { return first }
        switch schema["type"]?.stringValue {
        case "object":
            var out: [String: JSONValue] = [:]
            if case .object(let props)? = schema["properties"] { for (k, v) in props { out[k] = minimal(v) } }
            return .object(out)
        case "array": return .array([])
        case "number", "integer":
            if case .number(let min)? = schema["minimum"] { return .number(min) }
            return .number(0)
        case "boolean": return .bool(false)
        default: return .string("stub")
        }
    }

    /// A plain-text answer to a prompt of one of Selene's kinds (see `PromptMarkers`).
    public static func answer(system: String, prompt: String) -> String {
        let all = system + "\n" + prompt
        if all.contains(PromptMarkers.memoryExtraction) { return memories(in: prompt) }
        if all.contains(PromptMarkers.compression) { return summary(of: prompt) }
        if all.contains(PromptMarkers.briefing) {
            let newLine = prompt.split(separator: "\n").first { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) } ?? "nothing new"
            return "Good morning. First in your notes: \(newLine.prefix(120)). Have a good day."
        }
        if all.contains(PromptMarkers.taskSuggestion) {
            let keys = keywords(prompt).prefix(2)
            return keys.map { "- Follow up on \($0)" }.joined(separator: "\n")
        }
        return chatAnswer(context: all, question: lastQuestion(prompt))
    }

    static func lastQuestion(_ prompt: String) -> String {
        if let range = prompt.range(of: "Question:", options: .backwards) { return String(prompt[range.upperBound...]) }
        return prompt
    }

    /// Cites up to three context notes that share words with the question; without any, answers
    /// from the conversation's summary when that shares them.
    static func chatAnswer(context: String, question: String) -> String {
        let wanted = Set(keywords(question))
        let summary = context.split(separator: "\n").first { $0.hasPrefix("Earlier in this conversation:") }
        var cited: [(Int, String)] = []
        for line in context.split(separator: "\n") where line.hasPrefix("[") {
            guard let close = line.firstIndex(of: "]"), let number = Int(line[line.index(after: line.startIndex)..<close]) else { continue }
            let body = String(line[line.index(after: close)...])
            if !wanted.isDisjoint(with: keywords(body)), !cited.contains(where: { $0.0 == number }) {
                cited.append((number, body.trimmingCharacters(in: .whitespaces)))
            }
            if cited.count == 3 { break }
        }
        guard !cited.isEmpty else {
            if let summary {
                for sentence in summary.dropFirst("Earlier in this conversation:".count).split(whereSeparator: { ".!?".contains($0) })
                where !wanted.isDisjoint(with: keywords(String(sentence))) {
                    return "Earlier you said:\(sentence)."
                }
            }
            return "I couldn't find anything about that in your notes."
        }
        let parts = cited.map { number, body in
            // `[n] Title: text (written …)`: the title, or the text's start when the note has none.
            let text = body.components(separatedBy: " (written ").first ?? body
            let title = text.components(separatedBy: ": ").first ?? text
            return "\(title.prefix(80)) [\(number)]"
        }
        return "From your notes: " + parts.joined(separator: "; ") + "."
    }

    /// Keeps the summary so far and each message's first sentence.
    static func summary(of prompt: String) -> String {
        let firsts = prompt.split(separator: "\n").compactMap { line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Summary so far:") {
                return text.dropFirst("Summary so far:".count).trimmingCharacters(in: .whitespaces)
            }
            guard text.lowercased().hasPrefix("user:") || text.lowercased().hasPrefix("assistant:") else { return nil }
            let body = text.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
            return body.split(whereSeparator: { ".!?".contains($0) }).first.map { String($0) + "." }
        }
        return firsts.joined(separator: " ")
    }

    static func memories(in prompt: String) -> String {
        var found: [[String: JSONValue]] = []
        for line in prompt.split(separator: "\n") where line.lowercased().hasPrefix("user:") {
            for sentence in line.dropFirst(5).split(whereSeparator: { ".!?".contains($0) }) {
                let s = sentence.trimmingCharacters(in: .whitespaces)
                let lower = s.lowercased()
                let type: String?
                if lower.hasPrefix("i prefer") || lower.hasPrefix("i like") || lower.hasPrefix("i love") { type = "preference" }
                else if lower.hasPrefix("i usually") || lower.hasPrefix("i always") || lower.hasPrefix("i tend to") { type = "pattern" }
                else if lower.hasPrefix("i am ") || lower.hasPrefix("i'm ") || lower.hasPrefix("my ") || lower.hasPrefix("i work") || lower.hasPrefix("i live") { type = "fact" }
                else { type = nil }
                if let type { found.append(["content": .string(s + "."), "type": .string(type), "confidence": .number(0.8)]) }
            }
        }
        let value = JSONValue.object(["memories": .array(found.map(JSONValue.object))])
        return (try? String(decoding: SeleneJSON.encode(value), as: UTF8.self)) ?? "{\"memories\":[]}"
    }
}
