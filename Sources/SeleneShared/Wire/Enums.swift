import Foundation

/// The closed sets of SELENE.md §2. An unknown value is refused (400) on the way in, so every
/// stored value is one of these.
public protocol WireEnum: RawRepresentable, Codable, CaseIterable, Sendable, Hashable where RawValue == String {}

extension WireEnum {
    /// The accepted values, for error messages and the OpenAPI document.
    public static var allowedValues: [String] { allCases.map(\.rawValue) }
}

public enum NoteSource: String, WireEnum { case drafts, web, cli, `import` }

public enum ProcessingStatus: String, WireEnum { case pending, processing, done, failed }

public enum Sentiment: String, WireEnum { case positive, neutral, negative, mixed }

public enum EnergyLevel: String, WireEnum { case low, medium, high }

public enum NoteType: String, WireEnum { case idea, task, reflection, question, reference, log }

public enum Actionability: String, WireEnum { case actionable, someday, none }

public enum ThreadStatus: String, WireEnum { case active, dormant, archived }

public enum TaskStatus: String, WireEnum { case open, done }

public enum CompressionState: String, WireEnum { case full, compressed }

public enum MessageRole: String, WireEnum { case user, assistant, system }

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
