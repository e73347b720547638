import Foundation
import StitchCore
import Testing

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func thread(_ change: (inout InventoryThread) -> Void = { _ in }) -> InventoryThread {
    var t = InventoryThread(brand: "DMC", number: "310", createdAt: t0, updatedAt: t0)
    change(&t)
    return t
}

func canvas(_ change: (inout Canvas) -> Void = { _ in }) -> Canvas {
    var c = Canvas(designer: "Melissa Shirley", designName: "Nutcracker", createdAt: t0, updatedAt: t0)
    change(&c)
    return c
}

func requirement(_ change: (inout ProjectThread) -> Void = { _ in }) -> ProjectThread {
    var r = ProjectThread(projectId: UUID(), brand: "DMC", number: "310", quantityNeeded: 1, createdAt: t0, updatedAt: t0)
    change(&r)
    return r
}

@Suite("Thread validation (SPEC §1)")
struct ThreadValidationTests {
    @Test func validThreadPasses() throws {
        let t = thread {
            $0.colorName = "Black"; $0.colorHex = "#1a2B3c"; $0.quantity = 0; $0.barcode = "077540310001"
            $0.weightOrLength = "8m skein"; $0.notes = String(repeating: "n", count: 1000)
        }
        #expect(t.validationErrors.isEmpty)
        #expect(try t.validated() == t)
    }

    @Test("The catalog's colour name: trimmed, blank is none, at most 100 characters; shown beside the stitcher's own name")
    func catalogColorName() throws {
        #expect(thread { $0.catalogColorName = "  Black " }.normalized.catalogColorName == "Black")
        #expect(thread { $0.catalogColorName = "   " }.normalized.catalogColorName == nil)
        #expect(thread { $0.catalogColorName = String(repeating: "c", count: 101) }.validationErrors["catalogColorName"]
                == "Catalog colour name must be at most 100 characters")
        #expect(thread { $0.catalogColorName = "Black" }.displayColorName == "Black")
        #expect(thread { $0.colorName = "Night sky"; $0.catalogColorName = "Black" }.displayColorName == "Night sky (Black)")
        #expect(thread { $0.colorName = "black"; $0.catalogColorName = "Black" }.displayColorName == "black")
        #expect(thread { $0.colorName = "Mine" }.displayColorName == "Mine")
        // On the wire under its own key, and read back.
        let wire = thread { $0.catalogColorName = "Black" }
        #expect(String(decoding: try StitchJSON.makeEncoder().encode(wire), as: UTF8.self).contains(#""catalogColorName":"Black""#))
        #expect(try StitchJSON.decode(InventoryThread.self, from: StitchJSON.makeEncoder().encode(wire)) == wire)
    }

    @Test(arguments: ["", "   ", String(repeating: "b", count: 101)])
    func brandRejected(_ brand: String) {
        #expect(thread { $0.brand = brand }.validationErrors["brand"] != nil)
    }

    @Test(arguments: ["D", "Silk & Ivory", String(repeating: "b", count: 100)])
    func brandAccepted(_ brand: String) {
        #expect(thread { $0.brand = brand }.validationErrors["brand"] == nil)
    }

    @Test func numberLimits() {
        #expect(thread { $0.number = "" }.validationErrors["number"] == "Number is required")
        #expect(thread { $0.number = String(repeating: "1", count: 51) }.validationErrors["number"] != nil)
        #expect(thread { $0.number = String(repeating: "1", count: 50) }.validationErrors["number"] == nil)
        #expect(thread { $0.number = "B5200" }.validationErrors.isEmpty)
    }

    @Test(arguments: ["#000000", "#FFFFFF", "#a1b2c3"])
    func hexAccepted(_ hex: String) {
        #expect(thread { $0.colorHex = hex }.validationErrors["colorHex"] == nil)
    }

    @Test(arguments: ["000000", "#FFF", "#GGGGGG", "#1234567", "red", "#12345 "])
    func hexRejected(_ hex: String) {
        #expect(thread { $0.colorHex = hex }.validationErrors["colorHex"] != nil)
    }

    @Test func quantityNeverNegative() {
        #expect(thread { $0.quantity = -1 }.validationErrors["quantity"] == "Quantity can't be negative")
        #expect(thread { $0.quantity = 0 }.validationErrors["quantity"] == nil)
        #expect(thread { $0.quantity = 12 }.validationErrors["quantity"] == nil)
    }

    @Test func optionalTextLimits() {
        #expect(thread { $0.colorName = String(repeating: "c", count: 100) }.validationErrors.isEmpty)
        #expect(thread { $0.colorName = String(repeating: "c", count: 101) }.validationErrors["colorName"] != nil)
        #expect(thread { $0.barcode = String(repeating: "0", count: 50) }.validationErrors.isEmpty)
        #expect(thread { $0.barcode = String(repeating: "0", count: 51) }.validationErrors["barcode"] != nil)
        #expect(thread { $0.weightOrLength = String(repeating: "w", count: 101) }.validationErrors["weightOrLength"] != nil)
        #expect(thread { $0.notes = String(repeating: "n", count: 1001) }.validationErrors["notes"] != nil)
    }

    @Test("Every failing field is reported at once")
    func allFieldsReported() {
        let errors = thread { $0.brand = ""; $0.number = ""; $0.quantity = -3; $0.colorHex = "blue" }.validationErrors
        #expect(Set(errors.keys) == ["brand", "number", "quantity", "colorHex"])
        do {
            _ = try thread { $0.brand = "" }.validated()
            Issue.record("expected a validation error")
        } catch {
            #expect(error.fields == ["brand": "Brand is required"])
        }
    }

    @Test func fiberTypeDefaultsToWoolAndRejectsUnknown() throws {
        #expect(thread().fiberType == .wool)
        #expect(FiberType.allCases.map(\.rawValue) == ["wool", "cotton", "silk", "synthetic", "blend", "other"])
        let json = #"{"id":"\#(UUID())","brand":"DMC","number":"310","fiberType":"linen","quantity":1,"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}"#
        #expect(throws: DecodingError.self) { try StitchJSON.makeDecoder().decode(InventoryThread.self, from: Data(json.utf8)) }
    }

    @Test func normalizationTrimsAndDropsBlanks() {
        let t = thread { $0.brand = "  DMC "; $0.number = " 310"; $0.colorName = "  "; $0.colorHex = "#abcdef" }.normalized
        #expect(t.brand == "DMC")
        #expect(t.number == "310")
        #expect(t.colorName == nil)
        #expect(t.colorHex == "#ABCDEF")
    }

    @Test func controlCharacters() {
        // Text: tabs and line breaks, but no other control characters.
        #expect(thread { $0.brand = "D\u{0F}MC" }.normalized.validationErrors["brand"] == "Brand can't contain control characters")
        #expect(thread { $0.number = "3\u{1C}10" }.normalized.validationErrors["number"] != nil)
        #expect(thread { $0.colorName = "Black\u{85}Red" }.normalized.validationErrors["colorName"] != nil)
        #expect(thread { $0.brand = "DMC\n"; $0.colorName = "Snow\n\twhite" }.normalized.validationErrors.isEmpty)
        #expect(thread { $0.brand = "Caron Wildflowers ü" }.normalized.validationErrors.isEmpty)
        #expect(thread { $0.notes = "Line one\r\n\tLine two" }.normalized.validationErrors.isEmpty)
        #expect(thread { $0.notes = "Bell\u{07}" }.normalized.validationErrors["notes"] == "Notes can't contain control characters")
        #expect(!Rules.isEmail("ann\u{01}@example.com"))
    }
}

@Suite("Canvas, project, section, requirement and account validation")
struct OtherValidationTests {
    @Test func canvasRequiredFields() {
        #expect(canvas().validationErrors.isEmpty)
        #expect(canvas { $0.designer = " " }.validationErrors["designer"] == "Designer is required")
        #expect(canvas { $0.designName = "" }.validationErrors["designName"] == "Design name is required")
    }

    @Test(arguments: [0, -1, -18])
    func meshCountMustBePositive(_ mesh: Int) {
        #expect(canvas { $0.meshCount = mesh }.validationErrors["meshCount"] == "Enter a positive number")
    }

    @Test(arguments: [10, 13, 18, 1])
    func meshCountAccepted(_ mesh: Int) {
        #expect(canvas { $0.meshCount = mesh }.validationErrors["meshCount"] == nil)
    }

    @Test func canvasOptionalFields() {
        #expect(canvas { $0.meshCount = nil; $0.size = "13x18"; $0.acquiredAt = t0 }.validationErrors.isEmpty)
        #expect(canvas { $0.size = String(repeating: "s", count: 101) }.validationErrors["size"] != nil)
    }

    @Test func quantityNeededAtLeastOne() {
        #expect(requirement { $0.quantityNeeded = 0 }.validationErrors["quantityNeeded"] == "Need at least 1")
        #expect(requirement { $0.quantityNeeded = -2 }.validationErrors["quantityNeeded"] != nil)
        #expect(requirement { $0.quantityNeeded = 1 }.validationErrors.isEmpty)
        #expect(requirement { $0.brand = "" }.validationErrors["brand"] != nil)
        #expect(requirement { $0.number = "" }.validationErrors["number"] != nil)
    }

    @Test func sectionName() {
        let ok = ProjectSection(projectId: UUID(), name: "Background", createdAt: t0, updatedAt: t0)
        #expect(ok.validationErrors.isEmpty)
        var bad = ok
        bad.name = ""
        #expect(bad.validationErrors["name"] == "Name is required")
        bad.name = String(repeating: "x", count: 101)
        #expect(bad.validationErrors["name"] != nil)
    }

    @Test func projectDates() {
        var p = Project(canvasId: UUID(), startedAt: t0, createdAt: t0, updatedAt: t0)
        #expect(p.validationErrors.isEmpty)
        p.completedAt = t0.addingTimeInterval(-10)
        #expect(p.validationErrors["completedAt"] != nil)
    }

    @Test func statusChangesStampDates() {
        var p = Project(canvasId: UUID(), startedAt: t0, createdAt: t0, updatedAt: t0)
        let later = t0.addingTimeInterval(100)
        p.setStatus(.atFinishing, at: later)
        #expect(p.finishingAt == later && p.completedAt == nil)
        p.setStatus(.completed, at: later.addingTimeInterval(5))
        #expect(p.completedAt == later.addingTimeInterval(5))
        p.setStatus(.wip, at: later)
        #expect(p.finishingAt == nil && p.completedAt == nil)
        #expect(ProjectStatus.atFinishing.rawValue == "at_finishing")
        #expect(ProjectStatus.wip.displayName == "WIP")
        #expect(SectionStatus.notStarted.rawValue == "not_started")
    }

    @Test(arguments: [
        ("ann@example.com", true), ("a.b+c@sub.example.co.uk", true), ("", false), ("ann", false),
        ("ann@", false), ("@example.com", false), ("ann@example", false), ("a n@example.com", false), ("a@@b.com", false),
    ])
    func emails(_ email: String, _ valid: Bool) {
        var v = Validator()
        Rules.validateEmail(email, into: &v)
        #expect(v.isValid == valid)
    }

    @Test func passwords() {
        let register = { (pw: String) in RegisterRequest(email: "a@b.co", password: pw, displayName: "A").validationErrors }
        #expect(register("1234567")["password"] != nil)
        #expect(register("12345678")["password"] == nil)
        #expect(register(String(repeating: "p", count: 128))["password"] == nil)
        #expect(register(String(repeating: "p", count: 129))["password"] != nil)
        #expect(register(String(repeating: "é", count: 100))["password"] == nil)  // 200 bytes: pre-hashed
        #expect(register("e\u{301}e\u{301}e\u{301}e\u{301}")["password"] == nil)  // 4 letters, 8 code points, as JSON Schema counts
        #expect(RegisterRequest(email: "a@b.co", password: "12345678", displayName: " ").validationErrors["displayName"] != nil)
        #expect(RegisterRequest(email: "a@b.co", password: "12345678", displayName: String(repeating: "n", count: 101)).validationErrors["displayName"] != nil)
    }
}
