import Foundation
import SeleneShared
import Vapor

/// Chat sessions (stored as the client's object) and the conversation log.
struct SessionController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let sessions = routes.grouped("sessions")
        sessions.get(use: list)
        sessions.get(":id", use: one)
        sessions.put(":id", use: save)
        sessions.delete(":id", use: delete)
        sessions.patch(":id", "pin", use: pin)
        sessions.get(":id", "messages", use: messages)
        sessions.post(":id", "messages", use: addMessage)
        routes.get("messages", use: recentMessages)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        try json(SessionList(sessions: try await ConversationStore(db: req.db).sessions()))
    }

    /// One session, whole (an answer cut off while it was written is there, marked `incomplete`).
    @Sendable
    func one(req: Request) async throws -> Response {
        guard let session = try await ConversationStore(db: req.db).session(try req.uuid("id")) else { throw SeleneError.notFound("Session") }
        return try json(session)
    }

    /// Insert or replace, whole. The body's id must be the path's.
    @Sendable
    func save(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let session = try req.decodeBody(ChatSession.self).validated()
        guard session.id == id else {
            throw SeleneError.badInput(["id": "the body's id must be the one in the path"])
        }
        let created = try await ConversationStore(db: req.writeDB).save(session)
        return try json(session, status: created ? .created : .ok)
    }

    @Sendable
    func delete(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        guard try await ConversationStore(db: req.writeDB).delete(id) else { throw SeleneError.notFound("Session") }
        return Response(status: .noContent)
    }

    @Sendable
    func pin(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let request = try req.decodeBody(PinRequest.self)
        guard let session = try await ConversationStore(db: req.writeDB).pin(id, request.isPinned, now: req.now) else {
            throw SeleneError.notFound("Session")
        }
        return try json(session)
    }

    @Sendable
    func messages(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let limit = try req.intQuery("limit", default: 10)
        let store = ConversationStore(db: req.db)
        guard try await store.session(id) != nil else { throw SeleneError.notFound("Session") }
        return try json(MessageList(messages: try await store.messages(session: id, limit: limit)))
    }

    @Sendable
    func addMessage(req: Request) async throws -> Response {
        let id = try req.uuid("id")
        let message = try req.decodeBody(NewMessage.self).validated()
        guard let saved = try await ConversationStore(db: req.writeDB).addMessage(session: id, message, now: req.now) else {
            throw SeleneError.notFound("Session")
        }
        return try json(saved, status: .created)
    }

    /// The latest messages of all sessions, oldest first.
    @Sendable
    func recentMessages(req: Request) async throws -> Response {
        let limit = try req.intQuery("limit", default: 10)
        return try json(MessageList(messages: try await ConversationStore(db: req.db).recentMessages(limit: limit)))
    }
}
