import Foundation

/// An answer the LLM gives as JSON under a schema, checked before it is used: a wrong shape or
/// a value out of range is an invalid answer (asked again, then reported), never stored.
public protocol StructuredAnswer: Decodable, Sendable {
    static var jsonSchema: JSONValue { get }
    /// The answer tidied, or a sentence saying what is wrong with it.
    func validated() throws -> Self
}

/// A model answer that couldn't be read as the JSON asked for, with why.
public struct InvalidAnswer: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension StructuredAnswer {
    /// Parses an answer's text (tolerating a Markdown code fence around it) and validates it.
    public static func parse(_ text: String) throws -> Self {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if body.hasPrefix("```") {
            body = body.drop { $0 != "\n" }.dropFirst().description
            if let fence = body.range(of: "```", options: .backwards) { body = String(body[..<fence.lowerBound]) }
        }
        let value: Self
        do {
            value = try SeleneJSON.decode(Self.self, from: Data(body.utf8))
        } catch let error as DecodingError {
            throw InvalidAnswer("the answer is not the JSON asked for (\(Self.describe(error)))")
        }
        return try value.validated()
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing \(key.stringValue)"
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            c.codingPath.isEmpty ? "not JSON" : "bad \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: "unreadable"
        }
    }
}

extension NoteAnalysis: StructuredAnswer {
    public static var jsonSchema: JSONValue { schema(askingNames: true) }

    /// The analysis's schema, with or without the people and places (`ProcessingPrompts.analysisSystem(askingNames:)`).
    public static func schema(askingNames: Bool) -> JSONValue {
        schema(names: askingNames ? Schema.string(maxLength: 80) : nil, count: maxNames)
    }

    /// The analysis's schema asking for the people and places among `names`, the note's own
    /// (`ProperNames.candidates`): a grammar then writes only a name the note has, and no more
    /// of them than it has — what the model writes for them is bounded by the note (#85, point 4:
    /// SmolLM2-135M filled both lists to five, with sentences and names from nowhere, when asked
    /// for free text). A server that ignores the enum is still held to the note's words
    /// (`withoutInstructionWords`).
    public static func schema(naming names: [String]) -> JSONValue {
        var seen = Set<String>()
        let names = names.filter { !$0.isEmpty && $0.count <= 80 && seen.insert($0).inserted }
        return names.isEmpty ? schema(askingNames: false) : schema(names: Schema.enum(names), count: min(maxNames, names.count))
    }

    private static func schema(names: JSONValue?, count: Int) -> JSONValue {
        var properties: [String: JSONValue] = [
            "concepts": Schema.array(Schema.object(["name": Schema.string(maxLength: 80), "confidence": Schema.number(0, 1)]), maxItems: maxConcepts),
            "primaryTheme": Schema.string(maxLength: 80),
            "secondaryThemes": Schema.array(Schema.string(maxLength: 80), maxItems: maxSecondaryThemes),
            "sentiment": Schema.enum(Sentiment.allowedValues),
            "sentimentScore": Schema.number(-1, 1),
            "emotionalTone": Schema.string(maxLength: 40),
            "energyLevel": Schema.enum(EnergyLevel.allowedValues),
            "noteType": Schema.enum(NoteType.allowedValues),
            "actionability": Schema.enum(Actionability.allowedValues),
        ]
        // Under keys that sort after the rest: a grammar writes the keys in the schema's order
        // (alphabetical here), and with "people" and "places" before "primaryTheme" SmolLM2-135M
        // mostly left the theme empty: 18 of 24 notes valid at the first try, 24 of 24 with these
        // keys (2026-12-03, `selene-bench --only llm`).
        if let names {
            properties["whoItNames"] = Schema.array(names, maxItems: count)
            properties["whereItNames"] = Schema.array(names, maxItems: count)
        }
        return Schema.object(properties)
    }

    /// The prompt's bounds ("up to 5 concepts", "up to 3 secondary themes"), the schema's too.
    public static let maxConcepts = 5
    public static let maxSecondaryThemes = 3
    /// People, and places, a note names that are kept (#85): a note naming more is a list, and
    /// its words are searched anyway.
    public static let maxNames = 5

    /// The words of the analysis prompt's own instructions. A concept or theme made of nothing
    /// else was copied from the prompt ("up to 5 concepts", "someday"), not found in the note.
    static let instructionWords: Set<String> = {
        // Words of the prompt that are also everyday subjects of a note stay allowed.
        let subjects: Set<String> = ["personal", "private", "brain", "app", "energy", "writer"]
        var words = Set(TextTokens.searchTerms(ProcessingPrompts.analysisSystem, limit: 1000).filter { !subjects.contains($0) }.map(TextTokens.stem))
        // The schema's keys and enum values, which the model sees in its grammar if not in the prompt.
        let schemaWords = ["concept", "concepts", "theme", "themes", "primary", "secondary", "confidence", "json", "schema", "up", "to",
                           "note", "notes", "none", "n/a", "na", "unknown", "level", "type", "actionability",
                           "people", "person", "places", "place", "name", "names", "who", "where", "it", "whoitnames", "whereitnames"]
            + Sentiment.allowedValues + EnergyLevel.allowedValues + NoteType.allowedValues + Actionability.allowedValues
        for word in schemaWords {
            words.insert(TextTokens.stem(word))
        }
        return words
    }()

    static func copiesInstructions(_ phrase: String) -> Bool {
        let words = TextTokens.words(phrase).filter { !TextTokens.stopWords.contains($0) }
        return words.allSatisfy { $0.allSatisfy(\.isNumber) || instructionWords.contains(TextTokens.stem($0)) }
    }

    /// Phrases trimmed, without empty, over-long or repeated (in any case) ones, at most `limit`.
    static func distinct(_ phrases: [String], limit: Int, excluding taken: Set<String> = []) -> [String] {
        var seen = taken
        return phrases.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && $0.count <= 80 && seen.insert($0.lowercased()).inserted }
            .prefix(limit).map { $0 }
    }

    /// The analysis without what the model copied from the prompt's instructions rather than
    /// found in the note ("up to 5 concepts", "someday" as a concept): a phrase made only of the
    /// instructions' words, unless the note itself has them all. A copied primary theme gives way
    /// to the first secondary theme or concept left; a person or place the note doesn't name goes.
    /// Nothing else changes: the note isn't failed for it.
    public func withoutInstructionWords(note: String) throws -> NoteAnalysis {
        let noteStems = Set(TextTokens.words(note).map(TextTokens.stem))
        func copied(_ phrase: String) -> Bool {
            let content = TextTokens.words(phrase).filter { !TextTokens.stopWords.contains($0) && !$0.allSatisfy(\.isNumber) }
            // Nothing but small words and numbers ("up", "5") says nothing about the note.
            if content.isEmpty { return true }
            return Self.copiesInstructions(phrase) && !content.allSatisfy { noteStems.contains(TextTokens.stem($0)) }
        }
        var out = self
        out.concepts = Array(concepts.filter { !copied($0.name) }.prefix(Self.maxConcepts))
        out.secondaryThemes = secondaryThemes.filter { !copied($0) }
        if copied(primaryTheme) {
            // Nothing of the note's own to put first: not an analysis (asked for again).
            guard let replacement = out.secondaryThemes.first ?? out.concepts.first?.name else {
                throw InvalidAnswer("the primary theme copies the instructions (\"\(primaryTheme)\") and nothing else names the note")
            }
            out.primaryTheme = replacement
            out.secondaryThemes.removeAll { $0.lowercased() == replacement.lowercased() }
        }
        out.secondaryThemes = Array(out.secondaryThemes.prefix(Self.maxSecondaryThemes))
        // A person or a place the note names is in its words: a small model fills the lists
        // whatever the note (SmolLM2-135M put "Sylvia", "London" and "New York" on a note about
        // tomato seedlings), and a name it made up would find the note for a question about
        // someone else. Kept: names of at most six words, each word the note's own; never the
        // writer ("I", "the writer").
        let noteWords = Set(TextTokens.words(note))
        let writer: Set<String> = ["writer", "author", "user", "narrator", "self"]
        func named(_ name: String) -> Bool {
            let words = TextTokens.words(name).filter { !TextTokens.stopWords.contains($0) }
            return !copied(name) && words.count <= 6 && words.allSatisfy(noteWords.contains) && !words.allSatisfy(writer.contains)
        }
        out.people = people.filter(named)
        out.places = places.filter(named)
        // A name is someone or somewhere, not both: a small model files one under both lists
        // (SmolLM2-135M: "Lisbon" as a person and a place). The note's words decide, as the
        // stand-in reads them: after "in", "to", "at", "from" or "near" it is a place, else a person.
        let both = Set(out.people.map { $0.lowercased() }).intersection(out.places.map { $0.lowercased() })
        if !both.isEmpty {
            let places = Set(ProperNames.candidates(in: note, limit: 40).filter { ProperNames.placeWords.contains($0.after) }.map { $0.name.lowercased() })
            out.people.removeAll { both.contains($0.lowercased()) && places.contains($0.lowercased()) }
            out.places.removeAll { both.contains($0.lowercased()) && !places.contains($0.lowercased()) }
        }
        out.people = Array(out.people.prefix(Self.maxNames))
        out.places = Array(out.places.prefix(Self.maxNames))
        return out
    }

    /// What a person would keep of an analysis. A small model repeats a concept ten times or
    /// writes more than it was asked for; the repeats and the extra are dropped and the rest
    /// kept, rather than failing the note. Only what can't be repaired — no primary theme, a
    /// number that isn't one — is invalid (and asked for again).
    public func validated() throws -> NoteAnalysis {
        var out = self
        out.primaryTheme = primaryTheme.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !out.primaryTheme.isEmpty, out.primaryTheme.count <= 80 else { throw InvalidAnswer("primaryTheme must be 1–80 characters") }
        // Numbers outside their range are clamped into it: servers whose grammar can't bound a
        // number (llama.cpp's) let small models write a confidence of 85 or 1e15, and the rest
        // of the analysis is still worth keeping. Only a number that isn't one is invalid.
        guard sentimentScore.isFinite else { throw InvalidAnswer("sentimentScore must be a number between -1 and 1") }
        out.sentimentScore = min(max(sentimentScore, -1), 1)
        for concept in concepts {
            guard concept.confidence.isFinite else { throw InvalidAnswer("a concept's confidence must be a number between 0 and 1") }
        }
        // Up to twice the bound here: what is copied from the prompt goes next (`withoutInstructionWords`), then the bound.
        let names = Self.distinct(concepts.map(\.name), limit: Self.maxConcepts * 2)
        out.concepts = names.compactMap { name in
            concepts.first { $0.name.trimmingCharacters(in: .whitespacesAndNewlines) == name }
                .map { Concept(name: name, confidence: min(max($0.confidence, 0), 1)) }
        }
        out.secondaryThemes = Self.distinct(secondaryThemes, limit: Self.maxSecondaryThemes * 2, excluding: [out.primaryTheme.lowercased()])
        out.emotionalTone = String(emotionalTone.trimmingCharacters(in: .whitespacesAndNewlines).prefix(40))
        // Up to twice the bound, as for concepts: what is copied from the prompt goes next.
        out.people = Self.distinct(people, limit: Self.maxNames * 2)
        out.places = Self.distinct(places, limit: Self.maxNames * 2)
        return out
    }
}

/// A note's analysis asked without its people and places: for a note that names nobody and
/// nowhere (`ProperNames.any(in:)` finds no name in it), so the model isn't asked to write lists
/// Selene would empty (#85). Whatever people or places an answer has anyway are dropped.
public struct AnalysisWithoutNames: StructuredAnswer {
    public var value: NoteAnalysis

    public init(value: NoteAnalysis) {
        self.value = value
        self.value.people = []
        self.value.places = []
    }

    public init(from decoder: any Decoder) throws { self.init(value: try NoteAnalysis(from: decoder)) }

    public static var jsonSchema: JSONValue { NoteAnalysis.schema(askingNames: false) }

    public func validated() throws -> AnalysisWithoutNames { AnalysisWithoutNames(value: try value.validated()) }
}

/// A new thread's name and summary, from the LLM.
public struct ThreadNaming: StructuredAnswer, Codable, Hashable {
    public var name: String
    public var summary: String

    public init(name: String, summary: String) { self.name = name; self.summary = summary }

    public static var jsonSchema: JSONValue {
        Schema.object(["name": Schema.string(maxLength: 60), "summary": Schema.string(maxLength: 400)])
    }

    public func validated() throws -> ThreadNaming {
        let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'#*")))
        let summary = self.summary.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 60, SeleneText.problem(name, max: 60, lineBreaks: false) == nil else {
            throw InvalidAnswer("the thread name must be one line of 1–60 characters")
        }
        guard !summary.isEmpty else { throw InvalidAnswer("the summary must not be empty") }
        return ThreadNaming(name: name, summary: String(summary.prefix(400)))
    }
}
