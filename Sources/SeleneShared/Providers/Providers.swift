import Foundation

/// Every data operation a Selene screen needs (SELENE.md §5), each mapped to the endpoint of §3
/// of the same name. `RemoteDataService` is the HTTP implementation; the server has its own.
public protocol DataProvider: Sendable {
    // Notes
    func notes(limit: Int) async throws -> [Note]
    func note(id: Int64) async throws -> Note
    func createNote(_ note: NewNote) async throws -> Note
    /// Full-text (keyword) search.
    func searchNotes(_ query: String, limit: Int) async throws -> [Note]
    /// Hybrid (semantic) search; `source` says whether vectors took part.
    func retrieveNotes(_ query: String, limit: Int, noteType: NoteType?, actionability: Actionability?) async throws -> RetrieveResponse
    func recentNotes(days: Int, limit: Int) async throws -> [Note]
    func notes(since: Date, limit: Int) async throws -> [Note]
    func relatedNotes(to id: Int64, limit: Int) async throws -> RelatedNotes
    func threadAssignments(noteIds: [Int64]) async throws -> [ThreadAssignment]

    // Threads
    func activeThreads(limit: Int) async throws -> [NoteThread]
    func thread(id: Int64) async throws -> ThreadDetail
    /// The best partial name match with its notes; nil when no thread's name matches.
    func thread(named name: String) async throws -> ThreadDetail?
    func tasks(threadId: Int64) async throws -> [ThreadTask]
    func addTask(threadId: Int64, title: String) async throws -> ThreadTask
    func setTask(id: Int64, status: TaskStatus) async throws -> ThreadTask

    // Sessions and messages
    func sessions() async throws -> [ChatSession]
    func saveSession(_ session: ChatSession) async throws
    func deleteSession(id: UUID) async throws
    func pinSession(id: UUID, pinned: Bool) async throws
    func saveMessage(_ message: NewMessage, sessionId: UUID) async throws
    /// The latest `limit` messages of one session, oldest first.
    func recentMessages(sessionId: UUID, limit: Int) async throws -> [ConversationMessage]
    /// The latest `limit` messages of all sessions, oldest first.
    func recentMessages(limit: Int) async throws -> [ConversationMessage]

    // Memories
    func memories(limit: Int) async throws -> [Memory]
    func memoriesWithEmbeddings(limit: Int) async throws -> [Memory]
    func insertMemory(_ memory: NewMemory) async throws -> Int64
    func updateMemory(id: Int64, _ update: MemoryUpdate) async throws -> Memory
    func deleteMemory(id: Int64) async throws
    func touchMemories(ids: [Int64]) async throws
    func saveMemoryEmbedding(id: Int64, embedding: [Float]) async throws

    // Briefing and devices
    func briefing() async throws -> Briefing
    func regenerateBriefing() async throws -> Briefing
    func briefingAssociations(minSimilarity: Double, recentDays: Int, limit: Int) async throws -> [Association]
    func registerDevice(token: String, platform: DevicePlatform) async throws -> Device

    /// Whether the server answers an authenticated request (so a wrong token says no).
    func isAvailable() async -> Bool
}

/// The LLM as the screens use it. `RemoteLLMService` reaches it through the Selene server; a
/// hosted model may stand behind `PrivacyRouter`.
public protocol LLMProvider: Sendable {
    func generate(_ prompt: String, system: String?, model: String?) async throws -> String
    func embed(_ text: String, model: String?) async throws -> [Float]
    func isAvailable() async -> Bool
    /// A chat answer as it is written.
    func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error>
    /// How many tokens one request to the model may hold, when known (nil: unknown).
    func contextWindow() async -> Int?
}

extension LLMProvider {
    public func contextWindow() async -> Int? { nil }
    public func generate(_ prompt: String, system: String? = nil) async throws -> String { try await generate(prompt, system: system, model: nil) }
    public func embed(_ text: String) async throws -> [Float] { try await embed(text, model: nil) }
    public func chat(_ messages: [LLMMessage]) async throws -> AsyncThrowingStream<String, any Error> { try await chat(messages, model: nil) }

    /// A whole chat answer.
    public func complete(_ messages: [LLMMessage]) async throws -> String {
        var text = ""
        for try await piece in try await chat(messages) { text += piece }
        return text
    }
}

/// Why a request to the server failed, in a form a screen can show.
public enum SeleneClientError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// No server address yet (first run).
    case notConfigured
    /// The server can't be reached (network, address, it isn't running).
    case unreachable(String)
    /// 401: no token or a malformed one: set the token again.
    case signedOut(String)
    /// 403: the server doesn't accept this token.
    case wrongToken(String)
    case notFound(String)
    /// The LLM behind the server isn't there or failed (502/503 of `/api/llm`).
    case llmUnavailable(String)
    /// Any other refusal or failure, with the server's sentence and fields.
    case server(status: Int, message: String, fields: [String: String])
    /// The answer couldn't be read.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .notConfigured: "Selene's server isn't set up yet: add its address and token."
        case .unreachable(let why): "Selene's server can't be reached (\(why)). Check the address and that it is running."
        case .signedOut(let message): "Selene needs the API token again (\(message))."
        case .wrongToken(let message): "The server refused this API token (\(message))."
        case .notFound(let message): message
        case .llmUnavailable(let message): "Selene's LLM isn't available right now: \(message)"
        case .server(let status, let message, let fields):
            ([message] + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }).joined(separator: "; ") + " (\(status))"
        case .invalidResponse(let why): "The server's answer could not be read (\(why))."
        }
    }

    public var errorDescription: String? { description }

    /// Whether the server couldn't be reached at all (as opposed to answering no).
    public var isUnreachable: Bool { if case .unreachable = self { true } else { false } }
    public var isAuthentication: Bool {
        switch self { case .signedOut, .wrongToken: true; default: false }
    }
}
