import Foundation
import StitchCore
import Testing

@Suite("Natural order, JSON format, readiness and the shopping list")
struct DomainLogicTests {
    @Test func naturalOrder() {
        let numbers = ["310", "B5200", "10", "2", "blanc", "02", "3865", "Ecru", "1"]
        #expect(numbers.sorted(by: NaturalOrder.areInIncreasingOrder) == ["1", "2", "02", "10", "310", "3865", "B5200", "blanc", "Ecru"])
        #expect(NaturalOrder.compare("dmc", "DMC") != .orderedSame || "dmc" == "DMC")
        #expect(NaturalOrder.areInIncreasingOrder("Appleton 9", "Appleton 10"))
    }

    @Test func inventorySortsByBrandThenNumber() {
        let threads = [thread { $0.brand = "DMC"; $0.number = "310" }, thread { $0.brand = "Appleton"; $0.number = "10" },
                       thread { $0.brand = "DMC"; $0.number = "2" }, thread { $0.brand = "Appleton"; $0.number = "9" }]
        let sorted = threads.sorted(by: InventoryThread.inventoryOrder).map { "\($0.brand) \($0.number)" }
        #expect(sorted == ["Appleton 9", "Appleton 10", "DMC 2", "DMC 310"])
        #expect(InventoryThread.sortedInInventoryOrder(threads).map { "\($0.brand) \($0.number)" } == sorted)
        #expect(InventoryThread.sortedInInventoryOrder([]).isEmpty)
    }

    @Test("Sorting positions gives exactly the records sorted themselves, ties and odd numbers included")
    func inventorySortByPositions() {
        let brands = ["DMC", "dmc", "Appleton", "Rainbow Gallery", "Ørnen", "Silk & Ivory", ""]
        let numbers = ["310", "0310", "2", "10", "B5200", "blanc", "Ecru", "3865", "01", "1", ""]
        let threads = (0..<1000).map { i in
            thread { $0.brand = brands[(i * 7) % brands.count]; $0.number = numbers[(i * 13 + i / 7) % numbers.count] }
        }
        let expected = threads.sorted(by: InventoryThread.inventoryOrder)
        #expect(InventoryThread.sortedInInventoryOrder(threads) == expected)
        #expect(InventoryThread.sortedInInventoryOrder(threads.reversed()) == expected)
    }

    @Test func searchMatchesBrandNumberOrColour() {
        let t = thread { $0.colorName = "Sea Green" }
        #expect(t.matches(search: "dmc") && t.matches(search: "31") && t.matches(search: "sea") && t.matches(search: ""))
        #expect(!t.matches(search: "wool"))
    }

    @Test func datesAreISO8601WithMillisecondsInUTC() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.1234)
        let data = try StitchJSON.makeEncoder().encode(["at": date])
        #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2023-11-14T22:13:20.123Z"}"#)
        let back = try StitchJSON.makeDecoder().decode([String: Date].self, from: data)
        #expect(back["at"] == date.roundedToMilliseconds)
        let plain = try StitchJSON.makeDecoder().decode([String: Date].self, from: Data(#"{"at":"2023-11-14T22:13:20Z"}"#.utf8))
        #expect(plain["at"] == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(throws: DecodingError.self) {
            try StitchJSON.makeDecoder().decode([String: Date].self, from: Data(#"{"at":"yesterday"}"#.utf8))
        }
    }

    @Test func recordsRoundTripWithCamelCaseKeys() throws {
        let t = thread { $0.colorName = "Black"; $0.weightOrLength = "8m" }
        let data = try StitchJSON.makeEncoder().encode(t)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"colorName\"") && text.contains("\"fiberType\":\"wool\"") && text.contains("\"weightOrLength\""))
        #expect(try StitchJSON.makeDecoder().decode(InventoryThread.self, from: data) == t)
    }

    @Test func readinessColours() throws {
        let project = UUID()
        let background = ProjectSection(projectId: project, name: "Background", sortOrder: 0, createdAt: t0, updatedAt: t0)
        let border = ProjectSection(projectId: project, name: "Border", sortOrder: 1, createdAt: t0, updatedAt: t0)
        let black = thread { $0.quantity = 3 }
        let white = thread { $0.number = "B5200"; $0.quantity = 4 }
        let reqs = [
            requirement { $0.projectId = project; $0.sectionId = border.id; $0.threadId = black.id; $0.quantityNeeded = 2 },
            requirement { $0.projectId = project; $0.sectionId = background.id; $0.threadId = black.id; $0.quantityNeeded = 5 },
            requirement { $0.projectId = project; $0.sectionId = background.id; $0.threadId = white.id; $0.number = "B5200"; $0.quantityNeeded = 2 },
            requirement { $0.projectId = project; $0.sectionId = border.id; $0.threadId = white.id; $0.number = "B5200"; $0.quantityNeeded = 2 },
            requirement { $0.projectId = project; $0.brand = "Appleton"; $0.number = "992"; $0.quantityNeeded = 4 },
        ]
        let r = Readiness.project(project, sections: [border, background], requirements: reqs, inventory: InventoryIndex([black, white]))
        #expect(r.sections.map(\.name) == ["Background", "Border"])
        // Black: 7 wanted, 3 owned; Background comes first and takes all 3, so the Border has none.
        // White: 4 wanted, 4 owned: both covered.
        #expect(r.sections.map(\.color) == [.yellow, .yellow])
        #expect(r.color == .yellow)
        let blackInBackground = try #require(r.requirements.first { $0.requirementId == reqs[1].id })
        #expect(blackInBackground.have == 3 && blackInBackground.needed == 5 && blackInBackground.toBuy == 2 && blackInBackground.neededInAll == 7)
        #expect(blackInBackground.summary == "Shared with Border: 7 needed in all, you have 3 — buy 4 more")
        let blackInBorder = try #require(r.requirements.first { $0.requirementId == reqs[0].id })
        #expect(blackInBorder.toBuy == 2 && blackInBorder.sharedWith == ["Background"])
        let whiteInBorder = try #require(r.requirements.first { $0.requirementId == reqs[3].id })
        #expect(whiteInBorder.isCovered && whiteInBorder.summary == "Shared with Background: 4 needed in all, you have 4")
        #expect(r.unsectioned.count == 1 && r.unsectioned[0].toBuy == 4 && r.unsectioned[0].summary == "Need 4 — need to buy")
        #expect(r.summary == "Need threads for Background, Border.")
        let empty = Readiness.project(project, sections: [], requirements: [], inventory: InventoryIndex([]))
        #expect(empty.color == .unplanned && empty.summary == "Nothing planned yet: add the threads this project needs.")
    }

    @Test("An unlinked requirement counts inventory with the same brand and number; deleted threads count for nothing")
    func unlinkedMatchesByKey() {
        let project = UUID()
        let stock = thread { $0.brand = "DMC"; $0.number = "310"; $0.quantity = 4 }
        let req = requirement { $0.projectId = project; $0.brand = " dmc"; $0.number = "310 "; $0.quantityNeeded = 3 }
        #expect(Readiness.requirement(req, inventory: InventoryIndex([stock])).toBuy == 0)
        let deleted = thread { $0.quantity = 9; $0.deletedAt = t0 }
        #expect(Readiness.requirement(req, inventory: InventoryIndex([deleted])).toBuy == 3)
    }

    @Test("The shopping list: one line per thread, what the projects being stitched need together less what is owned")
    func shoppingList() {
        func project(_ status: ProjectStatus, started: TimeInterval) -> Project {
            Project(canvasId: UUID(), status: status, startedAt: t0.addingTimeInterval(started), createdAt: t0, updatedAt: t0)
        }
        let a = project(.wip, started: 0), b = project(.wip, started: 60), finishing = project(.atFinishing, started: -60), done = project(.completed, started: 0)
        let black = thread { $0.quantity = 1 }
        let reqs = [
            requirement { $0.projectId = a.id; $0.threadId = black.id; $0.quantityNeeded = 3 },
            requirement { $0.projectId = b.id; $0.brand = "dmc "; $0.number = "310"; $0.quantityNeeded = 2 },
            requirement { $0.projectId = finishing.id; $0.quantityNeeded = 7 },                      // stitched already: left out
            requirement { $0.projectId = done.id; $0.quantityNeeded = 50 },                          // completed: left out
            requirement { $0.projectId = b.id; $0.brand = "Appleton"; $0.number = "992"; $0.quantityNeeded = 2; $0.colorName = "Green" },
            requirement { $0.projectId = a.id; $0.brand = "Appleton"; $0.number = "1"; $0.quantityNeeded = 1; $0.deletedAt = t0 },
        ]
        let list = ShoppingList.compute(
            projects: [(b, "Santa"), (a, "Nutcracker"), (finishing, "Stocking"), (done, "Done")], requirements: reqs, inventory: InventoryIndex([black]))
        // 1 in stock, 3 + 2 needed: buy 4, not 2 + 1.
        #expect(list.map { "\($0.brand) \($0.number) need \($0.needed) have \($0.have) buy \($0.toBuy)" }
                == ["Appleton 992 need 2 have 0 buy 2", "DMC 310 need 5 have 1 buy 4"])
        // The older project takes the skein in stock.
        #expect(list[1].projects.map { "\($0.title) \($0.toBuy)" } == ["Nutcracker 2", "Santa 2"])
        #expect(list[0].colorName == "Green")
        #expect(ShoppingListResponse(items: list).totalToBuy == 6)
    }
}

@Suite("Timestamps")
struct TimestampTests {
    @Test(arguments: [0, 1, 999, 86_399_999, 951_782_400_000, 1_700_000_000_123, -1, -86_400_001, 4_102_444_800_000])
    func roundTripsExactly(_ ms: Int64) throws {
        let date = Date(millisecondsSince1970: ms)
        let text = Timestamp.string(from: date)
        #expect(Timestamp.date(from: text)?.millisecondsSince1970 == ms)
        let reference = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        #expect(text.prefix(19) == reference.prefix(19))
    }

    @Test func parsesOffsetsAndRejectsNonsense() {
        #expect(Timestamp.date(from: "2026-01-31T12:00:00+02:00")?.millisecondsSince1970
                == Timestamp.date(from: "2026-01-31T10:00:00Z")?.millisecondsSince1970)
        #expect(Timestamp.date(from: "2026-01-31T12:00:00.1234567Z")?.millisecondsSince1970
                == Timestamp.date(from: "2026-01-31T12:00:00.123Z")?.millisecondsSince1970)
        for bad in ["", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-31 12:00:00Z", "2026-01-31T12:00:00",
                    "2026-01-31T12:00:00.Z", "2026-01-31T25:00:00Z", "2026-01-31T12:00:00Zjunk"] {
            #expect(Timestamp.date(from: bad) == nil, "\(bad)")
        }
    }
}
