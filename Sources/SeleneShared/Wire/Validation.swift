import Foundation

/// Input that can't be stored, field by field (`{"fields": {"content": "…"}}` on the wire).
public struct FieldErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var fields: [String: String]
    public init(_ fields: [String: String]) { self.fields = fields }
    public var description: String { fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ") }
}

/// A note bigger than Selene keeps (answered 413).
public struct NoteTooLarge: Error, Sendable, Hashable, CustomStringConvertible {
    public var bytes: Int
    public init(bytes: Int) { self.bytes = bytes }
    public var description: String {
        "The note is \(bytes) bytes; notes are limited to \(SeleneLimits.maxContentBytes) bytes (1 MB)"
    }
}

/// The longest text each field takes, and the other bounds Selene holds input to.
public enum SeleneLimits {
    public static let maxContentBytes = 1_048_576
    public static let maxTitle = 500
    public static let maxTags = 50
    public static let maxTag = 100
    public static let maxQuery = 2_000
    public static let maxMemory = 10_000
    public static let maxMessage = 200_000
    public static let maxSessionMessages = 10_000
    public static let maxEmbeddingDimension = 8_192
    public static let maxIds = 500
    public static let maxUuid = 200
    public static let maxPrompt = 200_000
    /// `limit` parameters take 1…500 everywhere.
    public static let limitRange = 1...500
    /// Ids stay within the integers every JSON reader holds exactly (2⁵³ − 1).
    public static let maxId: Int64 = 9_007_199_254_740_991
}

/// A capture, checked and tidied, ready to store.
public struct CaptureInput: Sendable, Hashable {
    public var content: String
    public var title: String?
    public var tags: [String]
    public var sourceUuid: String?
    public var createdAt: Date?
    public var source: NoteSource

    public init(content: String, title: String? = nil, tags: [String] = [], sourceUuid: String? = nil,
                createdAt: Date? = nil, source: NoteSource) {
        self.content = content
        self.title = title
        self.tags = tags
        self.sourceUuid = sourceUuid
        self.createdAt = createdAt
        self.source = source
    }

    /// Checks every field at once: `NoteTooLarge` for an oversized note, else `FieldErrors` naming
    /// each bad field.
    public func validated() throws -> CaptureInput {
        var errors: [String: String] = [:]
        var out = self
        let bytes = content.utf8.count
        if bytes > SeleneLimits.maxContentBytes { throw NoteTooLarge(bytes: bytes) }
        out.content = content.replacingOccurrences(of: "\r\n", with: "\n")
        if out.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            errors["content"] = "content must not be empty"
        } else if out.content.unicodeScalars.contains("\u{0}") {
            errors["content"] = "content must not contain NUL characters"
        }
        if let title {
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = SeleneText.problem(trimmed, max: SeleneLimits.maxTitle, lineBreaks: false) {
                errors["title"] = "title \(problem)"
            }
            out.title = trimmed.isEmpty ? nil : trimmed
        }
        var seen = Set<String>()
        var tags: [String] = []
        for (index, raw) in self.tags.enumerated() {
            var tag = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            let problem = tag.isEmpty || SeleneText.problem(tag, max: SeleneLimits.maxTag, lineBreaks: false) != nil
            // "#idea" is the tag "idea" (a lone "#" stays as it is).
            if tag.hasPrefix("#"), tag.count > 1 { tag.removeFirst() }
            if problem {
                errors["tags[\(index)]"] = "each tag must be 1–\(SeleneLimits.maxTag) characters of text without line breaks"
            } else if seen.insert(tag.lowercased()).inserted {
                tags.append(tag)
            }
        }
        if self.tags.count > SeleneLimits.maxTags { errors["tags"] = "at most \(SeleneLimits.maxTags) tags" }
        out.tags = tags
        if let uuid = sourceUuid {
            let trimmed = uuid.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || SeleneText.problem(trimmed, max: SeleneLimits.maxUuid, lineBreaks: false) != nil {
                errors["uuid"] = "uuid must be 1–\(SeleneLimits.maxUuid) characters without line breaks"
            }
            // Drafts sends upper-case UUIDs; the same draft must match however it is spelled.
            out.sourceUuid = UUID(uuidString: trimmed).map { $0.uuidString.lowercased() } ?? trimmed
        }
        guard errors.isEmpty else { throw FieldErrors(errors) }
        return out
    }
}

extension DraftsCapture {
    public func input() -> CaptureInput {
        CaptureInput(content: content, title: title, tags: tags ?? [], sourceUuid: uuid, createdAt: createdAt, source: .drafts)
    }
}

extension NewNote {
    public func input() throws -> CaptureInput {
        let source = self.source ?? .web
        guard source == .web || source == .cli else {
            throw FieldErrors(["source": "source must be web or cli (Drafts posts to the webhook, imports use selene import)"])
        }
        return CaptureInput(content: content, title: title, tags: tags ?? [], source: source)
    }
}

/// The checks every stored text goes through: length and control characters.
public enum SeleneText {
    /// Why a piece of text can't be stored, or nil: too long (in Unicode code points, as JSON
    /// Schema's `maxLength` counts), or holding control characters (line breaks and tabs allowed
    /// where `lineBreaks`).
    public static func problem(_ text: String, max: Int, lineBreaks: Bool) -> String? {
        if text.unicodeScalars.count > max { return "must be at most \(max) characters" }
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            if lineBreaks && (scalar == "\n" || scalar == "\t" || scalar == "\r") { continue }
            return lineBreaks ? "must not contain control characters" : "must be one line without control characters"
        }
        return nil
    }

    /// Checks a required piece of text: trimmed, non-empty, within `max`.
    static func required(_ text: String, field: String, max: Int, lineBreaks: Bool, into errors: inout [String: String]) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            errors[field] = "\(field) must not be empty"
        } else if let problem = problem(trimmed, max: max, lineBreaks: lineBreaks) {
            errors[field] = "\(field) \(problem)"
        }
        return trimmed
    }
}

/// The checks on what the model and the clients send before it is stored.
public enum SeleneValidation {
    static func confidence(_ value: Double, field: String, into errors: inout [String: String]) {
        if !value.isFinite || value < 0 || value > 1 { errors[field] = "\(field) must be between 0 and 1" }
    }

    static func embedding(_ vector: [Float]?, field: String, into errors: inout [String: String]) {
        guard let vector else { return }
        if vector.isEmpty || vector.count > SeleneLimits.maxEmbeddingDimension {
            errors[field] = "\(field) must have 1–\(SeleneLimits.maxEmbeddingDimension) numbers"
        } else if vector.contains(where: { !$0.isFinite }) {
            errors[field] = "\(field) must hold finite numbers"
        }
    }

    static func ids(_ ids: [Int64], field: String, into errors: inout [String: String]) {
        if ids.isEmpty || ids.count > SeleneLimits.maxIds { errors[field] = "\(field) must list 1–\(SeleneLimits.maxIds) ids" }
        if ids.contains(where: { $0 < 1 || $0 > SeleneLimits.maxId }) { errors[field] = "\(field) must hold positive ids up to 2^53 - 1" }
    }

    /// A search's query (trimmed, required) and its optional limit.
    static func query(_ query: String, limit: Int?) throws -> String {
        var errors: [String: String] = [:]
        let trimmed = SeleneText.required(query, field: "query", max: SeleneLimits.maxQuery, lineBreaks: true, into: &errors)
        if let limit, !SeleneLimits.limitRange.contains(limit) { errors["limit"] = "limit must be between 1 and 500" }
        try check(errors)
        return trimmed
    }

    /// A model name, trimmed: one line of 1–200 characters.
    static func model(_ model: String?, into errors: inout [String: String]) -> String? {
        guard let model else { return nil }
        let trimmed = model.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || SeleneText.problem(trimmed, max: 200, lineBreaks: false) != nil { errors["model"] = "model must be a model name (one line, at most 200 characters)" }
        return trimmed
    }

    static func check(_ errors: [String: String]) throws { if !errors.isEmpty { throw FieldErrors(errors) } }
}

extension NewMemory {
    public func validated() throws -> NewMemory {
        var errors: [String: String] = [:]
        var out = self
        out.content = SeleneText.required(content, field: "content", max: SeleneLimits.maxMemory, lineBreaks: true, into: &errors)
        SeleneValidation.confidence(confidence, field: "confidence", into: &errors)
        SeleneValidation.embedding(embedding, field: "embedding", into: &errors)
        try SeleneValidation.check(errors)
        return out
    }
}

extension MemoryUpdate {
    public func validated() throws -> MemoryUpdate {
        var errors: [String: String] = [:]
        var out = self
        if let content { out.content = SeleneText.required(content, field: "content", max: SeleneLimits.maxMemory, lineBreaks: true, into: &errors) }
        if let confidence { SeleneValidation.confidence(confidence, field: "confidence", into: &errors) }
        SeleneValidation.embedding(embedding, field: "embedding", into: &errors)
        if content == nil, type == nil, confidence == nil, embedding == nil {
            errors["body"] = "send at least one of content, type, confidence, embedding"
        }
        try SeleneValidation.check(errors)
        return out
    }
}

extension ChatSession {
    public func validated() throws -> ChatSession {
        var errors: [String: String] = [:]
        var out = self
        out.title = SeleneText.required(title, field: "title", max: SeleneLimits.maxTitle, lineBreaks: false, into: &errors)
        if messages.count > SeleneLimits.maxSessionMessages {
            errors["messages"] = "a session holds at most \(SeleneLimits.maxSessionMessages) messages"
        }
        for (index, message) in messages.enumerated() where message.content.unicodeScalars.count > SeleneLimits.maxMessage
            || message.content.unicodeScalars.contains("\u{0}") {
            errors["messages[\(index)].content"] = "a message must be at most \(SeleneLimits.maxMessage) characters without NUL"
        }
        if let summary, summary.unicodeScalars.count > SeleneLimits.maxMessage || summary.unicodeScalars.contains("\u{0}") {
            errors["summary"] = "summary must be at most \(SeleneLimits.maxMessage) characters without NUL"
        }
        if let threadId, threadId < 1 { errors["threadId"] = "threadId must be a positive id" }
        try SeleneValidation.check(errors)
        return out
    }
}

extension NewMessage {
    public func validated() throws -> NewMessage {
        var errors: [String: String] = [:]
        var out = self
        out.content = SeleneText.required(content, field: "content", max: SeleneLimits.maxMessage, lineBreaks: true, into: &errors)
        try SeleneValidation.check(errors)
        return out
    }
}

extension SearchRequest {
    public func validated() throws -> SearchRequest {
        var out = self
        out.query = try SeleneValidation.query(query, limit: limit)
        return out
    }
}

extension RetrieveRequest {
    public func validated() throws -> RetrieveRequest {
        var out = self
        out.query = try SeleneValidation.query(query, limit: limit)
        return out
    }
}

extension ThreadAssignmentsRequest {
    public func validated() throws -> ThreadAssignmentsRequest {
        var errors: [String: String] = [:]
        SeleneValidation.ids(noteIds, field: "noteIds", into: &errors)
        try SeleneValidation.check(errors)
        return self
    }
}

extension TouchRequest {
    public func validated() throws -> TouchRequest {
        var errors: [String: String] = [:]
        SeleneValidation.ids(ids, field: "ids", into: &errors)
        try SeleneValidation.check(errors)
        return self
    }
}

extension GenerateRequest {
    public func validated() throws -> GenerateRequest {
        var errors: [String: String] = [:]
        var out = self
        out.prompt = SeleneText.required(prompt, field: "prompt", max: SeleneLimits.maxPrompt, lineBreaks: true, into: &errors)
        if let temperature, !temperature.isFinite || temperature < 0 || temperature > 2 { errors["temperature"] = "temperature must be between 0 and 2" }
        out.model = SeleneValidation.model(model, into: &errors)
        if let system, system.unicodeScalars.count > SeleneLimits.maxPrompt { errors["system"] = "system must be at most \(SeleneLimits.maxPrompt) characters" }
        try SeleneValidation.check(errors)
        return out
    }
}

extension EmbedRequest {
    public func validated() throws -> EmbedRequest {
        var errors: [String: String] = [:]
        var out = self
        out.text = SeleneText.required(text, field: "text", max: SeleneLimits.maxPrompt, lineBreaks: true, into: &errors)
        out.model = SeleneValidation.model(model, into: &errors)
        try SeleneValidation.check(errors)
        return out
    }
}

extension LLMChatRequest {
    public func validated() throws -> LLMChatRequest {
        var errors: [String: String] = [:]
        var out = self
        if messages.isEmpty { errors["messages"] = "send at least one message" }
        if messages.reduce(0, { $0 + $1.content.unicodeScalars.count }) > SeleneLimits.maxPrompt * 2 { errors["messages"] = "the conversation is too long" }
        if let temperature, !temperature.isFinite || temperature < 0 || temperature > 2 { errors["temperature"] = "temperature must be between 0 and 2" }
        out.model = SeleneValidation.model(model, into: &errors)
        try SeleneValidation.check(errors)
        return out
    }
}

extension DeviceRequest {
    /// APNs device tokens are hex (64 characters today; Apple says not to rely on the length).
    public func validated() throws -> DeviceRequest {
        var out = self
        let token = self.token.lowercased()
        guard (16...400).contains(token.count), token.allSatisfy(\.isHexDigit) else {
            throw FieldErrors(["token": "token must be the device token in hex (16–400 hex digits)"])
        }
        out.token = token
        out.platform = platform ?? .ios
        guard out.platform != .web else {
            throw FieldErrors(["platform": "a browser subscribes through the web app (More → Devices), not with a device token"])
        }
        return out
    }
}
