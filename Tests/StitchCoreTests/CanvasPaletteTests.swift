import Foundation
@testable import StitchCore
import Testing

/// Reading a painted canvas's colours from its photo (`CanvasPalette.read`), on photos made here:
/// regions painted with known DMC colours on a mesh, a bare border, a warm colour cast, light
/// falling off across the canvas and noise.
@Suite("A painted canvas's photo becomes its colours")
struct CanvasPaletteTests {
    /// DMC 321 Red, 797 Royal Blue, 699 Green, 444 Lemon Dark, 310 Black, 603 Cranberry: as
    /// bands down the painted area with these shares of it.
    static let paint: [(hex: String, share: Double)] = [("#C72B3B", 0.30), ("#13477D", 0.25), ("#056517", 0.15),
                                                         ("#FFD600", 0.12), ("#000000", 0.10), ("#FFA4BE", 0.08)]

    /// A photo `width × height`: a bare white border (10 % each side), the painted bands, a mesh
    /// every 9 px (its holes dark, its threads showing bare where paint is thin), a warm cast,
    /// light falling from 105 % to 85 % across, and noise.
    static func photo(width: Int = 1200, height: Int = 900, cast: (r: Double, g: Double, b: Double) = (1.06, 1.0, 0.86),
                      seed: UInt64 = 7) -> RGBPixels {
        var random = SplitMix(seed: seed)
        let ground = Lab.rgb(hex: CanvasPalette.Ground.white.hex)
        let (left, right) = (width / 10, width - width / 10), (top, bottom) = (height / 10, height - height / 10)
        var edges: [Int] = [left]
        for p in paint { edges.append(edges.last! + Int((p.share * Double(right - left)).rounded())) }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var colour = ground
                if (left..<right).contains(x), (top..<bottom).contains(y) {
                    let band = min(paint.count - 1, max(0, edges.lastIndex { $0 <= x }!))
                    colour = Lab.rgb(hex: paint[band].hex)
                }
                // The mesh: a dark hole every 9 px each way.
                let hole = x % 9 == 0 && y % 9 == 0
                let light = 1.05 - 0.2 * Double(x) / Double(width)
                let factors = [cast.r, cast.g, cast.b]
                for (c, v) in [colour.r, colour.g, colour.b].enumerated() {
                    let noisy = v * (hole ? 0.45 : 1) * light * factors[c] + Double(random.next() % 13) - 6
                    bytes[(y * width + x) * 3 + c] = UInt8(min(255, max(0, noisy.rounded())))
                }
            }
        }
        return RGBPixels(width: width, height: height, bytes: bytes)
    }

    @Test("Each painted colour is found once, near its paint once the cast is taken out, with its share; the border is bare canvas")
    func findsThePaint() {
        let palette = CanvasPalette.read(Self.photo())
        #expect(palette.colours.count == Self.paint.count, "\(palette.colours)")
        #expect(palette.reference != nil && abs(palette.bareShare - 0.36) < 0.05, "\(palette.bareShare)")
        for (hex, share) in Self.paint {
            let truth = Lab(hex: hex)!
            let nearest = palette.colours.min { ColorDifference.ciede2000(Lab(hex: $0.hex)!, truth) < ColorDifference.ciede2000(Lab(hex: $1.hex)!, truth) }!
            // Light falls off by a fifth across the canvas: the paint's mean is that much darker than its tube.
            #expect(ColorDifference.ciede2000(Lab(hex: nearest.hex)!, truth) < 8, "\(hex) → \(nearest.hex)")
            #expect(abs(nearest.share - share) < 0.03, "\(hex): \(nearest.share) against \(share)")
        }
        #expect(abs(palette.colours.map(\.share).reduce(0, +) - 1) < 1e-9)
    }

    @Test("Fewer colours merges the nearest; more keeps shades apart; a tapped bare spot is the reference")
    func detailAndSpot() {
        let photo = Self.photo()
        let fewest = CanvasPalette.read(photo, options: .init(detail: .fewest))
        let usual = CanvasPalette.read(photo)
        let most = CanvasPalette.read(photo, options: .init(detail: .most))
        #expect(fewest.colours.count <= usual.colours.count && usual.colours.count <= most.colours.count)
        let tapped = CanvasPalette.read(photo, options: .init(bareSpot: (x: 20, y: 20)))
        #expect(tapped.reference != nil && tapped.colours.count == usual.colours.count)
    }

    @Test("A strong cast (tungsten light) is taken out against the bare border")
    func castCorrected() throws {
        // A strong cast, short of clipping the border's white (a clipped channel can't say how strong it was).
        let palette = CanvasPalette.read(Self.photo(cast: (1.0, 0.97, 0.72)))
        let blue = Lab(hex: "#13477D")!
        let found = try #require(palette.colours.min { ColorDifference.ciede2000(Lab(hex: $0.hex)!, blue) < ColorDifference.ciede2000(Lab(hex: $1.hex)!, blue) })
        #expect(ColorDifference.ciede2000(Lab(hex: found.hex)!, blue) < 8, "\(found.hex)")
    }

    @Test("Hostile and empty pictures: one pixel, all bare canvas, pure noise — an answer, bounded")
    func hostile() {
        #expect(CanvasPalette.read(RGBPixels(width: 1, height: 1, bytes: [10, 200, 30])).colours.count == 1)
        let bare = RGBPixels(width: 300, height: 200, bytes: [UInt8](repeating: 242, count: 300 * 200 * 3))
        let none = CanvasPalette.read(bare)
        #expect(none.colours.isEmpty && none.bareShare == 1)
        var random = SplitMix(seed: 1)
        let noise = RGBPixels(width: 640, height: 480, bytes: (0..<(640 * 480 * 3)).map { _ in UInt8(random.next() % 256) })
        let options = CanvasPalette.Options()
        #expect(CanvasPalette.read(noise).colours.count <= options.maxColours)
    }

    @Test("Threads: the nearest of each catalog in words; an owned thread about as close is chosen; two colours on one thread say so; skeins from size and mesh")
    func threads() throws {
        let dmc = try ThreadCatalog.entries(csv: "number,name,hex\n310,Black,000000\n321,Red,C72B3B\n304,Red Medium,B71F33\n797,Royal Blue,13477D\n",
                                            brand: "DMC", line: "Six-strand floss", fiberType: .cotton)
        let anchor = try ThreadCatalog.entries(csv: "number,name,hex\n403,,050505\n9046,,C32838\n", brand: "Anchor", line: "Floss", fiberType: .cotton)
        let catalog = ThreadCatalog(entries: dmc + anchor)
        let palette = CanvasPalette(colours: [.init(hex: "#C52A3A", share: 0.4), .init(hex: "#C82C3C", share: 0.2), .init(hex: "#BE2537", share: 0.2),
                                              .init(hex: "#13477D", share: 0.2)],
                                    bareShare: 0.3, reference: "#F0F0F0", mergeDistance: 7)
        let now = Date(timeIntervalSince1970: 0)
        let mine = InventoryThread(brand: "DMC", number: "304", colorHex: "#B71F33", fiberType: .cotton, quantity: 2, createdAt: now, updatedAt: now)
        let none = palette.threads(catalog: catalog, owned: [], size: nil, mesh: nil)
        #expect(none.rows[0].choice?.number == "321" && none.rows[0].choice?.closeness == "very close" && none.rows[0].nearest.map(\.brand) == ["DMC", "Anchor"])
        #expect(none.rows[0].sameThreadAs == ["#C82C3C"] && none.rows[1].sameThreadAs == ["#C52A3A"] && none.rows[3].sameThreadAs.isEmpty)
        #expect(none.rows[2].choice?.brand == "Anchor" && none.rows[2].choice?.number == "9046")
        #expect(none.amountsNote != nil && none.rows.allSatisfy { $0.skeins == nil })
        let owned = palette.threads(catalog: catalog, owned: [mine], size: Amounts.inches("10 x 8 in"), mesh: 13)
        // DMC 304 (owned, 2 skeins) is within 1.5 of the nearest (Anchor 9046) for the third red: chosen.
        #expect(owned.rows[2].choice?.number == "304" && owned.rows[2].choice?.owned == true && owned.rows[2].choice?.ownedQuantity == 2)
        #expect(owned.rows[0].choice?.number == "321" && owned.rows[0].choice?.owned == false)
        #expect(owned.rows[3].stitches == Int((0.2 * 80 * 169.0).rounded()))
        // 16 square inches of basketweave: 32 yards of full floss, 8.7 a skein: 4 skeins; 2 owned of 304.
        #expect(owned.rows[3].skeins == 4 && owned.rows[3].toBuy == 4)
        #expect(owned.rows[2].skeins == 4 && owned.rows[2].toBuy == 2)
        #expect(Amounts.inches("25 x 30 cm").map { ($0.width * 100).rounded() } == (984))
        #expect(Amounts.inches("big") == nil)
    }

    @Test("Lab to sRGB and back")
    func labRoundTrip() {
        for hex in ["#000000", "#FFFFFF", "#C72B3B", "#13477D", "#FFD600", "#F2F0EA"] {
            #expect(Lab(hex: hex)!.hex == hex)
        }
    }
}

/// A small, seeded random source (the same photo every run).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
