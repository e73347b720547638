import ArgumentParser
import Foundation
import StitchCore
import StitchKit

/// Finds a record by (a prefix of) its id.
func resolve<R: LocalRecord>(_ type: R.Type, _ reference: String, in store: LocalStore, describe: (R) -> String) throws -> R {
    let needle = reference.lowercased()
    let matches = try store.all(R.self).filter { $0.id.text.lowercased().hasPrefix(needle) }
    guard !needle.isEmpty, let first = matches.first else { throw CLIError("No \(R.entityType.rawValue) matches \"\(reference)\"", code: .notFound) }
    guard matches.count == 1 else {
        throw CLIError("\"\(reference)\" matches several: \(matches.map(describe).joined(separator: ", ")). Use more of the id.", code: .usage)
    }
    return first
}

/// A canvas by its design name (any case) or id prefix.
func resolveCanvas(_ reference: String, in store: LocalStore) throws -> Canvas {
    let byName = try store.all(Canvas.self).filter { $0.deletedAt == nil && $0.designName.caseInsensitiveCompare(reference) == .orderedSame }
    if byName.count == 1 { return byName[0] }
    return try resolve(Canvas.self, reference, in: store) { "\($0.designName) (\(Output.short($0.id)))" }
}

/// A project by id prefix or by its title (its canvas's design name, or its own name).
func resolveProject(_ reference: String, in store: LocalStore) throws -> Project {
    let canvases = Dictionary(try store.all(Canvas.self).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    func title(_ p: Project) -> String { p.title(canvas: p.canvasId.flatMap { canvases[$0] }) }
    let byName = try store.all(Project.self).filter { title($0).caseInsensitiveCompare(reference) == .orderedSame }
    if byName.count == 1 { return byName[0] }
    return try resolve(Project.self, reference, in: store) { "\(title($0)) (\(Output.short($0.id)))" }
}

/// A thread by id prefix, or by brand and number.
func resolveThread(_ words: [String], in store: LocalStore) throws -> InventoryThread {
    if words.count >= 2 {
        let key = ThreadKey(brand: words.dropLast().joined(separator: " "), number: words.last!)
        if let match = try store.all(InventoryThread.self).first(where: { ThreadKey(brand: $0.brand, number: $0.number) == key }) { return match }
    }
    guard words.count == 1 else { throw CLIError("No thread \(words.joined(separator: " "))", code: .notFound) }
    return try resolve(InventoryThread.self, words[0], in: store) { "\($0.brand) \($0.number)" }
}

func parseDate(_ text: String?) throws -> Date? {
    guard let text, !text.isEmpty else { return nil }
    if let date = Timestamp.date(from: text) { return date }
    if let date = Timestamp.date(from: text + "T00:00:00Z") { return date }
    throw StitchCore.ValidationError(fields: ["date": "Use a date like 2026-05-01"])
}

// MARK: - Threads

struct Threads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your thread inventory.", subcommands: [List.self, Add.self, Scan.self, Edit.self, Inc.self, Dec.self, Remove.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List threads (brand, then number in natural order).")
        @Option var brand: String?
        @Option(help: "wool, cotton, silk, synthetic, blend or other") var fiber: FiberType?
        @Option(help: "Brand, number or colour name") var search: String?
        @OptionGroup var output: JSONFlag

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var model = ThreadListModel()
                try model.load(from: ctx.store)
                model.brand = brand
                model.fiber = fiber
                model.search = search ?? ""
                if output.json { print(try Output.json(model.threads)); return }
                if let empty = model.emptyState { print("\(empty.title) — \(empty.message) (stitch threads add)"); return }
                print(Output.table(["ID", "BRAND", "NUMBER", "COLOUR", "FIBER", "QTY"], model.threads.map {
                    [Output.short($0.id), $0.brand, $0.number, $0.displayColorName ?? "", $0.fiberType.rawValue, String($0.quantity)]
                }))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a thread.")
        @Argument var brand: String
        @Argument var number: String
        @Option var color: String?
        @Option(help: "#RRGGBB") var hex: String?
        @Option(help: "wool, cotton, …; the catalog's when it lists the thread, else wool") var fiber: FiberType?
        @Option var quantity: Int = 1
        @Option var notes: String?
        @Option(help: "The EAN-13 / UPC-A code on its label, so `stitch threads scan` finds it") var barcode: String?
        @Flag(help: "Don't look the thread up in the server's catalog") var noCatalog = false
        @Flag(help: "If you have this brand and number already, add the quantity to it (and fill in what it lacks)") var merge = false
        @OptionGroup var output: JSONFlag

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var note = ""
                var entry: CatalogEntry?
                if ProcessInfo.processInfo.environment["STITCH_OFFLINE"] != nil {
                    note = " Not looked up in the catalog (offline)."
                } else if !noCatalog {
                    // Name, swatch and fibre from the brand's catalog, unless given here.
                    do {
                        entry = try await ctx.api.catalogEntry(brand: brand, number: number)
                        if entry == nil { note = " Not in the catalog: name and colour as given." }
                    } catch {
                        note = " Not looked up in the catalog (\((error as? ClientError)?.description ?? String(describing: error)))."
                    }
                }
                let now = ctx.store.clock()
                let typed = InventoryThread(
                    brand: entry?.brand ?? brand, number: entry?.number ?? number, colorName: color ?? entry?.colorName,
                    catalogColorName: entry?.colorName, colorHex: hex ?? entry?.hex, fiberType: fiber ?? entry?.fiberType ?? .wool,
                    quantity: quantity, barcode: barcode.map { Barcodes.normalized($0) ?? $0 }, notes: notes, createdAt: now, updatedAt: now)
                // A thread you have already is not added twice (the rule of the API and CSV import).
                var given: Set<String> = ["quantity", "colorName", "colorHex"]
                if barcode != nil { given.insert("barcode") }
                if notes != nil { given.insert("notes") }
                let (thread, merged): (InventoryThread, Bool)
                do {
                    (thread, merged) = try ctx.store.addThread(typed, given: given, merge: merge)
                } catch let exists as ThreadExists {
                    throw CLIError("\(exists.message) (\(Output.short(exists.existing.id))). Add --merge to add \(quantity) to it, or `stitch threads edit` it.",
                                   code: .conflict)
                }
                let message = await ctx.syncSoon()
                if merged {
                    if output.json { print(try Output.json(thread)) } else {
                        print("Added \(quantity) to \(thread.brand) \(thread.number) (\(Output.short(thread.id))): you have \(thread.quantity) now. \(message)")
                    }
                    return
                }
                let found = entry.map { " \([$0.colorName, $0.hex].compactMap { $0 }.joined(separator: ", ")) from the catalog." } ?? note
                if output.json { print(try Output.json(thread)) } else { print("Added \(thread.brand) \(thread.number) (\(Output.short(thread.id))).\(found) \(message)") }
            }
        }
    }

    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Look a thread up by its barcode: a photo of the label (read by the server) or the digits under the bars.",
            discussion: "Your own thread with the code first (from this device's copy, offline too), else the server's catalog; an unknown code is printed with the command that adds it.")
        @Argument(help: "A photo (JPEG, PNG, HEIC, WebP) or the digits under the bars") var imageOrCode: String
        @OptionGroup var output: JSONFlag

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let scan: BarcodeScan
                var isFile: ObjCBool = false
                if FileManager.default.fileExists(atPath: imageOrCode, isDirectory: &isFile), !isFile.boolValue {
                    guard ProcessInfo.processInfo.environment["STITCH_OFFLINE"] == nil else {
                        throw CLIError("Reading a photo needs the server (offline): type the digits under the bars instead", code: .offline)
                    }
                    let photo = try Data(contentsOf: URL(fileURLWithPath: imageOrCode))
                    scan = try await ctx.api.scanBarcode(photo: photo, filename: (imageOrCode as NSString).lastPathComponent)
                } else {
                    if let problem = Barcodes.problem(imageOrCode) {
                        throw CLIError("\(imageOrCode) is neither a file nor a barcode: \(problem)", code: .invalid)
                    }
                    let code = Barcodes.normalized(imageOrCode)!
                    let mine = try ctx.store.all(InventoryThread.self).filter { $0.barcode.flatMap(Barcodes.normalized) == code }
                    if !mine.isEmpty {
                        scan = BarcodeScan(code: code, source: "typed", outcome: .owned, threads: InventoryThread.sortedInInventoryOrder(mine),
                                           catalogEntry: nil, codes: [code], message: "\(code) is your \(mine.map { "\($0.brand) \($0.number)" }.joined(separator: ", "))")
                    } else if ProcessInfo.processInfo.environment["STITCH_OFFLINE"] != nil {
                        scan = BarcodeScan(code: code, source: "typed", outcome: .unknown, threads: [], catalogEntry: nil, codes: [code],
                                           message: "\(code) isn't in your inventory; the catalog was not looked up (offline)")
                    } else {
                        scan = try await ctx.api.scanBarcode(code: code)
                    }
                }
                if output.json { print(try Output.json(scan)); return }
                print(scan.message + ".")
                switch scan.outcome {
                case .owned:
                    print(Output.table(["ID", "BRAND", "NUMBER", "COLOUR", "QTY"], scan.threads.map {
                        [Output.short($0.id), $0.brand, $0.number, $0.displayColorName ?? "", String($0.quantity)]
                    }))
                case .catalog:
                    let entry = scan.catalogEntry!
                    let quoted = { (word: String) in word.contains(" ") ? "\"\(word)\"" : word }
                    print("Add it: stitch threads add \(quoted(entry.brand)) \(quoted(entry.number)) --barcode \(scan.code)")
                case .unknown:
                    print("Add it: stitch threads add BRAND NUMBER --barcode \(scan.code)")
                }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a thread.")
        @Argument(help: "ID, or BRAND NUMBER") var thread: [String]
        @Option var brand: String?
        @Option var number: String?
        @Option var color: String?
        @Option var hex: String?
        @Option var fiber: FiberType?
        @Option var quantity: Int?
        @Option var notes: String?

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var t = try resolveThread(thread, in: ctx.store)
                if let brand { t.brand = brand }
                if let number { t.number = number }
                if let color { t.colorName = color }
                if let hex { t.colorHex = hex }
                if let fiber { t.fiberType = fiber }
                if let quantity { t.quantity = quantity }
                if let notes { t.notes = notes }
                let saved = try ctx.store.save(t)
                print("Updated \(saved.brand) \(saved.number). \(await ctx.syncSoon())")
            }
        }
    }

    struct Inc: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add skeins: inc ID [N] or inc BRAND NUMBER [N].")
        @Argument var words: [String]
        func run() async throws { try await Stitch.run { try await step(words, sign: 1) } }
    }

    struct Dec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Use skeins (never below zero): dec ID [N] or dec BRAND NUMBER [N].")
        @Argument var words: [String]
        func run() async throws { try await Stitch.run { try await step(words, sign: -1) } }
    }

    static func step(_ words: [String], sign: Int) async throws {
        let ctx = try Context.open()
        var words = words
        var amount = 1
        if words.count >= 2, let n = Int(words.last!), (try? resolveThread(words, in: ctx.store)) == nil {
            guard n > 0 else { throw StitchCore.ValidationError(fields: ["amount": "Use a positive number"]) }
            amount = n
            words.removeLast()
        }
        let thread = try resolveThread(words, in: ctx.store)
        var model = ThreadListModel()
        try model.load(from: ctx.store)
        let saved = try model.step(thread.id, by: sign * amount, in: ctx.store)
        print("\(thread.brand) \(thread.number): \(saved?.quantity ?? thread.quantity) in stock. \(await ctx.syncSoon())")
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a thread.")
        @Argument var thread: [String]
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let t = try resolveThread(thread, in: ctx.store)
                try ctx.store.delete(InventoryThread.self, id: t.id)
                print("Deleted \(t.brand) \(t.number). \(await ctx.syncSoon())")
            }
        }
    }
}

extension FiberType: ExpressibleByArgument {}
extension ProjectStatus: ExpressibleByArgument {}
extension SectionStatus: ExpressibleByArgument {}

// MARK: - Canvases

struct Canvases: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Your Stitch Stash of painted canvases.", subcommands: [List.self, Add.self, Edit.self, Remove.self, Palette.self],
        defaultSubcommand: List.self, aliases: ["canvas"])

    struct Palette: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The colours painted on a canvas, read from its photo, and the threads to stitch them with (online only).")
        @Argument(help: "The canvas: design name or id prefix") var canvas: String
        @Option(help: "1 (fewest colours) to 5 (most)") var detail: Int = CanvasPalette.Detail.standard.rawValue
        @Option(help: "The canvas's own colour: white or ecru") var ground: String = "white"
        @Option(help: "basketweave or continental") var stitch: String = "basketweave"
        @Option(help: "Strands of six-strand floss stitched with") var strands: Int = 6
        @Flag(help: "Add each colour's thread and skeins to the canvas's project (starting one when it has none)") var addToProject = false
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let c = try resolveCanvas(canvas, in: ctx.store)
                let answer = try await ctx.api.canvasPalette(canvasId: c.id, query: ["detail": String(detail), "ground": ground, "stitch": stitch,
                                                                                   "strands": String(strands)])
                guard addToProject else {
                    if output.json { return print(try Output.json(answer)) }
                    return print(Self.describe(answer, name: c.designName))
                }
                let rows = answer.threads.rows.compactMap { row in
                    row.choice.map { CanvasPaletteConfirmation.Row(brand: $0.brand, number: $0.number, quantityNeeded: row.skeins ?? 1, colours: [row.hex]) }
                }
                guard !rows.isEmpty else { throw CLIError("No painted colours with a thread to add", code: .invalid) }
                let project = try ctx.store.all(Project.self).first { $0.deletedAt == nil && $0.canvasId == c.id }
                let result = try await ctx.api.addCanvasPalette(canvasId: c.id, CanvasPaletteConfirmation(projectId: project?.id, rows: rows))
                if output.json { return print(try Output.json(result)) }
                var said = result.createdProject ? "Started a project from \(c.designName). " : ""
                said += "Added \(result.added.count) thread\(result.added.count == 1 ? "" : "s"): "
                    + result.added.map { "\($0.brand) \($0.number) × \($0.quantityNeeded)" }.joined(separator: ", ") + "."
                if !result.alreadyRequired.isEmpty { said += " Already on its list: \(result.alreadyRequired.joined(separator: ", "))." }
                print("\(said) \(await ctx.syncSoon())")
            }
        }

        /// The colours as a table: share, the thread chosen (owned marked), how close, skeins.
        static func describe(_ answer: CanvasPaletteAnswer, name: String) -> String {
            var lines = ["\(name): \(answer.palette.colours.count) colour\(answer.palette.colours.count == 1 ? "" : "s") painted"
                         + (answer.palette.reference == nil ? " (no bare canvas found: colours as photographed)" : "")]
            for row in answer.threads.rows {
                let thread = row.choice.map { "\($0.brand) \($0.number)\($0.name.isEmpty ? "" : " \($0.name)")\($0.owned ? " (yours: \($0.ownedQuantity))" : ""), \($0.closeness)" } ?? "no thread"
                var line = "  \(row.hex)  \(String(format: "%4.1f", row.share * 100)) %  \(thread)"
                if let skeins = row.skeins { line += ", \(skeins) skein\(skeins == 1 ? "" : "s")\(row.toBuy.map { $0 > 0 ? " (buy \($0))" : "" } ?? "")" }
                if !row.sameThreadAs.isEmpty { line += "; same thread as \(row.sameThreadAs.joined(separator: ", "))" }
                lines.append(line)
            }
            if let note = answer.threads.amountsNote { lines.append(note + ": stitch canvases edit --size \"10 x 12\" --mesh 13") }
            return lines.joined(separator: "\n")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Canvases, newest first.")
        @Option(help: "Designer or design name") var search: String?
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var model = StashModel()
                try model.load(from: ctx.store)
                model.search = search ?? ""
                if output.json { print(try Output.json(model.canvases)); return }
                if let empty = model.emptyState { print("\(empty.title) — \(empty.message) (stitch canvases add)"); return }
                print(Output.table(["ID", "DESIGN", "DESIGNER", "MESH", "SIZE"], model.canvases.map {
                    [Output.short($0.id), $0.designName, $0.designer, StashModel.meshBadge($0) ?? "", $0.size ?? ""]
                }))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a canvas.")
        @Option var designer: String
        @Option var name: String
        @Option var mesh: Int?
        @Option var size: String?
        @Option(help: "When you got it, e.g. 2026-05-01") var acquired: String?
        @Option var notes: String?
        @Option(help: "A photo (JPEG, PNG, HEIC or WebP)") var image: String?
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let now = ctx.store.clock()
                var key: String?
                if let image {
                    guard let data = FileManager.default.contents(atPath: image) else { throw CLIError("Can't read \(image)", code: .notFound) }
                    key = try ctx.store.stageImage(data)
                }
                let canvas = try ctx.store.save(Canvas(designer: designer, designName: name, acquiredAt: try parseDate(acquired), imageKey: key,
                                                       size: size, meshCount: mesh, notes: notes, createdAt: now, updatedAt: now))
                let message = await ctx.syncSoon()
                if output.json { print(try Output.json(canvas)) } else { print("Added \(canvas.designName) (\(Output.short(canvas.id))). \(message)") }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a canvas.")
        @Argument var canvas: String
        @Option var designer: String?
        @Option var name: String?
        @Option var mesh: Int?
        @Option var size: String?
        @Option var notes: String?
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                var c = try resolve(Canvas.self, canvas, in: ctx.store) { $0.designName }
                if let designer { c.designer = designer }
                if let name { c.designName = name }
                if let mesh { c.meshCount = mesh }
                if let size { c.size = size }
                if let notes { c.notes = notes }
                let saved = try ctx.store.save(c)
                print("Updated \(saved.designName). \(await ctx.syncSoon())")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a canvas that has no project.")
        @Argument var canvas: String
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let c = try resolve(Canvas.self, canvas, in: ctx.store) { $0.designName }
                if try ctx.store.all(Project.self).contains(where: { $0.canvasId == c.id }) {
                    throw CLIError("\(c.designName) has a project. Delete the project first.", code: .invalid)
                }
                try ctx.store.delete(Canvas.self, id: c.id)
                print("Deleted \(c.designName). \(await ctx.syncSoon())")
            }
        }
    }
}
