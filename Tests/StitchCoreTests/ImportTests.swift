import Foundation
import Testing
@testable import StitchCore

/// The files people actually have: spreadsheets saved as CSV in different countries and
/// programs, other stash apps' exports, and our own.
@Suite("CSV import: the files spreadsheets and stash apps write, and the report on them")
struct ImportTests {
    let now = Date(millisecondsSince1970: 1_790_000_000_000)

    func threads(_ text: String, encoding: String.Encoding = .utf8) throws -> ImportFile<InventoryThread> {
        try ThreadCSV.read(text.data(using: encoding)!, now: now)
    }

    func summary(_ file: ImportFile<InventoryThread>) -> [String] {
        file.rows.map { r in "\(r.record.brand)|\(r.record.number)|\(r.record.colorName ?? "")|\(r.record.fiberType.rawValue)|\(r.record.quantity)" }
    }

    static let expected = ["DMC|310|Black|cotton|2", "Appleton|992|Sea Green, light|wool|1", "Silk & Ivory|01|Snow \"white\"|blend|3"]

    @Test("Comma, semicolon and tab separated; LF, CRLF and CR line ends; with and without a byte-order mark: the same threads",
          arguments: [",", ";", "\t"], ["\n", "\r\n", "\r"])
    func variants(delimiter: String, newline: String) throws {
        let rows = [["Brand", "Number", "Colour", "Fibre", "Qty"], ["DMC", "310", "Black", "Stranded cotton", "2"],
                    ["Appleton", "992", "Sea Green, light", "Crewel wool", "1"], ["Silk & Ivory", "01", "Snow \"white\"", "Wool/silk blend", "3"]]
        func quote(_ v: String) -> String {
            v.contains(delimiter) || v.contains("\"") || v.contains(",") ? "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : v
        }
        let text = rows.map { $0.map(quote).joined(separator: delimiter) }.joined(separator: newline) + newline
        for withBOM in [false, true] {
            let file = try threads((withBOM ? "\u{FEFF}" : "") + text)
            #expect(summary(file) == Self.expected, "\(delimiter.debugDescription) \(newline.debugDescription) BOM \(withBOM)")
            #expect(file.report.delimiter == CSV.Delimiter(rawValue: delimiter)!.name)
            #expect(file.report.encoding == (withBOM ? "UTF-8 with a byte-order mark" : "UTF-8"))
            #expect(file.report.problems.isEmpty && file.report.unusedColumns.isEmpty && !file.report.quantitiesMissing)
        }
    }

    @Test("UTF-16 with a byte-order mark (Excel's \"Unicode text\", tab separated) and Windows-1252 (Excel's CSV on Windows) keep their accents")
    func encodings() throws {
        let text = "Brand\tNumber\tColour name\tQty\r\nDMC\tB5200\tBlanc cassé\t4\r\n"
        var utf16 = Data([0xFF, 0xFE])
        for unit in text.utf16 { utf16.append(UInt8(unit & 0xFF)); utf16.append(UInt8(unit >> 8)) }
        let a = try ThreadCSV.read(utf16, now: now)
        #expect(a.report.encoding == "UTF-16" && a.report.delimiter == "tab")
        #expect(a.rows.map(\.record.colorName) == ["Blanc cassé"])
        let b = try ThreadCSV.read("Brand;Number;Colour name;Qty\r\nDMC;B5200;Blanc cassé;4\r\n".data(using: .windowsCP1252)!, now: now)
        #expect(b.report.encoding == "Windows-1252" && b.report.delimiter == "semicolon")
        #expect(b.rows.map(\.record.colorName) == ["Blanc cassé"])
    }

    @Test("Quoted fields hold delimiters, doubled quotes and line breaks; a quote inside an unquoted field is kept as written; line numbers count every line")
    func quoting() throws {
        let file = try threads(#"""
        brand,number,colorName,notes,quantity
        DMC,310,"Black, deep","first line
        second line",2
        DMC,3865,Winter White,5" card,lots
        "Anchor","403","Say ""black""",,1
        """#)
        #expect(file.rows.map(\.record.colorName) == ["Black, deep", "Say \"black\""])
        #expect(file.rows[0].record.notes == "first line\nsecond line")
        #expect(file.rows.map(\.line) == [2, 5])
        // The bad quantity is on line 4 (the note above spans lines 2 and 3), column E.
        #expect(file.report.problems == [ImportIssue(line: 4, column: "E (quantity)", message: "“lots” is not a whole number")])
    }

    @Test("Nothing is dropped silently: unused columns are named, every unreadable value has its line and column, and its row is not imported")
    func report() throws {
        // The importer of the first release read only exact field names: "Qty" and "Manufacturer"
        // were ignored without a word, so every thread came in with 0 in stock.
        let file = try threads(#"""
        Manufacturer,No.,Colour Name,Qty,Storage bin,Hex,Fibre type,UPC
        DMC,310,Black,3,Drawer 2,#000,cotton,077540003109
        DMC,321,Red,-1,Drawer 2,,cotton,
        DMC,550,Violet,2,,#GG0000,cotton,
        DMC,666,Bright Red,1,,rgb(227 29 66),velvet,
        DMC,699,Green,1,,,cotton,7.7540E+11
        ,700,Green,1,,,cotton,
        """#)
        #expect(file.report.columns.filter { $0.field != nil }.map(\.name) ==
                ["A (Manufacturer)", "B (No.)", "C (Colour Name)", "D (Qty)", "F (Hex)", "G (Fibre type)", "H (UPC)"])
        #expect(file.report.unusedColumns.map(\.name) == ["E (Storage bin)"])
        #expect(file.report.lines.contains("Column E (Storage bin) is not imported."))
        #expect(file.rows.map(\.record.number) == ["310"])
        #expect(file.rows[0].record.quantity == 3 && file.rows[0].record.colorHex == "#000000" && file.rows[0].record.barcode == "077540003109")
        #expect(file.report.problems.map(\.description) == [
            "line 3, column D (Qty): “-1” is negative",
            "line 4, column F (Hex): “#GG0000” is not a colour like #A1B2C3 or 161,178,195",
            "line 5, column G (Fibre type): “velvet” is not one of wool, cotton, silk, synthetic, blend, other",
            "line 6, column H (UPC): “7.7540E+11” was turned into a number by a spreadsheet and lost its digits; format the column as text and export again",
            "line 7, column A (Manufacturer): Brand is required",
        ])
        #expect(!file.report.quantitiesMissing)
    }

    @Test("A file that gives no quantities (no column, or an empty one) says every thread would have 0 in stock")
    func quantitiesMissing() throws {
        let none = try threads("brand,number,color\nDMC,310,Black\nDMC,321,Red\n")
        #expect(none.report.quantitiesMissing)
        #expect(none.report.warnings == ["No column gives quantities (named e.g. quantity, qty, skeins, skein, count): every thread would have 0 in stock"])
        let empty = try threads("brand,number,skeins\nDMC,310,\nDMC,321,\n")
        #expect(empty.report.quantitiesMissing && empty.report.warnings == ["The quantity column is empty: every thread would have 0 in stock"])
        let some = try threads("brand,number,on hand\nDMC,310,\nDMC,321,2\n")
        #expect(!some.report.quantitiesMissing && some.report.warnings.isEmpty)
    }

    @Test("Header names in their common spellings map to the same fields", arguments: [
        ("Brand,Number,Color,Type,Quantity,Barcode,Weight,Comments", ["brand", "number", "colorName", "fiberType", "quantity", "barcode", "weightOrLength", "notes"]),
        ("make;code;colour name;fiber;count;EAN;length;note", ["brand", "number", "colorName", "fiberType", "quantity", "barcode", "weightOrLength", "notes"]),
        ("Manufacturer\t#\tShade\tMaterial\tOn Hand\tupc\tHex Code", ["brand", "number", "colorName", "fiberType", "quantity", "barcode", "colorHex"]),
        ("Brand,Colour #,Description,Skeins (8m),RGB", ["brand", "number", "colorName", "quantity", "colorHex"]),
        ("brand,number,colorName,colorHex,fiberType,quantity,barcode,weightOrLength,notes", ThreadCSV.columns),
    ])
    func synonyms(header: String, fields: [String]) throws {
        let file = try threads(header + "\n" + String(repeating: "x,", count: 0) + "DMC,310\n")
        #expect(file.report.columns.map(\.field) == fields.map { Optional($0) })
    }

    @Test("Without brand and number columns the file is refused, saying which names it takes and which it found")
    func missingHeader() throws {
        #expect(throws: ValidationError.self) { try threads("name,colour\nx,y") }
        do {
            _ = try threads("Thread;Qty\nDMC 310;2")
            Issue.record("a file without brand and number was read")
        } catch let error as ValidationError {
            #expect(error.fields["header"]?.contains("brand (brand, manufacturer, make, maker)") == true)
            #expect(error.fields["header"]?.contains("it has \"Thread\", \"Qty\"") == true)
        }
        #expect(throws: ValidationError.self) { try threads("") }
    }

    @Test("Excel's sep= hint line names the delimiter")
    func sepLine() throws {
        let file = try threads("sep=;\nBrand;Number;Qty\nDMC;310;1,0\n")
        #expect(summary(file) == ["DMC|310||wool|1"])
        #expect(file.rows[0].line == 3)
    }

    @Test("Our own export: a byte-order mark, CRLF, accents intact, and read back the same")
    func exportRoundTrip() throws {
        let originals = [
            InventoryThread(brand: "DMC", number: "310", colorName: "Noir, profond", colorHex: "#000000", fiberType: .cotton, quantity: 2,
                            barcode: "077540003109", weightOrLength: "8m", notes: "says \"hi\"\nline two", createdAt: now, updatedAt: now),
            InventoryThread(brand: "Appleton", number: "992", colorName: "Vert d'eau é", fiberType: .wool, quantity: 0, createdAt: now, updatedAt: now),
        ]
        let data = ThreadCSV.write(originals)
        #expect(Array(data.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let text = String(decoding: data.dropFirst(3), as: UTF8.self)
        #expect(text.hasPrefix("brand,number,colorName,colorHex,fiberType,quantity,barcode,weightOrLength,notes\r\n"))
        #expect(text.contains("Vert d'eau é"))
        let back = try ThreadCSV.read(data, now: now)
        #expect(back.report.problems.isEmpty && back.report.unusedColumns.isEmpty)
        func fields(_ t: InventoryThread) -> [String?] { [t.brand, t.number, t.colorName, t.colorHex, t.fiberType.rawValue, "\(t.quantity)", t.barcode, t.weightOrLength, t.notes] }
        #expect(back.rows.map { fields($0.record) } == InventoryThread.sortedInInventoryOrder(originals).map(fields))
    }

    @Test("Merging: a thread already there (same brand and number, in any case or spacing) is merged by the rule, never duplicated")
    func merge() throws {
        let existing = [InventoryThread(brand: "DMC", number: "310", colorName: nil, quantity: 2, createdAt: now, updatedAt: now)]
        let file = try threads(#"""
        brand,number,colour,quantity,notes
        dmc, 310 ,Black,3,
        Anchor,403,Black,1,
        ANCHOR,403,,2,from the shop
        """#)
        let later = now.addingTimeInterval(60)
        let add = ImportPlan.make(file.rows, existing: existing, rule: .add, now: later)
        #expect(add.entries.map(\.action) == [.merge, .add])
        #expect(add.entries[0].detail == "quantity 2 → 5; colour name filled in (“Black”)")
        #expect(add.entries[1].lines == [3, 4] && add.entries[1].detail == "2 rows combined (add the quantities and fill in empty fields)")
        #expect(add.writes.map { "\($0.brand) \($0.number) \($0.quantity) \($0.notes ?? "")" } == ["DMC 310 5 ", "Anchor 403 3 from the shop"])
        #expect(add.writes[0].id == existing[0].id && add.writes[0].updatedAt == later && add.writes[0].createdAt == now)
        #expect(add.summary(done: false, noun: "threads") == "Would add 1 threads, merge 1 into ones you have (add the quantities and fill in empty fields).")

        let replace = ImportPlan.make(file.rows, existing: existing, rule: .replace, now: later)
        #expect(replace.writes.map { "\($0.brand) \($0.number) \($0.quantity)" } == ["DMC 310 3", "Anchor 403 2"])
        #expect(replace.entries[0].detail?.contains("quantity 2 → 3") == true)

        let skip = ImportPlan.make(file.rows, existing: existing, rule: .skip, now: later)
        #expect(skip.entries.map(\.action) == [.skip, .add, .skip])
        #expect(skip.entries[2].detail == "the same as line 3 of this file")
        #expect(skip.writes.map(\.quantity) == [1])
        #expect(skip.lines.first == "  - DMC 310 (line 2): already there; left as it is")

        // The same file twice with "add" adds twice, on purpose; "skip" changes nothing the second time.
        let unchanged = ImportPlan.make(file.rows, existing: skip.writes + existing, rule: .skip, now: later)
        #expect(unchanged.writes.isEmpty)
        // A deleted thread doesn't count as one you have.
        var deleted = existing[0]
        deleted.deletedAt = now
        #expect(ImportPlan.make(file.rows, existing: [deleted], rule: .add, now: later).count(.add) == 2)
    }

    @Test("A merge that would break a rule is skipped and says why")
    func mergeBreaksRule() throws {
        let existing = [InventoryThread(brand: "DMC", number: "310", quantity: Limits.maxQuantity, createdAt: now, updatedAt: now)]
        let plan = ImportPlan.make(try threads("brand,number,qty\nDMC,310,1\n").rows, existing: existing, rule: .add, now: now)
        #expect(plan.writes.isEmpty && plan.entries.map(\.action) == [.skip])
        #expect(plan.entries[0].detail == "Quantity must be at most \(Limits.maxQuantity)")
    }

    @Test("Canvases: dates in the usual forms (an ambiguous one asks for YYYY-MM-DD), mesh counts with their units, pictures pointed to the backup")
    func canvases() throws {
        let file = try CanvasCSV.read(Data(#"""
        Designer,Design,Date acquired,Size,Mesh,Notes,imageKey
        Melissa Shirley,Nutcracker,2023-12-05,13x18,13 mesh,,a.jpg
        Kirk & Bradley,Santa,05.12.2023,"10"" round",18ct,gift,
        Lee,Pumpkin,25/12/2023,,18,,
        Lee,Owl,3/5/2024,,13,,
        Lee,Fox,yesterday,,13,,
        Lee,Bee,,,0,,
        """#.utf8), now: now)
        #expect(file.rows.map(\.record.designName) == ["Nutcracker", "Santa", "Pumpkin"])
        #expect(file.rows.map { $0.record.acquiredDay } == ["2023-12-05", "2023-12-05", "2023-12-25"])
        #expect(file.rows.map(\.record.meshCount) == [13, 18, 18])
        #expect(file.rows[1].record.size == "10\" round")
        #expect(file.report.unusedColumns.map(\.name) == ["G (imageKey)"])
        #expect(file.report.unusedColumns[0].note?.contains("JSON backup") == true)
        #expect(file.report.problems.map(\.description) == [
            "line 5, column C (Date acquired): “3/5/2024” could be 3 May 2024 or 5 March 2024; write it as YYYY-MM-DD",
            "line 6, column C (Date acquired): “yesterday” is not a date like 2024-03-05",
            "line 7, column E (Mesh): Enter a positive number",
        ])
        let back = try CanvasCSV.read(CanvasCSV.write(file.rows.map(\.record)), now: now)
        #expect(back.rows.map(\.record.acquiredDay) == ["2023-12-05", "2023-12-05", "2023-12-25"])
        #expect(back.rows.map(\.record.importKey) == file.rows.map(\.record.importKey))
    }

    @Test("Fiber names other apps use", arguments: [
        ("Stranded Cotton", FiberType.cotton), ("Perle #5", .cotton), ("Tapestry wool", .wool), ("Persian", .wool), ("SILK", .silk),
        ("Metallic", .synthetic), ("wool/silk", .blend), ("Silk & wool blend", .blend), ("linen", .other), ("velvet", nil),
    ])
    func fibers(name: String, fiber: FiberType?) {
        #expect(FiberType.read(name) == fiber)
    }
}

@Suite("Ids are lower-case on the wire and in exports (RFC 9562), read in any case")
struct WireIdTests {
    @Test func lowercase() throws {
        let id = UUID(uuidString: "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D")!
        let now = Date(millisecondsSince1970: 1_790_000_000_000)
        let thread = InventoryThread(id: id, brand: "DMC", number: "310", createdAt: now, updatedAt: now)
        let json = String(decoding: try StitchJSON.encode(thread), as: UTF8.self)
        #expect(json.contains("\"id\":\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\""))
        let result = SyncResult(id: id, type: .thread, status: .applied)
        #expect(String(decoding: try StitchJSON.encode(result), as: UTF8.self).contains("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"))
        let pretty = String(decoding: try StitchJSON.encodePretty(AccountBackup(exportedAt: now, threads: [thread])), as: UTF8.self)
        #expect(pretty.contains("\"id\" : \"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\"") && !pretty.contains("0A1B2C3D"))
        for text in ["0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D", "0a1B2c3D-4E5f-4a6B-8c7D-9e0F1a2B3c4D"] {
            #expect(UUID(text: text) == id)
        }
        #expect(id.wireText == id.uuidString.lowercased() && id.text == id.uuidString)
    }

    @Test("A backup decodes from its own JSON, with or without pictures, and a version 1 file still reads")
    func backupFormats() throws {
        let now = Date(millisecondsSince1970: 1_790_000_000_000)
        let backup = AccountBackup(exportedAt: now, threads: [InventoryThread(brand: "DMC", number: "310", createdAt: now, updatedAt: now)],
                                   pictures: [.init(key: "k.png", contentType: "image/png", bytes: Data([1, 2, 3]))])
        #expect(try StitchJSON.decode(AccountBackup.self, from: StitchJSON.encodePretty(backup)) == backup)
        let v1 = try StitchJSON.decode(AccountBackup.self, from: Data(#"{"format":"stitchuation-export-v1","threads":[],"canvases":[]}"#.utf8))
        #expect(v1.pictures.isEmpty && v1.projects.isEmpty)
        #expect(throws: Never.self) { try v1.checkFormat() }
        var other = v1
        other.format = "something-else"
        #expect(throws: ValidationError.self) { try other.checkFormat() }
        #expect(backup.replacingImageKeys(["k.png": "n.png"]) == backup)
    }
}
