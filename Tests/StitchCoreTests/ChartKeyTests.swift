import Foundation
@testable import StitchCore
import Testing

@Suite("Reading a chart's colour key from its text")
struct ChartKeyTests {
    let catalog: ThreadCatalog = {
        let dmc = try! ThreadCatalog.entries(csv: "number,name,hex\n310,Black,000000\n321,Red,C72B3B\nB5200,Snow White,FFFFFF\nEcru,Ecru,F0EADA\n798,Delft Blue Dark,466A8E\n",
                                             brand: "DMC", line: "Six-strand floss", fiberType: .cotton)
        let anchor = try! ThreadCatalog.entries(csv: "number,name,hex\n403,,121312\n", brand: "Anchor", line: "Stranded cotton", fiberType: .cotton)
        return ThreadCatalog(entries: dmc + anchor)
    }()

    @Test("The stated rule: 5 stitch widths of each strand per stitch, 8 m skeins of 6 strands, a fifth more; at least one skein")
    func skeinRule() {
        #expect(ChartKey.skeins(stitches: 2200, strands: 2, count: 14) == 1)
        #expect(ChartKey.skeins(stitches: 2300, strands: 2, count: 14) == 2)
        #expect(ChartKey.skeins(stitches: 2300, strands: 2, count: 18) == 1, "finer fabric, shorter stitches")
        #expect(ChartKey.skeins(stitches: 1, strands: 1, count: 14) == 1 && ChartKey.skeins(stitches: 0, strands: 2, count: 14) == 1)
    }

    @Test("A name is checked against the number's: another colour is flagged, an abbreviation or a missing name isn't")
    func names() {
        #expect(ChartKey.namesDisagree("Red", "Black"))
        #expect(!ChartKey.namesDisagree("Dusty Rose Ultra Very Dark", "Dusty Rose Ult Vy Dk"))
        #expect(!ChartKey.namesDisagree("Delft Blue", "Delft Blue Dark"))
        #expect(!ChartKey.namesDisagree(nil, "Black") && !ChartKey.namesDisagree("Black", nil))
    }

    @Test("Numbers with letters and named numbers, a symbol that is also a blend sign, a number twice, and lines that aren't a key")
    func oddRows() {
        let text = """
            Snowfall sampler, 16 count
            Designed by Ann, 2024. 120 x 80 stitches.

            Legend
            +  DMC B5200 Snow White  3 skeins
            /  DMC ecru  1 skein
            &  DMC 310 + Anchor 403  2 skeins
            X  DMC 310 Black  1 skein
            ?  DMC 3999 Nowhere  1 skein
            ~  Madeira 2400 White  1 skein
            """
        let key = ChartKey.read(text, catalog: catalog, fallbackCount: nil)
        #expect(key.count == 16 && key.countSource == "printed on the chart")
        #expect(key.threads.map { "\($0.label) \($0.quantity) \($0.rule.rawValue)" } == ["DMC B5200 3 key", "DMC Ecru 1 key", "DMC 310 3 key", "Anchor 403 2 key"])
        #expect(key.threads[0].symbols == ["+"] && key.threads[2].symbols == ["&", "X"] && key.threads[2].blendedWith == ["Anchor 403"])
        #expect(key.unread.map(\.reason) == ["DMC 3999 is not in the DMC catalog", "no catalog for Madeira"])
        #expect(key.found && key.hasText)
    }

    @Test("Nothing to read: no key, or no text at all")
    func nothing() {
        let plain = ChartKey.read("Page 1\n\nA chart with no key\u{0C}Page 2\n", catalog: catalog, fallbackCount: 18)
        #expect(!plain.found && plain.hasText && plain.count == 18 && plain.countSource == "the canvas's mesh")
        let scan = ChartKey.read("\u{0C}\u{0C}", catalog: catalog, fallbackCount: nil)
        #expect(!scan.hasText && !scan.found && scan.count == 14)
    }
}
