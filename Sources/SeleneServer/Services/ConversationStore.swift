import Fluent
import Foundation
import SeleneShared
import ServerCommon
import SQLKit

/// Chat sessions, the conversation log and memories.
struct ConversationStore {
    let db: any Database

    // MARK: Sessions

    func sessions(limit: Int = 500) async throws -> [ChatSession] {
        try await ChatSessionModel.query(on: db).sort(\.$updatedAt, .descending).sort(\.$id).limit(limit).all().map { try $0.wire() }
    }

    func session(_ id: UUID) async throws -> ChatSession? {
        try await ChatSessionModel.find(id, on: db)?.wire()
    }

    /// Insert or replace, whole. Returns whether it was new.
    @discardableResult
    func save(_ session: ChatSession) async throws -> Bool {
        if let threadId = session.threadId, try await ThreadModel.find(Int(threadId), on: db) == nil {
            throw SeleneError.missingReference(["threadId": "no thread has id \(threadId)"])
        }
        let existing = try await ChatSessionModel.find(session.id, on: db)
        let model = existing ?? ChatSessionModel()
        try model.update(from: session)
        try await model.save(on: db)
        return existing == nil
    }

    /// Deletes the session and its messages; false when there was none.
    func delete(_ id: UUID) async throws -> Bool {
        try await db.writeTransaction { db in
            guard let model = try await ChatSessionModel.find(id, on: db) else { return false }
            try await ConversationMessageModel.query(on: db).filter(\.$sessionId == id).delete()
            try await model.delete(on: db)
            return true
        }
    }

    func pin(_ id: UUID, _ pinned: Bool, now: Date) async throws -> ChatSession? {
        guard let model = try await ChatSessionModel.find(id, on: db) else { return nil }
        model.isPinned = pinned
        try await model.save(on: db)
        return try model.wire()
    }

    // MARK: Messages

    /// The latest `limit` messages of a session, oldest first.
    func messages(session: UUID, limit: Int) async throws -> [ConversationMessage] {
        try await ConversationMessageModel.query(on: db).filter(\.$sessionId == session)
            .sort(\.$id, .descending).limit(limit).all().reversed().map(\.wire)
    }

    /// The latest `limit` messages of all sessions, oldest first.
    func recentMessages(limit: Int) async throws -> [ConversationMessage] {
        try await ConversationMessageModel.query(on: db).sort(\.$id, .descending).limit(limit).all().reversed().map(\.wire)
    }

    func addMessage(session: UUID, _ message: NewMessage, now: Date) async throws -> ConversationMessage? {
        guard try await ChatSessionModel.find(session, on: db) != nil else { return nil }
        let model = ConversationMessageModel()
        model.sessionId = session
        model.role = message.role.rawValue
        model.content = message.content
        model.createdAt = now
        try await model.create(on: db)
        return model.wire
    }

    // MARK: Memories

    func memories(limit: Int, includeEmbeddings: Bool) async throws -> [Memory] {
        try await MemoryModel.query(on: db).sort(\.$confidence, .descending).sort(\.$lastAccessedAt, .descending)
            .sort(\.$id, .descending).limit(limit).all().map { $0.wire(includeEmbedding: includeEmbeddings) }
    }

    func memory(_ id: Int, includeEmbedding: Bool = true) async throws -> Memory? {
        try await MemoryModel.find(id, on: db)?.wire(includeEmbedding: includeEmbedding)
    }

    func addMemory(_ new: NewMemory, now: Date) async throws -> Int {
        if let session = new.sourceSessionId, try await ChatSessionModel.find(session, on: db) == nil {
            throw SeleneError.missingReference(["sourceSessionId": "no session has id \(session.uuidString.lowercased())"])
        }
        let model = MemoryModel()
        model.content = new.content
        model.type = new.type.rawValue
        model.confidence = new.confidence
        model.sourceSessionId = new.sourceSessionId
        model.embedding = new.embedding.map(VectorCoding.encode)
        model.createdAt = now
        model.lastAccessedAt = now
        try await model.create(on: db)
        return model.id!
    }

    /// A partial update; the embedding alone never touches the content. Nil when unknown.
    func updateMemory(_ id: Int, _ update: MemoryUpdate) async throws -> Memory? {
        guard let model = try await MemoryModel.find(id, on: db) else { return nil }
        if let content = update.content { model.content = content }
        if let type = update.type { model.type = type.rawValue }
        if let confidence = update.confidence { model.confidence = confidence }
        if let embedding = update.embedding { model.embedding = VectorCoding.encode(embedding) }
        try await model.save(on: db)
        return model.wire(includeEmbedding: true)
    }

    func deleteMemory(_ id: Int) async throws -> Bool {
        guard let model = try await MemoryModel.find(id, on: db) else { return false }
        try await model.delete(on: db)
        return true
    }

    func touch(_ ids: [Int], now: Date) async throws -> Int {
        let found = try await MemoryModel.query(on: db).filter(\.$id ~~ ids).count()
        try await MemoryModel.query(on: db).filter(\.$id ~~ ids).set(\.$lastAccessedAt, to: now).update()
        return found
    }

    // MARK: Devices

    /// Registers a device, or refreshes its last-seen time. Returns it and whether it is new.
    func register(_ request: DeviceRequest, now: Date) async throws -> (Device, Bool) {
        if let existing = try await DeviceModel.query(on: db).filter(\.$token == request.token).first() {
            existing.lastSeenAt = now
            existing.platform = (request.platform ?? .ios).rawValue
            try await existing.save(on: db)
            return (existing.wire, false)
        }
        let model = DeviceModel()
        model.token = request.token
        model.platform = (request.platform ?? .ios).rawValue
        model.createdAt = now
        model.lastSeenAt = now
        do {
            try await model.create(on: db)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Registered by another request meanwhile: that one is the device.
            return try await register(request, now: now)
        }
        return (model.wire, true)
    }

    /// Registers a browser's Web Push subscription (its endpoint is the token), or refreshes its
    /// keys and last-seen time.
    func register(web subscription: WebPushClient.Subscription, now: Date) async throws -> (Device, Bool) {
        let p256dh = Base64URL.encode(subscription.p256dh), auth = Base64URL.encode(subscription.auth)
        if let existing = try await DeviceModel.query(on: db).filter(\.$token == subscription.endpoint).first() {
            existing.lastSeenAt = now
            existing.platform = DevicePlatform.web.rawValue
            existing.webP256dh = p256dh
            existing.webAuth = auth
            try await existing.save(on: db)
            return (existing.wire, false)
        }
        let model = DeviceModel()
        model.token = subscription.endpoint
        model.platform = DevicePlatform.web.rawValue
        model.webP256dh = p256dh
        model.webAuth = auth
        model.createdAt = now
        model.lastSeenAt = now
        do {
            try await model.create(on: db)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return try await register(web: subscription, now: now)
        }
        return (model.wire, true)
    }

    func unregister(token: String) async throws -> Bool {
        let found = try await DeviceModel.query(on: db).filter(\.$token == token).count()
        try await DeviceModel.query(on: db).filter(\.$token == token).delete()
        return found > 0
    }

    func devices() async throws -> [Device] {
        try await DeviceModel.query(on: db).sort(\.$lastSeenAt, .descending).all().map(\.wire)
    }
}
