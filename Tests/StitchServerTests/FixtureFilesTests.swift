import CGD
import Foundation
import Testing

/// #80 (5): each test fixture made once. The charts and barcode photos the browser and cluster
/// tiers (Python) upload are the files this suite's own builders make (`TestPDF`, `TestChart`,
/// `BarcodeImages`), committed under `Tests/Fixtures/made/` so both languages read the same
/// bytes. This checks the committed files are still what the builders make; after changing a
/// builder, `WRITE_TEST_FIXTURES=1 swift test --filter FixtureFilesTests` writes them again.
@Suite("Fixture files both test languages read are the ones the builders make")
struct FixtureFilesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/made")

    /// The files, each with the builder that makes it.
    static let files: [(name: String, make: @Sendable () -> Data)] = [
        ("chart-12-pages.pdf", { TestPDF.make(pages: 12) }),
        ("chart-encrypted.pdf", { TestPDF.make(pages: 2, encrypted: true) }),
        ("chart-with-key.pdf", { TestChart.springMeadow }),
        ("a4-chart-10-pages.pdf", { TestPDF.a4Chart(pages: 10) }),
        ("a4-chart-80-pages.pdf", { TestPDF.a4Chart(pages: 80) }),
        // EAN-13 5012345678900 (an owned thread's) turned 12°, and 4006381333931 turned 90° at low contrast.
        ("barcode-owned.png", { BarcodeImages.photo(BarcodeImages.ean13("501234567890"), degrees: 12) }),
        ("barcode-unknown.png", { BarcodeImages.photo(BarcodeImages.ean13("400638133393"), degrees: 90, ink: 80, paper: 170) }),
        ("no-barcode.png", { BarcodeImages.noBarcode(width: 320, height: 240, format: .png) }),
    ]

    @Test("Each committed file is what its builder makes (a PDF byte for byte, a picture pixel for pixel)")
    func committedFilesAreMade() throws {
        let write = ProcessInfo.processInfo.environment["WRITE_TEST_FIXTURES"] == "1"
        if write { try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true) }
        for (name, make) in Self.files {
            let made = make()
            let url = Self.folder.appendingPathComponent(name)
            if write { try made.write(to: url) }
            let committed = try Data(contentsOf: url)
            if name.hasSuffix(".png") {
                // An encoder may write the same pixels differently from one libgd to the next.
                #expect(try Self.pixels(committed) == Self.pixels(made), "\(name) differs: WRITE_TEST_FIXTURES=1 makes it again")
            } else {
                #expect(committed == made, "\(name) differs: WRITE_TEST_FIXTURES=1 makes it again")
            }
        }
    }

    static func pixels(_ png: Data) throws -> [Int32] {
        let image = try #require(png.withUnsafeBytes { gdImageCreateFromPngPtr(Int32(png.count), UnsafeMutableRawPointer(mutating: $0.baseAddress)) })
        defer { gdImageDestroy(image) }
        var out: [Int32] = []
        for y in 0..<image.pointee.sy {
            for x in 0..<image.pointee.sx { out.append(gdImageGetTrueColorPixel(image, x, y)) }
        }
        return out
    }
}
