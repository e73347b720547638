import Foundation
@testable import StitchCore
import Testing

/// The hand-written id text and trimming must answer exactly as Foundation's did.
@Suite("Id text and trimming match Foundation")
struct TextTests {
    @Test func uuidTextIsUUIDString() {
        var ids = (0..<2_000).map { _ in UUID() }
        ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        ids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for id in ids {
            #expect(id.text == id.uuidString)
            #expect(UUID(text: id.uuidString) == id)
            #expect(UUID(text: id.uuidString.lowercased()) == id)
            #expect(UUID(text: Substring(id.uuidString)) == id)
        }
    }

    /// Everything Foundation refuses is refused; what is accepted means what it meant to Foundation,
    /// and is exactly the hex layout (Foundation's scanner also took " F" or "-F" for "0F").
    @Test func uuidParsingIsFoundationsStrictly() {
        let good = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        var inputs = ["", good + " ", " " + good, good.replacingOccurrences(of: "-", with: ""), String(good.dropLast()),
                      good + "0", "{\(good)}", good.replacingOccurrences(of: "-", with: "_"), "E621E1F8C36C-495A-93FC-0C247A3E6E5F-",
                      "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "+621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-+36C-495A-93FC-0C247A3E6E5F",
                      "E621E1F8-C36C-495A-93FC-0C247A3E6É5F", "é621E1F8-C36C-495A-93FC-0C247A3E6E5", "E621E1F8-C36C-495A-93FC-0C247A3E6E5\u{0}"]
        // Every single-character change of a valid id.
        for i in good.indices {
            for c in ["0", "a", "-", " ", "x", "F", "\n"] {
                var s = good
                s.replaceSubrange(i...i, with: c)
                inputs.append(s)
            }
        }
        let layout = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/
        for input in inputs {
            let ours = UUID(text: input)
            if UUID(uuidString: input) == nil { #expect(ours == nil, "\(input.debugDescription)") }
            #expect((ours != nil) == (input.wholeMatch(of: layout) != nil), "\(input.debugDescription)")
            if let ours { #expect(ours == UUID(uuidString: input)) }
        }
    }

    @Test func whiteSpaceIsFoundationsSet() {
        let set = CharacterSet.whitespacesAndNewlines
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.isWhitespaceOrNewline != set.contains(scalar) {
                Issue.record("U+\(String(value, radix: 16)) differs")
            }
        }
    }

    @Test func trimmingMatchesFoundation() {
        let samples = ["", " ", "\t\n\r", "DMC", "  DMC 310  ", "\u{00A0}Ünïcödé\u{3000}", "\u{2028}a b\u{2029}", " \u{301}x ",
                       "🧵 ", "\u{85}x\u{85}", "a\u{200B}", "\u{200B}", "line\nbreak", "\u{FEFF}x", "  \n  "]
        for s in samples {
            #expect(s.trimmedWhitespace == s.trimmingCharacters(in: .whitespacesAndNewlines), "\(s.debugDescription)")
            #expect(s.isBlank == s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(s.debugDescription)")
        }
    }
}
