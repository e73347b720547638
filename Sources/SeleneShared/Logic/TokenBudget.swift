import Foundation

/// Token counts estimated without a tokenizer: about four characters per token for English
/// (the rule of thumb of OpenAI's and Llama's tokenizers), rounded up. Context is built well
/// within the model's window, so an estimate is enough.
public enum TokenBudget {
    public static func estimate(_ text: String) -> Int { (text.count + 3) / 4 }

    /// The text cut to about `tokens` tokens at a word boundary, with "…" when cut.
    public static func truncate(_ text: String, toTokens tokens: Int) -> String {
        let maxCharacters = max(0, tokens * 4)
        guard text.count > maxCharacters else { return text }
        let cut = text.prefix(maxCharacters)
        let boundary = cut.lastIndex(where: { $0.isWhitespace }) ?? cut.endIndex
        return String(cut[..<boundary]).trimmingCharacters(in: .whitespacesAndNewlines) + "…"
    }
}
