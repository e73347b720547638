import Foundation

/// Today's briefing with the old notes its new notes touch — read, or written again — as a plain
/// value: the server's pages use it as is, and the phone's `BriefingViewModel` wraps it.
public struct BriefingEngine: Sendable {
    /// A briefing and what it brings back.
    public struct Result: Sendable, Hashable {
        public var briefing: Briefing
        /// Old notes the briefing's new notes touch (at most five, each once).
        public var resurfaced: [Resurfacing.Suggestion]
        /// What the briefing points at, numbered, each leading to a conversation (`BriefingCards`).
        public var cards: [BriefingCard] { BriefingCards.cards(briefing, resurfaced: resurfaced) }
    }

    let data: any DataProvider
    let now: @Sendable () -> Date

    public init(data: any DataProvider, now: @escaping @Sendable () -> Date = { Date() }) {
        self.data = data
        self.now = now
    }

    /// Today's briefing (`regenerate`: written again first).
    public func load(regenerate: Bool = false) async throws -> Result {
        let briefing = regenerate ? try await data.regenerateBriefing() : try await data.briefing()
        var seen = Set<Int64>()
        var found: [Resurfacing.Suggestion] = []
        let resurfacing = Resurfacing(data: data)
        for note in briefing.notes.prefix(5) {
            for suggestion in (try? await resurfacing.suggestions(for: note, now: now())) ?? [] where seen.insert(suggestion.note.id).inserted {
                found.append(suggestion)
            }
        }
        return Result(briefing: briefing, resurfaced: Array(found.prefix(5)))
    }
}

/// Next tasks for a thread, from its notes: asked of the LLM, or — without it — the notes' own
/// action lines. The server's thread page uses it as is; `ThreadWorkspaceChatViewModel` wraps it.
public enum TaskSuggestions {
    /// Suggestions not already among `tasks`, and what to tell the person when the LLM couldn't help.
    public static func suggest(thread: ThreadDetail, tasks: [ThreadTask], llm: any LLMProvider) async -> (suggestions: [String], note: String?) {
        do {
            let prompt = PromptBuilder.taskSuggestions(thread: thread.thread, notes: thread.notes, openTasks: tasks.filter { $0.status == .open })
            return (PromptBuilder.parseTasks(try await llm.complete(prompt), existing: tasks), nil)
        } catch {
            let own = thread.notes.flatMap { ActionExtractor.actions(in: $0.content) }
                .filter { s in !tasks.contains { $0.title.lowercased() == s.lowercased() } }
            return (Array(own.prefix(5)), "Selene can't reach the LLM; these come from your notes' own to-dos.")
        }
    }
}
