import Foundation

/// A note an answer cites.
public struct Citation: Sendable, Hashable {
    /// The number it carries in the shown answer (1-based, in order of first citation).
    public var number: Int
    public var noteId: Int64
    public var title: String
    /// Selene matched the sentence to this note after the answer (`CitationAttribution`); the
    /// model did not cite it.
    public var bySelene: Bool = false
}

/// An answer with its citations resolved: the text (its markers renumbered 1, 2, … in order of
/// first citation) and, for each number, the note. A cited number that wasn't in the context is
/// dropped from the text, never shown as a link.
public struct ParsedAnswer: Sendable, Hashable {
    /// A piece of an answer: text, or a citation of a note.
    public enum Segment: Sendable, Hashable {
        case text(String)
        case citation(Citation)
    }

    public var text: String
    public var citations: [Citation]
    public var segments: [Segment]

    /// The note ids in number order, as stored on the message (`citedNoteIds`).
    public var citedNoteIds: [Int64] { citations.map(\.noteId) }
    /// Those of `citedNoteIds` that Selene added, not the model.
    public var seleneCitedNoteIds: [Int64] { citations.filter(\.bySelene).map(\.noteId) }
}

/// Finds the `[n]` citations in an answer and turns them into segments naming the notes.
public enum CitationParser {
    /// `[1]`, `[1, 3]`, `[1][2]`, `[Note 2]`, `[#4]`; not `[x]` checkboxes or `[text](links)`.
    static let marker = try! NSRegularExpression(pattern: #"\[(?:notes?\s*)?#?(\d{1,3}(?:\s*,\s*#?\d{1,3})*)\](?!\()"#, options: [.caseInsensitive])

    /// Splits an answer into text and the notes its `[n]` markers cite.
    /// - Parameters:
    ///   - answer: the answer's text, after the answer steps.
    ///   - context: the notes the prompt showed, by their context number.
    ///   - bySelene: context numbers whose citations Selene added (`CitationAttribution`).
    public static func parse(_ answer: String, context: [Int: Note], bySelene: Set<Int> = []) -> ParsedAnswer {
        var segments: [ParsedAnswer.Segment] = []
        var citations: [Citation] = []
        var numberOf: [Int: Int] = [:]
        var cursor = answer.startIndex
        var text = ""
        for match in marker.matches(in: answer, range: NSRange(answer.startIndex..., in: answer)) {
            guard let range = Range(match.range, in: answer), let inner = Range(match.range(at: 1), in: answer) else { continue }
            let before = String(answer[cursor..<range.lowerBound])
            let numbers = answer[inner].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: " #"))) }
            var valid: [Citation] = []
            for n in numbers {
                guard let note = context[n] else { continue }
                let shown: Int
                if let existing = numberOf[n] { shown = existing } else {
                    shown = citations.count + 1
                    numberOf[n] = shown
                    citations.append(Citation(number: shown, noteId: note.id, title: note.displayTitle, bySelene: bySelene.contains(n)))
                }
                let citation = citations[shown - 1]
                if !valid.contains(citation) { valid.append(citation) }
            }
            // A marker whose numbers are all unknown goes, with the space before it.
            var kept = before
            if valid.isEmpty, kept.hasSuffix(" ") { kept.removeLast() }
            if !kept.isEmpty { segments.append(.text(kept)); text += kept }
            for citation in valid {
                segments.append(.citation(citation))
                text += "[\(citation.number)]"
            }
            cursor = range.upperBound
        }
        let rest = String(answer[cursor...])
        if !rest.isEmpty { segments.append(.text(rest)); text += rest }
        return ParsedAnswer(text: text, citations: citations, segments: merge(segments))
    }

    /// Segments of a stored answer (its markers already numbered 1…n for `citedNoteIds`).
    public static func segments(of message: ChatMessage, titles: [Int64: String] = [:]) -> [ParsedAnswer.Segment] {
        let ids = message.citedNoteIds ?? []
        let selenes = Set(message.seleneCitedNoteIds ?? [])
        var context: [Int: Note] = [:]
        for (index, id) in ids.enumerated() {
            context[index + 1] = Note(id: id, title: titles[id] ?? "Note \(id)", content: "", createdAt: Date(timeIntervalSince1970: 0),
                                      source: .web, contentHash: "")
        }
        return parse(message.content, context: context,
                     bySelene: Set(ids.enumerated().filter { selenes.contains($0.element) }.map { $0.offset + 1 })).segments
    }

    private static func merge(_ segments: [ParsedAnswer.Segment]) -> [ParsedAnswer.Segment] {
        var out: [ParsedAnswer.Segment] = []
        for segment in segments {
            if case .text(let t) = segment, case .text(let previous)? = out.last {
                out[out.count - 1] = .text(previous + t)
            } else {
                out.append(segment)
            }
        }
        return out
    }
}
