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

public struct ShoppingProjectNeed: Codable, Sendable, Hashable {
    public var projectId: UUID
    public var title: String
    public var toBuy: Int

    public init(projectId: UUID, title: String, toBuy: Int) {
        self.projectId = projectId
        self.title = title
        self.toBuy = toBuy
    }
}

public struct ShoppingItem: Codable, Sendable, Hashable {
    public var brand: String
    public var number: String
    public var colorName: String?
    public var have: Int
    /// Needed by every project on the list together.
    public var needed: Int
    /// What to buy: what the projects are short (needed − have, when more are needed than owned)
    /// plus what was added by hand.
    public var toBuy: Int
    public var projects: [ShoppingProjectNeed]
    /// Skeins added to the list by hand (`ShoppingLine` of kind `added`), part of `toBuy`.
    public var byHand: Int
    /// The hand-written lines that make `byHand`, oldest first.
    public var handLineIds: [UUID]
    /// The notes written on them ("running low", "for the Santa"), in that order.
    public var handNotes: [String]

    public init(brand: String, number: String, colorName: String?, have: Int, needed: Int, toBuy: Int, projects: [ShoppingProjectNeed],
                byHand: Int = 0, handLineIds: [UUID] = [], handNotes: [String] = []) {
        self.brand = brand
        self.number = number
        self.colorName = colorName
        self.have = have
        self.needed = needed
        self.toBuy = toBuy
        self.projects = projects
        self.byHand = byHand
        self.handLineIds = handLineIds
        self.handNotes = handNotes
    }

    public var key: ThreadKey { ThreadKey(brand: brand, number: number) }

    /// What the projects are short, without what was added by hand.
    public var forProjects: Int { toBuy - byHand }
}

public enum ShoppingList {
    /// The list as plain text to send or paste (a message to a shop, a note on the phone): by
    /// brand, a box to tick per thread with what to buy and for which projects.
    ///
    ///     Shopping list, 26 Nov 2026
    ///
    ///     DMC
    ///     ☐ 310 Black: buy 4 (Nutcracker 2, Santa 2)
    public static func plainText(_ items: [ShoppingItem], asOf date: Date) -> String {
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = TimeZone(identifier: "UTC")
        day.dateFormat = "d MMM yyyy"
        var lines = ["Shopping list, \(day.string(from: date))"]
        guard !items.isEmpty else { return (lines + ["", "Nothing to buy."]).joined(separator: "\n") + "\n" }
        var brand: String?
        for item in items {
            if item.brand != brand {
                lines += ["", item.brand]
                brand = item.brand
            }
            var parts = item.projects.map { "\($0.title) \($0.toBuy)" }
            if item.byHand > 0 { parts.append(([item.projects.isEmpty ? "by hand" : "by hand \(item.byHand)"] + item.handNotes).joined(separator: ": ")) }
            let forWhom = parts.joined(separator: ", ")
            lines.append("☐ \([item.number, item.colorName].compactMap { $0 }.joined(separator: " ")): buy \(item.toBuy)"
                         + (forWhom.isEmpty ? "" : " (\(forWhom))"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether a project's needs are on the shopping list: projects still being stitched. One at
    /// finishing is stitched already, a completed one needs nothing more, and a planned one is not
    /// started (its readiness says what it lacks).
    public static func counts(_ project: Project) -> Bool {
        project.deletedAt == nil && project.status == .wip
    }

    /// Every thread the projects still being stitched need more of than is owned, one line per
    /// thread (`InventoryIndex.key`): what they need together minus what is owned, counted once
    /// however many projects or sections want it. The shortfall is shared out to the projects in
    /// the order given (oldest start first is what the callers pass), so each project's part adds
    /// up to the line's total. Then the stitcher's own lines: skeins added by hand are bought on
    /// top (a line of their own when no project is short of that thread), and a computed line set
    /// aside is left off while the projects are short by exactly what they were short of when it
    /// was set aside (a line with skeins added by hand stays).
    /// - Parameter projects: live projects with the title (the canvas's design name) to show.
    public static func compute(
        projects: [(project: Project, title: String)], requirements: [ProjectThread], inventory: InventoryIndex,
        lines: [ShoppingLine] = []
    ) -> [ShoppingItem] {
        let counted = projects.filter { counts($0.project) }
            .sorted { ($0.project.startedAt, $0.project.createdAt, $0.project.id.text) < ($1.project.startedAt, $1.project.createdAt, $1.project.id.text) }
        var entries: [UUID: (rank: Int, title: String)] = [:]
        for (rank, entry) in counted.enumerated() where entries[entry.project.id] == nil {
            entries[entry.project.id] = (rank, entry.title)
        }
        let live = requirements.filter { $0.deletedAt == nil && entries[$0.projectId] != nil }
            .sorted { (entries[$0.projectId]!.rank, $0.createdAt, $0.id.text) < (entries[$1.projectId]!.rank, $1.createdAt, $1.id.text) }
        var items: [ThreadKey: ShoppingItem] = [:]
        var neededByKey: [ThreadKey: Int] = [:]
        for (req, share) in zip(live, ThreadAllocation.allocate(live, inventory: inventory)) {
            neededByKey[share.key] = share.neededInAll
            guard share.neededInAll > share.have else { continue }
            // Spelled as the stitcher's own thread is, else as the requirement typed it.
            let linked = req.threadId.flatMap { inventory.thread($0) } ?? inventory.thread(for: share.key)
            var item = items[share.key] ?? ShoppingItem(
                brand: (linked?.brand ?? req.brand).trimmedWhitespace, number: (linked?.number ?? req.number).trimmedWhitespace,
                colorName: nil, have: share.have, needed: share.neededInAll, toBuy: share.neededInAll - share.have, projects: [])
            if item.colorName == nil { item.colorName = req.colorName ?? linked?.colorName }
            if share.toBuy > 0 {
                if let i = item.projects.firstIndex(where: { $0.projectId == req.projectId }) {
                    item.projects[i].toBuy += share.toBuy
                } else {
                    item.projects.append(ShoppingProjectNeed(projectId: req.projectId, title: entries[req.projectId]!.title, toBuy: share.toBuy))
                }
            }
            items[share.key] = item
        }
        let liveLines = lines.filter { $0.deletedAt == nil }.sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
        for line in liveLines where line.kind == .added && line.quantity > 0 {
            let key = line.key
            let owned = inventory.thread(for: key)
            var item = items[key] ?? ShoppingItem(
                brand: (owned?.brand ?? line.brand).trimmedWhitespace, number: (owned?.number ?? line.number).trimmedWhitespace,
                colorName: line.colorName ?? owned?.colorName, have: inventory.have(key), needed: neededByKey[key] ?? 0, toBuy: 0, projects: [])
            item.byHand += line.quantity
            item.toBuy += line.quantity
            item.handLineIds.append(line.id)
            if let notes = line.notes?.trimmedWhitespace, !notes.isEmpty { item.handNotes.append(notes) }
            items[key] = item
        }
        for line in liveLines where line.kind == .dismissed {
            if let item = items[line.key], item.byHand == 0, item.toBuy == line.quantity { items[line.key] = nil }
        }
        return items.values.sorted {
            switch NaturalOrder.compare($0.brand, $1.brand) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: NaturalOrder.areInIncreasingOrder($0.number, $1.number)
            }
        }
    }

    /// The stitcher's lines after buying `quantity` skeins of a thread: the skeins go to what the
    /// projects are short first (`forProjects` of its line on the list before buying, 0 when it had
    /// none), the rest to what was added by hand, oldest line first, a line used up being deleted;
    /// lines that set the thread aside are deleted (the need they were set aside at has changed).
    /// Answers only the lines that change, with `updatedAt`/`deletedAt` at `now`.
    public static func linesAfterBuying(
        _ key: ThreadKey, quantity: Int, forProjects: Int, lines: [ShoppingLine], now: Date
    ) -> [ShoppingLine] {
        var left = max(0, quantity - max(0, forProjects))
        var changed: [ShoppingLine] = []
        for var line in lines.filter({ $0.deletedAt == nil && $0.key == key }).sorted(by: { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }) {
            switch line.kind {
            case .dismissed:
                line.deletedAt = now
            case .added:
                guard left > 0 else { continue }
                let used = min(left, line.quantity)
                left -= used
                if used == line.quantity { line.deletedAt = now } else { line.quantity -= used }
            }
            line.updatedAt = max(now, line.updatedAt)
            changed.append(line)
        }
        return changed
    }

    /// The stitcher's lines after setting a thread's line aside: its hand-added skeins are taken
    /// off (deleted), and while the projects are short of it (`forProjects` > 0) a `dismissed`
    /// line remembers by how much, so the line comes back when that changes.
    public static func linesAfterDismissing(
        _ item: ShoppingItem, lines: [ShoppingLine], now: Date
    ) -> [ShoppingLine] {
        var changed: [ShoppingLine] = []
        for var line in lines where line.deletedAt == nil && line.key == item.key {
            line.deletedAt = now
            line.updatedAt = max(now, line.updatedAt)
            changed.append(line)
        }
        if item.forProjects > 0 {
            changed.append(ShoppingLine(kind: .dismissed, brand: item.brand, number: item.number, colorName: item.colorName,
                                        quantity: item.forProjects, createdAt: now, updatedAt: now))
        }
        return changed
    }

    /// The stitcher's lines after adding `line` (kind `added`) by hand: added to the skeins an
    /// earlier hand line of the same thread has (its notes kept, the new ones added), otherwise
    /// the new line; a line that set the thread aside is deleted (asking for it again brings it
    /// back). Throws when the skeins would be more than a line can hold.
    public static func linesAfterAdding(_ line: ShoppingLine, lines: [ShoppingLine], now: Date) throws(ValidationError) -> (line: ShoppingLine, changed: [ShoppingLine], merged: Bool) {
        var changed: [ShoppingLine] = []
        var result = line
        var merged = false
        let same = lines.filter { $0.deletedAt == nil && $0.key == line.key }.sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
        if var earlier = same.first(where: { $0.kind == .added }) {
            guard earlier.quantity <= Limits.maxQuantity - line.quantity else {
                throw ValidationError("quantity", "You have \(earlier.quantity) on the list already; a line holds at most \(Limits.maxQuantity)")
            }
            earlier.quantity += line.quantity
            if let notes = line.notes, !notes.isEmpty, earlier.notes?.contains(notes) != true {
                earlier.notes = [earlier.notes, notes].compactMap { $0 }.joined(separator: "; ")
            }
            if earlier.colorName == nil { earlier.colorName = line.colorName }
            earlier.updatedAt = max(now, earlier.updatedAt)
            result = earlier
            merged = true
        }
        changed.append(result)
        for var aside in same where aside.kind == .dismissed {
            aside.deletedAt = now
            aside.updatedAt = max(now, aside.updatedAt)
            changed.append(aside)
        }
        return (result, changed, merged)
    }
}
