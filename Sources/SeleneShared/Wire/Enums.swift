import Foundation

/// The closed sets of SELENE.md §2. An unknown value is refused (400) on the way in, so every
/// stored value is one of these.
public protocol WireEnum: RawRepresentable, Codable, CaseIterable, Sendable, Hashable where RawValue == String {}

extension WireEnum {
    /// The accepted values, for error messages and the OpenAPI document.
    public static var allowedValues: [String] { allCases.map(\.rawValue) }
}

/// Where a note came from.
public enum NoteSource: String, WireEnum { case drafts, web, cli, `import` }

/// Where a note is in the model queue.
public enum ProcessingStatus: String, WireEnum { case pending, processing, done, failed }

/// The feeling of a note, as the model reads it.
public enum Sentiment: String, WireEnum { case positive, neutral, negative, mixed }

/// The energy a note was written with, as the model reads it.
public enum EnergyLevel: String, WireEnum { case low, medium, high }

/// What kind of note it is, as the model reads it.
public enum NoteType: String, WireEnum { case idea, task, reflection, question, reference, log }

/// Whether a note asks for action now, some day, or not at all.
public enum Actionability: String, WireEnum { case actionable, someday, none }

/// Whether a thread is being added to, resting, or put away.
public enum ThreadStatus: String, WireEnum { case active, dormant, archived }

/// Whether a task is still open.
public enum TaskStatus: String, WireEnum { case open, done }

/// Whether a note is kept whole or as a summary of itself.
public enum CompressionState: String, WireEnum { case full, compressed }

/// Who wrote a chat message.
public enum MessageRole: String, WireEnum { case user, assistant, system }

/// What kind of thing a memory holds: a fact, a preference, a pattern, context.
public enum MemoryType: String, WireEnum { case fact, preference, pattern, context }

/// `web`: a browser's Web Push subscription (registered by the web app, its token the endpoint).
public enum DevicePlatform: String, WireEnum { case ios, macos, web }

/// Where a retrieval's ranking came from: full text only, or full text fused with vectors.
public enum RetrievalSource: String, WireEnum { case keyword, hybrid }

/// How a related note is related to the one asked about.
public enum RelationshipType: String, WireEnum {
    /// A stored association: the two notes' embeddings are similar.
    case association
    /// Both notes belong to the same thread.
    case thread
    /// They share words (full-text search), used when a note has no embedding yet.
    case keyword
}

/// Who wrote a briefing: the LLM, or Selene itself from the same data when no LLM answered.
public enum BriefingAuthor: String, WireEnum { case llm, extractive }
