import Foundation
import SeleneShared
import ServerCommon

/// Chat: a conversation with its list of conversations, the composer, a streamed answer's final form.
extension Pages {
    struct ChatPage {
        var sessions: [ChatSession]
        var session: ChatSession
        var titles: [Int64: String]
        var draft = ""
        var unavailable: String?
        var foundNotes: [Note] = []
        var error: String?
        /// What the conversation is about (a briefing card) and the notes it starts from.
        var about: String?
        var focus: [Note] = []
        /// The hosted model waits for the person's yes (`hostedNotice`).
        var hostedWaiting = false
    }

    static func chat(_ page: ChatPage, context: PageContext) -> Node {
        let id = page.session.id.uuidString.lowercased()
        return Layout.page("Chat", tab: .chat, context: context,
            el("div", ["class": "chat"],
               el("section", ["class": "sessions", "aria-label": "Conversations"],
                  el("div", ["class": "actions"], el("h1", [:], text("Chat")),
                     Layout.form(SiteURL.newSession.path, context: context, cls: "inline", Layout.button("New chat", cls: "button quiet"))),
                  // On a phone the list folds away (a line, not the top third of the screen); wide, it is open beside.
                  el("details", ["class": "session-list", "data-open-wide": "true"],
                     el("summary", [:], text("Conversations (\(page.sessions.count))")),
                     el("div", ["id": "sessions"], page.sessions.isEmpty ? el("p", ["class": "muted"], text("No conversations yet.")) :
                       el("ul", ["class": "list"], children: page.sessions.map { s in sessionRow(s, current: s.id == page.session.id, context: context) })))),
               el("section", ["aria-label": "Conversation"],
                  el("h2", ["id": "conversation-title"], text(page.session.title)),
                  aboutBox(page),
                  page.hostedWaiting ? hostedNotice : nothing,
                  conversation(page.session, titles: page.titles),
                  unavailableBox(page.unavailable, notes: page.foundNotes),
                  askForm(action: SiteURL.ask(id).path, stream: SiteURL.stream(id).path, draft: page.draft, error: page.error,
                          placeholder: "Ask about your notes…", context: context,
                          hidden: page.focus.isEmpty ? nothing
                              : void("input", ["type": "hidden", "name": "context", "value": page.focus.map { String($0.id) }.joined(separator: ",")])))))
    }

    /// The notes a conversation started from a briefing card is about (each question sees them first).
    static func aboutBox(_ page: ChatPage) -> Node {
        guard !page.focus.isEmpty else { return nothing }
        return el("details", ["class": "card about", "open": page.session.messages.isEmpty ? "open" : nil],
                  el("summary", [:], text("About: \(page.about ?? "notes from your briefing") (\(page.focus.count) \(page.focus.count == 1 ? "note" : "notes"))")),
                  el("ul", ["class": "list"], children: page.focus.map { Layout.noteRow($0) }))
    }

    static func sessionRow(_ s: ChatSession, current: Bool, context: PageContext) -> Node {
        let id = s.id.uuidString.lowercased()
        return el("li", ["class": current ? "row current" : "row"],
                  el("a", ["href": SiteURL.session(id).path, "aria-current": current ? "true" : nil],
                     s.isPinned ? el("span", ["class": "chip pinned"], text("Pinned")) : nothing, text(s.title)),
                  Layout.moment(s.updatedAt, .date),
                  Layout.form(SiteURL.pin(id).path, context: context, cls: "inline",
                              void("input", ["type": "hidden", "name": "pinned", "value": s.isPinned ? "false" : "true"]),
                              Layout.button(s.isPinned ? "Unpin" : "Pin", cls: "button quiet")),
                  Layout.form(SiteURL.deleteSession(id).path, context: context, cls: "inline",
                              Layout.button("Delete", cls: "button danger", confirm: "Delete this conversation?")))
    }

    static func conversation(_ session: ChatSession, titles: [Int64: String]) -> Node {
        el("ol", ["class": "conversation", "id": "conversation"], children: session.messages.map { Layout.message($0, titles: titles, session: session.id) })
    }

    /// What the LLM couldn't answer: said plainly, with the notes that match.
    static func unavailableBox(_ message: String?, notes: [Note]) -> Node {
        guard let message else { return nothing }
        return el("div", ["class": "card unavailable", "role": "status"],
                  el("p", [:], text(message)),
                  notes.isEmpty ? el("p", ["class": "muted"], text("No notes match either.")) : el("ul", ["class": "list"], children: notes.map { Layout.noteRow($0) }))
    }

    static func askForm(action: String, stream: String, draft: String, error: String?, placeholder: String, context: PageContext,
                        hidden: Node = nothing) -> Node {
        group([
            el("p", ["class": "progress", "id": "progress", "aria-live": "polite"]),
            // The composer, as messaging apps have it: one line that grows with its text, the send
            // button beside it, kept above the tab bar (and the keyboard) while the conversation scrolls.
            Layout.form(action, context: context, cls: "ask composer", attrs: ["data-stream": stream],
                error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
                hidden,
                el("div", ["class": "composer-row"],
                   el("label", ["for": "question", "class": "grow"], el("span", ["class": "visually-hidden"], text("Your question")),
                      el("textarea", ["id": "question", "name": "question", "rows": "1", "placeholder": placeholder, "required": "required",
                                      "enterkeyhint": "send"], text(draft))),
                   Layout.mic(for: "question", label: "Speak your question", context: context),
                   Layout.button("Ask"))),
        ])
    }

    /// One streamed answer's final form (sent as the `done` event's HTML).
    static func answered(_ message: ChatMessage, titles: [Int64: String], session: UUID?) -> Node {
        Layout.message(message, titles: titles, session: session)
    }
}
