import Foundation
import StitchCore
import Testing

@Suite("Thread catalogs: search as a person types, and colour distance")
struct CatalogTests {
    static let sample = """
        number,name,hex
        310,Black,000000
        3100,Made Up Grey,777777
        321,Red,C72B3B
        B5200,Snow White,FFFFFF
        White,White,FCFBF8
        3865,Winter White,F9F7F1
        797,Royal Blue,13477D
        "796","Royal Blue Dark",11416D
        3371,Black Brown,1E1108
        """

    static func catalog() throws -> ThreadCatalog {
        ThreadCatalog(entries: try ThreadCatalog.entries(csv: sample, brand: "DMC", line: "Six-strand floss", fiberType: .cotton))
    }

    @Test("A number finds itself first, then numbers that start with it; a name finds its words; brand and words narrow together")
    func search() throws {
        let catalog = try Self.catalog()
        #expect(catalog.search("310").map(\.number) == ["310", "3100"])
        #expect(catalog.search("31").map(\.number) == ["310", "3100"])
        #expect(catalog.search("black").map(\.label) == ["DMC 310 Black", "DMC 3371 Black Brown"])
        #expect(catalog.search("BLACK").first?.hex == "#000000")
        #expect(catalog.search("dmc 310").first?.number == "310")
        #expect(catalog.search("royal blue").map(\.number) == ["797", "796"])
        #expect(catalog.search("royal blue dark").map(\.number) == ["796"])
        #expect(catalog.search("white").map(\.number) == ["White", "B5200", "3865"])
        #expect(catalog.search("anchor 310").isEmpty)
        #expect(catalog.search("").isEmpty && catalog.search("  ,, ").isEmpty)
        #expect(catalog.search("310", limit: 1).count == 1)
    }

    @Test("A typo in a longer word still finds the colour; a short word must be typed right")
    func fuzzy() throws {
        let catalog = try Self.catalog()
        #expect(catalog.search("blakc").map(\.number) == ["310", "3371"])     // swapped letters
        #expect(catalog.search("roayl").map(\.number) == ["797", "796"])
        #expect(catalog.search("wintre whit").first?.number == "3865")
        #expect(catalog.search("rde").isEmpty)                          // three letters: no guessing
    }

    @Test("A catalog file with a wrong line is refused, naming the line")
    func badFile() {
        #expect(throws: ValidationError("catalog", "DMC Six-strand floss, line 3: “red” is not a colour like #1A2B3C")) {
            try ThreadCatalog.entries(csv: "number,name,hex\n310,Black,000000\n321,Red,red\n", brand: "DMC", line: "Six-strand floss", fiberType: .cotton)
        }
        #expect(throws: ValidationError.self) {
            try ThreadCatalog.entries(csv: "number,name,hex\n310,Black\n", brand: "DMC", line: "Six-strand floss", fiberType: .cotton)
        }
    }

    @Test("CIEDE2000 matches Sharma, Wu and Dalal's published test pairs")
    func ciede2000() throws {
        let pairs: [(Lab, Lab, Double)] = [
            (Lab(l: 50, a: 2.6772, b: -79.7751), Lab(l: 50, a: 0, b: -82.7485), 2.0425),
            (Lab(l: 50, a: 0, b: 0), Lab(l: 50, a: -1, b: 2), 2.3669),
            (Lab(l: 50, a: 2.5, b: 0), Lab(l: 73, a: 25, b: -18), 27.1492),
            (Lab(l: 60.2574, a: -34.0099, b: 36.2677), Lab(l: 60.4626, a: -34.1751, b: 39.4387), 1.2644),
            (Lab(l: 22.7233, a: 20.0904, b: -46.694), Lab(l: 23.0331, a: 14.973, b: -42.5619), 2.0373),
            (Lab(l: 2.0776, a: 0.0795, b: -1.135), Lab(l: 0.9033, a: -0.0636, b: -0.5514), 0.9082),
        ]
        for (first, second, expected) in pairs {
            #expect(abs(ColorDifference.ciede2000(first, second) - expected) < 0.0001, "\(first) vs \(second)")
            #expect(abs(ColorDifference.ciede2000(second, first) - expected) < 0.0001)
        }
        let white = try #require(Lab(hex: "#FFFFFF"))
        #expect(abs(white.l - 100) < 0.01 && abs(white.a) < 0.01 && abs(white.b) < 0.01)
        #expect(Lab(hex: "white") == nil)
    }

    @Test("The nearest colours by CIEDE2000, within a brand, the colour itself left out")
    func nearest() throws {
        let catalog = try Self.catalog()
        let black = try #require(catalog.entry(brand: "dmc", number: "310"))
        let near = catalog.nearest(toHex: black.hex, brand: "DMC", limit: 3, excluding: black)
        #expect(near.count == 3 && near.first?.entry.number == "3371")
        #expect(near.map(\.deltaE) == near.map(\.deltaE).sorted() && near[0].deltaE < 10)
        #expect(!near.contains { $0.entry == black })
        #expect(catalog.nearest(toHex: "#FDFCF9").first?.entry.number == "White")
        #expect(catalog.nearest(toHex: "#000000", brand: "Anchor").isEmpty)
        #expect(catalog.nearest(toHex: "black").isEmpty)
    }

    @Test("Alternatives: with one brand, its nearest other colours; with more, each other brand's nearest, closest first; a thread outside the catalog by its own colour")
    func alternatives() throws {
        let dmc = try Self.catalog()
        let alone = try #require(dmc.alternatives(brand: "DMC", number: "310", hex: nil))
        #expect(!alone.otherBrands && alone.entry?.number == "310" && alone.nearest.first?.entry.number == "3371" && alone.nearest.count == 3)
        // A second brand (made-up colours for the test) and a third.
        let other = try ThreadCatalog.entries(csv: "number,name,hex\n403,Black,050505\n9046,Red,C32838\n", brand: "Anchor", line: "Floss", fiberType: .cotton)
        let wool = try ThreadCatalog.entries(csv: "number,name,hex\n993,Black,101010\n", brand: "Appleton", line: "Crewel", fiberType: .wool)
        let three = ThreadCatalog(entries: try ThreadCatalog.entries(csv: Self.sample, brand: "DMC", line: "Six-strand floss", fiberType: .cotton) + other + wool)
        let black = try #require(three.alternatives(brand: "dmc", number: "310", hex: nil))
        #expect(black.otherBrands && black.nearest.map(\.entry.label) == ["Anchor 403 Black", "Appleton 993 Black"])
        #expect(black.nearest[0].deltaE < black.nearest[1].deltaE)
        // A thread the catalog doesn't list, by its own swatch; and one with no colour at all.
        let mine = try #require(three.alternatives(brand: "Silk Mori", number: "1234", hex: "#C52A3A"))
        #expect(mine.entry == nil && mine.otherBrands && mine.nearest.map(\.entry.label) == ["DMC 321 Red", "Anchor 9046 Red", "Appleton 993 Black"])
        // Against one other brand, its nearest few.
        let two = ThreadCatalog(entries: try ThreadCatalog.entries(csv: Self.sample, brand: "DMC", line: "Six-strand floss", fiberType: .cotton) + other)
        #expect(two.alternatives(brand: "Anchor", number: "403", hex: nil)?.nearest.map(\.entry.number) == ["310", "3371", "796"])
        #expect(three.alternatives(brand: "Silk Mori", number: "1234", hex: nil) == nil)
    }
}

@Suite("Matching an inventory to the catalog")
struct CatalogMatchTests {
    @Test("Threads the catalog lists get its name, and a swatch and colour name where they have none; the rest are named with the reason")
    func match() throws {
        let catalog = try CatalogTests.catalog()
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        let black = InventoryThread(brand: "dmc", number: "310", createdAt: t, updatedAt: t)
        let mine = InventoryThread(brand: "DMC", number: "321", colorName: "My red", colorHex: "#FF0000", createdAt: t, updatedAt: t)
        let done = InventoryThread(brand: "DMC", number: "797", colorName: "Royal Blue", catalogColorName: "Royal Blue", colorHex: "#13477D",
                                   createdAt: t, updatedAt: t)
        let missing = InventoryThread(brand: "DMC", number: "99999", createdAt: t, updatedAt: t)
        let otherBrand = InventoryThread(brand: "Appleton", number: "992", createdAt: t, updatedAt: t)
        let gone = InventoryThread(brand: "DMC", number: "White", createdAt: t, updatedAt: t, deletedAt: t)
        let (changed, report) = catalog.match([black, mine, done, missing, otherBrand, gone])
        #expect(changed.map(\.number) == ["310", "321"])
        #expect(changed[0].colorName == "Black" && changed[0].catalogColorName == "Black" && changed[0].colorHex == "#000000")
        #expect(changed[1].colorName == "My red" && changed[1].catalogColorName == "Red" && changed[1].colorHex == "#FF0000")
        #expect(report.matched.map(\.number) == ["310", "321"] && report.unchanged == 1)
        #expect(report.unmatched.map(\.reason) == ["DMC 99999 is not in the DMC catalog", "No catalog for Appleton (there are: DMC)"])
        #expect(catalog.match(changed).changed.isEmpty)
    }
}
