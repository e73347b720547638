import Foundation

// Each synced record described once (see RecordDescription.swift). Adding a field takes its line
// here, its property on the record, a migration on the server and on the device, and the places
// that show it; the wire, validation, the server's rows and pages, sync, backup and the device
// store follow from this.

private let epoch = Date(timeIntervalSince1970: 0)

extension InventoryThread: DescribedRecord {
    public static let described = RecordDescription<InventoryThread>(
        table: "threads", blank: InventoryThread(brand: "", number: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .text("brand", "brand", { $0.brand }, { $0.brand = $1 }, rule: .text(label: "Brand", max: Limits.brand)),
            .text("number", "number", { $0.number }, { $0.number = $1 }, rule: .text(label: "Number", max: Limits.number)),
            .text("colorName", "color_name", { $0.colorName }, { $0.colorName = $1 }, rule: .text(label: "Colour name", max: Limits.colorName)),
            .text("catalogColorName", "catalog_color_name", { $0.catalogColorName }, { $0.catalogColorName = $1 }, rule: .text(label: "Catalog colour name", max: Limits.colorName)),
            .text("colorHex", "color_hex", { $0.colorHex }, { $0.colorHex = $1 }, rule: .hexColor(message: "Colour must be a hex value like #1A2B3C"), cleaning: .upper),
            .choice("fiberType", "fiber_type", { $0.fiberType }, { $0.fiberType = $1 }, default: .wool),
            .int("quantity", "quantity", { $0.quantity }, { $0.quantity = $1 }, rule: .range(label: "Quantity", min: 0, max: Limits.maxQuantity,
                                                                  belowMin: "Quantity can't be negative")),
            .text("barcode", "barcode", { $0.barcode }, { $0.barcode = $1 }, rule: .text(label: "Barcode", max: Limits.barcode)),
            .text("weightOrLength", "weight_or_length", { $0.weightOrLength }, { $0.weightOrLength = $1 }, rule: .text(label: "Weight or length", max: Limits.weightOrLength)),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.threadNotes), cleaning: .notes),
        ])
}

extension Canvas: DescribedRecord {
    public static let described = RecordDescription<Canvas>(
        table: "canvases", blank: Canvas(designer: "", designName: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .text("designer", "designer", { $0.designer }, { $0.designer = $1 }, rule: .text(label: "Designer", max: Limits.designer)),
            .text("designName", "design_name", { $0.designName }, { $0.designName = $1 }, rule: .text(label: "Design name", max: Limits.designName)),
            .instant("acquiredAt", "acquired_at", { $0.acquiredAt }, { $0.acquiredAt = $1 }),
            .text("imageKey", "image_key", { $0.imageKey }, { $0.imageKey = $1 }, rule: .text(label: "Image key", max: Limits.imageKey)),
            .text("size", "size", { $0.size }, { $0.size = $1 }, rule: .text(label: "Size", max: Limits.canvasSize)),
            .int("meshCount", "mesh_count", { $0.meshCount }, { $0.meshCount = $1 }, rule: .range(label: "Mesh count", min: 1, max: Limits.maxMeshCount,
                                                                      belowMin: "Enter a positive number")),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
        ])
}

extension Project: DescribedRecord {
    public static let described = RecordDescription<Project>(
        table: "projects", blank: Project(startedAt: epoch, createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("canvasId", "canvas_id", { $0.canvasId }, { $0.canvasId = $1 }),
            .text("name", "name", { $0.name }, { $0.name = $1 }, rule: .text(label: "Name", max: Limits.designName)),
            .text("imageKey", "image_key", { $0.imageKey }, { $0.imageKey = $1 }, rule: .text(label: "Picture", max: Limits.imageKey), cleaning: .none),
            .choice("status", "status", { $0.status }, { $0.status = $1 }, default: .wip),
            .instant("startedAt", "started_at", { $0.startedAt }, { $0.startedAt = $1 }),
            .instant("finishingAt", "finishing_at", { $0.finishingAt }, { $0.finishingAt = $1 }),
            .instant("completedAt", "completed_at", { $0.completedAt }, { $0.completedAt = $1 }),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
            .text("size", "size", { $0.size }, { $0.size = $1 }, rule: .text(label: "Size", max: Limits.canvasSize)),
            .int("meshCount", "mesh_count", { $0.meshCount }, { $0.meshCount = $1 }, rule: .range(label: "Mesh count", min: 1, max: Limits.maxMeshCount,
                                                                      belowMin: "Enter a positive number")),
        ])

    public func validateAcrossFields(into v: inout Validator) {
        if let completedAt, completedAt < startedAt {
            v.fail("completedAt", "Completed date can't be before the start date")
        }
        if let finishingAt, finishingAt < startedAt {
            v.fail("finishingAt", "At-finishing date can't be before the start date")
        }
    }
}

extension ProjectSection: DescribedRecord {
    public static let described = RecordDescription<ProjectSection>(
        table: "project_sections", blank: ProjectSection(projectId: UUID(), name: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", { $0.projectId }, { $0.projectId = $1 }),
            .text("name", "name", { $0.name }, { $0.name = $1 }, rule: .text(label: "Name", max: Limits.sectionName)),
            .int("sortOrder", "sort_order", { $0.sortOrder }, { $0.sortOrder = $1 }, rule: .range(label: "Sort order", min: 0, max: .max, belowMin: "Sort order can't be negative")),
            .choice("status", "status", { $0.status }, { $0.status = $1 }, default: .notStarted),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
        ])
}

extension ProjectThread: DescribedRecord {
    public static let described = RecordDescription<ProjectThread>(
        table: "project_threads", blank: ProjectThread(projectId: UUID(), brand: "", number: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", { $0.projectId }, { $0.projectId = $1 }),
            .id("sectionId", "section_id", { $0.sectionId }, { $0.sectionId = $1 }),
            .id("threadId", "thread_id", { $0.threadId }, { $0.threadId = $1 }),
            .text("brand", "brand", { $0.brand }, { $0.brand = $1 }, rule: .text(label: "Brand", max: Limits.brand)),
            .text("number", "number", { $0.number }, { $0.number = $1 }, rule: .text(label: "Number", max: Limits.number)),
            .text("colorName", "color_name", { $0.colorName }, { $0.colorName = $1 }, rule: .text(label: "Colour name", max: Limits.colorName)),
            .int("quantityNeeded", "quantity_needed", { $0.quantityNeeded }, { $0.quantityNeeded = $1 }, default: 1,
                 rule: .range(label: "Quantity", min: 1, max: Limits.maxQuantity, belowMin: "Need at least 1")),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.threadNotes), cleaning: .notes),
        ])
}

extension JournalEntry: DescribedRecord {
    public static let described = RecordDescription<JournalEntry>(
        table: "journal_entries", blank: JournalEntry(projectId: UUID(), notes: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", { $0.projectId }, { $0.projectId = $1 }),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.longNotes, required: false), cleaning: .notes),
        ])
}

extension Pattern: DescribedRecord {
    public static let described = RecordDescription<Pattern>(
        table: "patterns", blank: Pattern(projectId: UUID(), title: "", fileKey: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", { $0.projectId }, { $0.projectId = $1 }),
            .text("title", "title", { $0.title }, { $0.title = $1 }, rule: .text(label: "Title", max: Limits.designName)),
            .text("fileKey", "file_key", { $0.fileKey }, { $0.fileKey = $1 }, rule: .text(label: "File", max: Limits.imageKey), cleaning: .none),
            .int("lastPage", "last_page", { $0.lastPage }, { $0.lastPage = $1 }, default: 1,
                 rule: .range(label: "Last page", min: 1, max: Limits.maxPatternPages, belowMin: "Pages are counted from 1")),
        ])
}

extension JournalImage: DescribedRecord {
    public static let described = RecordDescription<JournalImage>(
        table: "journal_images", blank: JournalImage(entryId: UUID(), imageKey: "", sortOrder: 0, createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("entryId", "entry_id", { $0.entryId }, { $0.entryId = $1 }),
            .text("imageKey", "image_key", { $0.imageKey }, { $0.imageKey = $1 }, rule: .text(label: "Image", max: Limits.imageKey), cleaning: .none),
            .int("sortOrder", "sort_order", { $0.sortOrder }, { $0.sortOrder = $1 }, rule: .range(label: "Sort order", min: 0, max: .max, belowMin: "Sort order can't be negative")),
        ])
}

extension ShoppingLine: DescribedRecord {
    public static let described = RecordDescription<ShoppingLine>(
        table: "shopping_lines", blank: ShoppingLine(brand: "", number: "", quantity: 1, createdAt: epoch, updatedAt: epoch),
        fields: [
            .choice("kind", "kind", { $0.kind }, { $0.kind = $1 }, default: .added),
            .text("brand", "brand", { $0.brand }, { $0.brand = $1 }, rule: .text(label: "Brand", max: Limits.brand)),
            .text("number", "number", { $0.number }, { $0.number = $1 }, rule: .text(label: "Number", max: Limits.number)),
            .text("colorName", "color_name", { $0.colorName }, { $0.colorName = $1 }, rule: .text(label: "Colour name", max: Limits.colorName)),
            .int("quantity", "quantity", { $0.quantity }, { $0.quantity = $1 }, default: 1,
                 rule: .range(label: "Quantity", min: 1, max: Limits.maxQuantity, belowMin: "Buy at least 1")),
            .text("notes", "notes", { $0.notes }, { $0.notes = $1 }, rule: .text(label: "Notes", max: Limits.threadNotes), cleaning: .notes),
        ])
}
