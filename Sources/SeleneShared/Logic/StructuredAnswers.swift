import Foundation

/// An answer the LLM gives as JSON under a schema, checked before it is used: a wrong shape or
/// a value out of range is an invalid answer (asked again, then reported), never stored.
public protocol StructuredAnswer: Decodable, Sendable {
    static var jsonSchema: JSONValue { get }
    /// The answer tidied, or a sentence saying what is wrong with it.
    func validated() throws -> Self
}

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
    public static var jsonSchema: JSONValue {
        Schema.object([
            "concepts": Schema.array(Schema.object(["name": Schema.string(maxLength: 80), "confidence": Schema.number(0, 1)]), maxItems: 10),
            "primaryTheme": Schema.string(maxLength: 80),
            "secondaryThemes": Schema.array(Schema.string(maxLength: 80), maxItems: 5),
            "sentiment": Schema.enum(Sentiment.allowedValues),
            "sentimentScore": Schema.number(-1, 1),
            "emotionalTone": Schema.string(maxLength: 40),
            "energyLevel": Schema.enum(EnergyLevel.allowedValues),
            "noteType": Schema.enum(NoteType.allowedValues),
            "actionability": Schema.enum(Actionability.allowedValues),
        ])
    }

    public func validated() throws -> NoteAnalysis {
        var out = self
        out.primaryTheme = primaryTheme.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !out.primaryTheme.isEmpty, out.primaryTheme.count <= 80 else { throw InvalidAnswer("primaryTheme must be 1–80 characters") }
        // Numbers outside their range are clamped into it: servers whose grammar can't bound a
        // number (llama.cpp's) let small models write a confidence of 85 or 1e15, and the rest
        // of the analysis is still worth keeping. Only a number that isn't one is invalid.
        guard sentimentScore.isFinite else { throw InvalidAnswer("sentimentScore must be a number between -1 and 1") }
        out.sentimentScore = min(max(sentimentScore, -1), 1)
        guard concepts.count <= 20 else { throw InvalidAnswer("too many concepts") }
        for concept in concepts {
            guard concept.confidence.isFinite else { throw InvalidAnswer("a concept's confidence must be a number between 0 and 1") }
        }
        out.concepts = concepts.map { Concept(name: $0.name.trimmingCharacters(in: .whitespacesAndNewlines), confidence: min(max($0.confidence, 0), 1)) }
            .filter { !$0.name.isEmpty && $0.name.count <= 80 }
        out.secondaryThemes = secondaryThemes.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && $0.count <= 80 }.prefix(5).map { $0 }
        out.emotionalTone = String(emotionalTone.trimmingCharacters(in: .whitespacesAndNewlines).prefix(40))
        return out
    }
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
