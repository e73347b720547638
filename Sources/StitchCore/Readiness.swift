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

public enum ReadinessColor: String, Codable, Sendable, CaseIterable {
    /// Every requirement is covered by inventory (also: nothing is required).
    case green
    /// Some requirements are covered.
    case yellow
    /// None are.
    case red

    public static func of(_ requirements: [RequirementReadiness]) -> ReadinessColor {
        let covered = requirements.filter(\.isCovered).count
        if covered == requirements.count { return .green }
        return covered == 0 ? .red : .yellow
    }
}

public struct RequirementReadiness: Codable, Sendable, Hashable {
    public var requirementId: UUID
    public var sectionId: UUID?
    public var threadId: UUID?
    public var brand: String
    public var number: String
    public var colorName: String?
    public var needed: Int
    public var have: Int
    public var toBuy: Int

    public var isCovered: Bool { toBuy == 0 }

    /// "You have 3, need 5 — buy 2 more", or "need to buy" when no inventory thread matches.
    public var summary: String {
        if threadId == nil && have == 0 { return "Need \(needed) — need to buy" }
        if toBuy == 0 { return "You have \(have), need \(needed)" }
        return "You have \(have), need \(needed) — buy \(toBuy) more"
    }
}

public struct SectionReadiness: Codable, Sendable, Hashable {
    public var sectionId: UUID
    public var name: String
    public var color: ReadinessColor
    public var requirements: [RequirementReadiness]
}

public struct ProjectReadiness: Codable, Sendable, Hashable {
    public var projectId: UUID
    public var color: ReadinessColor
    public var sections: [SectionReadiness]
    /// Requirements that belong to no section (a project without sections is just this list).
    public var unsectioned: [RequirementReadiness]
    public var requirements: [RequirementReadiness]

    /// "You can start the Border, need threads for Center motif."
    public var summary: String {
        if sections.isEmpty {
            switch color {
            case .green: return "You have every thread you need."
            case .yellow: return "You have some of the threads you need."
            case .red: return "You need threads for this project."
            }
        }
        let ready = sections.filter { $0.color == .green }.map(\.name)
        let notReady = sections.filter { $0.color != .green }.map(\.name)
        var parts: [String] = []
        if !ready.isEmpty { parts.append("You can start the \(ready.joined(separator: ", "))") }
        if !notReady.isEmpty { parts.append("need threads for \(notReady.joined(separator: ", "))") }
        var text = parts.joined(separator: ", ")
        text = text.prefix(1).uppercased() + text.dropFirst()
        return text + "."
    }
}

/// What the user owns, indexed for readiness questions.
public struct InventoryIndex: Sendable {
    private var byId: [UUID: InventoryThread] = [:]
    private var byKey: [ThreadKey: Int] = [:]

    public init(_ threads: [InventoryThread]) {
        for thread in threads where thread.deletedAt == nil {
            byId[thread.id] = thread
            byKey[ThreadKey(brand: thread.brand, number: thread.number), default: 0] += thread.quantity
        }
    }

    public func thread(_ id: UUID) -> InventoryThread? { byId[id] }

    /// How many skeins the user has for a requirement: the linked thread's stock when the link
    /// still stands, otherwise whatever inventory holds under the same brand and number.
    public func have(for requirement: ProjectThread) -> Int {
        if let threadId = requirement.threadId, let linked = byId[threadId] { return max(0, linked.quantity) }
        return byKey[ThreadKey(brand: requirement.brand, number: requirement.number)] ?? 0
    }
}

public enum Readiness {
    public static func requirement(_ req: ProjectThread, inventory: InventoryIndex) -> RequirementReadiness {
        let have = inventory.have(for: req)
        let linkedId = req.threadId.flatMap { inventory.thread($0)?.id }
        return RequirementReadiness(
            requirementId: req.id, sectionId: req.sectionId, threadId: linkedId, brand: req.brand, number: req.number,
            colorName: req.colorName, needed: req.quantityNeeded, have: have, toBuy: max(0, req.quantityNeeded - have))
    }

    public static func project(
        _ projectId: UUID, sections: [ProjectSection], requirements: [ProjectThread], inventory: InventoryIndex
    ) -> ProjectReadiness {
        let liveSections = sections.filter { $0.deletedAt == nil && $0.projectId == projectId }
            .sorted { ($0.sortOrder, $0.createdAt, $0.id.text) < ($1.sortOrder, $1.createdAt, $1.id.text) }
        let sectionIds = Set(liveSections.map(\.id))
        let reqs = requirements.filter { $0.deletedAt == nil && $0.projectId == projectId }
            .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
            .map { requirement($0, inventory: inventory) }
        let sectionReadiness = liveSections.map { section in
            let own = reqs.filter { $0.sectionId == section.id }
            return SectionReadiness(sectionId: section.id, name: section.name, color: .of(own), requirements: own)
        }
        let unsectioned = reqs.filter { $0.sectionId.map { !sectionIds.contains($0) } ?? true }
        return ProjectReadiness(
            projectId: projectId, color: .of(reqs), sections: sectionReadiness, unsectioned: unsectioned,
            requirements: reqs)
    }
}

public struct ShoppingProjectNeed: Codable, Sendable, Hashable {
    public var projectId: UUID
    public var title: String
    public var toBuy: Int
}

public struct ShoppingItem: Codable, Sendable, Hashable {
    public var brand: String
    public var number: String
    public var colorName: String?
    public var have: Int
    public var toBuy: Int
    public var projects: [ShoppingProjectNeed]
}

public enum ShoppingList {
    /// Every shortfall across projects that are still in progress, one line per brand+number with
    /// the summed `toBuy` of the requirements that share it.
    /// - Parameter projects: live projects with the title (the canvas's design name) to show.
    public static func compute(
        projects: [(project: Project, title: String)], requirements: [ProjectThread], inventory: InventoryIndex
    ) -> [ShoppingItem] {
        let active = Dictionary(
            projects.filter { $0.project.deletedAt == nil && $0.project.status != .completed }.map { ($0.project.id, $0) },
            uniquingKeysWith: { first, _ in first })
        var items: [ThreadKey: ShoppingItem] = [:]
        var order: [ThreadKey] = []
        for req in requirements where req.deletedAt == nil {
            guard let entry = active[req.projectId] else { continue }
            let readiness = Readiness.requirement(req, inventory: inventory)
            guard readiness.toBuy > 0 else { continue }
            let key = ThreadKey(brand: req.brand, number: req.number)
            if items[key] == nil {
                order.append(key)
                items[key] = ShoppingItem(
                    brand: req.brand.trimmedWhitespace,
                    number: req.number.trimmedWhitespace,
                    colorName: req.colorName, have: readiness.have, toBuy: 0, projects: [])
            }
            items[key]!.toBuy += readiness.toBuy
            if items[key]!.colorName == nil { items[key]!.colorName = req.colorName }
            if let i = items[key]!.projects.firstIndex(where: { $0.projectId == req.projectId }) {
                items[key]!.projects[i].toBuy += readiness.toBuy
            } else {
                items[key]!.projects.append(ShoppingProjectNeed(projectId: req.projectId, title: entry.title, toBuy: readiness.toBuy))
            }
        }
        return order.compactMap { items[$0] }.sorted {
            switch NaturalOrder.compare($0.brand, $1.brand) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: NaturalOrder.areInIncreasingOrder($0.number, $1.number)
            }
        }
    }
}
