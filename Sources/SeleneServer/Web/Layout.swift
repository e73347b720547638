import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// What every page needs besides its own data.
struct PageContext {
    var csrf: String
    var flash: String?
    /// How the Speak buttons listen (the person's choice, off until they make one).
    var voice: VoiceMode = .off
}

/// Dictation: off by default. `browser` is the browser's own recognition, which may send the
/// audio to its vendor (Chrome: Google); `server` records the audio and sends it to this
/// server's local speech-to-text (SELENE_STT_URL), so it stays on the person's machine.
enum VoiceMode: String, CaseIterable, Sendable {
    case off, browser, server

    static let cookie = "selene_voice"

    /// The mode a request asks for, if the server can honour it.
    static func of(_ req: Request) -> VoiceMode {
        let chosen = req.cookies[cookie].flatMap { VoiceMode(rawValue: $0.string) } ?? VoiceMode.off
        return chosen == .server && req.selene.speech == nil ? .off : chosen
    }
}

/// The four tabs of the phone app.
enum Tab: String, CaseIterable {
    case chat, threads, briefing, more

    var title: String {
        switch self {
        case .chat: "Chat"
        case .threads: "Threads"
        case .briefing: "Briefing"
        case .more: "More"
        }
    }

    var url: SiteURL {
        switch self {
        case .chat: .chat
        case .threads: .threads
        case .briefing: .briefing
        case .more: .more
        }
    }

    var icon: String {
        switch self {
        case .chat: "M4 5h16v11H8l-4 4z"
        case .threads: "M5 6h14M5 12h10M5 18h6"
        case .briefing: "M12 3a6 6 0 1 0 6 9 7 7 0 1 1-6-9z"
        case .more: "M5 12h.01M12 12h.01M19 12h.01"
        }
    }
}

enum Layout {
    /// A signed-in page: tab bar at the bottom on phones, a sidebar from 768 px up.
    static func page(_ title: String, tab: Tab?, context: PageContext, _ content: Node...) -> Node {
        document(title, body: group([
            el("a", ["class": "skip", "href": "#main"], text("Skip to content")),
            el("div", ["class": "shell"],
               el("nav", ["class": "sidebar", "aria-label": "Sections"],
                  children: [el("div", ["class": "brand"], moon(), text("Selene"))] + tabs(tab)),
               // The token the script sends a note kept while Selene couldn't be reached with,
               // from whatever page is open when it answers again.
               el("main", ["id": "main", "data-csrf": context.csrf],
                  children: [context.flash.map { el("p", ["class": "flash", "role": "status"], text($0)) } ?? nothing] + content)),
            el("nav", ["class": "tabbar", "aria-label": "Sections"], children: tabs(tab)),
        ]))
    }

    static func tabs(_ current: Tab?) -> [Node] {
        Tab.allCases.map { tab in
            el("a", ["href": tab.url.path, "aria-current": tab == current ? "page" : nil],
               .raw("<svg aria-hidden=\"true\" viewBox=\"0 0 24 24\" width=\"24\" height=\"24\"><path d=\"\(tab.icon)\"/></svg>"),
               el("span", [:], text(tab.title)))
        }
    }

    static let micIcon = Node.raw("<svg aria-hidden=\"true\" class=\"icon\" viewBox=\"0 0 24 24\" width=\"20\" height=\"20\"><path d=\"M12 3a3 3 0 0 0-3 3v6a3 3 0 0 0 6 0V6a3 3 0 0 0-3-3zM5 11a7 7 0 0 0 14 0M12 18v3\"/></svg>")

    static func moon() -> Node {
        .raw("<svg aria-hidden=\"true\" class=\"moon\" viewBox=\"0 0 24 24\" width=\"28\" height=\"28\"><path d=\"M14 3a8 8 0 1 0 7 11A7 7 0 0 1 14 3z\"/></svg>")
    }

    static let head = DocumentHead(
        app: "Selene", themeColor: "#1D2138", stylesheet: SiteURL.stylesheet.path, script: SiteURL.script.path,
        manifest: SiteURL.manifest.path, icon: SiteURL.icon.path, iconSVG: PWA.icon, resizesWithKeyboard: true)

    static func document(_ title: String, body: Node) -> Node { ServerCommon.document(title, head: head, body: body) }

    /// A form that changes something: POST, with the CSRF token.
    static func form(_ action: String, context: PageContext, cls: String = "stack", attrs extra: Attrs = [:], _ children: Node...) -> Node {
        var attrs: [(String, String)] = [("method", "post"), ("action", action), ("class", cls)]
        for (k, v) in extra { if let v { attrs.append((k, v)) } }
        return .element("form", attrs, [void("input", ["type": "hidden", "name": BrowserSession.csrfField, "value": context.csrf])] + children)
    }

    static func button(_ label: String, cls: String = "button", confirm: String? = nil, name: String? = nil, value: String? = nil) -> Node {
        el("button", ["type": "submit", "class": cls, "data-confirm": confirm, "name": name, "value": value], text(label))
    }

    static func empty(_ title: String, _ message: String) -> Node {
        el("div", ["class": "empty card"], el("h2", [:], text(title)), el("p", ["class": "muted"], text(message)))
    }

    static func day(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "d MMM yyyy"
        return f.string(from: date)
    }

    static func time(_ date: Date) -> Node {
        el("time", ["datetime": WireDate.string(from: date)], text(day(date)))
    }

    /// When a chat message was written (`clock`: its hour and minute) or a conversation last
    /// spoke (`date`), as UTC in the page; selene.js shows it in the reader's own time zone
    /// (`data-local`), "Today"/"Yesterday" for a recent conversation.
    static func moment(_ date: Date, _ kind: MomentKind) -> Node {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = kind == .clock ? "HH:mm 'UTC'" : kind == .date ? "d MMM yyyy" : "d MMM yyyy, HH:mm:ss 'UTC'"
        return el("time", ["class": "when", "datetime": WireDate.string(from: date), "data-local": kind.rawValue], text(f.string(from: date)))
    }

    /// `full`: the day and the time to the second (a ledger's entry, a decision).
    enum MomentKind: String { case clock = "time", date, full }

    /// A note in a list: its title (a link), its first words, its theme and date.
    /// A task with its tick box; `back` says where ticking returns to (`tasks` or `thread`).
    static func taskRow(_ task: ThreadTask, back: String, context: PageContext, meta: Node = nothing) -> Node {
        el("li", ["class": task.status == .done ? "row done" : "row"],
           form(SiteURL.task(String(task.id)).path, context: context, cls: "inline",
                void("input", ["type": "hidden", "name": "status", "value": task.status == .done ? "open" : "done"]),
                void("input", ["type": "hidden", "name": "back", "value": back]),
                button(task.status == .done ? "↺" : "✓", cls: "button quiet")),
           el("span", [:], text(task.title)),
           meta)
    }

    /// The Speak button for a text box; the script shows it when the chosen mode can work here.
    static func mic(for box: String, label: String, context: PageContext) -> Node {
        el("button", ["type": "button", "class": "button quiet mic", "data-for": box, "data-voice": context.voice.rawValue,
                      "data-transcribe": context.voice == .server ? SiteURL.transcribe.path : nil, "hidden": "hidden", "aria-label": label,
                      "title": context.voice == .browser ? "Your browser's speech recognition may send the audio to its vendor" : nil],
           micIcon, text("Speak"))
    }

    static func noteRow(_ note: Note, extra: Node = nothing) -> Node {
        el("li", ["class": "row"],
           el("a", ["href": SiteURL.note(String(note.id)).path, "class": "title"], text(note.displayTitle)),
           excerpt(note),
           el("p", ["class": "meta"], time(note.createdAt),
              note.analysis.map { el("span", ["class": "chip"], text($0.primaryTheme)) } ?? nothing,
              note.threadName.map { name in el("a", ["class": "chip", "href": SiteURL.thread(String(note.threadId ?? 0)).path], text(name)) } ?? nothing,
              note.status == .done ? nothing : el("span", ["class": "chip status-\(note.status.rawValue)"], text(note.status.rawValue)),
              extra))
    }

    /// The note's words after its title (nothing when the title is all there is).
    static func excerpt(_ note: Note) -> Node {
        var body = note.content.trimmingCharacters(in: .whitespacesAndNewlines)
        if note.title == nil || note.title?.isEmpty == true {
            let lines = body.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: true)
            body = lines.count > 1 ? String(lines[1]) : ""
        }
        guard !body.isEmpty else { return nothing }
        return el("p", ["class": "excerpt"], text(TokenBudget.truncate(body.replacingOccurrences(of: "\n", with: " "), toTokens: 40)))
    }

    /// An answer's text with its citations as links to the notes.
    static func answer(_ segments: [ParsedAnswer.Segment]) -> Node {
        el("div", ["class": "answer"], children: segments.map { segment in
            switch segment {
            case .text(let t): text(t)
            case .citation(let c) where c.bySelene:
                // Matched by Selene after the answer, not cited by the model: shown apart and said so.
                el("a", ["class": "cite by-selene", "href": SiteURL.note(String(c.noteId)).path, "data-cited-by": "selene",
                         "title": "\(c.title) — matched by Selene, not cited by the model"], text("[\(c.number)]"))
            case .citation(let c): el("a", ["class": "cite", "href": SiteURL.note(String(c.noteId)).path, "data-cited-by": "model", "title": c.title],
                                      text("[\(c.number)]"))
            }
        })
    }

    /// A message of a conversation; a whole answer offers "Remember this" (the Memories page's
    /// form, filled with its words).
    static func message(_ message: ChatMessage, titles: [Int64: String], session: UUID? = nil) -> Node {
        let remember = session.map { id -> Node in
            guard message.role == .assistant, !message.isIncomplete else { return nothing }
            let query = ["session": id.uuidString.lowercased(), "message": message.id.uuidString.lowercased()]
            return el("a", ["class": "remember", "href": SiteURL.memories.path(query: query)], text("Remember this"))
        } ?? nothing
        return el("li", ["class": "message \(message.role.rawValue)\(message.isIncomplete ? " incomplete" : "")"],
           el("span", ["class": "who"], text(message.role == .user ? "You" : "Selene"), text(" "), moment(message.createdAt, .clock)),
           message.role == .assistant ? answer(CitationParser.segments(of: message, titles: titles)) : el("div", ["class": "answer"], text(message.content)),
           message.isIncomplete ? el("p", ["class": "cut-off notice"], text("This answer was cut off before the end. Ask again for a whole one.")) : remember)
    }
}
