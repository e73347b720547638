import Foundation

/// The public face of an account: what the API and clients may see.
public struct UserProfile: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var email: String?
    public var displayName: String
    public var providers: [IdentityProvider]
    public var createdAt: Date

    public init(id: UUID, email: String?, displayName: String, providers: [IdentityProvider], createdAt: Date) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.providers = providers
        self.createdAt = createdAt
    }
}

/// A thread in the user's inventory. (Named so it cannot be confused with `Foundation.Thread`.)
public struct InventoryThread: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var brand: String
    public var number: String
    public var colorName: String?
    /// The colour's name in its brand's catalog (DMC 310 is "Black"), filled in from the catalog.
    public var catalogColorName: String?
    public var colorHex: String?
    public var fiberType: FiberType
    public var quantity: Int
    public var barcode: String?
    public var weightOrLength: String?
    public var notes: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), brand: String, number: String, colorName: String? = nil, catalogColorName: String? = nil,
        colorHex: String? = nil, fiberType: FiberType = .wool, quantity: Int = 0, barcode: String? = nil,
        weightOrLength: String? = nil, notes: String? = nil, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.brand = brand
        self.number = number
        self.colorName = colorName
        self.catalogColorName = catalogColorName
        self.colorHex = colorHex
        self.fiberType = fiberType
        self.quantity = quantity
        self.barcode = barcode
        self.weightOrLength = weightOrLength
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

extension InventoryThread {
    /// The colour's name as a person reads it: their own name for it, with the catalog's beside
    /// it where the two differ ("Night sky (Black)"), or the catalog's alone.
    public var displayColorName: String? {
        switch (colorName, catalogColorName) {
        case let (own?, catalog?) where own.caseInsensitiveCompare(catalog) != .orderedSame: "\(own) (\(catalog))"
        case let (own?, _): own
        case let (nil, catalog): catalog
        }
    }
}

/// A painted canvas in the user's stash.
public struct Canvas: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var designer: String
    public var designName: String
    public var acquiredAt: Date?
    public var imageKey: String?
    public var size: String?
    public var meshCount: Int?
    public var notes: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), designer: String, designName: String, acquiredAt: Date? = nil, imageKey: String? = nil,
        size: String? = nil, meshCount: Int? = nil, notes: String? = nil, createdAt: Date, updatedAt: Date,
        deletedAt: Date? = nil
    ) {
        self.id = id
        self.designer = designer
        self.designName = designName
        self.acquiredAt = acquiredAt
        self.imageKey = imageKey
        self.size = size
        self.meshCount = meshCount
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

/// A piece being stitched: a painted canvas from the stash, a chart (its patterns), or nothing yet.
public struct Project: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    /// The canvas from the stash, when it is one; a project from a chart has none.
    public var canvasId: UUID?
    /// What to call a project without a canvas ("Fox, from the chart"); with a canvas its design
    /// name is the title (`title(canvas:)`).
    public var name: String?
    /// The picture of a project without a canvas (one of its journal photos, or its pattern's
    /// first page, kept as a picture); a project with a canvas shows the canvas's.
    public var imageKey: String?
    public var status: ProjectStatus
    public var startedAt: Date
    public var finishingAt: Date?
    public var completedAt: Date?
    public var notes: String?
    /// The size of a project without a canvas ("14×18 in"), as a canvas has one; with a canvas
    /// the canvas's is shown (`size(canvas:)`).
    public var size: String?
    /// The mesh (or count) of a project without a canvas; with a canvas the canvas's counts.
    public var meshCount: Int?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), canvasId: UUID? = nil, name: String? = nil, imageKey: String? = nil, status: ProjectStatus = .wip, startedAt: Date,
        finishingAt: Date? = nil, completedAt: Date? = nil, notes: String? = nil, size: String? = nil, meshCount: Int? = nil,
        createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.canvasId = canvasId
        self.name = name
        self.imageKey = imageKey
        self.status = status
        self.startedAt = startedAt
        self.finishingAt = finishingAt
        self.completedAt = completedAt
        self.notes = notes
        self.size = size
        self.meshCount = meshCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// The piece's size and mesh: its canvas's when it has one, else its own.
    public func dimensions(canvas: Canvas?) -> (size: String?, meshCount: Int?) {
        if let canvas, canvas.id == canvasId { return (canvas.size, canvas.meshCount) }
        return (size, meshCount)
    }

    /// What the project is called wherever it is shown: its canvas's design name, else its own
    /// name, else "Untitled project".
    public func title(canvas: Canvas?) -> String {
        if let canvas, canvas.id == canvasId { return canvas.designName }
        if let name = name?.trimmedWhitespace, !name.isEmpty { return name }
        return "Untitled project"
    }

    /// Applies a status change the way the product defines it: starting a planned project dates
    /// its start now (while planned, `startedAt` holds when it was planned); entering
    /// `at_finishing` or `completed` stamps the matching date, moving back clears it. A stamped
    /// date is never before the start date (a project can be dated ahead; finishing it then can't
    /// be an error).
    public mutating func setStatus(_ newStatus: ProjectStatus, at clock: Date) {
        // Started now — or on the finishing or completion day given with the change, if earlier.
        if status == .planned && newStatus != .planned { startedAt = [clock, finishingAt, completedAt].compactMap { $0 }.min()! }
        let now = max(clock, startedAt)
        switch newStatus {
        case .planned, .wip:
            finishingAt = nil
            completedAt = nil
        case .atFinishing:
            if finishingAt == nil || status != .atFinishing { finishingAt = finishingAt ?? now }
            completedAt = nil
        case .completed:
            if completedAt == nil || status != .completed { completedAt = completedAt ?? now }
        }
        status = newStatus
    }
}

/// A dated note in a project's journal, with its photos.
public struct JournalEntry: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var projectId: UUID
    public var notes: String
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), projectId: UUID, notes: String, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

/// A photo attached to a journal entry, in its order.
public struct JournalImage: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var entryId: UUID
    public var imageKey: String
    public var sortOrder: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), entryId: UUID, imageKey: String, sortOrder: Int, createdAt: Date, updatedAt: Date,
        deletedAt: Date? = nil
    ) {
        self.id = id
        self.entryId = entryId
        self.imageKey = imageKey
        self.sortOrder = sortOrder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

/// A pattern a project is stitched from: a PDF chart or a picture, uploaded once (its file is
/// kept like a picture, under `fileKey`) and read page by page; `lastPage` is where its reader
/// left off, so another device opens there.
public struct Pattern: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var projectId: UUID
    public var title: String
    public var fileKey: String
    /// 1-based.
    public var lastPage: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), projectId: UUID, title: String, fileKey: String, lastPage: Int = 1, createdAt: Date, updatedAt: Date,
        deletedAt: Date? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.title = title
        self.fileKey = fileKey
        self.lastPage = lastPage
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

/// A line of the shopping list the stitcher wrote rather than one the projects' needs make: a
/// thread to buy by hand (running low, or short for a project that is only planned), or a
/// computed line set aside without buying ("not this time"), which stays aside while the projects
/// still want that same number of skeins and comes back when the need changes.
public struct ShoppingLine: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var kind: ShoppingLineKind
    public var brand: String
    public var number: String
    public var colorName: String?
    /// `added`: skeins to buy. `dismissed`: what the computed line asked for when it was set aside.
    public var quantity: Int
    public var notes: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), kind: ShoppingLineKind = .added, brand: String, number: String, colorName: String? = nil,
        quantity: Int, notes: String? = nil, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.kind = kind
        self.brand = brand
        self.number = number
        self.colorName = colorName
        self.quantity = quantity
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    public var key: ThreadKey { ThreadKey(brand: brand, number: number) }
}

/// A named part of a project (a border, a background) whose threads are tracked together.
public struct ProjectSection: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var projectId: UUID
    public var name: String
    public var sortOrder: Int
    public var status: SectionStatus
    public var notes: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), projectId: UUID, name: String, sortOrder: Int = 0, status: SectionStatus = .notStarted,
        notes: String? = nil, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.name = name
        self.sortOrder = sortOrder
        self.status = status
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}

/// One thread requirement of a project. Brand, number and colour name are copied in so the
/// requirement reads well even without an inventory thread behind it.
public struct ProjectThread: Codable, Sendable, Hashable, Identifiable {
    public var id: UUID
    public var projectId: UUID
    public var sectionId: UUID?
    public var threadId: UUID?
    public var brand: String
    public var number: String
    public var colorName: String?
    public var quantityNeeded: Int
    public var notes: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: UUID = UUID(), projectId: UUID, sectionId: UUID? = nil, threadId: UUID? = nil, brand: String,
        number: String, colorName: String? = nil, quantityNeeded: Int = 1, notes: String? = nil, createdAt: Date,
        updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.projectId = projectId
        self.sectionId = sectionId
        self.threadId = threadId
        self.brand = brand
        self.number = number
        self.colorName = colorName
        self.quantityNeeded = quantityNeeded
        self.notes = notes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }
}
