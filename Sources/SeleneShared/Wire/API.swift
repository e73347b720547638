import Foundation

// Requests and responses of SELENE.md §3. Lists answer `{"count": n, "<plural>": [...]}`.

/// `GET /health`: that the server answers, its time, and what runs.
public struct HealthStatus: Codable, Sendable, Hashable {
    public var status: String
    public var timestamp: Date
    /// The server's version (`SeleneVersion.current`).
    public var version: String?
    /// The commit the server was built from (12 hex digits, `-modified` or `unknown`).
    public var commit: String?
    public init(status: String, timestamp: Date, version: String? = nil, commit: String? = nil) {
        self.status = status; self.timestamp = timestamp; self.version = version; self.commit = commit
    }
}

/// `{"error": "sentence", "fields": {...}}`, every failure's shape.
public struct ErrorBody: Codable, Sendable, Hashable, Error {
    public var error: String
    public var fields: [String: String]?
    public init(error: String, fields: [String: String]? = nil) { self.error = error; self.fields = fields }
}

// MARK: Capture

/// What the Drafts app's action posts to `/webhook/api/drafts`.
public struct DraftsCapture: Codable, Sendable, Hashable {
    public var content: String
    public var title: String?
    public var uuid: String?
    public var tags: [String]?
    public var createdAt: Date?

    public init(content: String, title: String? = nil, uuid: String? = nil, tags: [String]? = nil, createdAt: Date? = nil) {
        self.content = content
        self.title = title
        self.uuid = uuid
        self.tags = tags
        self.createdAt = createdAt
    }
}

/// A note written in the web app or the terminal (`POST /api/notes`).
public struct NewNote: Codable, Sendable, Hashable {
    public var content: String
    public var title: String?
    public var tags: [String]?
    /// `web` (the default) or `cli`.
    public var source: NoteSource?

    public init(content: String, title: String? = nil, tags: [String]? = nil, source: NoteSource? = nil) {
        self.content = content
        self.title = title
        self.tags = tags
        self.source = source
    }
}

/// A correction to a note. `PUT /api/notes/{id}` sends the whole of it (`content` required; a
/// missing or null title or tags clears them); `PATCH` sends what changes (`"title": ""` clears
/// the title; `null` is refused there, as it could mean either).
/// Where it came from and when it was written don't change.
public struct NoteEdit: Codable, Sendable, Hashable {
    public var content: String?
    public var title: String?
    public var tags: [String]?

    public init(content: String? = nil, title: String? = nil, tags: [String]? = nil) {
        self.content = content
        self.title = title
        self.tags = tags
    }

    /// The note as it will be, checked and tidied like a capture (`FieldErrors`, `NoteTooLarge`).
    /// `whole`: a PUT, where what is missing is cleared.
    public func applied(to note: Note, whole: Bool) throws -> CaptureInput {
        if whole, content == nil { throw FieldErrors(["content": "content is required (PATCH changes single fields)"]) }
        if !whole, content == nil, title == nil, tags == nil {
            throw FieldErrors(["content": "nothing to change: send content, title or tags"])
        }
        return try CaptureInput(content: content ?? note.content, title: whole ? title : (title ?? note.title),
                                tags: tags ?? (whole ? [] : note.tags), source: note.source).validated()
    }
}

/// A page of notes (`GET /api/notes`).
public struct NoteList: Codable, Sendable, Hashable {
    public var count: Int
    public var notes: [Note]
    public init(notes: [Note]) { self.count = notes.count; self.notes = notes }
}

/// A keyword search (`POST /api/notes/search`).
public struct SearchRequest: Codable, Sendable, Hashable {
    public var query: String
    public var limit: Int?
    public init(query: String, limit: Int? = nil) { self.query = query; self.limit = limit }
}

/// Notes matching a keyword search.
public struct SearchResponse: Codable, Sendable, Hashable {
    public var query: String
    public var count: Int
    public var notes: [Note]
    public init(query: String, notes: [Note]) { self.query = query; self.count = notes.count; self.notes = notes }
}

/// Notes written in the last days.
public struct RecentNotes: Codable, Sendable, Hashable {
    public var days: Int
    public var count: Int
    public var notes: [Note]
    public init(days: Int, notes: [Note]) { self.days = days; self.count = notes.count; self.notes = notes }
}

/// Notes written or changed since an instant.
public struct NotesSince: Codable, Sendable, Hashable {
    public var since: Date
    public var count: Int
    public var notes: [Note]
    public init(since: Date, notes: [Note]) { self.since = since; self.count = notes.count; self.notes = notes }
}

/// A note related to another, and how strongly.
public struct RelatedNote: Codable, Sendable, Hashable {
    public var note: Note
    public var relationshipType: RelationshipType
    /// 0…1: the stored similarity, or a rank-derived strength for keyword matches.
    public var strength: Double
    public init(note: Note, relationshipType: RelationshipType, strength: Double) {
        self.note = note
        self.relationshipType = relationshipType
        self.strength = strength
    }
}

/// A note's related notes, strongest first.
public struct RelatedNotes: Codable, Sendable, Hashable {
    public var noteId: Int64
    public var count: Int
    public var results: [RelatedNote]
    public var source: RetrievalSource
    public init(noteId: Int64, results: [RelatedNote], source: RetrievalSource) {
        self.noteId = noteId
        self.count = results.count
        self.results = results
        self.source = source
    }
}

/// Asks which thread each of these notes belongs to.
public struct ThreadAssignmentsRequest: Codable, Sendable, Hashable {
    public var noteIds: [Int64]
    public init(noteIds: [Int64]) { self.noteIds = noteIds }
}

/// One note and its thread (nil when in none).
public struct ThreadAssignment: Codable, Sendable, Hashable {
    public var noteId: Int64
    public var threadName: String
    public var threadId: Int64
    public init(noteId: Int64, threadName: String, threadId: Int64) {
        self.noteId = noteId
        self.threadName = threadName
        self.threadId = threadId
    }
}

/// The thread each of the asked notes belongs to.
public struct ThreadAssignments: Codable, Sendable, Hashable {
    public var count: Int
    public var assignments: [ThreadAssignment]
    public init(assignments: [ThreadAssignment]) { self.count = assignments.count; self.assignments = assignments }
}

/// A question to retrieve notes for (`POST /api/notes/retrieve`), with optional filters.
public struct RetrieveRequest: Codable, Sendable, Hashable {
    public var query: String
    public var limit: Int?
    public var noteType: NoteType?
    public var actionability: Actionability?
    public init(query: String, limit: Int? = nil, noteType: NoteType? = nil, actionability: Actionability? = nil) {
        self.query = query
        self.limit = limit
        self.noteType = noteType
        self.actionability = actionability
    }
}

/// A retrieved note with its fused score and the ranks it had in each list (1-based).
public struct ScoredNote: Codable, Sendable, Hashable {
    public var note: Note
    public var score: Double
    public var keywordRank: Int?
    public var vectorRank: Int?
    public init(note: Note, score: Double, keywordRank: Int? = nil, vectorRank: Int? = nil) {
        self.note = note
        self.score = score
        self.keywordRank = keywordRank
        self.vectorRank = vectorRank
    }
}

/// The notes retrieved for a question, best first, with their scores.
public struct RetrieveResponse: Codable, Sendable, Hashable {
    public var query: String
    public var count: Int
    public var results: [ScoredNote]
    public var source: RetrievalSource
    public init(query: String, results: [ScoredNote], source: RetrievalSource) {
        self.query = query
        self.count = results.count
        self.results = results
        self.source = source
    }
}

// MARK: Threads

/// Threads (`GET /api/threads`).
public struct ThreadList: Codable, Sendable, Hashable {
    public var count: Int
    public var threads: [NoteThread]
    public init(threads: [NoteThread]) { self.count = threads.count; self.threads = threads }
}

/// A thread with its notes (`GET /api/threads/{id}`).
public struct ThreadDetail: Codable, Sendable, Hashable {
    public var thread: NoteThread
    public var notes: [Note]
    public init(thread: NoteThread, notes: [Note]) { self.thread = thread; self.notes = notes }
}

/// `PUT /api/threads/{id}`: the person's name for a thread (never written over after).
public struct ThreadRename: Codable, Sendable, Hashable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// `POST /api/threads/{id}/merge`: the thread becomes part of `into`.
public struct ThreadMerge: Codable, Sendable, Hashable {
    public var into: Int64
    public init(into: Int64) { self.into = into }
}

/// `POST /api/threads/{id}/split`: some of a thread's notes become a thread of their own (a sub-project).
public struct ThreadSplit: Codable, Sendable, Hashable {
    public var noteIds: [Int64]
    public var name: String
    public init(noteIds: [Int64], name: String) { self.noteIds = noteIds; self.name = name }
}

/// `PUT /api/notes/{id}/thread`: where the person puts a note — a thread, or none (`threadId`
/// null). Re-clustering leaves it there.
public struct NotePlacement: Codable, Sendable, Hashable {
    public var threadId: Int64?
    public init(threadId: Int64?) { self.threadId = threadId }
    private enum CodingKeys: String, CodingKey { case threadId }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Present and null means "no thread"; absent is a mistake, not a move out.
        guard c.contains(.threadId) else {
            throw DecodingError.keyNotFound(CodingKeys.threadId, .init(codingPath: [], debugDescription: "threadId is required (null for no thread)"))
        }
        threadId = try c.decodeIfPresent(Int64.self, forKey: .threadId)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(threadId, forKey: .threadId)
    }
}

/// Tasks (`GET /api/tasks`).
public struct TaskList: Codable, Sendable, Hashable {
    public var threadId: Int64
    public var count: Int
    public var tasks: [ThreadTask]
    public init(threadId: Int64, tasks: [ThreadTask]) { self.threadId = threadId; self.count = tasks.count; self.tasks = tasks }
}

/// Every task, threaded or not (`GET /api/tasks`): open ones first, newest first.
public struct AllTasks: Codable, Sendable, Hashable {
    public var count: Int
    public var tasks: [ThreadTask]
    public init(tasks: [ThreadTask]) { self.count = tasks.count; self.tasks = tasks }
}

/// A task to add by hand.
public struct NewTask: Codable, Sendable, Hashable {
    public var title: String
    public init(title: String) { self.title = title }

    public func validated() throws -> NewTask {
        var errors: [String: String] = [:]
        let title = SeleneText.required(self.title, field: "title", max: SeleneLimits.maxTitle, lineBreaks: false, into: &errors)
        try SeleneValidation.check(errors)
        return NewTask(title: title)
    }
}

/// Changes to a task: its status or text.
public struct TaskUpdate: Codable, Sendable, Hashable {
    public var status: TaskStatus
    public init(status: TaskStatus) { self.status = status }
}

// MARK: Sessions and messages

/// Chat sessions, newest first.
public struct SessionList: Codable, Sendable, Hashable {
    public var count: Int
    public var sessions: [ChatSession]
    public init(sessions: [ChatSession]) { self.count = sessions.count; self.sessions = sessions }
}

/// Pins or unpins a note.
public struct PinRequest: Codable, Sendable, Hashable {
    public var isPinned: Bool
    public init(isPinned: Bool) { self.isPinned = isPinned }
}

/// A chat message to store in a session.
public struct NewMessage: Codable, Sendable, Hashable {
    public var role: MessageRole
    public var content: String
    public init(role: MessageRole, content: String) { self.role = role; self.content = content }
}

/// A chat session's messages, oldest first.
public struct MessageList: Codable, Sendable, Hashable {
    public var count: Int
    public var messages: [ConversationMessage]
    public init(messages: [ConversationMessage]) { self.count = messages.count; self.messages = messages }
}

// MARK: Memories

/// The person's memories (`GET /api/memories`).
public struct MemoryList: Codable, Sendable, Hashable {
    public var count: Int
    public var memories: [Memory]
    public init(memories: [Memory]) { self.count = memories.count; self.memories = memories }
}

/// A memory to store.
public struct NewMemory: Codable, Sendable, Hashable {
    public var content: String
    public var type: MemoryType
    public var confidence: Double
    public var sourceSessionId: UUID?
    public var embedding: [Float]?
    public init(content: String, type: MemoryType, confidence: Double, sourceSessionId: UUID? = nil, embedding: [Float]? = nil) {
        self.content = content
        self.type = type
        self.confidence = confidence
        self.sourceSessionId = sourceSessionId
        self.embedding = embedding
    }
    private enum CodingKeys: String, CodingKey { case content, type, confidence, sourceSessionId, embedding }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        content = try c.decode(String.self, forKey: .content)
        type = try c.decode(MemoryType.self, forKey: .type)
        confidence = try c.decode(Double.self, forKey: .confidence)
        sourceSessionId = try c.decodeIfPresent(UUID.self, forKey: .sourceSessionId)
        embedding = try FloatVector.decode(c, .embedding)
    }
}

/// A partial update: absent keys stay. Updating the embedding never touches the content.
/// `POST /api/memories/remember`: something the person asks Selene to remember ("I'm vegetarian"),
/// kept at full confidence and merged into a memory that says the same (`MemoryService.remember`).
public struct RememberRequest: Codable, Sendable, Hashable {
    public var content: String
    public var type: MemoryType?
    /// The conversation it came from ("Remember this" on an answer).
    public var sourceSessionId: UUID?
    public init(content: String, type: MemoryType? = nil, sourceSessionId: UUID? = nil) {
        self.content = content
        self.type = type
        self.sourceSessionId = sourceSessionId
    }
}

/// Changes to a memory: its text, kind or confidence.
public struct MemoryUpdate: Codable, Sendable, Hashable {
    public var content: String?
    public var type: MemoryType?
    public var confidence: Double?
    public var embedding: [Float]?
    public init(content: String? = nil, type: MemoryType? = nil, confidence: Double? = nil, embedding: [Float]? = nil) {
        self.content = content
        self.type = type
        self.confidence = confidence
        self.embedding = embedding
    }
    private enum CodingKeys: String, CodingKey { case content, type, confidence, embedding }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        content = try c.decodeIfPresent(String.self, forKey: .content)
        type = try c.decodeIfPresent(MemoryType.self, forKey: .type)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence)
        embedding = try FloatVector.decode(c, .embedding)
    }
}

/// Embeddings arrive as JSON numbers; each must fit a 32-bit float. Read as doubles first, so
/// one that doesn't is named (`embedding`) rather than failing the whole body as unreadable.
enum FloatVector {
    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> [Float]? {
        guard let values = try c.decodeIfPresent([Double].self, forKey: key) else { return nil }
        guard values.allSatisfy({ $0.isFinite && abs($0) <= Double(Float.greatestFiniteMagnitude) }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "every number must fit a 32-bit float")
        }
        return values.map { Float($0) }
    }
}

/// The id of what was just created.
public struct CreatedId: Codable, Sendable, Hashable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// Memories an answer just used (`POST /api/memories/touch`), to mark as used now.
public struct TouchRequest: Codable, Sendable, Hashable {
    public var ids: [Int64]
    public init(ids: [Int64]) { self.ids = ids }
}

/// How many records a request touched: memories marked as used, failed notes queued again.
public struct Touched: Codable, Sendable, Hashable {
    public var count: Int
    public init(count: Int) { self.count = count }
}

// MARK: Briefing

/// Links across threads, for the briefing.
public struct AssociationList: Codable, Sendable, Hashable {
    public var count: Int
    public var associations: [Association]
    public init(associations: [Association]) { self.count = associations.count; self.associations = associations }
}

// MARK: LLM

/// The optional hosted model behind the privacy router (`SELENE_HOSTED_URL`): where it is, what
/// it may see, and what went out to it since the server started.
public struct HostedUsage: Codable, Sendable, Hashable {
    public var url: String
    public var model: String
    /// Whether notes, memories and conversations may go to it (`SELENE_HOSTED_PERSONAL`).
    public var personalContentAllowed: Bool
    /// Requests sent to it.
    public var sent: Int
    /// Requests kept on the local model because they carried something personal.
    public var keptLocal: Int
    public var lastSentAt: Date?
    public init(url: String, model: String, personalContentAllowed: Bool, sent: Int = 0, keptLocal: Int = 0, lastSentAt: Date? = nil) {
        self.url = url
        self.model = model
        self.personalContentAllowed = personalContentAllowed
        self.sent = sent
        self.keptLocal = keptLocal
        self.lastSentAt = lastSentAt
    }
}

/// Whether the model server answers, and what the hosted model (if any) was used for.
public struct LLMHealth: Codable, Sendable, Hashable {
    public var available: Bool
    /// The hosted model, when one is switched on (nil: everything stays on this machine).
    public var hosted: HostedUsage?
    public var chatModel: String?
    public var embeddingModel: String?
    /// Why it isn't available: not configured, unreachable, a model not pulled.
    public var reason: String?
    /// Which protocol serves chat (`ollama`, `openai`) and where.
    public var provider: String?
    public var url: String?
    /// Which serves embeddings, when another server does.
    public var embeddingProvider: String?
    public var embeddingURL: String?
    /// Why search is keyword-only, when embeddings can't be made.
    public var embeddings: String?
    /// Processing waits for the model server: since when, why, and when it looks again.
    public var pausedSince: Date?
    public var pauseReason: String?
    public var nextCheckAt: Date?
    public init(available: Bool, chatModel: String? = nil, embeddingModel: String? = nil, reason: String? = nil,
                provider: String? = nil, url: String? = nil, embeddingProvider: String? = nil, embeddingURL: String? = nil,
                embeddings: String? = nil, pausedSince: Date? = nil, pauseReason: String? = nil, nextCheckAt: Date? = nil) {
        self.available = available
        self.chatModel = chatModel
        self.embeddingModel = embeddingModel
        self.reason = reason
        self.provider = provider
        self.url = url
        self.embeddingProvider = embeddingProvider
        self.embeddingURL = embeddingURL
        self.embeddings = embeddings
        self.pausedSince = pausedSince
        self.pauseReason = pauseReason
        self.nextCheckAt = nextCheckAt
    }
}

/// A prompt for the model server's generate endpoint.
public struct GenerateRequest: Codable, Sendable, Hashable {
    public var prompt: String
    public var system: String?
    public var model: String?
    public var temperature: Double?
    /// Answer as NDJSON `LLMStreamChunk` lines while it is written.
    public var stream: Bool?
    public init(prompt: String, system: String? = nil, model: String? = nil, temperature: Double? = nil, stream: Bool? = nil) {
        self.prompt = prompt
        self.system = system
        self.model = model
        self.temperature = temperature
        self.stream = stream
    }
}

/// The model server's answer to a prompt.
public struct GenerateResponse: Codable, Sendable, Hashable {
    public var response: String
    public var model: String
    public init(response: String, model: String) { self.response = response; self.model = model }
}

/// Texts to embed, for the model server's embedding endpoint.
public struct EmbedRequest: Codable, Sendable, Hashable {
    public var text: String
    public var model: String?
    public init(text: String, model: String? = nil) { self.text = text; self.model = model }
}

/// The vectors the model server returned, one per text.
public struct EmbedResponse: Codable, Sendable, Hashable {
    public var embedding: [Float]
    public var model: String
    public init(embedding: [Float], model: String) { self.embedding = embedding; self.model = model }
}

/// One message of a chat sent to the model.
public struct LLMMessage: Codable, Sendable, Hashable {
    public var role: MessageRole
    public var content: String
    public init(role: MessageRole, content: String) { self.role = role; self.content = content }
}

extension LLMMessage {
    /// A one-prompt conversation (with its system message first, when there is one).
    public static func prompt(_ prompt: String, system: String?) -> [LLMMessage] {
        (system.map { [LLMMessage(role: .system, content: $0)] } ?? []) + [LLMMessage(role: .user, content: prompt)]
    }
}

/// A chat turn for the LLM (`POST /api/llm/chat`), answered as NDJSON `LLMStreamChunk` lines.
public struct LLMChatRequest: Codable, Sendable, Hashable {
    public var messages: [LLMMessage]
    public var model: String?
    public var temperature: Double?
    public init(messages: [LLMMessage], model: String? = nil, temperature: Double? = nil) {
        self.messages = messages
        self.model = model
        self.temperature = temperature
    }
}

/// One line of a streamed answer: a piece of text, the end, or an error that ended it.
public struct LLMStreamChunk: Codable, Sendable, Hashable {
    public var delta: String?
    public var done: Bool
    public var error: String?
    public init(delta: String? = nil, done: Bool = false, error: String? = nil) {
        self.delta = delta
        self.done = done
        self.error = error
    }
}

// MARK: Devices and export

/// Registers a device for push: its token and platform.
public struct DeviceRequest: Codable, Sendable, Hashable {
    public var token: String
    public var platform: DevicePlatform?
    public init(token: String, platform: DevicePlatform? = nil) { self.token = token; self.platform = platform }
}

/// The phones registered for push.
public struct DeviceList: Codable, Sendable, Hashable {
    public var count: Int
    public var devices: [Device]
    public init(devices: [Device]) { self.count = devices.count; self.devices = devices }
}

/// Whether a device's push registration was removed.
public struct Unregistered: Codable, Sendable, Hashable {
    public var removed: Bool
    public init(removed: Bool) { self.removed = removed }
}

/// What to export: one note, or all of them.
public struct ExportRequest: Codable, Sendable, Hashable {
    public var noteId: Int64?
    public init(noteId: Int64? = nil) { self.noteId = noteId }
}

/// What an Obsidian export wrote, as paths relative to the vault.
public struct ExportResult: Codable, Sendable, Hashable {
    public var notes: Int
    public var threads: Int
    public var files: [String]
    public init(notes: Int, threads: Int, files: [String]) { self.notes = notes; self.threads = threads; self.files = files }
}
