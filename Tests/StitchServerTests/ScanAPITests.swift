import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Scan-to-add: POST /threads/scan reads a barcode photo or typed code")
struct ScanAPITests {
    static let black = BarcodeImages.ean13("501234567890")   // an EAN-13
    static let upc = BarcodeImages.ean13("003600029145")     // a UPC-A (as EAN-13: leading 0)
    static let stranger = BarcodeImages.ean13("400638133393")

    private func scan(_ user: TestUser, _ photo: Data, type: String = "image/png") async throws -> TestingHTTPResponse {
        try await user.upload("/threads/scan", files: [Fixtures.file(photo, filename: "label", type: type)])
    }

    @Test("Photos — straight, turned 90°, turned 17° at low contrast with noise, a JPEG from a 12-megapixel phone — find the owned thread")
    func photosFindOwnedThread() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let thread = try await ann.thread("DMC", "310", quantity: 2, extra: ["barcode": Self.black])
            let upcThread = try await ann.thread("DMC", "321", extra: ["barcode": String(Self.upc.dropFirst())])  // typed as 12 digits
            let photos: [(String, Data, String)] = [
                ("straight PNG", BarcodeImages.photo(Self.black), "image/png"),
                ("turned 90° JPEG", BarcodeImages.photo(Self.black, degrees: 90, format: .jpeg), "image/jpeg"),
                ("turned 17°, low contrast, noisy", BarcodeImages.photo(Self.black, module: 4, degrees: 17, ink: 95, paper: 165, noise: 12), "image/png"),
                ("upside down", BarcodeImages.photo(Self.black, degrees: 180), "image/png"),
                ("4032×3024 phone JPEG", BarcodeImages.photo(Self.black, module: 6, degrees: 4, noise: 6, width: 4032, height: 3024, format: .jpeg), "image/jpeg"),
            ]
            for (name, photo, type) in photos {
                let res = try await scan(ann, photo, type: type)
                try #require(res.status == .ok, "\(name): \(res.status) \(res.text)")
                let result = try res.decode(BarcodeScan.self)
                #expect(result.outcome == .owned && result.code == Self.black && result.source == "EAN-13", "\(name)")
                #expect(result.threads.map(\.id) == [thread.id] && result.threads[0].quantity == 2, "\(name)")
                #expect(result.message.contains("DMC 310"), "\(name)")
            }
            // A UPC-A label finds the thread whose barcode was typed with 12 digits.
            let upc = try await scan(ann, BarcodeImages.photo(Self.upc)).decode(BarcodeScan.self)
            #expect(upc.outcome == .owned && upc.threads.map(\.id) == [upcThread.id] && upc.source == "UPC-A" && upc.code == Self.upc)
        }
    }

    @Test("Unknown, then remembered: an unknown code is added with its barcode and found on the next scan; the catalog's listed code answers with the colour")
    func unknownThenRemembered() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let photo = BarcodeImages.photo(Self.stranger, degrees: -8, format: .jpeg)
            let first = try await scan(ann, photo, type: "image/jpeg")
            try #require(first.status == .ok, "\(first.text)")
            let unknown = try first.decode(BarcodeScan.self)
            #expect(unknown.outcome == .unknown && unknown.code == Self.stranger && unknown.threads.isEmpty && unknown.catalogEntry == nil)
            #expect(unknown.message.contains("isn't in your inventory"))
            let added = try await ann.thread("Appleton", "992", extra: ["barcode": unknown.code])
            let second = try await scan(ann, photo, type: "image/jpeg").decode(BarcodeScan.self)
            #expect(second.outcome == .owned && second.threads.map(\.id) == [added.id])
            // Another user's barcodes are theirs: Bob's scan of it is unknown.
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            #expect(try await scan(bob, photo, type: "image/jpeg").decode(BarcodeScan.self).outcome == .unknown)
            // A catalog that lists the code answers with the colour.
            let shipped = try Catalogs.shared()
            let listed = CatalogEntry(brand: "DMC", line: "Six-strand floss", number: "310", name: "Black", hex: "#000000",
                                      fiberType: .cotton, barcodes: [Self.black])
            app.useCatalog(ThreadCatalog(entries: [listed] + shipped.entries))
            let fromCatalog = try await scan(bob, BarcodeImages.photo(Self.black)).decode(BarcodeScan.self)
            #expect(fromCatalog.outcome == .catalog && fromCatalog.catalogEntry == listed && fromCatalog.message.contains("DMC 310 Black"))
            #expect(try await app.send(.POST, "/threads/scan", rawBody: "{\"code\":\"\(Self.black)\"}").status == .unauthorized)
        }
    }

    @Test("Typed codes: JSON or a form field; UPC-A and spaced digits normalised; a wrong check digit or length is a 400 naming the fix")
    func typedCodes() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let thread = try await ann.thread("DMC", "310", extra: ["barcode": Self.upc])
            for typed in [Self.upc, String(Self.upc.dropFirst()), "0 36000 29145 2".replacingOccurrences(of: "2", with: String(Self.upc.last!))] {
                let res = try await ann.sendObject(.POST, "/threads/scan", ["code": typed])
                try #require(res.status == .ok, "\(typed): \(res.text)")
                let result = try res.decode(BarcodeScan.self)
                #expect(result.outcome == .owned && result.threads.map(\.id) == [thread.id] && result.source == "typed", "\(typed)")
            }
            let wrongCheck = String(Self.black.dropLast()) + String((Int(String(Self.black.last!))! + 1) % 10)
            let bad = try await ann.sendObject(.POST, "/threads/scan", ["code": wrongCheck])
            #expect(bad.status == .badRequest && bad.text.contains("its last digit should be \(Self.black.last!)"))
            let short = try await ann.sendObject(.POST, "/threads/scan", ["code": "12345"])
            #expect(short.status == .badRequest && short.text.contains("this has 5"))
            let letters = try await ann.sendObject(.POST, "/threads/scan", ["code": "DMC310"])
            #expect(letters.status == .badRequest && letters.text.contains("only digits"))
            let none = try await ann.sendObject(.POST, "/threads/scan", [:])
            #expect(none.status == .badRequest)
            let form = try await ann.upload("/threads/scan", files: []) // an empty multipart body: neither photo nor code
            #expect(form.status == .badRequest && form.text.contains("Choose a photo"))
        }
    }

    @Test("Bad photos: no barcode → 422 saying so, a broken JPEG → 422, over 40 MB → 413, not an image → 415; nothing stored")
    func badPhotos() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            _ = try await ann.thread("DMC", "310", extra: ["barcode": Self.black])
            let version = try await ann.syncVersion()
            let noBarcode = try await scan(ann, BarcodeImages.noBarcode(), type: "image/jpeg")
            #expect(noBarcode.status == .unprocessableEntity && noBarcode.text.contains("No barcode found in the picture"), "\(noBarcode.text)")
            let blank = try await scan(ann, BarcodeImages.photo(Self.black, ink: 200, paper: 200))  // bars the paper's colour
            #expect(blank.status == .unprocessableEntity)
            let broken = Data(BarcodeImages.photo(Self.black, format: .jpeg).prefix(40)) + Data(repeating: 0x41, count: 500)
            let brokenRes = try await scan(ann, broken, type: "image/jpeg")
            #expect(brokenRes.status == .unprocessableEntity && brokenRes.text.contains("could not be read"), "\(brokenRes.text)")
            let huge = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 41 * 1024 * 1024)
            #expect(try await scan(ann, huge, type: "image/jpeg").status == .payloadTooLarge)
            let text = try await scan(ann, Fixtures.text, type: "text/plain")
            #expect(text.status == .unsupportedMediaType && text.text.contains("JPEG, PNG"))
            let xml = try await ann.send(.POST, "/threads/scan", raw: "<code>1</code>")  // JSON content type, not JSON
            #expect(xml.status == .badRequest)
            #expect(try await ImageModel.query(on: app.db).count() == 0)
            #expect(try await ann.syncVersion() == version)
            #expect(try await ann.get("/threads", as: [InventoryThread].self).count == 1)
        }
    }
}
