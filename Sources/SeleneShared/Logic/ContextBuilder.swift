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
    /// What else the prompt says, as it was cut to fit (`build`'s `extra`: the thread, open tasks).
    public var extra: String = ""
    /// Notes offered that didn't fit the budget.
    public var omitted: Int
    public var estimatedTokens: Int { TokenBudget.estimate(text) }

    public static let empty = ChatContext(text: "", notes: [:], memories: [], omitted: 0)
}

/// Writes the notes and memories a chat answer may use into the prompt, within a token budget, and reads its own lines back.
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
        var shownExtra = ""
        if let extra, !extra.isEmpty {
            let cut = TokenBudget.truncate(extra, toTokens: budget / 4)
            shownExtra = cut
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
                let line = Self.line(number: number, title: note.title, body: body, createdAt: note.createdAt)
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
        return ChatContext(text: lines.joined(separator: "\n\n"), notes: numbered, memories: kept, extra: shownExtra, omitted: omitted)
    }

    /// A note as the model reads it: `[n] Title: text (written 26 Nov 2026)`, the title only when
    /// the note has one. The day comes last and in words: with `[n] title — 2026-11-26 — text` a
    /// small model began its answer with the date and repeated it to the token limit (SmolLM2-135M
    /// held the fact in 10 of 20 tuning questions of `Benchmarks/selene-answers` that way, 15 with
    /// this line; README, "What Selene does about a small model's answers").
    static func line(number: Int, title: String?, body: String, createdAt: Date) -> String {
        let title = title.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        return "[\(number)] \(title.isEmpty ? "" : title + ": ")\(body) (written \(Self.writtenOn(createdAt)))"
    }

    /// A context line copied back into an answer (`line`'s format, read back here beside where
    /// it is written): `[n] Title: text (written 26 Nov 2026)`, perhaps numbered as a list item;
    /// its number and what follows the marker, trimmed.
    static func copiedLine(_ line: String) -> (number: Int, body: String)? {
        guard let m = copiedLinePattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
              let nr = Range(m.range(at: 1), in: line), let n = Int(line[nr]), let rest = Range(m.range(at: 2), in: line) else { return nil }
        return (n, String(line[rest]).trimmingCharacters(in: .whitespaces))
    }

    static let copiedLinePattern = try! NSRegularExpression(pattern: #"^\s*(?:\d+[.)]\s*)?\[(\d{1,3})\]\s*(.*?)\s*\(written\b[^)]*\)?\s*$"#)

    /// `text` without a context line's day copied (or cut off) anywhere in it: " (written 26 Nov 2026)".
    static func withoutCopiedDay(_ text: String) -> String {
        copiedDay.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
    }

    static let copiedDay = try! NSRegularExpression(pattern: #"\s*\(written(?:\s+\d{1,2}(?:\s+[A-Z][a-z]{2}(?:\s+\d{0,4})?)?)?\)?"#)

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `26 Nov 2026` (the day in UTC, as `WireDate.day`).
    static func writtenOn(_ date: Date) -> String {
        let day = utc.dateComponents([.year, .month, .day], from: date)
        guard let year = day.year, let month = day.month, let dayOfMonth = day.day, months.indices.contains(month - 1) else { return WireDate.day(of: date) }
        return "\(dayOfMonth) \(months[month - 1]) \(year)"
    }
}
