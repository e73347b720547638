import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("A chart's colour key read into the project's thread list")
struct ChartKeyAPITests {
    private func setUp(_ app: Application) async throws -> (TestUser, ProjectDetail) {
        let ann = try await TestUser.make(app)
        return (ann, try await ann.project(canvas: try await ann.canvas()))
    }

    private func upload(_ user: TestUser, _ project: ProjectDetail, _ data: Data) async throws -> PatternDetail {
        let res = try await user.upload("/projects/\(project.project.id.wireText)/patterns",
                                        files: [Fixtures.file(data, name: "file", filename: "chart.pdf", type: "application/pdf")])
        try #require(res.status == .created, "\(res.text)")
        return try res.decode(PatternDetail.self)
    }

    /// Each thread as "brand number quantity rule".
    private func summary(_ proposal: ChartKeyProposal) -> [String] {
        proposal.rows.map { "\($0.thread.label) \($0.thread.quantity) \($0.thread.rule.rawValue)" }
    }

    @Test("Four layouts: a table, plain lines two to a line, keys side by side, a key over two pages with blends — every row found or listed as unread, numbers and quantities right")
    func layouts() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)

            let table = try await ann.get("/patterns/\(try await upload(ann, project, TestChart.table).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(summary(table) == ["DMC 310 1 key", "DMC 3865 3 stitches", "Anchor 403 1 key"], "\(table.rows)")
            #expect(table.count == 14 && table.countSource == "printed on the chart")
            #expect(table.rows[1].thread.stitches == 5000 && table.rows[0].thread.symbols == ["X"] && table.rows[0].thread.catalogName == "Black")
            #expect(table.unread.map(\.reason) == ["DMC 9999 is not in the DMC catalog", "no catalog for Madeira"], "\(table.unread)")
            #expect(table.unread.allSatisfy { $0.page == 1 } && table.unread[1].text.contains("Madeira 2400 White"))
            #expect(table.message.contains("Read 3 threads") && table.message.contains("2 lines of the key could not be read"))

            let lines = try await ann.get("/patterns/\(try await upload(ann, project, TestChart.lines).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(summary(lines) == ["DMC 310 2 key", "DMC 321 1 key", "Anchor 403 1 key", "DMC 3865 3 key", "DMC 798 1 guess"], "\(lines.rows)")
            #expect(lines.unread.isEmpty, "\(lines.unread)")
            #expect(lines.count == 18 && lines.countSource == "the canvas's mesh")
            // A project stitched from the chart alone counts with its own mesh.
            let chartOnly = try await ann.create("/projects", ["name": "Fox chart", "meshCount": 13], as: ProjectDetail.self)
            let own = try await ann.get("/patterns/\(try await upload(ann, chartOnly, TestChart.lines).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(own.count == 13 && own.countSource == "the project's mesh")
            // A name that isn't the number's colour is flagged, not trusted; an abbreviation isn't.
            #expect(lines.rows.filter(\.thread.nameDisagrees).map(\.thread.label) == ["DMC 3865"])
            #expect(lines.rows[3].thread.printedName == "Christmas Red" && lines.rows[3].thread.catalogName == "Winter White")
            #expect(lines.message.contains("Check DMC 3865"))

            let side = try await ann.get("/patterns/\(try await upload(ann, project, TestChart.sideBySide).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(summary(side) == ["DMC 310 2 stitches", "DMC 321 1 stitches", "DMC 3865 5 stitches", "DMC 798 1 stitches", "DMC 3347 1 stitches"],
                    "\(side.rows)")
            #expect(side.count == 18 && side.unread.isEmpty && side.rows.map(\.thread.stitches) == [4400, 900, 12000, 150, 2500])
            #expect(side.rows[2].thread.symbols == ["#"] && side.rows[3].thread.symbols == ["*"])

            let two = try await ann.get("/patterns/\(try await upload(ann, project, TestChart.twoPages).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(summary(two) == ["DMC 310 2 stitches", "DMC 321 1 stitches", "DMC 3865 1 stitches", "DMC 798 1 stitches", "Anchor 403 1 stitches"],
                    "\(two.rows)")
            #expect(two.rows[0].thread.pages == [1, 2] && two.rows[0].thread.stitches == 6400 && two.rows[0].thread.blendedWith == ["DMC 3865"])
            #expect(two.rows[1].thread.stitches == 2300 && two.rows[3].thread.blendedWith == ["Anchor 403"] && two.rows[4].thread.blendedWith == ["DMC 798"])
            #expect(two.unread.map(\.reason) == ["no catalog for Cosmo"] && two.unread[0].page == 2)
        }
    }

    @Test("Confirmed: the rows chosen become requirements in one sync version, linked to the inventory; readiness and the shopping list follow; reading the chart again adds nothing twice")
    func confirm() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let owned = try await ann.thread("DMC", "310", quantity: 1)
            try await ann.thread("Anchor", "403", quantity: 2)
            let pattern = try await upload(ann, project, TestChart.table).pattern
            let path = "/patterns/\(pattern.id.wireText)/key"
            let proposal = try await ann.get(path, as: ChartKeyProposal.self)
            #expect(proposal.rows.map(\.owned) == [1, 0, 2] && proposal.rows[0].threadId == owned.id && !proposal.rows[0].alreadyRequired)
            // What a stitcher without DMC 3865 could use instead, and whether she has it.
            #expect(proposal.rows[1].substitutes.first?.brand == "Anchor")

            let before = try await ann.syncVersion()
            let rows = [ChartKeyConfirmation.Row(brand: "DMC", number: "310", quantityNeeded: 2),
                        ChartKeyConfirmation.Row(brand: "dmc", number: "3865", quantityNeeded: 3)]
            let res = try await ann.send(.POST, path, json: ChartKeyConfirmation(rows: rows))
            #expect(res.status == .created, "\(res.text)")
            let result = try res.decode(ChartKeyResult.self)
            #expect(result.added.map { "\($0.brand) \($0.number) \($0.quantityNeeded)" } == ["DMC 310 2", "DMC 3865 3"] && result.alreadyRequired.isEmpty)
            #expect(result.added[0].threadId == owned.id && result.added[1].threadId == nil && result.added[1].colorName == "Winter White")
            #expect(result.added[1].notes == "From the chart's key; 5000 stitches, skeins estimated for 14 count")
            #expect(try await ann.syncVersion() == before + 1, "one sync version for the whole key")

            let readiness = try await ann.get("/projects/\(project.project.id.wireText)/readiness", as: ProjectReadiness.self)
            #expect(readiness.color == .red && readiness.requirements.map(\.toBuy).sorted() == [1, 3], "DMC 310 short of one, DMC 3865 none")
            let shopping = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(shopping.items.map { "\($0.brand) \($0.number) \($0.toBuy)" }.sorted() == ["DMC 310 1", "DMC 3865 3"])

            // Again: the project already needs them, so nothing is added and nothing changes.
            let again = try await ann.send(.POST, path, json: ChartKeyConfirmation(rows: rows))
            let againResult = try again.decode(ChartKeyResult.self)
            #expect(again.status == .ok && againResult.alreadyRequired == ["DMC 310", "DMC 3865"] && againResult.added.isEmpty)
            #expect(try await ann.syncVersion() == before + 1)
            let reread = try await ann.get(path, as: ChartKeyProposal.self)
            #expect(reread.rows.map(\.alreadyRequired) == [true, true, false])
            let requirements = try await ann.get("/projects/\(project.project.id.wireText)/threads", as: [ProjectThread].self)
            #expect(requirements.count == 2)
        }
    }

    @Test("Bad input changes nothing: a thread not in the key, a quantity out of range, a section of another project, twice the same row, an empty list; another account's chart is a 404")
    func badInput() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let other = try await ann.project(canvas: try await ann.canvas("Robin"))
            let foreignSection = try await ann.create("/projects/\(other.project.id.wireText)/sections", ["name": "Border"], as: ProjectSection.self)
            let pattern = try await upload(ann, project, TestChart.table).pattern
            let path = "/patterns/\(pattern.id.wireText)/key"
            let before = try await ann.syncVersion()
            let cases: [([ChartKeyConfirmation.Row], String)] = [
                ([.init(brand: "DMC", number: "321", quantityNeeded: 1)], "DMC 321 is not in this chart's key"),
                ([.init(brand: "Madeira", number: "2400", quantityNeeded: 1)], "Madeira 2400 is not in this chart's key"),
                ([.init(brand: "DMC", number: "310", quantityNeeded: 1), .init(brand: "DMC", number: "3865", quantityNeeded: 0)], "From 1 to"),
                ([.init(brand: "DMC", number: "310", quantityNeeded: 1), .init(brand: "DMC", number: "310", quantityNeeded: 2)], "chosen twice"),
                ([], "Choose at least one thread"),
            ]
            for (rows, message) in cases {
                let res = try await ann.send(.POST, path, json: ChartKeyConfirmation(rows: rows))
                #expect(res.status == .badRequest && res.text.contains(message), "\(rows): \(res.text)")
            }
            // A section of another project: a reference that isn't there, as for any requirement.
            let foreign = try await ann.send(.POST, path, json: ChartKeyConfirmation(rows: [.init(brand: "DMC", number: "310", quantityNeeded: 1, sectionId: foreignSection.id)]))
            #expect(foreign.status == .conflict && foreign.text.contains("No such section in this project"), "\(foreign.text)")
            #expect(try await ann.send(.POST, path, raw: "{\"rows\": [{\"brand\": \"DMC\"}]}").status == .badRequest)
            #expect(try await ann.syncVersion() == before)
            #expect(try await ann.get("/projects/\(project.project.id.wireText)/threads", as: [ProjectThread].self).isEmpty)

            let bob = try await TestUser.make(app, email: "bob@example.com")
            #expect(try await bob.send(.GET, path).status == .notFound)
            #expect(try await bob.send(.POST, path, json: ChartKeyConfirmation(rows: [.init(brand: "DMC", number: "310", quantityNeeded: 1)])).status == .notFound)
        }
    }

    @Test("No key, no text: a chart without a colour key says so and offers nothing; a picture or a scan has no text to read")
    func nothingToRead() async throws {
        try await withTestApp { app, _ in
            let (ann, project) = try await setUp(app)
            let plain = try await ann.get("/patterns/\(try await upload(ann, project, TestPDF.make(pages: 2)).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(plain.hasText && plain.rows.isEmpty && plain.unread.isEmpty && plain.message == "No colour key found in this chart.")
            let scan = try await ann.get("/patterns/\(try await upload(ann, project, TestChart.pdf([[]])).pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(!scan.hasText && scan.rows.isEmpty && scan.message.contains("no text to read"))
            let res = try await ann.upload("/projects/\(project.project.id.wireText)/patterns", files: [Fixtures.file(Fixtures.png, name: "file", filename: "chart.png", type: "image/png")])
            let picture = try res.decode(PatternDetail.self)
            let read = try await ann.get("/patterns/\(picture.pattern.id.wireText)/key", as: ChartKeyProposal.self)
            #expect(!read.hasText && read.rows.isEmpty && read.message.contains("picture"))
            let confirm = try await ann.send(.POST, "/patterns/\(picture.pattern.id.wireText)/key",
                                             json: ChartKeyConfirmation(rows: [.init(brand: "DMC", number: "310", quantityNeeded: 1)]))
            #expect(confirm.status == .badRequest && confirm.text.contains("not in this chart's key"))
        }
    }
}
