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
            .text("brand", "brand", \.brand, rule: .text(label: "Brand", max: Limits.brand)),
            .text("number", "number", \.number, rule: .text(label: "Number", max: Limits.number)),
            .text("colorName", "color_name", \.colorName, rule: .text(label: "Colour name", max: Limits.colorName)),
            .text("catalogColorName", "catalog_color_name", \.catalogColorName, rule: .text(label: "Catalog colour name", max: Limits.colorName)),
            .text("colorHex", "color_hex", \.colorHex, rule: .hexColor(message: "Colour must be a hex value like #1A2B3C"), cleaning: .upper),
            .choice("fiberType", "fiber_type", \.fiberType, default: .wool),
            .int("quantity", "quantity", \.quantity, rule: .range(label: "Quantity", min: 0, max: Limits.maxQuantity,
                                                                  belowMin: "Quantity can't be negative")),
            .text("barcode", "barcode", \.barcode, rule: .text(label: "Barcode", max: Limits.barcode)),
            .text("weightOrLength", "weight_or_length", \.weightOrLength, rule: .text(label: "Weight or length", max: Limits.weightOrLength)),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.threadNotes), cleaning: .notes),
        ])
}

extension Canvas: DescribedRecord {
    public static let described = RecordDescription<Canvas>(
        table: "canvases", blank: Canvas(designer: "", designName: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .text("designer", "designer", \.designer, rule: .text(label: "Designer", max: Limits.designer)),
            .text("designName", "design_name", \.designName, rule: .text(label: "Design name", max: Limits.designName)),
            .instant("acquiredAt", "acquired_at", \.acquiredAt),
            .text("imageKey", "image_key", \.imageKey, rule: .text(label: "Image key", max: Limits.imageKey)),
            .text("size", "size", \.size, rule: .text(label: "Size", max: Limits.canvasSize)),
            .int("meshCount", "mesh_count", \.meshCount, rule: .range(label: "Mesh count", min: 1, max: Limits.maxMeshCount,
                                                                      belowMin: "Enter a positive number")),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
        ])
}

extension Project: DescribedRecord {
    public static let described = RecordDescription<Project>(
        table: "projects", blank: Project(canvasId: UUID(), startedAt: epoch, createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("canvasId", "canvas_id", \.canvasId),
            .choice("status", "status", \.status, default: .wip),
            .instant("startedAt", "started_at", \.startedAt),
            .instant("finishingAt", "finishing_at", \.finishingAt),
            .instant("completedAt", "completed_at", \.completedAt),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
        ])

    public func validateAcrossFields(into v: inout Validator) {
        if let completedAt, completedAt < startedAt {
            v.fail("completedAt", "Completed date can't be before the start date")
        }
    }
}

extension ProjectSection: DescribedRecord {
    public static let described = RecordDescription<ProjectSection>(
        table: "project_sections", blank: ProjectSection(projectId: UUID(), name: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", \.projectId),
            .text("name", "name", \.name, rule: .text(label: "Name", max: Limits.sectionName)),
            .int("sortOrder", "sort_order", \.sortOrder, rule: .range(label: "Sort order", min: 0, max: .max, belowMin: "Sort order can't be negative")),
            .choice("status", "status", \.status, default: .notStarted),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.longNotes), cleaning: .notes),
        ])
}

extension ProjectThread: DescribedRecord {
    public static let described = RecordDescription<ProjectThread>(
        table: "project_threads", blank: ProjectThread(projectId: UUID(), brand: "", number: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", \.projectId),
            .id("sectionId", "section_id", \.sectionId),
            .id("threadId", "thread_id", \.threadId),
            .text("brand", "brand", \.brand, rule: .text(label: "Brand", max: Limits.brand)),
            .text("number", "number", \.number, rule: .text(label: "Number", max: Limits.number)),
            .text("colorName", "color_name", \.colorName, rule: .text(label: "Colour name", max: Limits.colorName)),
            .int("quantityNeeded", "quantity_needed", \.quantityNeeded, default: 1,
                 rule: .range(label: "Quantity", min: 1, max: Limits.maxQuantity, belowMin: "Need at least 1")),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.threadNotes), cleaning: .notes),
        ])
}

extension JournalEntry: DescribedRecord {
    public static let described = RecordDescription<JournalEntry>(
        table: "journal_entries", blank: JournalEntry(projectId: UUID(), notes: "", createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("projectId", "project_id", \.projectId),
            .text("notes", "notes", \.notes, rule: .text(label: "Notes", max: Limits.longNotes, required: false), cleaning: .notes),
        ])
}

extension JournalImage: DescribedRecord {
    public static let described = RecordDescription<JournalImage>(
        table: "journal_images", blank: JournalImage(entryId: UUID(), imageKey: "", sortOrder: 0, createdAt: epoch, updatedAt: epoch),
        fields: [
            .id("entryId", "entry_id", \.entryId),
            .text("imageKey", "image_key", \.imageKey, rule: .text(label: "Image", max: Limits.imageKey), cleaning: .none),
            .int("sortOrder", "sort_order", \.sortOrder, rule: .range(label: "Sort order", min: 0, max: .max, belowMin: "Sort order can't be negative")),
        ])
}
