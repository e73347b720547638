import Foundation

/// Phrases that open each kind of prompt. They make prompts recognisable in logs and let the
/// test suite's Ollama-protocol server answer each kind the way a model would.
public enum PromptMarkers {
    public static let memoryExtraction = "Extract durable memories"
    public static let compression = "Summarise the conversation so far"
    public static let briefing = "Write my morning briefing"
    public static let taskSuggestion = "Suggest next tasks"
    /// Notes in a chat prompt's context are lines `[n] Title: text (written 26 Nov 2026)`.
    public static let contextHeader = "Notes from my second brain:"
    public static let memoriesHeader = "What you remember about me:"
    /// Where a server can't be given a schema (`json_object` only), the system message carries it
    /// after this line.
    public static let jsonSchema = "Answer with one JSON object valid under this JSON Schema:"
}
