import Foundation
import StitchCore
import Testing

/// The stitcher's own lines on the shopping list: threads added by hand, lines set aside, and
/// what buying does to them. One set of rules (`ShoppingList`) for the server, the web app,
/// StitchKit and the CLI.
@Suite("Shopping list lines written by hand")
struct ShoppingLineTests {
    let wip = Project(canvasId: UUID(), status: .wip, startedAt: t0, createdAt: t0, updatedAt: t0)
    let planned = Project(canvasId: UUID(), status: .planned, startedAt: t0, createdAt: t0, updatedAt: t0)

    func line(_ quantity: Int, number: String = "310", kind: ShoppingLineKind = .added, notes: String? = nil, at offset: TimeInterval = 0) -> ShoppingLine {
        ShoppingLine(kind: kind, brand: "DMC", number: number, quantity: quantity, notes: notes,
                     createdAt: t0.addingTimeInterval(offset), updatedAt: t0.addingTimeInterval(offset))
    }

    func list(owned: Int, wipNeeds: Int, plannedNeeds: Int = 0, lines: [ShoppingLine]) -> [ShoppingItem] {
        let black = thread { $0.quantity = owned }
        var reqs: [ProjectThread] = []
        if wipNeeds > 0 { reqs.append(requirement { $0.projectId = wip.id; $0.threadId = black.id; $0.quantityNeeded = wipNeeds }) }
        if plannedNeeds > 0 { reqs.append(requirement { $0.projectId = planned.id; $0.quantityNeeded = plannedNeeds }) }
        return ShoppingList.compute(projects: [(wip, "Nutcracker"), (planned, "Santa")], requirements: reqs,
                                    inventory: InventoryIndex([black]), lines: lines)
    }

    func describe(_ items: [ShoppingItem]) -> [String] {
        items.map { "\($0.brand) \($0.number) buy \($0.toBuy) (projects \($0.forProjects), by hand \($0.byHand))" }
    }

    @Test("A thread added by hand is bought on top of what the projects are short, or on its own line")
    func addedByHand() {
        // 1 owned, the WIP needs 3: short 2, plus 2 by hand.
        #expect(describe(list(owned: 1, wipNeeds: 3, lines: [line(2, notes: "running low")])) == ["DMC 310 buy 4 (projects 2, by hand 2)"])
        // Nothing short: the hand line stands alone; a deleted one counts for nothing.
        var gone = line(5, number: "321"); gone.deletedAt = t0
        let alone = list(owned: 5, wipNeeds: 3, lines: [line(1, notes: "running low"), gone])
        #expect(describe(alone) == ["DMC 310 buy 1 (projects 0, by hand 1)"])
        #expect(alone[0].needed == 3 && alone[0].have == 5 && alone[0].projects.isEmpty && alone[0].handNotes == ["running low"])
        // A planned project is not counted: its short thread is on the list only when added.
        #expect(list(owned: 0, wipNeeds: 0, plannedNeeds: 2, lines: []).isEmpty)
        #expect(describe(list(owned: 0, wipNeeds: 0, plannedNeeds: 2, lines: [line(2, notes: "For Santa")])) == ["DMC 310 buy 2 (projects 0, by hand 2)"])
        // Two hand lines of one thread (two devices offline) add up on one line.
        #expect(describe(list(owned: 0, wipNeeds: 0, lines: [line(1), line(2, at: 1)])) == ["DMC 310 buy 3 (projects 0, by hand 3)"])
        let text = ShoppingList.plainText(list(owned: 1, wipNeeds: 3, lines: [line(2, notes: "running low")]), asOf: t0)
        #expect(text.contains("☐ 310: buy 4 (Nutcracker 2, by hand 2: running low)"), "\(text)")
    }

    @Test("A line set aside stays off while the projects are short by the same number, and comes back when that changes")
    func setAside() throws {
        let before = list(owned: 1, wipNeeds: 3, lines: [])
        let aside = ShoppingList.linesAfterDismissing(before[0], lines: [], now: t0)
        #expect(aside.map { "\($0.kind) \($0.quantity)" } == ["dismissed 2"])
        #expect(list(owned: 1, wipNeeds: 3, lines: aside).isEmpty)
        // The need changes (one more skein wanted): back on the list with the new number.
        #expect(describe(list(owned: 1, wipNeeds: 4, lines: aside)) == ["DMC 310 buy 3 (projects 3, by hand 0)"])
        // Setting aside a line with skeins added by hand takes them off too.
        let hand = line(2)
        let both = list(owned: 1, wipNeeds: 3, lines: [hand])
        let changed = ShoppingList.linesAfterDismissing(both[0], lines: [hand], now: t0.addingTimeInterval(5))
        #expect(changed.count == 2 && changed[0].id == hand.id && changed[0].deletedAt != nil && changed[1].kind == .dismissed && changed[1].quantity == 2)
        #expect(list(owned: 1, wipNeeds: 3, lines: [hand] .map { l in changed.first { $0.id == l.id } ?? l } + [changed[1]]).isEmpty)
        // Adding the thread by hand again brings it back: the set-aside line is deleted.
        let again = try ShoppingList.linesAfterAdding(line(1, at: 10), lines: aside, now: t0.addingTimeInterval(10))
        #expect(!again.merged && again.changed.count == 2 && again.changed[1].deletedAt != nil)
    }

    @Test("Adding a thread already added by hand adds to that line, notes kept; more than a line holds is refused")
    func addingMerges() throws {
        let first = line(2, notes: "running low")
        let outcome = try ShoppingList.linesAfterAdding(line(3, notes: "For Santa", at: 5), lines: [first], now: t0.addingTimeInterval(5))
        #expect(outcome.merged && outcome.line.id == first.id && outcome.line.quantity == 5 && outcome.line.notes == "running low; For Santa")
        #expect(throws: ValidationError.self) {
            try ShoppingList.linesAfterAdding(line(Limits.maxQuantity), lines: [first], now: t0)
        }
    }

    @Test("Buying goes to what the projects are short first, then to what was added by hand, oldest line first")
    func buying() {
        let older = line(2, at: 0), newer = line(3, at: 1), aside = line(4, kind: .dismissed, at: 2)
        let key = ThreadKey(brand: "dmc", number: "310")
        // Projects short 2; buy 3: 1 goes to the older hand line (2 → 1); the set-aside line goes.
        var changed = ShoppingList.linesAfterBuying(key, quantity: 3, forProjects: 2, lines: [older, newer, aside], now: t0)
        #expect(changed.map { "\($0.id == older.id ? "older" : $0.id == newer.id ? "newer" : "aside") \($0.quantity) \($0.deletedAt == nil ? "kept" : "deleted")" }
                == ["older 1 kept", "aside 4 deleted"])
        // Buy 6 with nothing short: the older line is used up, 4 come off the newer… which has 3: both gone.
        changed = ShoppingList.linesAfterBuying(key, quantity: 6, forProjects: 0, lines: [older, newer], now: t0)
        #expect(changed.allSatisfy { $0.deletedAt != nil } && changed.count == 2)
        // Buying only what the projects are short leaves the hand lines alone.
        #expect(ShoppingList.linesAfterBuying(key, quantity: 2, forProjects: 2, lines: [older], now: t0).isEmpty)
        // Another thread's lines are not touched.
        #expect(ShoppingList.linesAfterBuying(ThreadKey(brand: "DMC", number: "321"), quantity: 9, forProjects: 0, lines: [older], now: t0).isEmpty)
    }

    @Test("A line is valid with a brand, a number and 1 to 1,000,000 skeins")
    func validation() {
        #expect(throws: ValidationError.self) { try line(0).validated() }
        #expect(throws: ValidationError.self) { try ShoppingLine(brand: " ", number: "1", quantity: 1, createdAt: t0, updatedAt: t0).validated() }
        #expect((try? line(3).validated()) != nil)
    }

    @Test("Buying (ShoppingList.purchase): the oldest matching thread, ties broken by id; a new thread normalised; a full one refused")
    func purchase() throws {
        // Two live copies of DMC 310 made at the same moment (two devices offline): the lower id wins.
        let a = thread { $0.id = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!; $0.quantity = 1 }
        let b = thread { $0.id = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!; $0.quantity = 2 }
        var gone = thread { $0.quantity = 9 }
        gone.createdAt = t0.addingTimeInterval(-60)
        gone.deletedAt = t0
        let now = t0.addingTimeInterval(3600)
        let items = list(owned: 1, wipNeeds: 3, lines: [line(2)])
        let bought = try ShoppingList.purchase(PurchaseRequest(brand: "dmc ", number: "310", quantity: 3), threads: [a, gone, b],
                                               list: items, lines: [line(2)], now: now)
        #expect(!bought.created && bought.thread.id == b.id && bought.thread.quantity == 5 && bought.thread.updatedAt == now)
        // 2 for the projects, the third off the hand line.
        #expect(bought.lines.map(\.quantity) == [1] && bought.lines[0].deletedAt == nil)
        // A thread updated later than now still moves forward.
        var ahead = b
        ahead.updatedAt = now.addingTimeInterval(10)
        #expect(try ShoppingList.purchase(PurchaseRequest(brand: "DMC", number: "310", quantity: 1), threads: [ahead], list: [], lines: [], now: now)
            .thread.updatedAt == now.addingTimeInterval(10.001))
        // None owned: a new thread, trimmed as every new record is.
        let new = try ShoppingList.purchase(PurchaseRequest(brand: " DMC ", number: " 321", quantity: 2, colorName: "Red"), threads: [gone], list: [], lines: [], now: now)
        #expect(new.created && new.thread.brand == "DMC" && new.thread.number == "321" && new.thread.quantity == 2 && new.thread.createdAt == now)
        // More than a thread holds, or a bad request: refused, by field.
        let full = thread { $0.quantity = Limits.maxQuantity }
        #expect(throws: ValidationError("quantity", "You have \(Limits.maxQuantity); the most a thread can hold is \(Limits.maxQuantity)")) {
            try ShoppingList.purchase(PurchaseRequest(brand: "DMC", number: "310", quantity: 1), threads: [full], list: [], lines: [], now: now)
        }
        #expect(throws: ValidationError.self) {
            try ShoppingList.purchase(PurchaseRequest(brand: "DMC", number: "310", quantity: 0), threads: [], list: [], lines: [], now: now)
        }
    }
}
