import Foundation

/// The OpenAI chat-completions protocol as local servers (llama.cpp's llama-server, LM Studio,
/// vLLM, LocalAI, Jan) and hosted APIs speak it: the one codec behind both the server's
/// OpenAI-compatible backend and the app's optional hosted model (`HostedLLMService`), so the two
/// build the same requests and read answers, streams and errors the same way.
public enum OpenAIWire {
    /// `http://host:8080`, `http://host:8080/` and `http://host:8080/v1` all mean the API at
    /// `http://host:8080/v1`: the base URL is given with or without `/v1` and it is added once.
    public static func apiBase(_ url: String) -> String {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return base.hasSuffix("/v1") ? base : base + "/v1"
    }

    /// `POST {base}/chat/completions`.
    public struct ChatBody: Encodable, Sendable {
        /// One message of an OpenAI-style chat request.
        public struct Message: Encodable, Sendable {
            public var role: String
            public var content: String
            public init(_ message: LLMMessage) { role = message.role.rawValue; content = message.content }
        }
        public var model: String
        public var messages: [Message]
        public var stream: Bool
        public var temperature: Double?
        public var max_tokens: Int?
        public var response_format: JSONValue?
        /// Turn markers: the answer ends where the model starts another turn.
        public var stop: [String] = TemplateTokens.stopSequences
        /// llama.cpp's (and LM Studio's, LocalAI's) repetition penalty; not OpenAI's own, so sent
        /// only when set.
        public var repeat_penalty: Double?

        public init(model: String, messages: [LLMMessage], stream: Bool, temperature: Double? = nil, maxTokens: Int? = nil,
                    responseFormat: ResponseFormat? = nil, repeatPenalty: Double? = nil) {
            self.model = model
            repeat_penalty = repeatPenalty
            self.stream = stream
            self.temperature = temperature
            max_tokens = maxTokens
            response_format = responseFormat?.json
            var messages = messages
            if case .jsonObject(let schema)? = responseFormat {
                // Without a grammar the model only knows the keys if it is told them.
                let line = "\(PromptMarkers.jsonSchema)\n\(String(decoding: (try? SeleneJSON.encode(schema)) ?? Data(), as: UTF8.self))"
                if let index = messages.firstIndex(where: { $0.role == .system }) {
                    messages[index].content += "\n\n" + line
                } else {
                    messages.insert(LLMMessage(role: .system, content: line), at: 0)
                }
            }
            self.messages = messages.map(Message.init)
        }
    }

    /// How a structured answer is asked for.
    public enum ResponseFormat: Equatable, Sendable {
        /// `response_format: {type: json_schema, json_schema: {name, schema, strict}}`.
        case jsonSchema(JSONValue)
        /// Any JSON object (`{type: json_object}`); the schema goes into the system message instead.
        case jsonObject(JSONValue)

        public var json: JSONValue {
            switch self {
            case .jsonObject: ["type": "json_object"]
            case .jsonSchema(let schema): ["type": "json_schema", "json_schema": ["name": "answer", "schema": schema, "strict": true]]
            }
        }
    }

    /// A whole (unstreamed) answer.
    public struct Completion: Sendable, Equatable {
        public var text: String
        /// `finish_reason: "length"`: the answer was cut at the token limit.
        public var truncated: Bool
        public var generatedTokens: Int?
    }

    /// Why an OpenAI-compatible server's answer couldn't be read.
    public enum WireError: Error, Sendable, Equatable {
        /// The answer did not have the protocol's shape.
        case invalid(String)
        /// The server reported an error inside the answer or the stream.
        case server(String)
    }

    public static func completion(_ data: Data) throws -> Completion {
        struct Answer: Decodable {
            struct Choice: Decodable { struct Message: Decodable { var content: String? }; var message: Message; var finish_reason: String? }
            struct Usage: Decodable { var completion_tokens: Int? }
            var choices: [Choice]
            var usage: Usage?
        }
        if let message = errorMessage(data) { throw WireError.server(message) }
        let answer: Answer
        do { answer = try SeleneJSON.decode(Answer.self, from: data) } catch {
            throw WireError.invalid("not a chat completion: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        guard let choice = answer.choices.first else { throw WireError.invalid("the server answered without a choice") }
        return Completion(text: choice.message.content ?? "", truncated: choice.finish_reason == "length",
                          generatedTokens: answer.usage?.completion_tokens)
    }

    /// One line of a streamed answer (server-sent events).
    public enum StreamLine: Equatable, Sendable {
        /// A piece of the answer's text.
        case piece(String)
        /// `data: [DONE]`: the answer is whole.
        case done
        /// Nothing to show: a comment (`:` keep-alive), an event name, an id, a chunk without text
        /// (a role-only first chunk, a usage-only last one), a blank line.
        case skip
    }

    /// Reads one SSE line: `data: {…}` chunks carry `choices[0].delta.content`, `data: [DONE]` ends
    /// the answer, an `error` (as an event or inside a chunk) throws `WireError.server`.
    public static func streamLine(_ line: Data) throws -> StreamLine {
        var text = String(decoding: line, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        if text.hasPrefix("error:") {
            throw WireError.server(errorMessage(Data(text.dropFirst(6).utf8)) ?? String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces))
        }
        guard text.hasPrefix("data:") else { return .skip }
        let payload = text.dropFirst(5).trimmingCharacters(in: .whitespaces)
        if payload == "[DONE]" { return .done }
        struct Chunk: Decodable {
            struct Choice: Decodable { struct Delta: Decodable { var content: String? }; var delta: Delta? }
            var choices: [Choice]?
        }
        let data = Data(payload.utf8)
        if let message = errorMessage(data) { throw WireError.server(message) }
        let chunk: Chunk
        do { chunk = try SeleneJSON.decode(Chunk.self, from: data) } catch {
            throw WireError.invalid("OpenAI-compatible servers stream `data: {json}` events; got \(payload.prefix(200))")
        }
        guard let piece = chunk.choices?.first?.delta?.content, !piece.isEmpty else { return .skip }
        return .piece(piece)
    }

    /// `{"error": {"message": …}}` (OpenAI, llama-server), `{"error": "…"}` (LocalAI, some proxies),
    /// or `{"message": …}`.
    public static func errorMessage(_ data: Data) -> String? {
        guard let value = try? SeleneJSON.decode(JSONValue.self, from: data) else { return nil }
        if let error = value["error"] {
            if let text = error.stringValue { return text }
            return error["message"]?.stringValue ?? "\(error)"
        }
        if value["choices"] == nil, value["data"] == nil, let message = value["message"]?.stringValue { return message }
        return nil
    }

    /// `GET {base}/models`: the ids of the models the server offers.
    public static func modelIDs(_ data: Data) throws -> [String] {
        struct List: Decodable { struct Model: Decodable { var id: String }; var data: [Model] }
        do { return try SeleneJSON.decode(List.self, from: data).data.map(\.id) } catch {
            throw WireError.invalid("not a model list: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
    }

    /// Servers list a model by the name they were given (LM Studio: `qwen2.5-7b-instruct`;
    /// llama-server: its `--alias`, or the file it loaded).
    public static func lists(_ model: String, in names: [String]) -> Bool {
        names.contains { $0 == model || ($0 as NSString).lastPathComponent == model || (($0 as NSString).lastPathComponent as NSString).deletingPathExtension == model }
    }
}
