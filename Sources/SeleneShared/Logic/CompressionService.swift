import Foundation

/// Keeps a long chat within the model's reach: once a session has more than `threshold`
/// messages beyond its summary, everything but the last `keepRecent` is summarised by the LLM
/// into the session's summary (folding in the summary before), the session becomes
/// `compressed`, and `compressedAt` marks which messages the summary covers. The messages stay
/// in the session for reading; prompts use the summary and the recent ones.
public struct CompressionService: Sendable {
    public let llm: any LLMProvider
    public var threshold: Int
    public var keepRecent: Int

    public init(llm: any LLMProvider, threshold: Int = 16, keepRecent: Int = 6) {
        self.llm = llm
        self.threshold = threshold
        self.keepRecent = keepRecent
    }

    /// Messages not yet covered by the summary; a cut-off answer is never one of them (neither
    /// the prompt nor a summary takes it for what Selene said).
    public static func uncovered(_ session: ChatSession) -> [ChatMessage] {
        let whole = session.messages.filter { !$0.isIncomplete }
        guard let at = session.compressedAt else { return whole }
        return whole.filter { $0.createdAt > at }
    }

    public func needsCompression(_ session: ChatSession) -> Bool {
        Self.uncovered(session).count > threshold
    }

    /// What a prompt gets of the conversation: the summary and the messages after it (at most
    /// the last `keepRecent` plus what arrived since the last compression).
    public func promptHistory(_ session: ChatSession) -> (summary: String?, messages: [ChatMessage]) {
        let recent = Self.uncovered(session)
        return (session.compressionState == .compressed ? session.summary : nil, Array(recent.suffix(max(keepRecent, threshold))))
    }

    /// The session compressed if it needs it (unchanged otherwise).
    public func compressIfNeeded(_ session: ChatSession, now: Date) async throws -> ChatSession {
        guard needsCompression(session) else { return session }
        let uncovered = Self.uncovered(session)
        let folding = Array(uncovered.dropLast(keepRecent))
        guard let lastFolded = folding.last else { return session }
        let summary = try await llm.generate(PromptBuilder.compression(previousSummary: session.summary, messages: folding), system: nil)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !summary.isEmpty else { return session }
        var out = session
        out.summary = summary
        out.compressionState = .compressed
        out.compressedAt = lastFolded.createdAt
        out.updatedAt = max(session.updatedAt, now)
        return out
    }
}
