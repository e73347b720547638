import Foundation
import StitchCore
import Testing

/// The counting rules a stitcher shops by, as one table: what is owned, what each project and
/// section needs, and what readiness and the shopping list must then say. Server, web app,
/// StitchKit and the CLI all answer from `Readiness.project` and `ShoppingList.compute`.
@Suite("Counting rules: a thread shared by several needs is counted once")
struct CountingRulesTests {
    /// A requirement: project index, section name (nil: none), brand, number, skeins, linked
    /// inventory thread index (nil: typed by hand), deleted.
    struct Need {
        var project: Int
        var section: String?
        var brand = "DMC"
        var number = "310"
        var quantity: Int
        var linked: Int?
        var deleted = false
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// Inventory: brand, number, quantity, deleted.
        var owned: [(String, String, Int, Bool)]
        var projects: [ProjectStatus]
        /// Sections in sort order, per project index.
        var sections: [Int: [String]] = [:]
        var needs: [Need]
        /// Per project: its colour, then each section's as "Name=colour".
        var readiness: [String]
        /// "Brand Number need N have H buy B [Project:part …]"
        var shopping: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Two projects share one skein: buy 4, not 3",
             owned: [("DMC", "310", 1, false)], projects: [.wip, .wip],
             needs: [Need(project: 0, quantity: 3), Need(project: 1, quantity: 2)],
             readiness: ["P0 red", "P1 red"],
             shopping: ["DMC 310 need 5 have 1 buy 4 [P0:2 P1:2]"]),
        Case(name: "Two sections that each need 2 with 3 in stock: the first is green, the second short",
             owned: [("DMC", "310", 3, false)], projects: [.wip], sections: [0: ["Background", "Border"]],
             needs: [Need(project: 0, section: "Border", quantity: 2), Need(project: 0, section: "Background", quantity: 2)],
             readiness: ["P0 yellow Background=green Border=red"],
             shopping: ["DMC 310 need 4 have 3 buy 1 [P0:1]"]),
        Case(name: "Linked and typed requirements for the same thread share it",
             owned: [("DMC", "310", 2, false)], projects: [.wip], sections: [0: ["Sky", "Sea"]],
             needs: [Need(project: 0, section: "Sky", quantity: 2, linked: 0), Need(project: 0, section: "Sea", brand: " dmc", number: "310 ", quantity: 1)],
             readiness: ["P0 yellow Sky=green Sea=red"],
             shopping: ["DMC 310 need 3 have 2 buy 1 [P0:1]"]),
        Case(name: "A requirement linked to a deleted thread falls back to its brand and number; deleted stock counts for nothing",
             owned: [("DMC", "310", 9, true), ("DMC", "310", 1, false)], projects: [.wip],
             needs: [Need(project: 0, quantity: 2, linked: 0)],
             readiness: ["P0 red"],
             shopping: ["DMC 310 need 2 have 1 buy 1 [P0:1]"]),
        Case(name: "Two inventory entries of one thread add up",
             owned: [("DMC", "310", 2, false), ("dmc", "310", 1, false)], projects: [.wip],
             needs: [Need(project: 0, quantity: 3, linked: 1)],
             readiness: ["P0 green"], shopping: []),
        Case(name: "Zero stock: red, and the whole need is bought",
             owned: [("DMC", "310", 0, false)], projects: [.wip],
             needs: [Need(project: 0, quantity: 2, linked: 0), Need(project: 0, number: "3865", quantity: 1)],
             readiness: ["P0 red"],
             shopping: ["DMC 310 need 2 have 0 buy 2 [P0:2]", "DMC 3865 need 1 have 0 buy 1 [P0:1]"]),
        Case(name: "Completed and at-finishing projects are left off the list, but still show their readiness",
             owned: [("DMC", "310", 1, false)], projects: [.completed, .atFinishing, .wip],
             needs: [Need(project: 0, quantity: 5), Need(project: 1, quantity: 4), Need(project: 2, quantity: 1)],
             readiness: ["P0 red", "P1 red", "P2 green"],
             shopping: []),
        Case(name: "Nothing planned is not green; a deleted requirement counts for nothing",
             owned: [], projects: [.wip, .wip], sections: [1: ["Centre", "Border"]],
             needs: [Need(project: 0, quantity: 4, deleted: true), Need(project: 1, section: "Centre", quantity: 1)],
             readiness: ["P0 unplanned", "P1 red Centre=red Border=unplanned"],
             shopping: ["DMC 310 need 1 have 0 buy 1 [P1:1]"]),
        Case(name: "Different threads are counted apart; what one section doesn't need stays for the next",
             owned: [("DMC", "310", 4, false), ("Anchor", "403", 1, false)], projects: [.wip, .wip], sections: [0: ["A", "B", "C"]],
             needs: [Need(project: 0, section: "A", quantity: 1), Need(project: 0, section: "B", brand: "Anchor", number: "403", quantity: 2),
                     Need(project: 0, section: "C", quantity: 3), Need(project: 1, quantity: 1)],
             readiness: ["P0 yellow A=green B=red C=green", "P1 green"],
             shopping: ["Anchor 403 need 2 have 1 buy 1 [P0:1]", "DMC 310 need 5 have 4 buy 1 [P1:1]"]),
    ]

    @Test(arguments: cases)
    func counts(_ c: Case) throws {
        let owned = c.owned.map { brand, number, quantity, deleted in
            thread { $0.brand = brand; $0.number = number; $0.quantity = quantity; $0.deletedAt = deleted ? t0 : nil }
        }
        // Projects start a minute apart in table order: the older one comes first on the list.
        let projects = c.projects.enumerated().map { i, status in
            Project(canvasId: UUID(), status: status, startedAt: t0.addingTimeInterval(Double(i) * 60), createdAt: t0, updatedAt: t0)
        }
        var sections: [ProjectSection] = []
        for (p, names) in c.sections {
            // Created in reverse so that sort order, not creation, decides.
            for (order, name) in names.enumerated().reversed() {
                sections.append(ProjectSection(projectId: projects[p].id, name: name, sortOrder: order,
                                               createdAt: t0.addingTimeInterval(Double(names.count - order)), updatedAt: t0))
            }
        }
        let requirements = c.needs.enumerated().map { i, need in
            requirement {
                $0.projectId = projects[need.project].id
                $0.sectionId = need.section.flatMap { name in sections.first { $0.projectId == projects[need.project].id && $0.name == name }?.id }
                $0.brand = need.brand
                $0.number = need.number
                $0.quantityNeeded = need.quantity
                $0.threadId = need.linked.map { owned[$0].id }
                $0.deletedAt = need.deleted ? t0 : nil
                $0.createdAt = t0.addingTimeInterval(Double(i))
            }
        }
        let inventory = InventoryIndex(owned)
        let readiness = projects.enumerated().map { i, project in
            let r = Readiness.project(project.id, sections: sections, requirements: requirements, inventory: inventory)
            return (["P\(i) \(r.color.rawValue)"] + r.sections.map { "\($0.name)=\($0.color.rawValue)" }).joined(separator: " ")
        }
        #expect(readiness == c.readiness)
        let titled = projects.enumerated().map { ($1, "P\($0)") }
        let list = ShoppingList.compute(projects: titled.reversed(), requirements: requirements.reversed(), inventory: inventory)
        let shown = list.map { item in
            "\(item.brand) \(item.number) need \(item.needed) have \(item.have) buy \(item.toBuy) ["
                + item.projects.map { "\($0.title):\($0.toBuy)" }.joined(separator: " ") + "]"
        }
        #expect(shown == c.shopping)
        // Each line's parts add up to its total, and the total is what is needed less what is owned.
        for item in list {
            #expect(item.projects.reduce(0) { $0 + $1.toBuy } == item.toBuy)
            #expect(item.toBuy == item.needed - item.have)
        }
    }

    @Test("The list as plain text: by brand, a box to tick per thread, what to buy and for whom; an empty list says so")
    func plainText() {
        let p = UUID()
        let items = [
            ShoppingItem(brand: "Appleton", number: "992", colorName: nil, have: 0, needed: 4, toBuy: 4, projects: [ShoppingProjectNeed(projectId: p, title: "Santa", toBuy: 4)]),
            ShoppingItem(brand: "DMC", number: "310", colorName: "Black", have: 1, needed: 5, toBuy: 4,
                         projects: [ShoppingProjectNeed(projectId: p, title: "Nutcracker", toBuy: 2), ShoppingProjectNeed(projectId: p, title: "Santa", toBuy: 2)]),
            ShoppingItem(brand: "DMC", number: "321", colorName: "Red", have: 0, needed: 1, toBuy: 1, projects: []),
        ]
        let day = Date(timeIntervalSince1970: 1_795_651_200)  // 26 Nov 2026
        #expect(ShoppingList.plainText(items, asOf: day) == """
            Shopping list, 26 Nov 2026

            Appleton
            ☐ 992: buy 4 (Santa 4)

            DMC
            ☐ 310 Black: buy 4 (Nutcracker 2, Santa 2)
            ☐ 321 Red: buy 1

            """)
        #expect(ShoppingList.plainText([], asOf: day) == "Shopping list, 26 Nov 2026\n\nNothing to buy.\n")
    }
}
