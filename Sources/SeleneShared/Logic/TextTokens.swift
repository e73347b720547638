import Foundation

/// Words of a text as search and analysis see them: lower-cased runs of letters and digits,
/// without the common English words that say nothing about a note.
public enum TextTokens {
    public static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII ? isASCIIAlphanumeric(scalar.value) : alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                out.append(current)
                current = ""
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    // Read once: on Linux `CharacterSet.alphanumerics` builds a new set at every use, which made
    // tokenising the reranker's 120 texts a question the largest part of retrieval's time.
    private static let alphanumerics = CharacterSet.alphanumerics

    private static func isASCIIAlphanumeric(_ v: UInt32) -> Bool {
        (48...57).contains(v) || (97...122).contains(v) || (65...90).contains(v)
    }

    /// A word without its common English endings ("moving", "moved", "moves" → "mov"), for
    /// telling whether two words are one; lighter than the full-text indexes' Porter stemmer,
    /// which found the notes this is asked of.
    public static func stem(_ word: String) -> String {
        let lower = word.lowercased()
        return lower.utf8.allSatisfy({ $0 < 0x80 }) ? asciiStem(Array(lower.utf8)) : characterStem(lower)
    }

    /// `stem` by characters, for words beyond ASCII.
    static func characterStem(_ word: String) -> String {
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

    private static let suffixes = ["ingly", "edly", "ings", "ing", "ied", "ies", "ed", "es", "ly", "s"].map { Array($0.utf8) }
    private static let toY = [Array("ied".utf8), Array("ies".utf8)]
    private static let undoubled = Array("aeiouls".utf8)

    /// `stem` of a lower-case ASCII word, on its bytes (a character each): the same rules without
    /// String's character counting, which made stemming the largest part of a reranked question.
    static func asciiStem(_ word: [UInt8]) -> String {
        var w = word
        asciiStemInPlace(&w)
        return String(decoding: w, as: UTF8.self)
    }

    /// `asciiStem` on a buffer the caller reuses.
    static func asciiStemInPlace(_ w: inout [UInt8]) {
        for suffix in suffixes where w.count - suffix.count >= 3 && w.suffix(suffix.count).elementsEqual(suffix) {
            w.removeLast(suffix.count)
            if toY.contains(suffix) { w.append(UInt8(ascii: "y")) }
            break
        }
        if w.count > 3, w.last == UInt8(ascii: "e") { w.removeLast() }
        if w.count > 3, let last = w.last, w[w.count - 2] == last, !undoubled.contains(last) { w.removeLast() }
    }

    /// How many of `terms` a text has, by stem (a term of five letters or more also matches a
    /// longer word it begins: "recommend", "recommendation").
    public static func matched(_ terms: [String], in text: String) -> Int {
        matching(terms, in: text).count
    }

    /// Those of `terms` a text has, by stem, as `matched` counts them.
    public static func matching(_ terms: [String], in text: String) -> [String] {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiMatching(terms, in: text) : characterMatching(terms, in: text)
    }

    /// `matching` for an ASCII text, on its bytes: each word lower-cased and stemmed in one reused
    /// buffer and compared with the terms' stems, nothing allocated a word (the reranker matches
    /// the question's words in 120 texts a question; a set of stemmed Strings a text took most of
    /// its time).
    static func asciiMatching(_ terms: [String], in text: String) -> [String] {
        let stems = terms.map(stem)
        let wanted = stems.map { Array($0.utf8) }
        // A term of five letters or more also matches a longer word it begins (as below).
        let prefix = stems.map { $0.count >= 5 }
        var found = [Bool](repeating: false, count: terms.count), left = terms.count
        var word: [UInt8] = []
        word.reserveCapacity(64)
        func check() {
            guard !word.isEmpty else { return }
            asciiStemInPlace(&word)
            for i in wanted.indices where !found[i] {
                let term = wanted[i]
                if word == term || prefix[i] && word.count > term.count && word.starts(with: term) {
                    found[i] = true
                    left -= 1
                }
            }
            word.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case 97...122, 48...57: word.append(byte)
            case 65...90: word.append(byte + 32)
            default:
                check()
                if left == 0 { return terms }
            }
        }
        check()
        return zip(terms, found).filter(\.1).map(\.0)
    }

    /// `matching` by characters, for a text beyond ASCII.
    static func characterMatching(_ terms: [String], in text: String) -> [String] {
        let stems = Set(words(text).map(stem))
        return terms.filter { word in
            let term = stem(word)
            // A longer stem beginning with the term: compared on bytes (stems are lower-cased words
            // of one text; comparing characters took the most of a reranked question's time).
            return stems.contains(term) || term.count >= 5 && stems.contains { $0.utf8.count > term.utf8.count && $0.utf8.starts(with: term.utf8) }
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
