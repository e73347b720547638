import Fluent
import Foundation
import StitchCore
import Vapor

/// Scan-to-add (`POST /threads/scan`, the web's scan page): a photo of a thread's label, or the
/// digits under its bars, to the owner's thread with that barcode, else the catalog colour that
/// lists it, else "unknown" (the client then adds the thread with the barcode, so the next scan
/// finds it). Nothing is stored: the photo is read in memory and dropped.
enum BarcodeScanning {
    enum Input {
        case photo(Data)
        case code(String)
    }

    static func scan(_ input: Input, userId: UUID, app: Application, db: any Database) async throws -> BarcodeScan {
        let codes: [(symbology: String, code: String)]
        switch input {
        case .code(let typed):
            if let problem = Barcodes.problem(typed) { throw APIError.validation(["code": problem]) }
            codes = [("typed", Barcodes.normalized(typed)!)]
        case .photo(let data):
            let format = try Images.checkPhoto(data, config: app.config)
            let found: [BarcodeReader.Found]
            do {
                found = try await app.tools.run(for: userId) { try BarcodeReader.read(data, format: format) }
            } catch BarcodeReader.Failure.unreadable(let format) {
                throw APIError(.unprocessableEntity, "The picture could not be read: it starts like a \(format.rawValue.uppercased()) but isn't a whole one",
                               fields: ["image": "Take the photo again"])
            }
            guard !found.isEmpty else {
                throw APIError(.unprocessableEntity,
                               "No barcode found in the picture. Fill the frame with the bars, hold the label flat in good light, or type the digits under the bars.",
                               fields: ["image": "No EAN-13 or UPC-A barcode found"])
            }
            codes = found.map { ($0.symbology, $0.code) }
        }

        let threads = try await Records.list(ThreadModel.self, userId: userId, on: db)
        let catalog = try app.threadCatalog
        let all = codes.map(\.code)
        for (symbology, code) in codes {
            let owned = InventoryThread.sortedInInventoryOrder(threads.filter { $0.barcode.flatMap(Barcodes.normalized) == code })
            if !owned.isEmpty {
                let names = owned.map { "\($0.brand) \($0.number)" }.joined(separator: ", ")
                return BarcodeScan(code: code, source: symbology, outcome: .owned, threads: owned, catalogEntry: nil, codes: all,
                                   message: "\(code) is your \(names)")
            }
        }
        for (symbology, code) in codes {
            if let entry = catalog.entry(barcode: code) {
                return BarcodeScan(code: code, source: symbology, outcome: .catalog, threads: [], catalogEntry: entry, codes: all,
                                   message: "\(code) is \(entry.label) (\(entry.line)), which you don't have yet")
            }
        }
        return BarcodeScan(code: codes[0].code, source: codes[0].symbology, outcome: .unknown, threads: [], catalogEntry: nil, codes: all,
                           message: "\(codes[0].code) isn't in your inventory or the catalog yet: add the thread and the barcode will find it next time")
    }
}
