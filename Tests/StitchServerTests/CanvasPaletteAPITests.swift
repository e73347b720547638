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
}
