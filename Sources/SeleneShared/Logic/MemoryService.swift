import Foundation

/// What Selene remembers from conversations. After an exchange the LLM extracts durable facts,
/// preferences and patterns with a confidence; each is embedded and compared with what is
/// already remembered: a near-duplicate (same words, or embeddings at least `duplicateSimilarity`
/// alike) updates that memory instead of adding one. Recall scores memories by similarity to the
/// question × confidence × recency, and touches the ones it returns.
public struct MemoryService: Sendable {
    public let data: any DataProvider
    public let llm: any LLMProvider
    public var duplicateSimilarity = 0.88
    public var minimumConfidence = 0.5
    /// A memory's recency weight halves every this many seconds since it was last used.
    public var recencyHalfLife: TimeInterval = 30 * 86_400

    public init(data: any DataProvider, llm: any LLMProvider) {
        self.data = data
        self.llm = llm
    }

    /// A memory the model found in a conversation.
    public struct Extracted: Codable, Sendable, Hashable {
        public var content: String
        public var type: MemoryType
        public var confidence: Double
        public init(content: String, type: MemoryType, confidence: Double) {
            self.content = content
            self.type = type
            self.confidence = confidence
        }
    }

    struct Extraction: StructuredAnswer {
        var memories: [Extracted]
        static var jsonSchema: JSONValue {
            Schema.object(["memories": Schema.array(Schema.object(["content": Schema.string(maxLength: 500), "type": Schema.enum(MemoryType.allowedValues),
                                                                   "confidence": Schema.number(0, 1)]), maxItems: 10)])
        }
        func validated() throws -> Extraction {
            Extraction(memories: memories.compactMap { m in
                let content = m.content.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !content.isEmpty, content.count <= 500, m.confidence.isFinite, (0...1).contains(m.confidence) else { return nil }
                return Extracted(content: content, type: m.type, confidence: m.confidence)
            })
        }
    }

    /// What to do with one memory learned in a conversation: add it, or update the one it refines.
    public enum Action: Sendable, Hashable {
        case insert(NewMemory)
        case update(id: Int64, MemoryUpdate)
    }

    /// Extracts and saves what the exchange taught; answers what was done.
    @discardableResult
    public func learn(from exchange: [ChatMessage], sessionId: UUID?) async throws -> [Action] {
        guard exchange.contains(where: { $0.role == .user }) else { return [] }
        let existing = try await data.memoriesWithEmbeddings(limit: 500)
        let answer = try await llm.generate(PromptBuilder.memoryExtraction(exchange, known: existing), system: nil)
        guard let extraction = try? Extraction.parse(answer) else { return [] }
        var candidates: [(Extracted, [Float]?)] = []
        for memory in extraction.memories where memory.confidence >= minimumConfidence {
            candidates.append((memory, try? await llm.embed(memory.content)))
        }
        let actions = plan(candidates, existing: existing, sessionId: sessionId)
        for action in actions {
            switch action {
            case .insert(let memory): _ = try await data.insertMemory(memory)
            case .update(let id, let update): _ = try await data.updateMemory(id: id, update)
            }
        }
        return actions
    }

    /// Remembers what the person asked Selene to ("remember that I'm vegetarian", or "Remember this"
    /// on an answer): kept at full confidence, embedded when the model answers (until then recall
    /// finds it by its words), and merged into a memory that already says the same — the person's
    /// words and kind then replace it. Throws field errors for empty or overlong text. Answers the
    /// memory's id and whether it is new.
    @discardableResult
    public func remember(_ content: String, type: MemoryType = .fact, sessionId: UUID? = nil) async throws -> (id: Int64, created: Bool) {
        let checked = try NewMemory(content: content, type: type, confidence: 1, sourceSessionId: sessionId).validated()
        let existing = try await data.memoriesWithEmbeddings(limit: 500)
        let embedding = try? await llm.embed(checked.content)
        // One candidate: one action, an insert or an update of the memory that says the same.
        switch plan([(Extracted(content: checked.content, type: type, confidence: 1), embedding)], existing: existing, sessionId: sessionId)[0] {
        case .insert(let memory):
            return (try await data.insertMemory(memory), true)
        case .update(let id, var update):
            update.content = checked.content
            update.type = type
            _ = try await data.updateMemory(id: id, update)
            return (id, false)
        }
    }

    /// What to do with freshly extracted memories given those already kept (pure: tested alone).
    public func plan(_ candidates: [(Extracted, [Float]?)], existing: [Memory], sessionId: UUID?) -> [Action] {
        var actions: [Action] = []
        var known = existing
        for (memory, embedding) in candidates {
            if let index = known.firstIndex(where: { isDuplicate(memory.content, embedding, of: $0) }) {
                let old = known[index]
                let confidence = min(1, max(old.confidence, memory.confidence) + 0.05)
                let update = MemoryUpdate(content: memory.confidence >= old.confidence ? memory.content : nil, confidence: confidence, embedding: embedding)
                actions.append(.update(id: old.id, update))
                known[index].confidence = confidence
                if let content = update.content { known[index].content = content }
                if let embedding { known[index].embedding = embedding }
            } else {
                actions.append(.insert(NewMemory(content: memory.content, type: memory.type, confidence: memory.confidence,
                                                 sourceSessionId: sessionId, embedding: embedding)))
                known.append(Memory(id: -Int64(actions.count), content: memory.content, type: memory.type, confidence: memory.confidence,
                                    sourceSessionId: sessionId, embedding: embedding, createdAt: Date(), lastAccessedAt: Date()))
            }
        }
        return actions
    }

    func isDuplicate(_ content: String, _ embedding: [Float]?, of memory: Memory) -> Bool {
        if Self.normalized(content) == Self.normalized(memory.content) { return true }
        guard let embedding, let other = memory.embedding, other.count == embedding.count else { return false }
        return VectorUtility.cosine(embedding, other) >= duplicateSimilarity
    }

    static func normalized(_ text: String) -> String {
        TextTokens.words(text).filter { !TextTokens.stopWords.contains($0) }.joined(separator: " ")
    }

    /// The memories most worth recalling for a question, best first; they are touched.
    public func recall(for question: String, limit: Int = 5, now: Date) async throws -> [Memory] {
        let memories = try await data.memoriesWithEmbeddings(limit: 500)
        guard !memories.isEmpty else { return [] }
        let query = try? await llm.embed(question)
        let picked = rank(memories, query: query, question: question, now: now).prefix(limit).map(\.0)
        if !picked.isEmpty { try await data.touchMemories(ids: picked.map(\.id)) }
        return Array(picked)
    }

    /// similarity × confidence × recency, where similarity is the cosine to the question's
    /// embedding (or word overlap without one) and recency is ½ + ½·2^(−age/half-life).
    public func rank(_ memories: [Memory], query: [Float]?, question: String, now: Date) -> [(Memory, Double)] {
        let words = Set(TextTokens.searchTerms(question))
        return memories.compactMap { memory -> (Memory, Double)? in
            var similarity: Double
            if let query, let embedding = memory.embedding, embedding.count == query.count {
                similarity = VectorUtility.cosine(query, embedding)
            } else {
                let mine = Set(TextTokens.searchTerms(memory.content))
                similarity = words.isEmpty || mine.isEmpty ? 0 : Double(words.intersection(mine).count) / Double(words.count)
            }
            guard similarity >= 0.25 else { return nil }
            let age = max(0, now.timeIntervalSince(memory.lastAccessedAt))
            let recency = 0.5 + 0.5 * pow(2, -age / recencyHalfLife)
            return (memory, similarity * memory.confidence * recency)
        }.sorted { $0.1 > $1.1 }
    }
}
