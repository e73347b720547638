import Foundation

/// The words a note names someone or somewhere with, read without a model (#85): capitalised
/// words that don't open a sentence or a line ("Dinner with Rosa at Lucca" → Rosa, Lucca; a chat
/// export's speaker, "[03/03/2024, 19:42] Priya: …" → Priya), nor name a day or a month. Whether a
/// note has any decides whether its analysis asks the model for people and places; the model
/// stand-in reads its people and places from them.
public enum ProperNames {
    /// Each name once, in order, with the word before it (lowercased: "with", "in", …), at most
    /// `limit`. Capitalised words side by side, with no punctuation between, are one name ("New
    /// York", "Rosa Diaz"); a name is at most four words.
    public static func candidates(in text: String, limit: Int = 20) -> [(name: String, after: String)] {
        var found: [(name: String, after: String)] = []
        var seen = Set<String>()
        var previous = ""
        var run: [String] = [], before = ""
        // Ends the name being read, if any; true when `limit` names are found.
        func close() -> Bool {
            defer { run = [] }
            guard !run.isEmpty else { return false }
            let name = run.joined(separator: " ")
            if seen.insert(name).inserted { found.append((name, before)) }
            return found.count == limit
        }
        for line in text.split(whereSeparator: \.isNewline) {
            var opensSentence = true
            for raw in line.split(whereSeparator: \.isWhitespace) {
                let word = raw.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
                if let first = word.first, first.isUppercase, word.count > 1, word.dropFirst().allSatisfy(\.isLowercase), !opensSentence,
                   !isCalendarWord(word.lowercased()) {
                    // Punctuation before it ("Sam (Rosa") ends the name before.
                    if raw.first.map({ $0.isPunctuation || $0.isSymbol }) == true, close() { return found }
                    if run.isEmpty { before = previous }
                    run.append(word)
                    // Punctuation after it, or four words already, ends the name.
                    if (raw.last.map { $0.isPunctuation || $0.isSymbol } ?? false) || run.count == 4, close() { return found }
                } else if close() {
                    return found
                }
                opensSentence = raw.last.map { ".!?:".contains($0) } ?? false
                previous = word.lowercased()
            }
            if close() { return found }
        }
        return found
    }

    /// The words a place comes after ("in Porto", "to Lisbon", "at Lucca", "from Leeds", "near
    /// Bath"); a name after anything else reads as a person's.
    public static let placeWords: Set<String> = ["in", "to", "at", "from", "near"]

    /// Whether the note names anyone or anywhere (its first name found is enough).
    public static func any(in text: String) -> Bool { !candidates(in: text, limit: 1).isEmpty }

    static let calendarWords = Set(DateMentions.weekdays + DateMentions.months)

    /// A day or a month, or days ("on Sundays").
    static func isCalendarWord(_ lower: String) -> Bool {
        calendarWords.contains(lower) || (lower.hasSuffix("s") && calendarWords.contains(String(lower.dropLast())))
    }
}
