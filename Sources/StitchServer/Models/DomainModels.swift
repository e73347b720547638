import Fluent
import Foundation
import StitchCore

/// A synced record as the server stores it: the record (its fields as its description in
/// StitchCore says), its owner, and the owner's sync counter at its last write. Read and written
/// as SQL rows driven by the description (RecordRows.swift), never through Fluent's reflection.
@dynamicMemberLookup
final class StoredModel<R: DescribedRecord>: @unchecked Sendable {
    var record: R
    var userId: UUID
    var version: Int64

    init(record: R, userId: UUID, version: Int64) {
        self.record = record
        self.userId = userId
        self.version = version
    }

    convenience init(_ stored: StoredRecord<R>) { self.init(record: stored.record, userId: stored.userId, version: stored.version) }

    var id: UUID? { record.id }

    func apply(_ r: R) { record = r }

    subscript<T>(dynamicMember path: KeyPath<R, T>) -> T { record[keyPath: path] }
}

typealias ThreadModel = StoredModel<InventoryThread>
typealias CanvasModel = StoredModel<Canvas>
typealias ProjectModel = StoredModel<Project>
typealias SectionModel = StoredModel<ProjectSection>
typealias RequirementModel = StoredModel<ProjectThread>
typealias JournalEntryModel = StoredModel<JournalEntry>
typealias JournalImageModel = StoredModel<JournalImage>
typealias PatternModel = StoredModel<Pattern>
typealias ShoppingLineModel = StoredModel<ShoppingLine>

/// An uploaded file's metadata; the bytes live in image storage under the same key.
final class ImageModel: Model, @unchecked Sendable {
    static let schema = "images"

    @ID(custom: "key", generatedBy: .user) var id: String?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "content_type") var contentType: String
    @Field(key: "byte_size") var byteSize: Int
    @Field(key: "sha256") var sha256: String
    @Field(key: "created_at") var createdAt: Date
    /// The widths made of a picture (`PictureSizes`), "192,720,1290"; "" when none could be;
    /// nil until they are made.
    @OptionalField(key: "widths") var widths: String?

    init() {}

    init(key: String, userId: UUID, contentType: String, byteSize: Int, sha256: String, now: Date) {
        self.id = key
        self.userId = userId
        self.contentType = contentType
        self.byteSize = byteSize
        self.sha256 = sha256
        self.createdAt = now
    }
}
