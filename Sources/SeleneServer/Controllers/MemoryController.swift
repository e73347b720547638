import Foundation
import SeleneShared
import Vapor

struct MemoryController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let memories = routes.grouped("memories")
        memories.get(use: list)
        memories.post(use: create)
        memories.post("touch", use: touch)
        memories.post("remember", use: remember)
        memories.get(":id", use: show)
        memories.put(":id", use: update)
        memories.delete(":id", use: delete)
    }

    /// By confidence, then last access; `includeEmbeddings=true` adds each memory's vector.
    @Sendable
    func list(req: Request) async throws -> Response {
        let limit = try req.intQuery("limit", default: 50)
        let embeddings = try req.boolQuery("includeEmbeddings")
        return try json(MemoryList(memories: try await ConversationStore(db: req.db).memories(limit: limit, includeEmbeddings: embeddings)))
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let id = try req.id("id")
        guard let memory = try await ConversationStore(db: req.db).memory(id) else { throw SeleneError.notFound("Memory \(id)") }
        return try json(memory)
    }

    @Sendable
    func create(req: Request) async throws -> Response {
        let memory = try req.decodeBody(NewMemory.self).validated()
        let id = try await ConversationStore(db: req.writeDB).addMemory(memory, now: req.now)
        return try json(CreatedId(id: Int64(id)), status: .created)
    }

    /// What the person asks Selene to remember: merged into a memory that says the same (200) or
    /// a new one (201), embedded by the local model when it answers. Answers the memory.
    @Sendable
    func remember(req: Request) async throws -> Response {
        let body = try req.decodeBody(RememberRequest.self)
        let service = MemoryService(data: ServerDataProvider(app: req.application), llm: ServerLLMProvider(services: req.selene))
        let (id, created) = try await service.remember(body.content, type: body.type ?? .fact, sessionId: body.sourceSessionId)
        guard let memory = try await ConversationStore(db: req.db).memory(Int(id)) else { throw SeleneError.notFound("Memory \(id)") }
        return try json(memory, status: created ? .created : .ok)
    }

    /// A partial update: absent keys stay; an embedding alone never touches the content.
    @Sendable
    func update(req: Request) async throws -> Response {
        let id = try req.id("id")
        let update = try req.decodeBody(MemoryUpdate.self).validated()
        guard let memory = try await ConversationStore(db: req.writeDB).updateMemory(id, update) else { throw SeleneError.notFound("Memory \(id)") }
        return try json(memory)
    }

    @Sendable
    func delete(req: Request) async throws -> Response {
        let id = try req.id("id")
        guard try await ConversationStore(db: req.writeDB).deleteMemory(id) else { throw SeleneError.notFound("Memory \(id)") }
        return Response(status: .noContent)
    }

    @Sendable
    func touch(req: Request) async throws -> Response {
        let request = try req.decodeBody(TouchRequest.self).validated()
        let count = try await ConversationStore(db: req.writeDB).touch(request.ids.map { Int($0) }, now: req.now)
        return try json(Touched(count: count))
    }
}
