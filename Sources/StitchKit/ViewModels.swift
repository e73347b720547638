import Foundation
import StitchCore

/// Screen logic with no UI framework: each model reads the local store, keeps the screen's state,
/// and writes through the store (so every change works offline and is queued for sync). A SwiftUI
/// view or the CLI renders them.

/// The thread list, the most used screen: search, brand and fiber filters, natural order, the
/// inline stepper.
public struct ThreadListModel: Sendable {
    public var search = ""
    public var brand: String?
    public var fiber: FiberType?
    public private(set) var all: [InventoryThread] = []

    public init() {}

    public mutating func load(from store: LocalStore) throws {
        all = try store.all(InventoryThread.self)
    }

    /// What the list shows now.
    public var threads: [InventoryThread] {
        InventoryThread.sortedInInventoryOrder(all.filter { thread in
            (brand.map { thread.brand.caseInsensitiveCompare($0) == .orderedSame } ?? true)
                && (fiber.map { thread.fiberType == $0 } ?? true)
                && thread.matches(search: search)
        })
    }

    /// Brands for the filter menu and autocomplete: the user's own, most used first.
    public var brands: [String] { Self.brands(of: all) }

    public static func brands(of threads: [InventoryThread]) -> [String] {
        var counts: [String: (name: String, count: Int)] = [:]
        for t in threads { counts[t.brand.lowercased(), default: (t.brand, 0)].count += 1 }
        return counts.values.sorted { $0.count != $1.count ? $0.count > $1.count : NaturalOrder.areInIncreasingOrder($0.name, $1.name) }.map(\.name)
    }

    /// − / + on a row. Never below zero: a decrement at zero changes nothing (and writes nothing).
    @discardableResult
    public mutating func step(_ id: UUID, by delta: Int, in store: LocalStore) throws -> InventoryThread? {
        guard var thread = try store.find(InventoryThread.self, id: id) else { return nil }
        let quantity = max(0, thread.quantity + delta)
        guard quantity != thread.quantity else { return thread }
        thread.quantity = quantity
        let saved = try store.save(thread)
        try load(from: store)
        return saved
    }

    /// "No threads yet — Tap + to add your first thread".
    public var emptyState: (title: String, message: String)? {
        all.isEmpty ? ("No threads yet", "Tap + to add your first thread") : nil
    }
}

/// Add thread, built for batch entry: with "Add another" on, saving keeps the brand and clears the rest.
public struct AddThreadModel: Sendable {
    public var brand = ""
    public var number = ""
    public var colorName = ""
    public var colorHex = ""
    public var fiberType: FiberType = .wool
    public var quantity = 1
    public var addAnother = true
    public private(set) var errors: [String: String] = [:]

    public init(brand: String = "") { self.brand = brand }

    /// Brand suggestions from the user's own history, for what has been typed so far.
    public func brandSuggestions(from threads: [InventoryThread]) -> [String] {
        let typed = brand.trimmingCharacters(in: .whitespaces).lowercased()
        return ThreadListModel.brands(of: threads).filter { typed.isEmpty || $0.lowercased().hasPrefix(typed) }
    }

    /// A thread of the same brand and number found on the last save: offer to add to it.
    public private(set) var duplicate: InventoryThread?

    /// Saves the thread; on success either resets for the next one (keeping the brand) or is done.
    /// A thread you have already is not added twice: `duplicate` is set, and saving again with
    /// `merge` adds the quantity to it.
    public mutating func save(to store: LocalStore, merge: Bool = false) throws -> InventoryThread? {
        let now = store.clock()
        let thread = InventoryThread(
            brand: brand, number: number, colorName: colorName, colorHex: colorHex.isEmpty ? nil : colorHex,
            fiberType: fiberType, quantity: quantity, createdAt: now, updatedAt: now)
        errors = thread.normalized.validationErrors
        guard errors.isEmpty else { return nil }
        let saved: InventoryThread
        do {
            saved = try store.addThread(thread, given: ["quantity", "colorName", "colorHex"], merge: merge).thread
            duplicate = nil
        } catch let exists as ThreadExists {
            duplicate = exists.existing
            errors = ["number": exists.message]
            return nil
        }
        if addAnother {
            number = ""
            colorName = ""
            colorHex = ""
            quantity = 1
        }
        return saved
    }
}

/// The Stitch Stash: canvases newest first, search by designer or design name.
public struct StashModel: Sendable {
    public var search = ""
    public private(set) var all: [Canvas] = []
    public init() {}

    public mutating func load(from store: LocalStore) throws { all = try store.all(Canvas.self) }

    public var canvases: [Canvas] {
        all.filter { $0.matches(search: search) }.sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
    }

    public var emptyState: (title: String, message: String)? {
        all.isEmpty ? ("No canvases yet", "Tap + to add your first canvas") : nil
    }

    /// "13m": the mesh badge.
    public static func meshBadge(_ canvas: Canvas) -> String? { canvas.meshCount.map { "\($0)m" } }
}

/// Start project: from a canvas without a live project, or without a canvas (a chart, or nothing
/// yet) under a name.
public struct StartProjectModel: Sendable {
    public private(set) var available: [Canvas] = []
    public init() {}

    public mutating func load(from store: LocalStore) throws {
        let taken = Set(try store.all(Project.self).compactMap(\.canvasId))
        available = try store.all(Canvas.self).filter { !taken.contains($0.id) }
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
    }

    public var emptyState: (title: String, message: String)? {
        available.isEmpty ? ("No available canvases", "All canvases are already linked to projects. Add a new canvas first.") : nil
    }

    /// Starts (or plans) a project with no canvas: one stitched from a chart, or not chosen yet.
    public func start(named name: String, planned: Bool = false, startedAt: Date? = nil, in store: LocalStore) throws -> Project {
        guard !name.trimmedWhitespace.isEmpty else { throw ValidationError("name", "Give a project without a canvas a name") }
        let now = store.clock()
        return try store.save(Project(name: name, status: planned ? .planned : .wip, startedAt: planned ? now : startedAt ?? now,
                                      createdAt: now, updatedAt: now))
    }

    /// Starts a project now, on `startedAt` (a WIP begun months ago), or — `planned` — plans it
    /// without starting it: it lists its threads and shows readiness until it is started.
    public func start(_ canvasId: UUID, planned: Bool = false, startedAt: Date? = nil, in store: LocalStore) throws -> Project {
        guard available.contains(where: { $0.id == canvasId }) else {
            throw ValidationError(fields: ["canvasId": "This canvas already has a project"])
        }
        let now = store.clock()
        return try store.save(Project(canvasId: canvasId, status: planned ? .planned : .wip, startedAt: planned ? now : startedAt ?? now,
                                      createdAt: now, updatedAt: now))
    }
}

/// A project's page: its canvas, status, journal (newest first, pictures in order), sections,
/// requirements and readiness.
public struct ProjectDetailModel: Sendable {
    public let projectId: UUID
    public private(set) var project: Project?
    public private(set) var canvas: Canvas?
    public private(set) var journal: [(entry: JournalEntry, images: [JournalImage])] = []
    public private(set) var sections: [ProjectSection] = []
    public private(set) var requirements: [ProjectThread] = []
    public private(set) var readiness: ProjectReadiness?

    public init(projectId: UUID) { self.projectId = projectId }

    /// The model of a project, loaded from the store.
    public static func loaded(_ projectId: UUID, from store: LocalStore) throws -> ProjectDetailModel {
        var model = ProjectDetailModel(projectId: projectId)
        try model.load(from: store)
        return model
    }

    public var title: String { project?.title(canvas: canvas) ?? "Untitled project" }

    public mutating func load(from store: LocalStore) throws {
        project = try store.find(Project.self, id: projectId)
        canvas = try project?.canvasId.flatMap { try store.find(Canvas.self, id: $0) }
        let entries = try store.all(JournalEntry.self).filter { $0.projectId == projectId }
            .sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
        let images = Dictionary(grouping: try store.all(JournalImage.self), by: \.entryId)
        journal = entries.map { entry in (entry, (images[entry.id] ?? []).sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) }) }
        sections = try store.all(ProjectSection.self).filter { $0.projectId == projectId }.sorted { ($0.sortOrder, $0.createdAt) < ($1.sortOrder, $1.createdAt) }
        requirements = try store.all(ProjectThread.self).filter { $0.projectId == projectId }
        readiness = Readiness.project(projectId, sections: sections, requirements: requirements,
                                      inventory: InventoryIndex(try store.all(InventoryThread.self)))
    }

    public mutating func setStatus(_ status: ProjectStatus, in store: LocalStore) throws {
        guard var project else { return }
        project.setStatus(status, at: store.clock())
        self.project = try store.save(project)
    }

    /// Adds a journal entry with pictures (kept on the device until the next sync uploads them).
    @discardableResult
    public mutating func addEntry(notes: String, images: [Data], date: Date? = nil, in store: LocalStore) throws -> JournalEntry {
        let now = store.clock()
        let entry = try store.save(JournalEntry(projectId: projectId, notes: notes, createdAt: date ?? now, updatedAt: now))
        for (index, data) in images.enumerated() {
            let key = try store.stageImage(data)
            try store.save(JournalImage(entryId: entry.id, imageKey: key, sortOrder: index, createdAt: now, updatedAt: now))
        }
        try load(from: store)
        return entry
    }

    // MARK: Editing what the page shows

    /// Dates set by hand, as far as the status has them (nil leaves one as it is); none may be
    /// before the start (the record's validation says so).
    public mutating func setDates(started: Date? = nil, finishing: Date? = nil, completed: Date? = nil, in store: LocalStore) throws {
        guard var project else { return }
        if project.status == .planned && started != nil { throw ValidationError("startedAt", "A planned project isn't started: start it first") }
        if finishing != nil && ![.atFinishing, .completed].contains(project.status) { throw ValidationError("finishingAt", "It isn't at finishing") }
        if completed != nil && project.status != .completed { throw ValidationError("completedAt", "It isn't completed") }
        if let started { project.startedAt = started }
        if let finishing { project.finishingAt = finishing }
        if let completed { project.completedAt = completed }
        self.project = try store.save(project)
    }

    /// The size and mesh of a project without a canvas (nil clears one); a project with a
    /// canvas has the canvas's, changed on the canvas.
    public mutating func setSize(_ size: String?, meshCount: Int?, in store: LocalStore) throws {
        guard var project else { return }
        guard project.canvasId == nil else { throw ValidationError("size", "This project has its canvas's size; change it on the canvas") }
        project.size = size.flatMap { $0.trimmedWhitespace.isEmpty ? nil : $0 }
        project.meshCount = meshCount
        self.project = try store.save(project)
    }

    public mutating func setNotes(_ notes: String?, in store: LocalStore) throws {
        guard var project else { return }
        project.notes = notes
        self.project = try store.save(project)
    }

    public mutating func renameSection(_ id: UUID, to name: String, in store: LocalStore) throws {
        try changeSection(id, in: store) { $0.name = name }
    }

    public mutating func setSectionStatus(_ id: UUID, to status: SectionStatus, in store: LocalStore) throws {
        try changeSection(id, in: store) { $0.status = status }
    }

    /// A section's notes ("left side first, then the sky"); nil or blank clears them.
    public mutating func setSectionNotes(_ id: UUID, to notes: String?, in store: LocalStore) throws {
        try changeSection(id, in: store) { $0.notes = Rules.cleanNotes(notes) }
    }

    /// One section of this project changed by `change`, saved and the project read again.
    private mutating func changeSection(_ id: UUID, in store: LocalStore, _ change: (inout ProjectSection) -> Void) throws {
        guard var section = sections.first(where: { $0.id == id }) else { throw ValidationError("section", "No such section in this project") }
        change(&section)
        try store.save(section)
        try load(from: store)
    }

    /// One place up (`by: -1`) or down (`by: 1`); the sections are numbered again in their new
    /// order, so every device sees the same order. Already first or last: nothing changes.
    public mutating func moveSection(_ id: UUID, by step: Int, in store: LocalStore) throws {
        guard let from = sections.firstIndex(where: { $0.id == id }) else { throw ValidationError("section", "No such section in this project") }
        guard sections.indices.contains(from + step) else { return }
        var ordered = sections
        ordered.swapAt(from, from + step)
        try Self.number(ordered, \.sortOrder, in: store)
        try load(from: store)
    }

    /// Saves `ordered` numbered 0, 1, 2, … (only those whose number changes).
    private static func number<R: LocalRecord>(_ ordered: [R], _ order: WritableKeyPath<R, Int>, in store: LocalStore) throws {
        for (index, var record) in ordered.enumerated() where record[keyPath: order] != index {
            record[keyPath: order] = index
            try store.save(record)
        }
    }

    /// More photos on an entry written before, after its others (kept on the device until the
    /// next sync uploads them).
    public mutating func addPhotos(_ images: [Data], to entryId: UUID, in store: LocalStore) throws {
        guard let (_, photos) = journal.first(where: { $0.entry.id == entryId }) else { throw ValidationError("entry", "No such journal entry in this project") }
        let now = store.clock()
        var next = (photos.map(\.sortOrder).max() ?? -1) + 1
        for data in images {
            let key = try store.stageImage(data)
            try store.save(JournalImage(entryId: entryId, imageKey: key, sortOrder: next, createdAt: now, updatedAt: now))
            next += 1
        }
        try load(from: store)
    }

    /// One photo off its entry (the entry and its other photos stay).
    public mutating func removePhoto(_ id: UUID, in store: LocalStore) throws {
        guard journal.contains(where: { $0.images.contains { $0.id == id } }) else { throw ValidationError("photo", "No such photo in this project's journal") }
        try store.delete(JournalImage.self, id: id)
        try load(from: store)
    }

    /// A photo to `position` (from 1; past the end is last) among its entry's, the entry's
    /// photos numbered again in their new order.
    public mutating func movePhoto(_ id: UUID, to position: Int, in store: LocalStore) throws {
        guard let photos = journal.first(where: { $0.images.contains { $0.id == id } })?.images,
              let from = photos.firstIndex(where: { $0.id == id }) else { throw ValidationError("photo", "No such photo in this project's journal") }
        guard position >= 1 else { throw ValidationError("position", "Positions start at 1") }
        var ordered = photos
        let photo = ordered.remove(at: from)
        ordered.insert(photo, at: min(position - 1, ordered.count))
        try Self.number(ordered, \.sortOrder, in: store)
        try load(from: store)
    }

    /// Its threads stay with the project, without a section (as the server does).
    public mutating func deleteSection(_ id: UUID, in store: LocalStore) throws {
        guard sections.contains(where: { $0.id == id }) else { throw ValidationError("section", "No such section in this project") }
        for var requirement in requirements where requirement.sectionId == id {
            requirement.sectionId = nil
            try store.save(requirement)
        }
        try store.delete(ProjectSection.self, id: id)
        try load(from: store)
    }

    /// Changes what is given of quantity, colour name and notes (an empty text clears it).
    public mutating func editRequirement(_ id: UUID, quantityNeeded: Int? = nil, colorName: String? = nil, notes: String? = nil,
                                         in store: LocalStore) throws {
        guard var requirement = requirements.first(where: { $0.id == id }) else { throw ValidationError("requirement", "No such requirement in this project") }
        if let quantityNeeded { requirement.quantityNeeded = quantityNeeded }
        if let colorName { requirement.colorName = colorName.isEmpty ? nil : colorName }
        if let notes { requirement.notes = notes.isEmpty ? nil : notes }
        try store.save(requirement)
        try load(from: store)
    }

    public mutating func editEntry(_ id: UUID, notes: String? = nil, date: Date? = nil, in store: LocalStore) throws {
        guard var entry = journal.first(where: { $0.entry.id == id })?.entry else { throw ValidationError("entry", "No such journal entry in this project") }
        if let notes { entry.notes = notes }
        if let date { entry.createdAt = date }
        try store.save(entry)
        try load(from: store)
    }

    /// The entry and its photos.
    public mutating func deleteEntry(_ id: UUID, in store: LocalStore) throws {
        guard let (_, images) = journal.first(where: { $0.entry.id == id }) else { throw ValidationError("entry", "No such journal entry in this project") }
        for image in images { try store.delete(JournalImage.self, id: image.id) }
        try store.delete(JournalEntry.self, id: id)
        try load(from: store)
    }

    /// Deletes the project with what is part of it — its journal and photos, sections,
    /// requirements and patterns — as the server does, each a deletion the next sync sends.
    public mutating func delete(in store: LocalStore) throws {
        try load(from: store)
        for (entry, images) in journal {
            for image in images { try store.delete(JournalImage.self, id: image.id) }
            try store.delete(JournalEntry.self, id: entry.id)
        }
        for section in sections { try store.delete(ProjectSection.self, id: section.id) }
        for requirement in requirements { try store.delete(ProjectThread.self, id: requirement.id) }
        for pattern in try store.all(Pattern.self) where pattern.projectId == projectId && pattern.deletedAt == nil {
            try store.delete(Pattern.self, id: pattern.id)
        }
        try store.delete(Project.self, id: projectId)
        try load(from: store)
    }

    public var emptyJournal: (title: String, message: String)? {
        journal.isEmpty ? ("No entries yet", "Tap + to add your first journal entry") : nil
    }
}

/// The shopping list across active projects, with the stitcher's own lines: bought, added by hand,
/// set aside. The rules are StitchCore's (`ShoppingList`), as on the server.
public struct ShoppingListModel: Sendable {
    public private(set) var items: [ShoppingItem] = []
    public init() {}

    public mutating func load(from store: LocalStore) throws {
        let canvases = Dictionary(try store.all(Canvas.self).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let projects = try store.all(Project.self).map { ($0, $0.title(canvas: $0.canvasId.flatMap { canvases[$0] })) }
        items = ShoppingList.compute(projects: projects, requirements: try store.all(ProjectThread.self),
                                     inventory: InventoryIndex(try store.all(InventoryThread.self)), lines: try store.all(ShoppingLine.self))
    }

    /// Adds the skeins to the matching inventory thread, creating it if there is none, and takes
    /// what goes beyond the projects' shortfall off the lines added by hand — the server's rule
    /// (`ShoppingList.purchase`).
    @discardableResult
    public mutating func bought(brand: String, number: String, quantity: Int, colorName: String? = nil, in store: LocalStore) throws -> InventoryThread {
        try load(from: store)
        let outcome = try ShoppingList.purchase(PurchaseRequest(brand: brand, number: number, quantity: quantity, colorName: colorName),
                                                threads: try store.all(InventoryThread.self), list: items,
                                                lines: try store.all(ShoppingLine.self), now: store.clock())
        let saved = try store.save(outcome.thread)
        try Self.write(outcome.lines, to: store)
        try load(from: store)
        return saved
    }

    /// Puts a thread on the list by hand ("running low", or short for a planned project); a
    /// second time for the same thread adds to the first line. Answers the line.
    @discardableResult
    public mutating func add(brand: String, number: String, quantity: Int, colorName: String? = nil, notes: String? = nil,
                             in store: LocalStore) throws -> ShoppingLine {
        let now = store.clock()
        let line = try ShoppingLine(brand: brand, number: number, colorName: colorName, quantity: quantity, notes: notes,
                                    createdAt: now, updatedAt: now).normalized.validated()
        let outcome = try ShoppingList.linesAfterAdding(line, lines: try store.all(ShoppingLine.self), now: now)
        try Self.write(outcome.changed, to: store)
        try load(from: store)
        return outcome.line
    }

    /// Sets a thread's line aside without buying it: it stays off the list while the projects
    /// want the same number of skeins. Throws when the thread is not on the list.
    public mutating func dismiss(brand: String, number: String, in store: LocalStore) throws {
        try load(from: store)
        let key = ThreadKey(brand: brand, number: number)
        guard let item = items.first(where: { $0.key == key }) else {
            throw ValidationError("number", "\(brand) \(number) is not on your shopping list")
        }
        try Self.write(ShoppingList.linesAfterDismissing(item, lines: try store.all(ShoppingLine.self), now: store.clock()), to: store)
        try load(from: store)
    }

    private static func write(_ lines: [ShoppingLine], to store: LocalStore) throws {
        for line in lines {
            if line.deletedAt != nil { try store.delete(ShoppingLine.self, id: line.id) } else { _ = try store.save(line) }
        }
    }
}

/// Adding a thread of a brand and number you have already.
public struct ThreadExists: Error, Sendable, CustomStringConvertible {
    public var existing: InventoryThread
    public var message: String {
        "You have \(existing.brand) \(existing.number) already: \(existing.quantity) \(existing.quantity == 1 ? "skein" : "skeins")"
    }
    public var description: String { message }
}

extension LocalStore {
    /// Adds a thread unless one of the same brand and number (in any case or spacing) is there —
    /// the rule of the API and CSV import. Then it throws `ThreadExists`, or with `merge` adds to
    /// it: quantities added, empty fields filled from the `given` fields.
    @discardableResult
    public func addThread(_ thread: InventoryThread, given: Set<String>, merge: Bool) throws -> (thread: InventoryThread, merged: Bool) {
        let key = thread.importKey
        guard let existing = try all(InventoryThread.self).first(where: { $0.importKey == key && $0.id != thread.id }) else {
            return (try save(thread), false)
        }
        guard merge else { throw ThreadExists(existing: existing) }
        return (try save(existing.merging(thread, given: given, rule: .add).0), true)
    }
}
