import Foundation

// The shopping list's rules, one home for the server and a device: what is on the list
// (`compute`), what buying, setting aside and adding by hand change, and the list as text.

/// What buying a thread changes (`ShoppingList.purchase`): the inventory thread as it is after
/// (new when `created`), and the stitcher's lines that change (deleted ones carry `deletedAt`).
public struct Purchase: Sendable, Equatable {
    public var thread: InventoryThread
    public var created: Bool
    public var lines: [ShoppingLine]

    public init(thread: InventoryThread, created: Bool, lines: [ShoppingLine]) {
        self.thread = thread
        self.created = created
        self.lines = lines
    }
}

/// A write's `updatedAt`: `now`, and always later than what it replaces so that last-write-wins
/// can never rank an edit below the version it edited.
public func writeTimestamp(now: Date, after previous: Date?) -> Date {
    guard let previous, previous >= now else { return now }
    return previous.addingTimeInterval(0.001)
}

/// One project's part of a shopping line: how many skeins that project still needs.
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

/// A line of the shopping list: one thread, how many skeins to buy, and for which projects.
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

/// The shopping list's rules (SPEC): what the projects still need, and what a purchase changes.
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
    /// - Parameters:
    ///   - projects: live projects with the title (the canvas's design name) to show.
    ///   - requirements: the thread requirements of those projects.
    ///   - inventory: the stitcher's threads, indexed by brand and number.
    ///   - lines: the stitcher's own shopping lines (skeins added by hand, lines set aside).
    /// - Returns: the lines to buy, in the order the list shows them.
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

    /// What "Bought" changes, the one rule of the server and of a device: the skeins go onto the
    /// live inventory thread of that brand and number (the oldest, by `createdAt` then id, when
    /// several match), or a new thread when there is none; the stitcher's lines change as
    /// `linesAfterBuying` says, with what the projects were short of it in `list` (the list before
    /// buying). Throws when the request is invalid or the thread would hold more than
    /// `Limits.maxQuantity` skeins (field `quantity`). The thread's `updatedAt` is a write's at
    /// `now` (`writeTimestamp`); the caller stores the thread and the lines.
    public static func purchase(
        _ request: PurchaseRequest, threads: [InventoryThread], list: [ShoppingItem], lines: [ShoppingLine], now: Date
    ) throws(ValidationError) -> Purchase {
        let request = try request.validated()
        let key = ThreadKey(brand: request.brand, number: request.number)
        let forProjects = list.first { $0.key == key }?.forProjects ?? 0
        let changedLines = linesAfterBuying(key, quantity: request.quantity, forProjects: forProjects, lines: lines, now: now)
        let match = threads.filter { $0.deletedAt == nil && ThreadKey(brand: $0.brand, number: $0.number) == key }
            .min { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
        if var thread = match {
            guard thread.quantity <= Limits.maxQuantity - request.quantity else {
                throw ValidationError("quantity", "You have \(thread.quantity); the most a thread can hold is \(Limits.maxQuantity)")
            }
            thread.quantity += request.quantity
            thread.updatedAt = writeTimestamp(now: now, after: thread.updatedAt)
            return Purchase(thread: try thread.validated(), created: false, lines: changedLines)
        }
        let thread = try InventoryThread(brand: request.brand, number: request.number, colorName: request.colorName,
                                         quantity: request.quantity, createdAt: now, updatedAt: now).normalized.validated()
        return Purchase(thread: thread, created: true, lines: changedLines)
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
