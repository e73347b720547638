import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DataProvider` over HTTP against a Selene server: each operation is one request to the
/// endpoint of SELENE.md §3 of the same name.
public final class RemoteDataService: DataProvider {
    let http: HTTPTransport

    /// The server's operations over HTTP.
    /// - Parameters:
    ///   - settings: where the server is and the token to sign requests with.
    ///   - timeout: how long the server may stay silent before it counts as unreachable, in seconds.
    ///   - exchange: how requests reach the server, when not URLSession (`HTTPExchange`, WireCoding).
    public init(settings: ServerSettings, timeout: TimeInterval = 30, exchange: (any HTTPExchange)? = nil) {
        http = HTTPTransport(settings: settings, timeout: timeout, exchange: exchange)
    }

    // MARK: Notes

    public func notes(limit: Int) async throws -> [Note] {
        try await http.get("/api/notes", query: [("limit", "\(limit)")], as: NoteList.self).notes
    }

    public func note(id: Int64) async throws -> Note { try await http.get("/api/notes/\(id)") }

    public func createNote(_ note: NewNote) async throws -> Note { try await http.post("/api/notes", note) }

    /// A correction: `whole` replaces (PUT), otherwise only the fields given change (PATCH).
    public func updateNote(id: Int64, _ edit: NoteEdit, whole: Bool = false) async throws -> Note {
        try HTTPTransport.decode(Note.self, try await http.send(whole ? "PUT" : "PATCH", "/api/notes/\(id)", body: edit))
    }

    public func deleteNote(id: Int64) async throws { _ = try await http.send("DELETE", "/api/notes/\(id)") }

    public func searchNotes(_ query: String, limit: Int) async throws -> [Note] {
        try await http.post("/api/notes/search", SearchRequest(query: query, limit: limit), as: SearchResponse.self).notes
    }

    public func retrieveNotes(_ query: String, limit: Int, noteType: NoteType? = nil, actionability: Actionability? = nil) async throws -> RetrieveResponse {
        try await http.post("/api/notes/retrieve", RetrieveRequest(query: query, limit: limit, noteType: noteType, actionability: actionability))
    }

    public func recentNotes(days: Int, limit: Int) async throws -> [Note] {
        try await http.get("/api/notes/recent", query: [("days", "\(days)"), ("limit", "\(limit)")], as: RecentNotes.self).notes
    }

    public func notes(since: Date, limit: Int) async throws -> [Note] {
        try await http.get("/api/notes/since/\(WireDate.string(from: since))", query: [("limit", "\(limit)")], as: NotesSince.self).notes
    }

    public func relatedNotes(to id: Int64, limit: Int) async throws -> RelatedNotes {
        try await http.get("/api/notes/\(id)/related", query: [("limit", "\(limit)")])
    }

    public func threadAssignments(noteIds: [Int64]) async throws -> [ThreadAssignment] {
        guard !noteIds.isEmpty else { return [] }
        return try await http.post("/api/notes/thread-assignments", ThreadAssignmentsRequest(noteIds: noteIds), as: ThreadAssignments.self).assignments
    }

    // MARK: Threads

    public func activeThreads(limit: Int) async throws -> [NoteThread] {
        try await http.get("/api/threads", query: [("limit", "\(limit)")], as: ThreadList.self).threads
    }

    public func thread(id: Int64) async throws -> ThreadDetail { try await http.get("/api/threads/\(id)") }

    public func thread(named name: String) async throws -> ThreadDetail? {
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
        do {
            return try await http.get("/api/threads/search/\(escaped)")
        } catch SeleneClientError.notFound {
            return nil
        }
    }

    public func tasks(threadId: Int64) async throws -> [ThreadTask] {
        try await http.get("/api/threads/\(threadId)/tasks", as: TaskList.self).tasks
    }

    public func addTask(threadId: Int64, title: String) async throws -> ThreadTask {
        try await http.post("/api/threads/\(threadId)/tasks", NewTask(title: title))
    }

    /// Every task, threaded or not (open first); `status` keeps only open or only done ones.
    public func allTasks(status: TaskStatus? = nil, limit: Int = 100) async throws -> [ThreadTask] {
        try await http.get("/api/tasks", query: [("limit", "\(limit)")] + (status.map { [("status", $0.rawValue)] } ?? []), as: AllTasks.self).tasks
    }

    // Corrections: the person's name for a thread, two made one, a sub-project split off, a note moved.

    public func renameThread(id: Int64, to name: String) async throws -> NoteThread {
        try HTTPTransport.decode(NoteThread.self, try await http.send("PUT", "/api/threads/\(id)", body: ThreadRename(name: name)))
    }

    public func mergeThread(id: Int64, into target: Int64) async throws -> NoteThread {
        try await http.post("/api/threads/\(id)/merge", ThreadMerge(into: target), as: NoteThread.self)
    }

    public func splitThread(id: Int64, notes: [Int64], name: String) async throws -> NoteThread {
        try await http.post("/api/threads/\(id)/split", ThreadSplit(noteIds: notes, name: name), as: NoteThread.self)
    }

    /// Puts a note in a thread, or in none (`threadId` nil): re-clustering leaves it there.
    public func placeNote(id: Int64, in threadId: Int64?) async throws {
        _ = try await http.send("PUT", "/api/notes/\(id)/thread", body: NotePlacement(threadId: threadId))
    }

    public func setTask(id: Int64, status: TaskStatus) async throws -> ThreadTask {
        try HTTPTransport.decode(ThreadTask.self, try await http.send("PATCH", "/api/tasks/\(id)", body: TaskUpdate(status: status)))
    }

    // MARK: Sessions

    public func sessions() async throws -> [ChatSession] { try await http.get("/api/sessions", as: SessionList.self).sessions }

    public func saveSession(_ session: ChatSession) async throws {
        _ = try await http.send("PUT", "/api/sessions/\(session.id.uuidString.lowercased())", body: session)
    }

    public func deleteSession(id: UUID) async throws {
        _ = try await http.send("DELETE", "/api/sessions/\(id.uuidString.lowercased())")
    }

    public func pinSession(id: UUID, pinned: Bool) async throws {
        _ = try await http.send("PATCH", "/api/sessions/\(id.uuidString.lowercased())/pin", body: PinRequest(isPinned: pinned))
    }

    public func saveMessage(_ message: NewMessage, sessionId: UUID) async throws {
        _ = try await http.send("POST", "/api/sessions/\(sessionId.uuidString.lowercased())/messages", body: message)
    }

    public func recentMessages(sessionId: UUID, limit: Int) async throws -> [ConversationMessage] {
        try await http.get("/api/sessions/\(sessionId.uuidString.lowercased())/messages", query: [("limit", "\(limit)")], as: MessageList.self).messages
    }

    public func recentMessages(limit: Int) async throws -> [ConversationMessage] {
        try await http.get("/api/messages", query: [("limit", "\(limit)")], as: MessageList.self).messages
    }

    // MARK: Memories

    public func memories(limit: Int) async throws -> [Memory] {
        try await http.get("/api/memories", query: [("limit", "\(limit)")], as: MemoryList.self).memories
    }

    /// The server's ledger of what left its machine (`GET /api/outbound`), newest first.
    public func outbound(limit: Int, purpose: String? = nil) async throws -> OutboundList {
        try await http.get("/api/outbound", query: [("limit", "\(limit)")] + (purpose.map { [("purpose", $0)] } ?? []), as: OutboundList.self)
    }

    public func memoriesWithEmbeddings(limit: Int) async throws -> [Memory] {
        try await http.get("/api/memories", query: [("limit", "\(limit)"), ("includeEmbeddings", "true")], as: MemoryList.self).memories
    }

    public func insertMemory(_ memory: NewMemory) async throws -> Int64 {
        try await http.post("/api/memories", memory, as: CreatedId.self).id
    }

    /// What the person asks Selene to remember (`POST /api/memories/remember`): the server keeps
    /// it at full confidence, merged into a memory that says the same. Answers the memory.
    public func remember(_ request: RememberRequest) async throws -> Memory {
        try await http.post("/api/memories/remember", request, as: Memory.self)
    }

    public func updateMemory(id: Int64, _ update: MemoryUpdate) async throws -> Memory {
        try HTTPTransport.decode(Memory.self, try await http.send("PUT", "/api/memories/\(id)", body: update))
    }

    public func deleteMemory(id: Int64) async throws { _ = try await http.send("DELETE", "/api/memories/\(id)") }

    public func touchMemories(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        _ = try await http.send("POST", "/api/memories/touch", body: TouchRequest(ids: ids))
    }

    public func saveMemoryEmbedding(id: Int64, embedding: [Float]) async throws {
        _ = try await updateMemory(id: id, MemoryUpdate(embedding: embedding))
    }

    // MARK: Briefing, devices, availability

    public func briefing() async throws -> Briefing { try await http.get("/api/briefing") }

    public func regenerateBriefing() async throws -> Briefing {
        try HTTPTransport.decode(Briefing.self, try await http.send("POST", "/api/briefing"))
    }

    public func briefingAssociations(minSimilarity: Double = 0.7, recentDays: Int = 7, limit: Int = 10) async throws -> [Association] {
        try await http.get("/api/briefing/associations", query: [("minSimilarity", "\(minSimilarity)"), ("recentDays", "\(recentDays)"), ("limit", "\(limit)")],
                           as: AssociationList.self).associations
    }

    public func registerDevice(token: String, platform: DevicePlatform = .ios) async throws -> Device {
        try await http.post("/api/devices/register", DeviceRequest(token: token, platform: platform))
    }

    public func isAvailable() async -> Bool { (try? await checkConnection()) != nil }

    /// An authenticated request, so a wrong token fails here (the set-up screen's test).
    public func checkConnection() async throws {
        _ = try await http.send("GET", "/api/sessions")
    }
}

/// `LLMProvider` through the Selene server's `/api/llm/*`: the server holds Ollama; the phone
/// never talks to it directly.
public final class RemoteLLMService: LLMProvider {
    let http: HTTPTransport

    /// The server's model, through its `/api/llm/*`.
    /// - Parameters:
    ///   - settings: where the server is and the token to sign requests with.
    ///   - timeout: how long the server may stay silent before it counts as unreachable, in seconds
    ///     (a model thinking counts as silence).
    ///   - exchange: how requests reach the server, when not URLSession (`HTTPExchange`, WireCoding).
    public init(settings: ServerSettings, timeout: TimeInterval = 180, exchange: (any HTTPExchange)? = nil) {
        http = HTTPTransport(settings: settings, timeout: timeout, exchange: exchange)
    }

    public func generate(_ prompt: String, system: String?, model: String?) async throws -> String {
        try await http.post("/api/llm/generate", GenerateRequest(prompt: prompt, system: system, model: model), as: GenerateResponse.self).response
    }

    public func embed(_ text: String, model: String?) async throws -> [Float] {
        try await http.post("/api/llm/embed", EmbedRequest(text: text, model: model), as: EmbedResponse.self).embedding
    }

    public func isAvailable() async -> Bool {
        (try? await http.get("/api/llm/health", as: LLMHealth.self).available) ?? false
    }

    public func health() async throws -> LLMHealth { try await http.get("/api/llm/health") }

    public func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error> {
        let lines = try await http.lines("POST", "/api/llm/chat", body: LLMChatRequest(messages: messages, model: model))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var ended = false
                    for try await line in lines {
                        let chunk = try HTTPTransport.decode(LLMStreamChunk.self, line)
                        if let error = chunk.error { throw SeleneClientError.llmUnavailable(error) }
                        if let delta = chunk.delta, !delta.isEmpty { continuation.yield(delta) }
                        if chunk.done { ended = true }
                    }
                    guard ended else { throw SeleneClientError.llmUnavailable("the answer was cut off") }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
