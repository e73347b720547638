import CSystemZlib
import Foundation

/// PDFs for the pattern tests, written here object by object with a correct cross-reference
/// table: `pages` letter-size pages, each titled "Page N" over a chart grid; optionally
/// encrypted (a standard security handler whose user password isn't empty, so nothing opens it
/// without one).
enum TestPDF {
    static func make(pages: Int, encrypted: Bool = false) -> Data {
        var objects: [Int: String] = [:]
        let font = 3 + 2 * pages
        objects[1] = "<< /Type /Catalog /Pages 2 0 R >>"
        objects[2] = "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + 2 * $0) 0 R" }.joined(separator: " "))] /Count \(pages) >>"
        for i in 0..<pages {
            let grid = (0..<27).map { "\(72 + $0 * 18) 100 m \(72 + $0 * 18) 600 l S" }.joined(separator: " ")
            let content = "BT /F1 48 Tf 72 700 Td (Page \(i + 1)) Tj ET 0.5 w \(grid)"
            objects[3 + 2 * i] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents \(4 + 2 * i) 0 R /Resources << /Font << /F1 \(font) 0 R >> >> >>"
            objects[4 + 2 * i] = "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
        }
        objects[font] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
        var trailerExtra = ""
        if encrypted {
            let e = font + 1
            objects[e] = "<< /Filter /Standard /V 1 /R 2 /O <\(String(repeating: "ab", count: 32))> /U <\(String(repeating: "cd", count: 32))> /P -4 >>"
            trailerExtra = " /Encrypt \(e) 0 R /ID [<\(String(repeating: "01", count: 16))> <\(String(repeating: "01", count: 16))>]"
        }
        return assemble(objects, trailerExtra: trailerExtra)
    }

    /// A4 pages, each a grid drawn by a compressed (FlateDecode) stream with its number: what
    /// poppler draws page by page, small enough for a long chart (the cluster tier's).
    static func a4Chart(pages: Int) -> Data {
        var objects: [Int: Data] = [1: Data("<< /Type /Catalog /Pages 2 0 R >>".utf8), 3: Data("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".utf8)]
        var kids: [Int] = []
        for n in 1...pages {
            let grid = stride(from: 60, to: 540, by: 12).map { "\($0) 60 m \($0) 780 l " }.joined()
                + stride(from: 60, to: 780, by: 12).map { "60 \($0) m 540 \($0) l " }.joined()
            let content = zlib(Data(("0.5 w " + grid + "S BT /F1 48 Tf 240 400 Td (Page \(n)) Tj ET").utf8))
            let (stream, page) = (2 + 2 * n, 3 + 2 * n)
            objects[stream] = Data("<< /Length \(content.count) /Filter /FlateDecode >>\nstream\n".utf8) + content + Data("\nendstream".utf8)
            objects[page] = Data("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents \(stream) 0 R >>".utf8)
            kids.append(page)
        }
        objects[2] = Data("<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages) >>".utf8)
        return assemble(objects)
    }

    /// `data` in zlib's format at its default level (as Python's `zlib.compress`).
    static func zlib(_ data: Data) -> Data {
        var size = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = data.withUnsafeBytes { input in
            compress2(&out, &size, input.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), Z_DEFAULT_COMPRESSION)
        }
        precondition(status == Z_OK, "zlib failed")
        return Data(out.prefix(Int(size)))
    }

    /// Numbered objects (1 the catalog) as a PDF file with its cross-reference table.
    static func assemble(_ objects: [Int: String], trailerExtra: String = "") -> Data {
        assemble(objects.mapValues { Data($0.utf8) }, trailerExtra: trailerExtra)
    }

    /// The same, with objects as bytes (a compressed stream).
    static func assemble(_ objects: [Int: Data], trailerExtra: String = "") -> Data {
        var out = Data("%PDF-1.4\n".utf8)
        var offsets: [Int: Int] = [:]
        for key in objects.keys.sorted() {
            offsets[key] = out.count
            out.append(Data("\(key) 0 obj\n".utf8) + objects[key]! + Data("\nendobj\n".utf8))
        }
        let size = objects.keys.max()! + 1
        let xref = out.count
        var table = "xref\n0 \(size)\n0000000000 65535 f \n"
        for key in 1..<size { table += String(repeating: "0", count: 10 - String(offsets[key]!).count) + "\(offsets[key]!) 00000 n \n" }
        out.append(Data(table.utf8))
        out.append(Data("trailer\n<< /Size \(size) /Root 1 0 R\(trailerExtra) >>\nstartxref\n\(xref)\n%%EOF\n".utf8))
        return out
    }

    /// Starts like a PDF, then nothing a reader can use.
    static let malformed = Data("%PDF-1.4\n".utf8) + Data(String(repeating: "garbage ", count: 200).utf8)
}

/// Charts with a colour key, as charting programs print them: text placed at points on letter
/// pages (Helvetica 9), so `pdftotext -layout` lays it out in columns as a real chart's does.
enum TestChart {
    /// A piece of text at (x, y) points from the page's bottom left.
    struct Text {
        var x: Double
        var y: Double
        var text: String
        var size: Double = 9
    }

    /// A PDF whose pages carry these texts.
    static func pdf(_ pages: [[Text]]) -> Data {
        var objects: [Int: String] = [:]
        let font = 3 + 2 * pages.count
        objects[1] = "<< /Type /Catalog /Pages 2 0 R >>"
        objects[2] = "<< /Type /Pages /Kids [\(pages.indices.map { "\(3 + 2 * $0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>"
        for (i, texts) in pages.enumerated() {
            let content: String = texts.map { t in
                let escaped = t.text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(").replacingOccurrences(of: ")", with: "\\)")
                return "BT /F1 \(t.size) Tf \(t.x) \(t.y) Td (\(escaped)) Tj ET"
            }.joined(separator: "\n")
            objects[3 + 2 * i] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents \(4 + 2 * i) 0 R /Resources << /Font << /F1 \(font) 0 R >> >> >>"
            objects[4 + 2 * i] = "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
        }
        objects[font] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
        return TestPDF.assemble(objects)
    }

    /// Rows of cells at the columns' x positions, from y down, 13 points apart.
    static func rows(_ rows: [[String]], columns: [Double], from y: Double) -> [Text] {
        rows.enumerated().flatMap { n, cells in
            zip(columns, cells).compactMap { x, cell in cell.isEmpty ? nil : Text(x: x, y: y - Double(n) * 13, text: cell) }
        }
    }

    /// A chart page's title and a grid of symbols (text that is not a key).
    static func chartPage(_ title: String) -> [Text] {
        [Text(x: 72, y: 740, text: title, size: 16)]
            + (0..<6).map { Text(x: 72, y: 700 - Double($0) * 12, text: String(repeating: "X O # X O # ", count: 4)) }
    }

    /// The key of chart 1: a header row, then a row a thread.
    static let springMeadowKey = [
        ["Symbol", "Strands", "Brand", "Number", "Colour name", "Stitches", "Skeins"],
        ["X", "2", "DMC", "310", "Black", "1250", "1"],
        ["O", "2", "DMC", "3865", "Winter White", "5000", ""],
        ["#", "2", "Anchor", "403", "Black", "300", "1"],
        ["*", "2", "DMC", "9999", "Mystery Blue", "100", ""],
        ["%", "2", "Madeira", "2400", "White", "200", "1"],
    ]

    static func springMeadow(_ key: [[String]]) -> Data {
        pdf([chartPage("Spring Meadow - 14 count Aida") + rows(key, columns: [72, 120, 170, 230, 290, 400, 460], from: 600)])
    }

    /// 1. A table under a header row, the brand in its own column; one row's brand has no
    /// catalog and one number isn't in DMC's.
    static let table = springMeadow(springMeadowKey)

    /// 1 as the browser test reads it: every row's brand has a catalog or none at all (Madeira).
    static let springMeadow = springMeadow(springMeadowKey.filter { $0[3] != "9999" })

    /// 2. Plain lines, two to a line in places, "N skeins" in the text; one name disagrees
    /// with the catalog's and one line gives no quantity.
    static let lines = pdf([chartPage("Harbour Lights") + [
        Text(x: 72, y: 600, text: "Thread key"),
        Text(x: 72, y: 587, text: "X  DMC 310 Black 2 skeins"), Text(x: 320, y: 587, text: "O  DMC 321 Red 1 skein"),
        Text(x: 72, y: 574, text: "#  Anchor 403 Black 1 skein"), Text(x: 320, y: 574, text: "@  DMC 3865 Christmas Red 3 skeins"),
        Text(x: 72, y: 561, text: "%  DMC 798 Delft Blue"),
    ]])

    /// 3. Two keys side by side under one header line naming the brand as a column, stitch
    /// counts only, on 18 count.
    static let sideBySide = pdf([chartPage("Poppy Field - 18 count") + rows([
        ["Sym", "DMC", "Name", "Stitches", "Sym", "DMC", "Name", "Stitches"],
        ["X", "310", "Black", "4400", "O", "321", "Red", "900"],
        ["#", "3865", "Winter White", "12000", "*", "798", "Delft Blue", "150"],
        ["@", "3347", "Yellow Green Med", "2500", "", "", "", ""],
    ], columns: [72, 100, 140, 230, 310, 338, 378, 468], from: 600)])

    /// 4. A key over two pages ("Key (continued)"), with blended threads and a half-stitch row
    /// of a thread the first page already named.
    static let twoPages = pdf([
        chartPage("Winter Robin - page 1 of 2 - 14 count") + [
            Text(x: 72, y: 600, text: "Key"),
            Text(x: 72, y: 587, text: "X  DMC 310 Black  2 strands  2000 stitches"),
            Text(x: 72, y: 574, text: "O  DMC 321 Red  2 strands  1500 stitches"),
        ],
        [Text(x: 72, y: 740, text: "Key (continued)"),
         Text(x: 72, y: 727, text: "@  DMC 310 + 3865 blend  2 strands  4400 stitches"),
         Text(x: 72, y: 714, text: "&  DMC 798 + Anchor 403 blend  2 strands  900 stitches"),
         Text(x: 72, y: 701, text: "/  DMC 321 Red  half stitch  1 strand  800 stitches"),
         Text(x: 72, y: 688, text: "=  Cosmo 2500 Pale Pink  300 stitches")],
    ])
}
