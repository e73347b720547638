import Fluent
import Foundation
import SeleneShared

// Fluent models, one per table of SELENE.md §2. They stay on the server: the wire types in
// SeleneShared are what goes out (`wire` / `init(wire:)` convert).

final class NoteModel: Model, @unchecked Sendable {
    static let schema = "notes"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @OptionalField(key: "title") var title: String?
    @Field(key: "content") var content: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "captured_at") var capturedAt: Date
    @Field(key: "source") var source: String
    @OptionalField(key: "source_uuid") var sourceUuid: String?
    @Field(key: "content_hash") var contentHash: String
    @OptionalField(key: "dedupe_key") var dedupeKey: String?
    @Field(key: "tags") var tags: String
    @Field(key: "status") var status: String
    @Field(key: "attempts") var attempts: Int
    @OptionalField(key: "next_attempt_at") var nextAttemptAt: Date?
    @OptionalField(key: "last_error") var lastError: String?
    @OptionalField(key: "lease_owner") var leaseOwner: String?
    @OptionalField(key: "lease_until") var leaseUntil: Date?
    init() {}
}

final class ThreadModel: Model, @unchecked Sendable {
    static let schema = "threads"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "name") var name: String
    @Field(key: "summary") var summary: String
    @Field(key: "status") var status: String
    @Field(key: "momentum") var momentum: Double
    @Field(key: "last_activity_at") var lastActivityAt: Date
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "centroid") var centroid: Data?
    @OptionalField(key: "centroid_model") var centroidModel: String?
    /// The person named it: their name is never written over.
    @Field(key: "name_by_person") var nameByPerson: Bool
    /// How many notes it had when its name and summary were last written, and when.
    @Field(key: "summary_note_count") var summaryNoteCount: Int
    @OptionalField(key: "summary_at") var summaryAt: Date?
    init() {}

    func wire(noteCount: Int) -> NoteThread {
        NoteThread(id: Int64(id!), name: name, summary: summary, status: ThreadStatus(rawValue: status) ?? .active,
                   momentum: momentum, lastActivityAt: lastActivityAt, createdAt: createdAt, noteCount: noteCount)
    }
}

final class ThreadNoteModel: Model, @unchecked Sendable {
    static let schema = "thread_notes"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "thread_id") var threadId: Int
    @Field(key: "note_id") var noteId: Int
    @Field(key: "added_at") var addedAt: Date
    init() {}
    init(threadId: Int, noteId: Int, addedAt: Date) {
        self.threadId = threadId
        self.noteId = noteId
        self.addedAt = addedAt
    }
}

final class ThreadTaskModel: Model, @unchecked Sendable {
    static let schema = "thread_tasks"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    /// nil: a task of a note in no thread (yet).
    @OptionalField(key: "thread_id") var threadId: Int?
    @Field(key: "title") var title: String
    @Field(key: "status") var status: String
    @OptionalField(key: "source_note_id") var sourceNoteId: Int?
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "completed_at") var completedAt: Date?
    init() {}

    var wire: ThreadTask {
        ThreadTask(id: Int64(id!), threadId: threadId.map(Int64.init), title: title, status: TaskStatus(rawValue: status) ?? .open,
                   sourceNoteId: sourceNoteId.map(Int64.init), createdAt: createdAt, completedAt: completedAt)
    }
}

final class ChatSessionModel: Model, @unchecked Sendable {
    static let schema = "chat_sessions"
    @ID(key: .id) var id: UUID?
    @Field(key: "title") var title: String
    @Field(key: "messages") var messages: String
    @Field(key: "is_pinned") var isPinned: Bool
    @Field(key: "compression_state") var compressionState: String
    @OptionalField(key: "compressed_at") var compressedAt: Date?
    @OptionalField(key: "summary") var summary: String?
    @OptionalField(key: "thread_id") var threadId: Int?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    init() {}

    func wire() throws -> ChatSession {
        ChatSession(id: id!, title: title, messages: try SeleneJSON.decode([ChatMessage].self, from: Data(messages.utf8)),
                    isPinned: isPinned, compressionState: CompressionState(rawValue: compressionState) ?? .full,
                    compressedAt: compressedAt, summary: summary, threadId: threadId.map(Int64.init),
                    createdAt: createdAt, updatedAt: updatedAt)
    }

    func update(from session: ChatSession) throws {
        id = session.id
        title = session.title
        messages = String(decoding: try SeleneJSON.encode(session.messages), as: UTF8.self)
        isPinned = session.isPinned
        compressionState = session.compressionState.rawValue
        compressedAt = session.compressedAt
        summary = session.summary
        threadId = session.threadId.map { Int($0) }
        createdAt = session.createdAt
        updatedAt = session.updatedAt
    }
}

final class ConversationMessageModel: Model, @unchecked Sendable {
    static let schema = "conversation_messages"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "session_id") var sessionId: UUID
    @Field(key: "role") var role: String
    @Field(key: "content") var content: String
    @Field(key: "created_at") var createdAt: Date
    init() {}

    var wire: ConversationMessage {
        ConversationMessage(id: Int64(id!), sessionId: sessionId, role: MessageRole(rawValue: role) ?? .user,
                            content: content, createdAt: createdAt)
    }
}

final class MemoryModel: Model, @unchecked Sendable {
    static let schema = "memories"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "content") var content: String
    @Field(key: "type") var type: String
    @Field(key: "confidence") var confidence: Double
    @OptionalField(key: "source_session_id") var sourceSessionId: UUID?
    @OptionalField(key: "embedding") var embedding: Data?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "last_accessed_at") var lastAccessedAt: Date
    init() {}

    func wire(includeEmbedding: Bool) -> Memory {
        Memory(id: Int64(id!), content: content, type: MemoryType(rawValue: type) ?? .fact, confidence: confidence,
               sourceSessionId: sourceSessionId, embedding: includeEmbedding ? embedding.map(VectorCoding.decode) : nil,
               createdAt: createdAt, lastAccessedAt: lastAccessedAt)
    }
}

final class DeviceModel: Model, @unchecked Sendable {
    static let schema = "device_tokens"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "token") var token: String
    @Field(key: "platform") var platform: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "last_seen_at") var lastSeenAt: Date
    /// A browser's subscription keys (platform `web`; its token is the push endpoint).
    @OptionalField(key: "web_p256dh") var webP256dh: String?
    @OptionalField(key: "web_auth") var webAuth: String?
    init() {}

    var wire: Device {
        Device(id: Int64(id!), token: token, platform: DevicePlatform(rawValue: platform) ?? .ios, createdAt: createdAt, lastSeenAt: lastSeenAt)
    }
}

final class BriefingModel: Model, @unchecked Sendable {
    static let schema = "briefings"
    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "date") var date: String
    @Field(key: "text") var text: String
    @Field(key: "author") var author: String
    @Field(key: "note_ids") var noteIds: String
    @Field(key: "thread_ids") var threadIds: String
    @Field(key: "associations") var associations: String
    @Field(key: "task_ids") var taskIds: String
    @Field(key: "created_at") var createdAt: Date
    init() {}
}

/// Embeddings as stored: float32, little-endian, packed.
enum VectorCoding {
    static func encode(_ vector: [Float]) -> Data {
        var data = Data(capacity: vector.count * 4)
        for value in vector {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    static func decode(_ data: Data) -> [Float] {
        let count = data.count / 4
        var out = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            for i in 0..<count {
                out[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
            }
        }
        return out
    }
}

/// JSON kept in a text column.
enum JSONColumn {
    static func write<T: Encodable>(_ value: T) -> String {
        (try? String(decoding: SeleneJSON.encode(value), as: UTF8.self)) ?? "[]"
    }

    static func read<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        guard let text else { return nil }
        return try? SeleneJSON.decode(T.self, from: Data(text.utf8))
    }
}
