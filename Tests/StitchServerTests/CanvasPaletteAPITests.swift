import CGD
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// `GET /canvases/{id}/palette`: a stash canvas's photo read into its colours and threads, for its
/// owner only, on the tools' pool; bad questions refused.
@Suite("A canvas's photo becomes its thread list, over the API")
struct CanvasPaletteAPITests {
    /// A canvas photographed under warm light: a bare border around three painted bands —
    /// DMC 321 Red (half), 797 Royal Blue, 699 Green (a quarter each) — as PNG.
    static func photo(width: Int = 900, height: Int = 600) -> Data {
        let image = gdImageCreateTrueColor(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        let bands: [(until: Double, rgb: Int32)] = [(0.5, 0xC72B3B), (0.75, 0x13477D), (1.0, 0x056517)]
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= width / 10 && x < width - width / 10 && y >= height / 10 && y < height - height / 10
                var rgb: Int32 = 0xF2F0EA
                if inside {
                    let at = Double(x - width / 10) / Double(width - 2 * (width / 10))
                    rgb = bands.first { at < $0.until }?.rgb ?? bands[2].rgb
                }
                // Warm light: blue a tenth down.
                let r = rgb >> 16 & 0xFF, g = rgb >> 8 & 0xFF, b = Int32(Double(rgb & 0xFF) * 0.9)
                image.pointee.tpixels[y]![x] = r << 16 | g << 8 | b
            }
        }
        var length: Int32 = 0
        let png = gdImagePngPtr(image, &length)!
        defer { gdFree(png) }
        return Data(bytes: png, count: Int(length))
    }

    @Test("The owner gets each colour's threads (an owned one chosen), stitches and skeins; without a photo a 409; another account a 404; bad questions a 400")
    func palette() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.create("/canvases", ["designer": "Me", "designName": "Flag", "meshCount": 13, "size": "10 x 8 in"], as: Canvas.self)
            let none = try await ann.send(.GET, "/canvases/\(canvas.id.text)/palette")
            #expect(none.status == .conflict && none.text.contains("no photo"))
            let upload = try await ann.upload("/canvases/\(canvas.id.text)/image", files: [("image", "canvas.png", "image/png", Self.photo())])
            try #require(upload.status == .ok, "\(upload.text)")
            try await ann.thread("DMC", "321", quantity: 1)

            let answer: CanvasPaletteAnswer = try await ann.get("/canvases/\(canvas.id.text)/palette")
            #expect(answer.palette.colours.count == 3 && answer.palette.reference != nil, "\(answer.palette)")
            let red = try #require(answer.threads.rows.first)
            #expect(abs(red.share - 0.5) < 0.03 && red.choice?.brand == "DMC" && red.choice?.number == "321" && red.choice?.owned == true)
            // A 10 × 8 in design, half red: 40 in², 40 × 13² stitches; 80 yards of basketweave, 8.7 a skein: 10 skeins, 1 owned.
            #expect(red.stitches.map { abs($0 - 40 * 169) <= 3 * 169 } == true && (9...10).contains(red.skeins ?? 0) && red.toBuy == (red.skeins ?? 0) - 1, "\(red)")
            let blue = try #require(answer.threads.rows.first { $0.choice?.number == "797" })
            #expect(blue.choice?.closeness == "very close" && blue.choice?.owned == false && blue.nearest.count == 2)

            // A tapped bare spot (the border's corner) is the white instead.
            let tapped: CanvasPaletteAnswer = try await ann.get("/canvases/\(canvas.id.text)/palette?spot=20,20")
            #expect(tapped.palette.colours.count == 3 && tapped.palette.reference != nil)
            // Fewer strands or continental: fewer skeins.
            let continental: CanvasPaletteAnswer = try await ann.get("/canvases/\(canvas.id.text)/palette?stitch=continental&detail=2")
            #expect(continental.stitch == .continental && continental.detail == .fewer && (continental.threads.rows.first?.skeins ?? 99) < (red.skeins ?? 0))

            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            #expect(try await bea.send(.GET, "/canvases/\(canvas.id.text)/palette").status == .notFound)
            for query in ["detail=9", "detail=", "ground=pink", "spot=10", "spot=", "stitch=cross", "strands=0", "spot=-1,3", "spot=1,2,3"] {
                let res = try await ann.send(.GET, "/canvases/\(canvas.id.text)/palette?\(query)")
                #expect(res.status == .badRequest, "\(query): \(res.status)")
            }
        }
    }

    /// Ann's canvas (10 × 8 in, 13 mesh) with its photo, one skein of DMC 321 owned, and the palette read.
    static func setUp(_ app: Application) async throws -> (ann: TestUser, canvas: Canvas, answer: CanvasPaletteAnswer, owned: InventoryThread) {
        let ann = try await TestUser.make(app)
        let canvas = try await ann.create("/canvases", ["designer": "Me", "designName": "Flag", "meshCount": 13, "size": "10 x 8 in"], as: Canvas.self)
        let upload = try await ann.upload("/canvases/\(canvas.id.text)/image", files: [("image", "canvas.png", "image/png", Self.photo())])
        try #require(upload.status == .ok, "\(upload.text)")
        let owned = try await ann.thread("DMC", "321", quantity: 1)
        let answer: CanvasPaletteAnswer = try await ann.get("/canvases/\(canvas.id.text)/palette")
        try #require(answer.threads.rows.map { $0.choice?.number } == ["321", "797", "699"], "\(answer.threads.rows)")
        return (ann, canvas, answer, owned)
    }

    @Test("The map says where each colour is: the red band left, the green right, the border bare; the photo's size is the frame of a tapped spot")
    func map() async throws {
        try await withTestApp { app, _ in
            let (_, _, answer, _) = try await Self.setUp(app)
            let map = try #require(answer.palette.map)
            #expect(answer.photoWidth == 900 && answer.photoHeight == 600 && map.width >= 90 && map.cells.count == map.width * map.height)
            let middle = map.height / 2
            #expect(map.colour(x: 1, y: middle) == nil, "the border is bare")
            #expect(map.colour(x: map.width / 4, y: middle) == 0 && map.colour(x: map.width * 5 / 8, y: middle) == 1
                    && map.colour(x: map.width * 7 / 8 - 2, y: middle) == 2, "\(map.cells)")
        }
    }

    @Test("Added to a project in one sync change: a new project from the canvas, two colours on one thread as one requirement, an owned thread linked; readiness and the shopping list follow; again adds nothing")
    func addToProject() async throws {
        try await withTestApp { app, _ in
            let (ann, canvas, answer, owned) = try await Self.setUp(app)
            let rows = answer.threads.rows
            let path = "/canvases/\(canvas.id.text)/palette/project"
            let before = try await ann.syncVersion()
            let confirmation = CanvasPaletteConfirmation(rows: [
                .init(brand: "DMC", number: "321", quantityNeeded: rows[0].skeins ?? 1, colours: [rows[0].hex]),
                .init(brand: "DMC", number: "797", quantityNeeded: 2, colours: [rows[1].hex]),
                // The green merged onto the blue's thread: one requirement, skeins added.
                .init(brand: "dmc", number: "797", quantityNeeded: 1, colours: [rows[2].hex]),
                .init(brand: "Anchor", number: "403", quantityNeeded: 1),
            ])
            let res = try await ann.send(.POST, path, json: confirmation)
            #expect(res.status == .created, "\(res.text)")
            let result = try res.decode(CanvasPaletteResult.self)
            #expect(result.createdProject && result.alreadyRequired.isEmpty)
            #expect(result.added.map { "\($0.brand) \($0.number) \($0.quantityNeeded)" } == ["DMC 321 \(rows[0].skeins ?? 1)", "DMC 797 3", "Anchor 403 1"])
            #expect(result.added[0].threadId == owned.id && result.added[1].threadId == nil && result.added[1].colorName == "Royal Blue")
            #expect(result.added[1].notes == "From the canvas's photo (painted \(rows[1].hex) and \(rows[2].hex))", "\(result.added[1].notes ?? "")")
            #expect(try await ann.syncVersion() == before + 1, "the project and its threads in one sync change")

            let project = try await ann.get("/projects/\(result.projectId.wireText)", as: ProjectDetail.self)
            #expect(project.project.canvasId == canvas.id && project.project.status == .wip)
            let readiness = try await ann.get("/projects/\(result.projectId.wireText)/readiness", as: ProjectReadiness.self)
            #expect(readiness.color == .red && readiness.requirements.map(\.toBuy).sorted() == [1, 3, (rows[0].skeins ?? 1) - 1].sorted())
            let shopping = try await ann.get("/shopping-list", as: ShoppingListResponse.self)
            #expect(shopping.items.map { "\($0.brand) \($0.number) \($0.toBuy)" }.sorted()
                    == ["Anchor 403 1", "DMC 321 \((rows[0].skeins ?? 1) - 1)", "DMC 797 3"])

            // No project named again: the canvas has one now, so a 409 and nothing written.
            let twice = try await ann.send(.POST, path, json: confirmation)
            #expect(twice.status == .conflict && twice.text.contains("already has a project"), "\(twice.text)")
            // To that project: all already there, so nothing is added and nothing changes.
            var again = confirmation
            again.projectId = result.projectId
            let same = try await ann.send(.POST, path, json: again)
            let sameResult = try same.decode(CanvasPaletteResult.self)
            #expect(same.status == .ok && sameResult.alreadyRequired == ["DMC 321", "DMC 797", "Anchor 403"])
            #expect(try await ann.syncVersion() == before + 1)
            // To a section of it: the same thread again, for that part.
            let section = try await ann.create("/projects/\(result.projectId.wireText)/sections", ["name": "Border"], as: ProjectSection.self)
            var border = CanvasPaletteConfirmation(projectId: result.projectId, sectionId: section.id, rows: [.init(brand: "DMC", number: "321", quantityNeeded: 1)])
            let sectioned = try await ann.send(.POST, path, json: border)
            let sectionedResult = try sectioned.decode(CanvasPaletteResult.self)
            #expect(sectioned.status == .created && sectionedResult.added.first?.sectionId == section.id)
            border.rows = []
            #expect(try await ann.send(.POST, path, json: border).status == .badRequest)
        }
    }

    @Test("Someone else: another account can't add to Ann's canvas or Ann's project; a deleted project, a section of another project and bad rows change nothing")
    func addToProjectRefused() async throws {
        try await withTestApp { app, _ in
            let (ann, canvas, _, _) = try await Self.setUp(app)
            let path = "/canvases/\(canvas.id.text)/palette/project"
            let mine = try await ann.project(canvas: canvas)
            let other = try await ann.project(canvas: try await ann.canvas("Robin"))
            let foreignSection = try await ann.create("/projects/\(other.project.id.wireText)/sections", ["name": "Sky"], as: ProjectSection.self)
            let one = [CanvasPaletteConfirmation.Row(brand: "DMC", number: "321", quantityNeeded: 1)]

            let bea = try await TestUser.make(app, email: "bea@example.com", name: "Bea")
            let beaCanvas = try await bea.canvas("Bea's")
            let beaBefore = try await bea.syncVersion()
            #expect(try await bea.send(.POST, path, json: CanvasPaletteConfirmation(rows: one)).status == .notFound)
            #expect(try await bea.send(.POST, path, json: CanvasPaletteConfirmation(projectId: mine.project.id, rows: one)).status == .notFound)
            let intoAnns = try await bea.send(.POST, "/canvases/\(beaCanvas.id.text)/palette/project", json: CanvasPaletteConfirmation(projectId: mine.project.id, rows: one))
            #expect(intoAnns.status == .conflict && intoAnns.text.contains("No such project"), "\(intoAnns.text)")
            #expect(try await bea.syncVersion() == beaBefore)

            let before = try await ann.syncVersion()
            let cases: [(CanvasPaletteConfirmation, HTTPStatus, String)] = [
                (.init(projectId: mine.project.id, rows: []), .badRequest, "Choose at least one thread"),
                (.init(projectId: mine.project.id, rows: [.init(brand: "DMC", number: "321", quantityNeeded: 0)]), .badRequest, "From 1 to"),
                (.init(projectId: mine.project.id, rows: [.init(brand: " ", number: "321", quantityNeeded: 1)]), .badRequest, "brand"),
                (.init(projectId: mine.project.id, rows: [.init(brand: "DMC", number: "321", quantityNeeded: 1, colours: ["red"])]), .badRequest, "#RRGGBB"),
                (.init(projectId: mine.project.id, rows: Array(repeating: one[0], count: 201)), .badRequest, "At most 200"),
                (.init(projectId: mine.project.id, sectionId: foreignSection.id, rows: one), .conflict, "No such section in this project"),
                (.init(projectId: UUID(), rows: one), .conflict, "No such project"),
            ]
            for (confirmation, status, message) in cases {
                let res = try await ann.send(.POST, path, json: confirmation)
                #expect(res.status == status && res.text.contains(message), "\(message): \(res.status) \(res.text)")
            }
            #expect(try await ann.send(.POST, path, raw: "{\"rows\": [{\"brand\": \"DMC\"}]}").status == .badRequest)
            // A deleted project is no longer a place to add threads.
            #expect(try await ann.send(.DELETE, "/projects/\(other.project.id.wireText)").status == .noContent)
            let afterDelete = try await ann.syncVersion()
            let deleted = try await ann.send(.POST, path, json: CanvasPaletteConfirmation(projectId: other.project.id, rows: one))
            #expect(deleted.status == .conflict && deleted.text.contains("No such project"))
            #expect(try await ann.syncVersion() == afterDelete && afterDelete == before + 1, "only the delete wrote")
            #expect(try await ann.get("/projects/\(mine.project.id.wireText)/threads", as: [ProjectThread].self).isEmpty)
        }
    }
}
