import Foundation

/// One concept the LLM found in a note, with how sure it is (0…1).
public struct Concept: Codable, Sendable, Hashable {
    public var name: String
    public var confidence: Double

    public init(name: String, confidence: Double) {
        self.name = name
        self.confidence = confidence
    }
}

/// What processing learns about a note (SELENE.md §2 "processed note"). It is also the JSON the
/// LLM is asked for, under `NoteAnalysis.jsonSchema`, and validated before it is stored.
public struct NoteAnalysis: Codable, Sendable, Hashable {
    public var concepts: [Concept]
    public var primaryTheme: String
    public var secondaryThemes: [String]
    public var sentiment: Sentiment
    /// −1 (negative) … 1 (positive).
    public var sentimentScore: Double
    public var emotionalTone: String
    public var energyLevel: EnergyLevel
    public var noteType: NoteType
    public var actionability: Actionability
    /// The people the note names (#85), as the model wrote them. Empty for a note processed
    /// before they were asked for, or by a model that left them out.
    public var people: [String]
    /// The places the note names (#85), likewise.
    public var places: [String]

    public init(concepts: [Concept], primaryTheme: String, secondaryThemes: [String], sentiment: Sentiment,
                sentimentScore: Double, emotionalTone: String, energyLevel: EnergyLevel, noteType: NoteType,
                actionability: Actionability, people: [String] = [], places: [String] = []) {
        self.concepts = concepts
        self.primaryTheme = primaryTheme
        self.secondaryThemes = secondaryThemes
        self.sentiment = sentiment
        self.sentimentScore = sentimentScore
        self.emotionalTone = emotionalTone
        self.energyLevel = energyLevel
        self.noteType = noteType
        self.actionability = actionability
        self.people = people
        self.places = places
    }

    private enum CodingKeys: String, CodingKey {
        case concepts, primaryTheme, secondaryThemes, sentiment, sentimentScore, emotionalTone, energyLevel, noteType, actionability
        case people, places
    }

    /// The keys the model is asked to write people and places under (`NoteAnalysis.jsonSchema`):
    /// after the rest, as a grammar follows the schema's keys in their (alphabetical) order.
    private enum ModelKeys: String, CodingKey { case whoItNames, whereItNames }

    /// An analysis without people and places (an older server's, or a model's that left them
    /// out) reads as naming none; a model's answer has them as `whoItNames`, `whereItNames`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self), model = try decoder.container(keyedBy: ModelKeys.self)
        self.init(concepts: try c.decode([Concept].self, forKey: .concepts), primaryTheme: try c.decode(String.self, forKey: .primaryTheme),
                  secondaryThemes: try c.decode([String].self, forKey: .secondaryThemes), sentiment: try c.decode(Sentiment.self, forKey: .sentiment),
                  sentimentScore: try c.decode(Double.self, forKey: .sentimentScore), emotionalTone: try c.decode(String.self, forKey: .emotionalTone),
                  energyLevel: try c.decode(EnergyLevel.self, forKey: .energyLevel), noteType: try c.decode(NoteType.self, forKey: .noteType),
                  actionability: try c.decode(Actionability.self, forKey: .actionability),
                  people: try c.decodeIfPresent([String].self, forKey: .people) ?? model.decodeIfPresent([String].self, forKey: .whoItNames) ?? [],
                  places: try c.decodeIfPresent([String].self, forKey: .places) ?? model.decodeIfPresent([String].self, forKey: .whereItNames) ?? [])
    }
}

/// A note as every end sees it: what was captured, where it stands in processing, and — once
/// processed — its analysis, flattened into the same object (`primaryTheme`, `noteType`, …).
public struct Note: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    public var title: String?
    public var content: String
    public var createdAt: Date
    public var source: NoteSource
    /// The Drafts app's uuid of the draft, when it came from Drafts with one.
    public var sourceUuid: String?
    /// SHA-256 of the content (hex): what makes a resent capture the same note.
    public var contentHash: String
    public var tags: [String]
    public var status: ProcessingStatus
    public var attempts: Int
    public var lastError: String?
    public var analysis: NoteAnalysis?
    public var processedAt: Date?
    /// The LLM that processed the note.
    public var processedBy: String?
    /// The embedding model whose vector is stored for the note, if any.
    public var embeddingModel: String?
    public var threadId: Int64?
    public var threadName: String?

    public init(id: Int64, title: String?, content: String, createdAt: Date, source: NoteSource, sourceUuid: String? = nil,
                contentHash: String, tags: [String] = [], status: ProcessingStatus = .pending, attempts: Int = 0,
                lastError: String? = nil, analysis: NoteAnalysis? = nil, processedAt: Date? = nil, processedBy: String? = nil,
                embeddingModel: String? = nil, threadId: Int64? = nil, threadName: String? = nil) {
        self.id = id
        self.title = title
        self.content = content
        self.createdAt = createdAt
        self.source = source
        self.sourceUuid = sourceUuid
        self.contentHash = contentHash
        self.tags = tags
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.analysis = analysis
        self.processedAt = processedAt
        self.processedBy = processedBy
        self.embeddingModel = embeddingModel
        self.threadId = threadId
        self.threadName = threadName
    }

    /// The title, or the content's first line when there is none.
    public var displayTitle: String {
        if let title, !title.isEmpty { return title }
        let first = content.split(whereSeparator: \.isNewline).first.map(String.init) ?? content
        let stripped = first.trimmingCharacters(in: CharacterSet(charactersIn: "# ").union(.whitespaces))
        return stripped.count > 80 ? String(stripped.prefix(79)) + "…" : stripped
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, content, createdAt, source, sourceUuid, contentHash, tags, status, attempts, lastError
        case processedAt, processedBy, embeddingModel, threadId, threadName, primaryTheme
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        content = try c.decode(String.self, forKey: .content)
        createdAt = try c.decode(Date.self, forKey: .createdAt)
        source = try c.decode(NoteSource.self, forKey: .source)
        sourceUuid = try c.decodeIfPresent(String.self, forKey: .sourceUuid)
        contentHash = try c.decode(String.self, forKey: .contentHash)
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        status = try c.decode(ProcessingStatus.self, forKey: .status)
        attempts = try c.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        processedAt = try c.decodeIfPresent(Date.self, forKey: .processedAt)
        processedBy = try c.decodeIfPresent(String.self, forKey: .processedBy)
        embeddingModel = try c.decodeIfPresent(String.self, forKey: .embeddingModel)
        threadId = try c.decodeIfPresent(Int64.self, forKey: .threadId)
        threadName = try c.decodeIfPresent(String.self, forKey: .threadName)
        analysis = c.contains(.primaryTheme) ? try NoteAnalysis(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encode(content, forKey: .content)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(sourceUuid, forKey: .sourceUuid)
        try c.encode(contentHash, forKey: .contentHash)
        try c.encode(tags, forKey: .tags)
        try c.encode(status, forKey: .status)
        try c.encode(attempts, forKey: .attempts)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encodeIfPresent(processedAt, forKey: .processedAt)
        try c.encodeIfPresent(processedBy, forKey: .processedBy)
        try c.encodeIfPresent(embeddingModel, forKey: .embeddingModel)
        try c.encodeIfPresent(threadId, forKey: .threadId)
        try c.encodeIfPresent(threadName, forKey: .threadName)
        try analysis?.encode(to: encoder)
    }
}

/// A line of thought: notes that belong together, ranked by momentum.
public struct NoteThread: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    public var name: String
    public var summary: String
    public var status: ThreadStatus
    /// Recency-weighted activity (see `Momentum`); higher is livelier.
    public var momentum: Double
    public var lastActivityAt: Date
    public var createdAt: Date
    public var noteCount: Int

    public init(id: Int64, name: String, summary: String, status: ThreadStatus, momentum: Double,
                lastActivityAt: Date, createdAt: Date, noteCount: Int) {
        self.id = id
        self.name = name
        self.summary = summary
        self.status = status
        self.momentum = momentum
        self.lastActivityAt = lastActivityAt
        self.createdAt = createdAt
        self.noteCount = noteCount
    }
}

/// Something to do that an actionable note of a thread asked for.
public struct ThreadTask: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    /// nil for a task of a note that is in no thread (it gets one if the note joins a thread).
    public var threadId: Int64?
    public var title: String
    public var status: TaskStatus
    public var sourceNoteId: Int64?
    public var createdAt: Date
    public var completedAt: Date?

    public init(id: Int64, threadId: Int64?, title: String, status: TaskStatus, sourceNoteId: Int64?, createdAt: Date, completedAt: Date?) {
        self.id = id
        self.threadId = threadId
        self.title = title
        self.status = status
        self.sourceNoteId = sourceNoteId
        self.createdAt = createdAt
        self.completedAt = completedAt
    }
}

/// One message of a chat as the client keeps it inside its session.
public struct ChatMessage: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var role: MessageRole
    public var content: String
    public var createdAt: Date
    /// The notes the answer cites, in the order of their numbers in the text.
    public var citedNoteIds: [Int64]?
    /// Those of `citedNoteIds` that Selene matched to the answer's sentences itself: the model
    /// didn't cite them (`CitationAttribution`).
    public var seleneCitedNoteIds: [Int64]?
    /// Set on an answer that was cut off (the model broke off, or the server stopped while it
    /// was written): what had arrived is kept, marked, and never taken for a whole answer.
    public var incomplete: Bool?

    public init(id: UUID = UUID(), role: MessageRole, content: String, createdAt: Date, citedNoteIds: [Int64]? = nil,
                seleneCitedNoteIds: [Int64]? = nil, incomplete: Bool? = nil) {
        self.id = id
        self.role = role
        self.content = content
        self.createdAt = createdAt
        self.citedNoteIds = citedNoteIds
        self.seleneCitedNoteIds = seleneCitedNoteIds
        self.incomplete = incomplete
    }

    public var isIncomplete: Bool { incomplete == true }
}

/// A chat: sent and stored as the client's object (messages as an array, SELENE.md §10).
public struct ChatSession: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var title: String
    public var messages: [ChatMessage]
    public var isPinned: Bool
    public var compressionState: CompressionState
    public var compressedAt: Date?
    /// What the compressed part of the conversation said.
    public var summary: String?
    /// Set for a chat scoped to one thread (the thread workspace).
    public var threadId: Int64?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID = UUID(), title: String, messages: [ChatMessage] = [], isPinned: Bool = false,
                compressionState: CompressionState = .full, compressedAt: Date? = nil, summary: String? = nil,
                threadId: Int64? = nil, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.messages = messages
        self.isPinned = isPinned
        self.compressionState = compressionState
        self.compressedAt = compressedAt
        self.summary = summary
        self.threadId = threadId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension Array where Element == ChatSession {
    /// Conversations as every list shows them: pinned first, then the most recently updated.
    public var inListOrder: [ChatSession] {
        sorted { ($0.isPinned ? 1 : 0, $0.updatedAt) > ($1.isPinned ? 1 : 0, $1.updatedAt) }
    }
}

/// A message as the server's conversation log keeps it (one row per message).
public struct ConversationMessage: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    public var sessionId: UUID
    public var role: MessageRole
    public var content: String
    public var createdAt: Date

    public init(id: Int64, sessionId: UUID, role: MessageRole, content: String, createdAt: Date) {
        self.id = id
        self.sessionId = sessionId
        self.role = role
        self.content = content
        self.createdAt = createdAt
    }
}

/// Something durable Selene learned in conversation.
public struct Memory: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    public var content: String
    public var type: MemoryType
    public var confidence: Double
    public var sourceSessionId: UUID?
    /// Present when asked for (`includeEmbeddings`).
    public var embedding: [Float]?
    public var createdAt: Date
    public var lastAccessedAt: Date

    public init(id: Int64, content: String, type: MemoryType, confidence: Double, sourceSessionId: UUID?,
                embedding: [Float]?, createdAt: Date, lastAccessedAt: Date) {
        self.id = id
        self.content = content
        self.type = type
        self.confidence = confidence
        self.sourceSessionId = sourceSessionId
        self.embedding = embedding
        self.createdAt = createdAt
        self.lastAccessedAt = lastAccessedAt
    }
}

/// A phone registered for push.
public struct Device: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    public var token: String
    public var platform: DevicePlatform
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(id: Int64, token: String, platform: DevicePlatform, createdAt: Date, lastSeenAt: Date) {
        self.id = id
        self.token = token
        self.platform = platform
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// A thread named by id and name, where a whole thread would be too much.
public struct ThreadRef: Codable, Sendable, Hashable {
    public var id: Int64
    public var name: String
    public init(id: Int64, name: String) { self.id = id; self.name = name }
}

/// Two related notes in different threads, one of them recent: a link the person may not have seen.
public struct Association: Codable, Sendable, Hashable {
    public var noteA: Note
    public var noteB: Note
    public var similarity: Double
    public var threadA: ThreadRef?
    public var threadB: ThreadRef?

    public init(noteA: Note, noteB: Note, similarity: Double, threadA: ThreadRef?, threadB: ThreadRef?) {
        self.noteA = noteA
        self.noteB = noteB
        self.similarity = similarity
        self.threadA = threadA
        self.threadB = threadB
    }
}

/// The morning briefing, with what it drew on.
public struct Briefing: Codable, Sendable, Hashable, Identifiable {
    public var id: Int64
    /// The day it is for, `YYYY-MM-DD` (UTC).
    public var date: String
    public var text: String
    public var author: BriefingAuthor
    public var createdAt: Date
    /// Notes captured since the briefing before.
    public var notes: [Note]
    /// Top threads by momentum.
    public var threads: [NoteThread]
    public var associations: [Association]
    public var tasks: [ThreadTask]

    public init(id: Int64, date: String, text: String, author: BriefingAuthor, createdAt: Date, notes: [Note],
                threads: [NoteThread], associations: [Association], tasks: [ThreadTask]) {
        self.id = id
        self.date = date
        self.text = text
        self.author = author
        self.createdAt = createdAt
        self.notes = notes
        self.threads = threads
        self.associations = associations
        self.tasks = tasks
    }
}
