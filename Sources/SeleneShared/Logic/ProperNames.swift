import Foundation

/// The words a note names someone or somewhere with, read without a model (#85): capitalised
/// words that don't open a sentence or a line ("Dinner with Rosa at Lucca" → Rosa, Lucca; a chat
/// export's speaker, "[03/03/2024, 19:42] Priya: …" → Priya), nor name a day or a month. Whether a
/// note has any decides whether its analysis asks the model for people and places; the model
/// stand-in reads its people and places from them.
public enum ProperNames {
    /// Each name once, in order, with the word before it (lowercased: "with", "in", …), at most `limit`.
    public static func candidates(in text: String, limit: Int = 20) -> [(name: String, after: String)] {
        var found: [(name: String, after: String)] = []
        var seen = Set<String>()
        var previous = ""
        for line in text.split(whereSeparator: \.isNewline) {
            var opensSentence = true
            for raw in line.split(whereSeparator: \.isWhitespace) {
                let word = raw.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
                if let first = word.first, first.isUppercase, word.count > 1, word.dropFirst().allSatisfy(\.isLowercase), !opensSentence,
                   !calendarWords.contains(word.lowercased()), seen.insert(word).inserted {
                    found.append((word, previous))
                    if found.count == limit { return found }
                }
                opensSentence = raw.last.map { ".!?:".contains($0) } ?? false
                previous = word.lowercased()
            }
        }
        return found
    }

    /// Whether the note names anyone or anywhere (its first name found is enough).
    public static func any(in text: String) -> Bool { !candidates(in: text, limit: 1).isEmpty }

    static let calendarWords = Set(DateMentions.weekdays + DateMentions.months)
}
