import Foundation

/// The prompts the screens send: chat in its modes (plain, deep dive, synthesis, thinking
/// partner), the thread workspace, task suggestions, memory extraction, compression; the
/// briefing's is `BriefingContextBuilder`'s.
public enum PromptBuilder {
    /// Said right after the notes, in the last turn: a small model follows what is next to the
    /// question far better than a rule at the top of the system prompt.
    static let citationRule = """
        Answer from these notes only. After each sentence, put the number of the note it comes from \
        in square brackets, like [2]. If the notes don't answer the question, say so instead of guessing.
        """

    public static func system(for mode: QueryAnalysis.Mode, thread: NoteThread? = nil) -> String {
        let base = "You are Selene, a private thinking companion. You answer from the person's own notes and what you remember about them. "
        let style: String
        switch mode {
        case .chat: style = "Answer briefly and warmly, in plain text."
        case .deepDive: style = "Go deep: lay out everything the notes say about the subject, how it developed over time, and open questions."
        case .synthesis: style = "Connect ideas across the notes: name the patterns, tensions and links between threads, with the notes behind each."
        case .thinkingPartner: style = "Be a thinking partner: reflect back what the notes show, then ask one or two good questions. Don't decide for them."
        }
        var text = base + style
        if let thread {
            text += "\n\nThis conversation is about the thread \"\(thread.name)\": \(thread.summary) Stay within it."
        }
        return text
    }

    /// A chat turn: one system message (who Selene is, the mode, the thread, and the summary of
    /// the conversation so far as a paragraph of its own — some chat templates take only one
    /// system message), the recent messages, then the last turn: the notes, the citation rule
    /// beside them, and the question.
    public static func chat(question: String, context: ChatContext, summary: String?, history: [ChatMessage],
                            mode: QueryAnalysis.Mode, thread: NoteThread? = nil) -> [LLMMessage] {
        var system = system(for: mode, thread: thread)
        if let summary, !summary.isEmpty { system += "\n\n" + earlier + summary }
        var messages = [LLMMessage(role: .system, content: system)]
        for message in history where message.role != .system {
            messages.append(LLMMessage(role: message.role, content: message.content))
        }
        var body = ""
        if !context.notes.isEmpty {
            body += context.text + "\n\n" + citationRule + "\n\n"
        } else if !context.text.isEmpty {
            body += context.text + "\n\n"
        }
        body += "Question: \(question)"
        messages.append(LLMMessage(role: .user, content: body))
        return messages
    }

    /// Next tasks for a thread, one per line starting with "- ".
    public static func taskSuggestions(thread: NoteThread, notes: [Note], openTasks: [ThreadTask]) -> [LLMMessage] {
        let context = ContextBuilder(budget: 2000, perNoteTokens: 120).build(notes: notes)
        var prompt = "\(PromptMarkers.taskSuggestion) for the thread \"\(thread.name)\" (\(thread.summary)).\n\n\(context.text)\n\n"
        if !openTasks.isEmpty { prompt += "Already open:\n" + openTasks.map { "- \($0.title)" }.joined(separator: "\n") + "\n\n" }
        prompt += "Answer with at most five new, concrete tasks, one per line, each starting with \"- \"."
        return [LLMMessage(role: .system, content: "You turn a person's notes into small, concrete next steps."), LLMMessage(role: .user, content: prompt)]
    }

    static let earlier = "Earlier in this conversation: "

    /// What the person said before the question in a chat's messages: their earlier turns and
    /// the conversation's summary (an answer may take a figure from them).
    public static func earlierWords(in messages: [LLMMessage]) -> String {
        let summary = messages.first { $0.role == .system }?.content.components(separatedBy: earlier).dropFirst().joined(separator: " ") ?? ""
        return (messages.dropLast().filter { $0.role == .user }.map(\.content) + [summary]).joined(separator: "\n")
    }

    /// "- task" lines of an answer, cleaned, without the ones already open.
    public static func parseTasks(_ answer: String, existing: [ThreadTask] = []) -> [String] {
        let open = Set(existing.map { $0.title.lowercased() })
        var seen = Set<String>()
        return answer.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard let first = t.first, "-*•".contains(first) || t.first?.isNumber == true else { return nil }
            let text = t.drop { "-*•0123456789.) ".contains($0) }.trimmingCharacters(in: .whitespaces)
            guard text.count >= 3, text.count <= 200, !open.contains(text.lowercased()), seen.insert(text.lowercased()).inserted else { return nil }
            return text
        }.prefix(5).map { $0 }
    }

    /// Memory extraction from an exchange (`MemoryService`).
    public static func memoryExtraction(_ exchange: [ChatMessage], known: [Memory]) -> String {
        var prompt = """
            \(PromptMarkers.memoryExtraction) from this conversation: lasting facts about me, my preferences and my \
            patterns, each with your confidence from 0 to 1. Leave out passing remarks and anything about the notes \
            themselves. Answer only with JSON: {"memories": [{"content": "...", "type": "fact|preference|pattern|context", "confidence": 0.8}]}

            """
        if !known.isEmpty { prompt += "Already remembered:\n" + known.prefix(20).map { "- \($0.content)" }.joined(separator: "\n") + "\n\n" }
        prompt += "Conversation:\n" + exchange.map { "\($0.role.rawValue): \($0.content)" }.joined(separator: "\n")
        return prompt
    }

    /// Compression of a long conversation (`CompressionService`).
    public static func compression(previousSummary: String?, messages: [ChatMessage]) -> String {
        var prompt = "\(PromptMarkers.compression), in a short paragraph that keeps every fact, decision and open question, so we can go on without the full text.\n\n"
        if let previousSummary, !previousSummary.isEmpty { prompt += "Summary so far: \(previousSummary)\n\n" }
        prompt += "Conversation:\n" + messages.map { "\($0.role.rawValue): \($0.content)" }.joined(separator: "\n")
        return prompt
    }
}
