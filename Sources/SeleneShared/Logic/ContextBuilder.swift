import Foundation

/// The notes and memories that go into a chat prompt, numbered for citation, within a token
/// budget: memories first (they are short), then notes in the order given (best first), each
/// cut to `perNoteTokens`; a note that doesn't fit any more is left out and counted.
public struct ChatContext: Sendable, Hashable {
    /// The text placed in the prompt.
    public var text: String
    /// The notes by the number they carry in `text` (1-based).
    public var notes: [Int: Note]
    public var memories: [Memory]
    /// Notes offered that didn't fit the budget.
    public var omitted: Int
    public var estimatedTokens: Int { TokenBudget.estimate(text) }

    public static let empty = ChatContext(text: "", notes: [:], memories: [], omitted: 0)
}

public struct ContextBuilder: Sendable {
    public var budget: Int
    public var perNoteTokens: Int

    public init(budget: Int = 3000, perNoteTokens: Int = 350) {
        self.budget = budget
        self.perNoteTokens = perNoteTokens
    }

    public func build(notes: [Note], memories: [Memory] = [], extra: String? = nil) -> ChatContext {
        var lines: [String] = []
        var used = 0
        if let extra, !extra.isEmpty {
            let cut = TokenBudget.truncate(extra, toTokens: budget / 4)
            lines.append(cut)
            used += TokenBudget.estimate(cut)
        }
        var kept: [Memory] = []
        if !memories.isEmpty {
            var block = [PromptMarkers.memoriesHeader]
            for memory in memories {
                let line = "- \(memory.content)"
                guard used + TokenBudget.estimate(line) <= budget / 4 else { break }
                block.append(line)
                used += TokenBudget.estimate(line)
                kept.append(memory)
            }
            if kept.count > 0 { lines.append(block.joined(separator: "\n")) }
        }
        var numbered: [Int: Note] = [:]
        var omitted = 0
        if !notes.isEmpty {
            var block = [PromptMarkers.contextHeader]
            for note in notes {
                let body = TokenBudget.truncate(note.content.replacingOccurrences(of: "\n", with: " "), toTokens: perNoteTokens)
                let number = numbered.count + 1
                let line = "[\(number)] \(note.displayTitle) — \(WireDate.day(of: note.createdAt)) — \(body)"
                if used + TokenBudget.estimate(line) > budget {
                    omitted += 1
                    continue
                }
                numbered[number] = note
                block.append(line)
                used += TokenBudget.estimate(line)
            }
            if !numbered.isEmpty { lines.append(block.joined(separator: "\n")) }
        }
        return ChatContext(text: lines.joined(separator: "\n\n"), notes: numbered, memories: kept, omitted: omitted)
    }
}
