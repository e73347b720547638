import Foundation

/// Words of a text as search and analysis see them: lower-cased runs of letters and digits,
/// without the common English words that say nothing about a note.
public enum TextTokens {
    public static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for scalar in text.lowercased().unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                out.append(current)
                current = ""
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A word without its common English endings ("moving", "moved", "moves" → "mov"), for
    /// telling whether two words are one; lighter than the full-text indexes' Porter stemmer,
    /// which found the notes this is asked of.
    public static func stem(_ word: String) -> String {
        var w = word.lowercased()
        for suffix in ["ingly", "edly", "ings", "ing", "ied", "ies", "ed", "es", "ly", "s"] where w.count - suffix.count >= 3 && w.hasSuffix(suffix) {
            w.removeLast(suffix.count)
            if suffix == "ied" || suffix == "ies" { w += "y" }
            break
        }
        if w.count > 3, w.hasSuffix("e") { w.removeLast() }
        if w.count > 3, let last = w.last, let before = w.dropLast().last, last == before, !"aeiouls".contains(last) { w.removeLast() }
        return w
    }

    /// How many of `terms` a text has, by stem (a term of five letters or more also matches a
    /// longer word it begins: "recommend", "recommendation").
    public static func matched(_ terms: [String], in text: String) -> Int {
        matching(terms, in: text).count
    }

    /// Those of `terms` a text has, by stem, as `matched` counts them.
    public static func matching(_ terms: [String], in text: String) -> [String] {
        let stems = Set(words(text).map(stem))
        return terms.filter { word in
            let term = stem(word)
            return stems.contains(term) || term.count >= 5 && stems.contains { $0.count > term.count && $0.hasPrefix(term) }
        }
    }

    /// The distinct content words of a query, in order, at most `limit`.
    public static func searchTerms(_ text: String, limit: Int = 32) -> [String] {
        var seen = Set<String>()
        var terms: [String] = []
        for word in words(text) where word.count > 1 && !stopWords.contains(word) && seen.insert(word).inserted {
            terms.append(word)
            if terms.count == limit { break }
        }
        return terms
    }

    public static let stopWords: Set<String> = [
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
        "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he",
        "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
        "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once",
        "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some",
        "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
        "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
        "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
        "yourselves", "ve", "ll", "re", "don", "doesn", "didn", "isn", "wasn", "im", "ive", "let", "lets", "also",
        "get", "got", "tell", "show", "find", "give", "anything", "something", "thing", "things", "notes", "note",
    ]
}
