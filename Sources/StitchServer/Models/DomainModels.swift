import Fluent
import Foundation
import StitchCore

/// Columns every synced record has. `version` is the owner's sync counter at the record's last
/// write; a pull asks for everything above its cursor.
enum SyncColumns {
    static let userId: FieldKey = "user_id"
    static let version: FieldKey = "version"
    static let createdAt: FieldKey = "created_at"
    static let updatedAt: FieldKey = "updated_at"
    static let deletedAt: FieldKey = "deleted_at"
}

final class ThreadModel: Model, @unchecked Sendable {
    static let schema = "threads"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "brand") var brand: String
    @Field(key: "number") var number: String
    @OptionalField(key: "color_name") var colorName: String?
    @OptionalField(key: "color_hex") var colorHex: String?
    @Field(key: "fiber_type") var fiberType: String
    @Field(key: "quantity") var quantity: Int
    @OptionalField(key: "barcode") var barcode: String?
    @OptionalField(key: "weight_or_length") var weightOrLength: String?
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: InventoryThread {
        InventoryThread(
            id: id!, brand: brand, number: number, colorName: colorName, colorHex: colorHex,
            fiberType: FiberType(rawValue: fiberType) ?? .other, quantity: quantity, barcode: barcode,
            weightOrLength: weightOrLength, notes: notes, createdAt: createdAt.roundedToMilliseconds,
            updatedAt: updatedAt.roundedToMilliseconds, deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: InventoryThread) {
        id = r.id
        brand = r.brand
        number = r.number
        colorName = r.colorName
        colorHex = r.colorHex
        fiberType = r.fiberType.rawValue
        quantity = r.quantity
        barcode = r.barcode
        weightOrLength = r.weightOrLength
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class CanvasModel: Model, @unchecked Sendable {
    static let schema = "canvases"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "designer") var designer: String
    @Field(key: "design_name") var designName: String
    @OptionalField(key: "acquired_at") var acquiredAt: Date?
    @OptionalField(key: "image_key") var imageKey: String?
    @OptionalField(key: "size") var size: String?
    @OptionalField(key: "mesh_count") var meshCount: Int?
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: Canvas {
        Canvas(
            id: id!, designer: designer, designName: designName, acquiredAt: acquiredAt?.roundedToMilliseconds,
            imageKey: imageKey, size: size, meshCount: meshCount, notes: notes,
            createdAt: createdAt.roundedToMilliseconds, updatedAt: updatedAt.roundedToMilliseconds,
            deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: Canvas) {
        id = r.id
        designer = r.designer
        designName = r.designName
        acquiredAt = r.acquiredAt
        imageKey = r.imageKey
        size = r.size
        meshCount = r.meshCount
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class ProjectModel: Model, @unchecked Sendable {
    static let schema = "projects"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "canvas_id") var canvasId: UUID
    @Field(key: "status") var status: String
    @Field(key: "started_at") var startedAt: Date
    @OptionalField(key: "finishing_at") var finishingAt: Date?
    @OptionalField(key: "completed_at") var completedAt: Date?
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: Project {
        Project(
            id: id!, canvasId: canvasId, status: ProjectStatus(rawValue: status) ?? .wip,
            startedAt: startedAt.roundedToMilliseconds, finishingAt: finishingAt?.roundedToMilliseconds,
            completedAt: completedAt?.roundedToMilliseconds, notes: notes, createdAt: createdAt.roundedToMilliseconds,
            updatedAt: updatedAt.roundedToMilliseconds, deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: Project) {
        id = r.id
        canvasId = r.canvasId
        status = r.status.rawValue
        startedAt = r.startedAt
        finishingAt = r.finishingAt
        completedAt = r.completedAt
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class SectionModel: Model, @unchecked Sendable {
    static let schema = "project_sections"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "project_id") var projectId: UUID
    @Field(key: "name") var name: String
    @Field(key: "sort_order") var sortOrder: Int
    @Field(key: "status") var status: String
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: ProjectSection {
        ProjectSection(
            id: id!, projectId: projectId, name: name, sortOrder: sortOrder,
            status: SectionStatus(rawValue: status) ?? .notStarted, notes: notes,
            createdAt: createdAt.roundedToMilliseconds, updatedAt: updatedAt.roundedToMilliseconds,
            deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: ProjectSection) {
        id = r.id
        projectId = r.projectId
        name = r.name
        sortOrder = r.sortOrder
        status = r.status.rawValue
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class RequirementModel: Model, @unchecked Sendable {
    static let schema = "project_threads"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "project_id") var projectId: UUID
    @OptionalField(key: "section_id") var sectionId: UUID?
    @OptionalField(key: "thread_id") var threadId: UUID?
    @Field(key: "brand") var brand: String
    @Field(key: "number") var number: String
    @OptionalField(key: "color_name") var colorName: String?
    @Field(key: "quantity_needed") var quantityNeeded: Int
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: ProjectThread {
        ProjectThread(
            id: id!, projectId: projectId, sectionId: sectionId, threadId: threadId, brand: brand, number: number,
            colorName: colorName, quantityNeeded: quantityNeeded, notes: notes,
            createdAt: createdAt.roundedToMilliseconds, updatedAt: updatedAt.roundedToMilliseconds,
            deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: ProjectThread) {
        id = r.id
        projectId = r.projectId
        sectionId = r.sectionId
        threadId = r.threadId
        brand = r.brand
        number = r.number
        colorName = r.colorName
        quantityNeeded = r.quantityNeeded
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class JournalEntryModel: Model, @unchecked Sendable {
    static let schema = "journal_entries"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "project_id") var projectId: UUID
    @Field(key: "notes") var notes: String
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: JournalEntry {
        JournalEntry(
            id: id!, projectId: projectId, notes: notes, createdAt: createdAt.roundedToMilliseconds,
            updatedAt: updatedAt.roundedToMilliseconds, deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: JournalEntry) {
        id = r.id
        projectId = r.projectId
        notes = r.notes
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

final class JournalImageModel: Model, @unchecked Sendable {
    static let schema = "journal_images"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "entry_id") var entryId: UUID
    @Field(key: "image_key") var imageKey: String
    @Field(key: "sort_order") var sortOrder: Int
    @Field(key: "version") var version: Int64
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    @OptionalField(key: "deleted_at") var deletedAt: Date?

    init() {}

    var record: JournalImage {
        JournalImage(
            id: id!, entryId: entryId, imageKey: imageKey, sortOrder: sortOrder,
            createdAt: createdAt.roundedToMilliseconds, updatedAt: updatedAt.roundedToMilliseconds,
            deletedAt: deletedAt?.roundedToMilliseconds)
    }

    func apply(_ r: JournalImage) {
        id = r.id
        entryId = r.entryId
        imageKey = r.imageKey
        sortOrder = r.sortOrder
        createdAt = r.createdAt
        updatedAt = r.updatedAt
        deletedAt = r.deletedAt
    }
}

/// An uploaded file's metadata; the bytes live in image storage under the same key.
final class ImageModel: Model, @unchecked Sendable {
    static let schema = "images"

    @ID(custom: "key", generatedBy: .user) var id: String?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "content_type") var contentType: String
    @Field(key: "byte_size") var byteSize: Int
    @Field(key: "sha256") var sha256: String
    @Field(key: "created_at") var createdAt: Date

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
