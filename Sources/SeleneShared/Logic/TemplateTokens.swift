import Foundation

/// The chat templates' own tokens — turn markers (`<|im_start|>`, `<start_of_turn>`), ends of
/// turn and text (`<|im_end|>`, `<end_of_turn>`, `</s>`, `<|endoftext|>`) and other specials
/// (`<start_of_image>`, `<bos>`, `<pad>`) — which a model's server should hide but small models
/// and some templates let through. None of them may reach a person, a stored message, an analysis
/// or a briefing. A turn marker after some answer means the model went on to write another turn:
/// the answer ends there. Anywhere else a token is removed (a leading turn marker with its role
/// word, "<|im_start|>assistant").
public enum TemplateTokens {
    /// What the backends send as stop sequences, so the server stops at a turn change itself
    /// (four: the most OpenAI's API accepts).
    public static let stopSequences = ["<|im_end|>", "<|im_start|>", "<end_of_turn>", "<start_of_turn>"]

    static let token = try! NSRegularExpression(
        pattern: #"<\|[A-Za-z_][A-Za-z0-9_]*\|>|<(?:start|end)_of_[a-z_]+>|</s>|<s>|<(?:bos|eos|pad|unk|mask)>|\[/?INST\]|<</?SYS>>|<unused\d+>"#)
    /// Tokens that start a new turn: with answer before them, the answer ends.
    static func endsAnswer(_ token: Substring) -> Bool {
        token.hasPrefix("<|im_") || token.hasPrefix("<start_of_turn") || token.hasPrefix("<end_of_turn") || token == "</s>"
            || token == "<eos>" || token == "<|endoftext|>" || token == "<|eot_id|>" || token == "<|end|>"
            || token == "<|start_header_id|>" || token == "[INST]"
    }
    static let roleWord = try! NSRegularExpression(pattern: #"^\s*(?:assistant|model|user|system)\b[ \t]*:?[ \t]*\n?"#, options: [.caseInsensitive])

    /// `text` without template tokens, and how many were taken out (a cut counts as one).
    public static func clean(_ text: String) -> (text: String, removed: Int) {
        let c = cleaned(text)
        return (c.text, c.removed)
    }

    /// `clean`, and whether the answer was cut at a turn change.
    static func cleaned(_ text: String) -> (text: String, removed: Int, cut: Bool) {
        let matches = token.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return (text, 0, false) }
        var out = ""
        var cursor = text.startIndex
        var removed = 0
        for match in matches {
            guard let range = Range(match.range, in: text), range.lowerBound >= cursor else { continue }
            out += text[cursor..<range.lowerBound]
            removed += 1
            let found = text[range]
            if endsAnswer(found), !out.allSatisfy(\.isWhitespace) { return (out, removed, true) }
            cursor = range.upperBound
            if endsAnswer(found) {
                // A turn opened before any answer: skip the role word that names it.
                let rest = NSRange(cursor..., in: text)
                if let role = roleWord.firstMatch(in: text, range: rest), let r = Range(role.range, in: text) { cursor = r.upperBound }
            }
        }
        out += text[cursor...]
        return (out, removed, false)
    }

    /// Cleans a streamed answer piece by piece: a piece that ends in what could be the start of a
    /// token ("<|im_") is held back until the next shows what it is; after a turn change the rest
    /// is dropped. `finish()` gives what was held back.
    public struct StreamFilter: Sendable {
        private var raw = ""
        private var pending = ""
        private var sent = 0
        public private(set) var removed = 0
        public private(set) var ended = false

        public init() {}

        /// The longest a token can be; a `<` further back than this is plain text.
        static let longest = 32

        public mutating func feed(_ piece: String) -> String {
            guard !ended else { return "" }
            pending += piece
            // Hold back from the last '<' or '[' that has no closing '>' or ']' after it.
            var keepFrom = pending.endIndex
            if let open = pending.lastIndex(where: { $0 == "<" || $0 == "[" }),
               !pending[open...].contains(where: { $0 == ">" || $0 == "]" }),
               pending.distance(from: open, to: pending.endIndex) < Self.longest {
                keepFrom = open
            }
            let ready = String(pending[..<keepFrom])
            pending = String(pending[keepFrom...])
            return release(ready)
        }

        public mutating func finish() -> String {
            guard !ended else { return "" }
            let rest = pending
            pending = ""
            return release(rest)
        }

        /// Everything so far is cleaned as one text (so a leading turn marker is told from a
        /// later one), and what it adds to what was already passed on goes out.
        private mutating func release(_ text: String) -> String {
            guard !text.isEmpty else { return "" }
            raw += text
            let c = TemplateTokens.cleaned(raw)
            removed = c.removed
            ended = c.cut
            let out = c.text.count > sent ? String(c.text.dropFirst(sent)) : ""
            sent = max(sent, c.text.count)
            return out
        }
    }
}
