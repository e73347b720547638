import Fluent
import Foundation
import SeleneShared
import Vapor

/// `DataProvider` inside the server: the same operations as `RemoteDataService`, answered from
/// the stores directly. The web app runs SeleneShared's view models on it.
struct ServerDataProvider: DataProvider {
    let app: Application
    var db: any Database { app.db }
    /// Writes go where the server's writes go (`Application.writeDB`).
    var writeDB: any Database { app.writeDB }
    var services: SeleneServices { app.selene }
    var now: Date { services.clock.now() }

    func notes(limit: Int) async throws -> [Note] { try await NoteStore(db: db).newest(limit: limit) }

    func note(id: Int64) async throws -> Note {
        guard let note = try await NoteStore(db: db).note(id: Int(id)) else { throw SeleneClientError.notFound("Note \(id) not found") }
        return note
    }

    func createNote(_ note: NewNote) async throws -> Note {
        let (created, _) = try await NoteStore(db: writeDB).capture(try note.input().validated(), idempotent: false, now: now, waking: services.queueSignal)
        return created
    }

    func searchNotes(_ query: String, limit: Int) async throws -> [Note] {
        try await NoteStore(db: db).notes(ids: try await KeywordSearch(db: db).rank(query, limit: limit))
    }

    func retrieveNotes(_ query: String, limit: Int, noteType: NoteType?, actionability: Actionability?) async throws -> RetrieveResponse {
        let (results, source) = try await Retriever(db: db, services: services)
            .retrieve(query, limit: limit, filter: .init(noteType: noteType, actionability: actionability))
        return RetrieveResponse(query: query, results: results, source: source)
    }

    func recentNotes(days: Int, limit: Int) async throws -> [Note] {
        try await NoteStore(db: db).created(since: now.addingTimeInterval(-Double(days) * 86_400), limit: limit)
    }

    func notes(since: Date, limit: Int) async throws -> [Note] { try await NoteStore(db: db).created(since: since, limit: limit) }

    func relatedNotes(to id: Int64, limit: Int) async throws -> RelatedNotes {
        guard let related = try await Retriever(db: db, services: services).related(to: Int(id), limit: limit) else {
            throw SeleneClientError.notFound("Note \(id) not found")
        }
        return related
    }

    func threadAssignments(noteIds: [Int64]) async throws -> [ThreadAssignment] {
        try await ThreadStore(db: db).assignments(noteIds: noteIds.map { Int($0) })
    }

    func activeThreads(limit: Int) async throws -> [NoteThread] { try await ThreadStore(db: db).threads(status: .active, limit: limit) }

    func thread(id: Int64) async throws -> ThreadDetail {
        guard let detail = try await ThreadStore(db: db).detail(id: Int(id)) else { throw SeleneClientError.notFound("Thread \(id) not found") }
        return detail
    }

    func thread(named name: String) async throws -> ThreadDetail? { try await ThreadStore(db: db).search(name: name) }

    func tasks(threadId: Int64) async throws -> [ThreadTask] { try await ThreadStore(db: db).tasks(threadId: Int(threadId)) }

    func addTask(threadId: Int64, title: String) async throws -> ThreadTask {
        let task = try NewTask(title: title).validated()
        guard let created = try await ThreadStore(db: writeDB).addTask(threadId: Int(threadId), title: task.title, now: now) else {
            throw SeleneClientError.notFound("Thread \(threadId) not found")
        }
        return created
    }

    func setTask(id: Int64, status: TaskStatus) async throws -> ThreadTask {
        guard let task = try await ThreadStore(db: writeDB).setTask(id: Int(id), status: status, now: now) else { throw SeleneClientError.notFound("Task \(id) not found") }
        return task
    }

    func sessions() async throws -> [ChatSession] { try await ConversationStore(db: db).sessions() }
    func saveSession(_ session: ChatSession) async throws { try await ConversationStore(db: writeDB).save(try session.validated()) }
    func deleteSession(id: UUID) async throws { _ = try await ConversationStore(db: writeDB).delete(id) }
    func pinSession(id: UUID, pinned: Bool) async throws { _ = try await ConversationStore(db: writeDB).pin(id, pinned, now: now) }

    func saveMessage(_ message: NewMessage, sessionId: UUID) async throws {
        _ = try await ConversationStore(db: writeDB).addMessage(session: sessionId, try message.validated(), now: now)
    }

    func recentMessages(sessionId: UUID, limit: Int) async throws -> [ConversationMessage] {
        try await ConversationStore(db: db).messages(session: sessionId, limit: limit)
    }

    func recentMessages(limit: Int) async throws -> [ConversationMessage] { try await ConversationStore(db: db).recentMessages(limit: limit) }

    func memories(limit: Int) async throws -> [Memory] { try await ConversationStore(db: db).memories(limit: limit, includeEmbeddings: false) }

    func memoriesWithEmbeddings(limit: Int) async throws -> [Memory] {
        try await ConversationStore(db: db).memories(limit: limit, includeEmbeddings: true)
    }

    func insertMemory(_ memory: NewMemory) async throws -> Int64 {
        Int64(try await ConversationStore(db: writeDB).addMemory(try memory.validated(), now: now))
    }

    func updateMemory(id: Int64, _ update: MemoryUpdate) async throws -> Memory {
        guard let memory = try await ConversationStore(db: writeDB).updateMemory(Int(id), try update.validated()) else {
            throw SeleneClientError.notFound("Memory \(id) not found")
        }
        return memory
    }

    func deleteMemory(id: Int64) async throws { _ = try await ConversationStore(db: writeDB).deleteMemory(Int(id)) }
    func touchMemories(ids: [Int64]) async throws { if !ids.isEmpty { _ = try await ConversationStore(db: writeDB).touch(ids.map { Int($0) }, now: now) } }
    func saveMemoryEmbedding(id: Int64, embedding: [Float]) async throws { _ = try await updateMemory(id: id, MemoryUpdate(embedding: embedding)) }

    func briefing() async throws -> Briefing { try await BriefingService(db: db, services: services, logger: app.logger).today() }
    func regenerateBriefing() async throws -> Briefing { try await BriefingService(db: writeDB, services: services, logger: app.logger).generate() }

    func briefingAssociations(minSimilarity: Double, recentDays: Int, limit: Int) async throws -> [Association] {
        try await BriefingService(db: db, services: services, logger: app.logger).associations(minSimilarity: minSimilarity, recentDays: recentDays, limit: limit)
    }

    func registerDevice(token: String, platform: DevicePlatform) async throws -> Device {
        try await ConversationStore(db: writeDB).register(try DeviceRequest(token: token, platform: platform).validated(), now: now).0
    }

    func isAvailable() async -> Bool { true }
}

/// `LLMProvider` inside the server: the model server's client directly (the server's own, or
/// the hosted one behind the privacy router, its requests marked so in the outbound ledger).
struct ServerLLMProvider: LLMProvider {
    let llm: LLMClient?
    /// The hosted model's: why the router let each kind of request go, for the ledger (nil: the
    /// server's own model, its requests written as the client's own).
    var hostedReasons: (personal: String, plain: String)?

    init(services: SeleneServices) { llm = services.llm }

    init(hosted client: LLMClient, personalReason: String, plainReason: String) {
        llm = client; hostedReasons = (personalReason, plainReason)
    }

    func client() throws -> LLMClient {
        guard let llm else { throw SeleneClientError.llmUnavailable(LLMError.notConfigured.description) }
        return llm
    }

    /// `body`'s requests written in the ledger as the hosted model's, with whether `texts` carried
    /// anything personal and the router's reason for letting them go.
    private func marked<T>(_ texts: [String] = [], _ body: () async throws -> T) async throws -> T {
        guard let hostedReasons else { return try await body() }
        let personal = texts.contains(where: PrivacyRouter.carriesPersonalContent)
        return try await Outbound.marked("hosted", noteDerived: personal, reason: personal ? hostedReasons.personal : hostedReasons.plain, body)
    }

    func generate(_ prompt: String, system: String?, model: String?) async throws -> String {
        do { return try await marked([prompt, system ?? ""]) { try await client().generate(prompt, system: system, model: model) } } catch let e as LLMError { throw SeleneClientError.llmUnavailable(e.description) }
    }

    func embed(_ text: String, model: String?) async throws -> [Float] {
        do {
            let vectors = try await marked([text]) { try await client().embed([text], model: model) }
            guard let v = vectors.first else { throw LLMError.invalidAnswer("no embedding") }
            return v
        } catch let e as LLMError { throw SeleneClientError.llmUnavailable(e.description) }
    }

    func isAvailable() async -> Bool { (try? await marked { try await client().health().available }) ?? false }

    func contextWindow() async -> Int? { try? await marked { try await client().contextTokens() } }

    func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error> {
        do { return try await marked(PrivacyRouter.texts(ofChat: messages)) { try await client().chatStream(messages, model: model) } } catch let e as LLMError { throw SeleneClientError.llmUnavailable(e.description) }
    }
}

extension Application {
    /// A chat as the web app holds one: the server's own notes and model (for `selene-bench --only answers`).
    public func seleneChatEngine() -> ChatEngine {
        let services = selene
        return ChatEngine(data: ServerDataProvider(app: self), llm: services.chatLLM(db: writeDB), now: { services.clock.now() })
    }
}
