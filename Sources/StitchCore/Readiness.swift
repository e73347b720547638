import Foundation

/// How a thread is recognised across projects and inventory: brand and number, trimmed and
/// compared without regard to case ("dmc 310 " is "DMC 310").
public struct ThreadKey: Hashable, Sendable, Codable {
    public let brand: String
    public let number: String

    public init(brand: String, number: String) {
        self.brand = brand.trimmedWhitespace.lowercased()
        self.number = number.trimmedWhitespace.lowercased()
    }
}

/// The colour a requirement, section or project shows: green when the stash covers it, yellow when partly, red when not.
public enum ReadinessColor: String, Codable, Sendable, CaseIterable {
    /// Every requirement is covered by inventory.
    case green
    /// Some requirements are covered.
    case yellow
    /// None are.
    case red
    /// Nothing is planned yet: no requirements, so nothing to be ready for (not green).
    case unplanned

    public static func of(_ requirements: [RequirementReadiness]) -> ReadinessColor {
        if requirements.isEmpty { return .unplanned }
        let covered = requirements.filter(\.isCovered).count
        if covered == requirements.count { return .green }
        return covered == 0 ? .red : .yellow
    }
}

/// How ready one thread requirement is: what it needs, what the stash gives it, and its colour.
public struct RequirementReadiness: Codable, Sendable, Hashable {
    public var requirementId: UUID
    public var sectionId: UUID?
    public var threadId: UUID?
    public var brand: String
    public var number: String
    public var colorName: String?
    /// What this requirement needs.
    public var needed: Int
    /// Every skein owned of this thread (the linked thread's brand and number, or the typed ones).
    public var have: Int
    /// What this requirement is still short once the requirements before it (in section order,
    /// then the unsectioned) have taken their share of `have`.
    public var toBuy: Int
    /// What all the requirements of this project that want the same thread need together.
    public var neededInAll: Int
    /// The other sections of this project that want the same thread ("No section" for requirements
    /// outside any); empty when this requirement has the thread to itself.
    public var sharedWith: [String]

    public init(
        requirementId: UUID, sectionId: UUID?, threadId: UUID?, brand: String, number: String, colorName: String?,
        needed: Int, have: Int, toBuy: Int, neededInAll: Int? = nil, sharedWith: [String] = []
    ) {
        self.requirementId = requirementId
        self.sectionId = sectionId
        self.threadId = threadId
        self.brand = brand
        self.number = number
        self.colorName = colorName
        self.needed = needed
        self.have = have
        self.toBuy = toBuy
        self.neededInAll = neededInAll ?? needed
        self.sharedWith = sharedWith
    }

    public var isCovered: Bool { toBuy == 0 }

    /// "You have 3, need 5 — buy 2 more", "need to buy" when no inventory thread matches, and for a
    /// thread several sections want: "Shared with Background: 5 needed in all, you have 3 — buy 2 more".
    public var summary: String {
        let shortInAll = max(0, neededInAll - have)
        if !sharedWith.isEmpty {
            let head = "Shared with \(sharedWith.joined(separator: ", ")): \(neededInAll) needed in all, you have \(have)"
            return shortInAll == 0 ? head : head + " — buy \(shortInAll) more"
        }
        if threadId == nil && have == 0 { return "Need \(needed) — need to buy" }
        if toBuy == 0 { return "You have \(have), need \(needed)" }
        return "You have \(have), need \(needed) — buy \(toBuy) more"
    }
}

/// How ready one section of a project is: its requirements and their colour.
public struct SectionReadiness: Codable, Sendable, Hashable {
    public var sectionId: UUID
    public var name: String
    public var color: ReadinessColor
    public var requirements: [RequirementReadiness]
}

/// How ready a whole project is: its sections and requirements, and how many are covered.
public struct ProjectReadiness: Codable, Sendable, Hashable {
    public var projectId: UUID
    public var color: ReadinessColor
    public var sections: [SectionReadiness]
    /// Requirements that belong to no section (a project without sections is just this list).
    public var unsectioned: [RequirementReadiness]
    public var requirements: [RequirementReadiness]

    /// "You can start the Border, need threads for Center motif."
    public var summary: String {
        if color == .unplanned { return "Nothing planned yet: add the threads this project needs." }
        if sections.isEmpty {
            switch color {
            case .green: return "You have every thread you need."
            case .yellow: return "You have some of the threads you need."
            case .red: return "You need threads for this project."
            case .unplanned: return "Nothing planned yet: add the threads this project needs."
            }
        }
        let ready = sections.filter { $0.color == .green }.map(\.name)
        let notReady = sections.filter { $0.color == .yellow || $0.color == .red }.map(\.name)
        let empty = sections.filter { $0.color == .unplanned }.map(\.name)
        var parts: [String] = []
        if !ready.isEmpty { parts.append("You can start the \(ready.joined(separator: ", "))") }
        if !notReady.isEmpty { parts.append("need threads for \(notReady.joined(separator: ", "))") }
        if !empty.isEmpty { parts.append("nothing planned yet for \(empty.joined(separator: ", "))") }
        var text = parts.joined(separator: ", ")
        text = text.prefix(1).uppercased() + text.dropFirst()
        return text + "."
    }
}

/// What the user owns, indexed for readiness questions.
public struct InventoryIndex: Sendable {
    private var byId: [UUID: InventoryThread] = [:]
    private var byKey: [ThreadKey: Int] = [:]
    private var named: [ThreadKey: InventoryThread] = [:]

    public init(_ threads: [InventoryThread]) {
        for thread in threads where thread.deletedAt == nil {
            byId[thread.id] = thread
            let key = ThreadKey(brand: thread.brand, number: thread.number)
            byKey[key, default: 0] += max(0, thread.quantity)
            if named[key] == nil { named[key] = thread }
        }
    }

    /// An owned thread with this brand and number: how the stitcher spells it.
    public func thread(for key: ThreadKey) -> InventoryThread? { named[key] }

    public func thread(_ id: UUID) -> InventoryThread? { byId[id] }

    /// The thread a requirement draws on: its linked thread's brand and number while the link
    /// stands (a deleted thread no longer does), otherwise the brand and number typed on it. Two
    /// requirements with the same key share one stock, however each names it.
    public func key(for requirement: ProjectThread) -> ThreadKey {
        if let threadId = requirement.threadId, let linked = byId[threadId] {
            return ThreadKey(brand: linked.brand, number: linked.number)
        }
        return ThreadKey(brand: requirement.brand, number: requirement.number)
    }

    /// Every skein owned of a thread, over all live inventory entries with its brand and number.
    public func have(_ key: ThreadKey) -> Int { byKey[key] ?? 0 }

    /// How many skeins the user has for a requirement, before any other requirement takes its share.
    public func have(for requirement: ProjectThread) -> Int { have(key(for: requirement)) }
}

/// The one rule by which requirements share what is owned: requirements that want the same thread
/// (`InventoryIndex.key`) draw on one stock, in the order given, each taking what it needs while
/// any is left. A thread is therefore counted once however many requirements name it, and the
/// shortfalls of a thread add up to what must be bought: total needed − owned.
public enum ThreadAllocation {
    /// The part of an inventory thread one requirement is given when several want it.
    public struct Share: Sendable, Hashable {
        public var key: ThreadKey
        public var have: Int
        public var allocated: Int
        public var toBuy: Int
        public var neededInAll: Int
    }

    /// Shares in the order of `requirements` (which must already be live and in priority order).
    public static func allocate(_ requirements: [ProjectThread], inventory: InventoryIndex) -> [Share] {
        var left: [ThreadKey: Int] = [:]
        var neededInAll: [ThreadKey: Int] = [:]
        let keys = requirements.map { inventory.key(for: $0) }
        for (req, key) in zip(requirements, keys) { neededInAll[key, default: 0] += max(0, req.quantityNeeded) }
        return zip(requirements, keys).map { req, key in
            let have = inventory.have(key)
            let available = left[key] ?? have
            let needed = max(0, req.quantityNeeded)
            let taken = min(needed, available)
            left[key] = available - taken
            return Share(key: key, have: have, allocated: taken, toBuy: needed - taken, neededInAll: neededInAll[key] ?? needed)
        }
    }
}

/// Readiness (SPEC): whether the stash holds what a requirement, a section or a project needs, sharing threads between projects in order.
public enum Readiness {
    /// One requirement on its own, as if no other requirement wanted its thread.
    public static func requirement(_ req: ProjectThread, inventory: InventoryIndex) -> RequirementReadiness {
        let share = ThreadAllocation.allocate([req], inventory: inventory)[0]
        return readiness(req, share: share, inventory: inventory, sharedWith: [])
    }

    private static func readiness(
        _ req: ProjectThread, share: ThreadAllocation.Share, inventory: InventoryIndex, sharedWith: [String]
    ) -> RequirementReadiness {
        RequirementReadiness(
            requirementId: req.id, sectionId: req.sectionId, threadId: req.threadId.flatMap { inventory.thread($0)?.id },
            brand: req.brand, number: req.number, colorName: req.colorName, needed: req.quantityNeeded,
            have: share.have, toBuy: share.toBuy, neededInAll: share.neededInAll, sharedWith: sharedWith)
    }

    /// A project's readiness against its own needs. Requirements that want the same thread share
    /// its stock in section order (the sections' sort order, then requirements outside any section;
    /// within a section, oldest first), so the first sections are the ones that show green and the
    /// colours stay put from one look to the next. Other projects' needs are left to the shopping list.
    public static func project(
        _ projectId: UUID, sections: [ProjectSection], requirements: [ProjectThread], inventory: InventoryIndex
    ) -> ProjectReadiness {
        let liveSections = sections.filter { $0.deletedAt == nil && $0.projectId == projectId }
            .sorted { ($0.sortOrder, $0.createdAt, $0.id.text) < ($1.sortOrder, $1.createdAt, $1.id.text) }
        let position = Dictionary(uniqueKeysWithValues: liveSections.enumerated().map { ($1.id, $0) })
        let sectionName = Dictionary(uniqueKeysWithValues: liveSections.map { ($0.id, $0.name) })
        func place(_ req: ProjectThread) -> Int { req.sectionId.flatMap { position[$0] } ?? liveSections.count }
        let live = requirements.filter { $0.deletedAt == nil && $0.projectId == projectId }
            .sorted { (place($0), $0.createdAt, $0.id.text) < (place($1), $1.createdAt, $1.id.text) }
        let shares = ThreadAllocation.allocate(live, inventory: inventory)
        // Which sections want each thread, to name the others beside each requirement.
        var wanting: [ThreadKey: [Int]] = [:]
        for (req, share) in zip(live, shares) where !(wanting[share.key]?.contains(place(req)) ?? false) {
            wanting[share.key, default: []].append(place(req))
        }
        let reqs = zip(live, shares).map { req, share in
            let others = (wanting[share.key] ?? []).filter { $0 != place(req) }
                .map { $0 < liveSections.count ? liveSections[$0].name : "No section" }
            return readiness(req, share: share, inventory: inventory, sharedWith: others)
        }
        let sectionReadiness = liveSections.map { section in
            let own = reqs.filter { $0.sectionId == section.id }
            return SectionReadiness(sectionId: section.id, name: section.name, color: .of(own), requirements: own)
        }
        let unsectioned = reqs.filter { $0.sectionId.map { sectionName[$0] == nil } ?? true }
        return ProjectReadiness(
            projectId: projectId, color: .of(reqs), sections: sectionReadiness, unsectioned: unsectioned,
            requirements: reqs)
    }
}
