import Foundation

/// Finds the things a note says to do: checklist items (`- [ ] …`), `TODO:` lines, and sentences
/// that start with an intention ("I need to …", "remember to …"). Used for thread tasks on the
/// server and task suggestions in a thread's chat.
public enum ActionExtractor {
    public static func actions(in text: String, limit: Int = 10) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        func add(_ raw: Substring) {
            var action = raw.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ".!;:-")))
            if action.count > 140 { action = String(action.prefix(139)) + "…" }
            guard action.count >= 3, let first = action.first else { return }
            action = first.uppercased() + action.dropFirst()
            if seen.insert(action.lowercased()).inserted { out.append(action) }
        }
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let lower = trimmed.lowercased()
            for marker in ["- [ ] ", "* [ ] ", "[ ] "] where lower.hasPrefix(marker) {
                add(trimmed.dropFirst(marker.count))
            }
            for marker in ["todo:", "todo ", "action:", "next step:", "next:"] where lower.hasPrefix(marker) {
                add(trimmed.dropFirst(marker.count))
            }
            for sentence in trimmed.split(whereSeparator: { ".!?".contains($0) }) {
                let s = sentence.trimmingCharacters(in: .whitespaces)
                let ls = s.lowercased()
                for intent in intentions where ls.hasPrefix(intent) {
                    add(s.dropFirst(intent.count))
                    break
                }
            }
            if out.count >= limit { break }
        }
        return Array(out.prefix(limit))
    }

    static let intentions = [
        "i need to ", "i have to ", "i must ", "i should ", "need to ", "remember to ", "don't forget to ",
        "must ", "i want to ", "i'm going to ", "i will ", "let's ", "should ",
    ]
}
