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
        var out = Data("%PDF-1.4\n".utf8)
        var offsets: [Int: Int] = [:]
        for key in objects.keys.sorted() {
            offsets[key] = out.count
            out.append(Data("\(key) 0 obj\n\(objects[key]!)\nendobj\n".utf8))
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
