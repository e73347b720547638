import Foundation
import SeleneShared
import ServerCommon

/// Threads: the list by momentum, and a thread with its notes, tasks and own conversation.
extension Pages {
    static func threads(_ list: [NoteThread], status: ThreadStatus, context: PageContext) -> Node {
        Layout.page("Threads", tab: .threads, context: context,
            el("h1", [:], text("Threads")),
            el("nav", ["class": "actions", "aria-label": "Thread status"], children: ThreadStatus.allCases.map { s in
                el("a", ["class": s == status ? "button" : "button quiet", "href": s == .active ? SiteURL.threads.path : SiteURL.threads.path(query: ["status": s.rawValue]),
                         "aria-current": s == status ? "page" : nil], text(s.rawValue.capitalized))
            }),
            list.isEmpty ? Layout.empty("No \(status.rawValue) threads", status == .active
                                        ? "Threads form when three or more notes are about the same thing. Keep writing."
                                        : "None here.") :
                el("ul", ["class": "list"], children: list.map { t in
                    el("li", ["class": "row"],
                       el("a", ["class": "title", "href": SiteURL.thread(String(t.id)).path], text(t.name)),
                       el("p", ["class": "excerpt"], text(t.summary)),
                       el("p", ["class": "meta"], el("span", ["class": "momentum"], text("Momentum \(String(format: "%.2f", t.momentum))")),
                          text("· \(t.noteCount) notes · last \(Layout.day(t.lastActivityAt))")))
                }))
    }

    struct ThreadPage {
        var detail: ThreadDetail
        var tasks: [ThreadTask]
        var suggestions: [String] = []
        var suggestionNote: String?
        var subprojects: [SubprojectSuggester.Suggestion] = []
        var session: ChatSession?
        var titles: [Int64: String] = [:]
        var unavailable: String?
        var foundNotes: [Note] = []
        var error: String?
        var draft = ""
        /// The other threads, for merging and moving notes.
        var others: [NoteThread] = []
    }

    static func thread(_ page: ThreadPage, context: PageContext) -> Node {
        let t = page.detail.thread
        let id = String(t.id)
        return Layout.page(t.name, tab: .threads, context: context,
            el("p", [:], el("a", ["href": SiteURL.threads.path], text("← Threads"))),
            el("h1", [:], text(t.name)),
            el("p", [:], text(t.summary)),
            el("p", ["class": "meta"], el("span", ["class": "chip"], text(t.status.rawValue)),
               text("Momentum \(String(format: "%.2f", t.momentum)) · \(t.noteCount) notes · since \(Layout.day(t.createdAt))")),
            el("h2", [:], text("Tasks")),
            page.tasks.isEmpty ? el("p", ["class": "muted"], text("No tasks yet.")) :
                el("ul", ["class": "list tasks"], children: page.tasks.map { Layout.taskRow($0, back: "thread", context: context) }),
            Layout.form(SiteURL.suggestTasks(id).path, context: context, cls: "inline", Layout.button("Suggest tasks", cls: "button quiet")),
            page.suggestionNote.map { el("p", ["class": "muted"], text($0)) } ?? nothing,
            page.suggestions.isEmpty ? nothing : el("ul", ["class": "list", "aria-label": "Suggested tasks"], children: page.suggestions.map { s in
                el("li", ["class": "row"], Layout.form(SiteURL.addTask(id).path, context: context, cls: "actions",
                                                       void("input", ["type": "hidden", "name": "title", "value": s]),
                                                       el("span", [:], text(s)), Layout.button("Add", cls: "button quiet")))
            }),
            page.subprojects.isEmpty ? nothing : group([
                el("h2", [:], text("Possible sub-projects")),
                el("ul", ["class": "list"], children: page.subprojects.map { s in
                    el("li", ["class": "row"],
                       Layout.form(SiteURL.splitThread(id).path, context: context, cls: "actions",
                                   void("input", ["type": "hidden", "name": "notes", "value": s.noteIds.map(String.init).joined(separator: ",")]),
                                   el("label", ["for": "split-\(s.noteIds.first ?? 0)", "class": "grow"], text("\(s.noteIds.count) notes about"),
                                      void("input", ["id": "split-\(s.noteIds.first ?? 0)", "name": "name", "value": s.name, "maxlength": "60", "required": "required"])),
                                   Layout.button("Split off", cls: "button quiet")))
                }),
            ]),
            correctionForms(page, context: context),
            el("h2", [:], text("Ask about this thread")),
            page.session.map { conversation($0, titles: page.titles) } ?? el("ol", ["class": "conversation", "id": "conversation"]),
            unavailableBox(page.unavailable, notes: page.foundNotes),
            askForm(action: SiteURL.threadAsk(id).path, stream: SiteURL.threadStream(id).path, draft: page.draft, error: page.error,
                    placeholder: "Ask about \(t.name)…", context: context),
            el("h2", [:], text("Notes")),
            el("ul", ["class": "list"], children: page.detail.notes.map { note in
                Layout.noteRow(note, extra: moveForm(note, current: t.id, threads: page.others, back: SiteURL.thread(id).path, context: context))
            }))
    }

    /// Rename the thread (the name is then the person's) or merge it into another.
    static func correctionForms(_ page: ThreadPage, context: PageContext) -> Node {
        let t = page.detail.thread, id = String(t.id)
        return el("details", ["class": "card corrections"],
                  el("summary", [:], text("Rename or merge")),
                  Layout.form(SiteURL.renameThread(id).path, context: context, cls: "actions",
                              el("label", ["for": "thread-name", "class": "grow"], text("Name"),
                                 void("input", ["id": "thread-name", "name": "name", "value": t.name, "maxlength": "60", "required": "required"])),
                              Layout.button("Rename", cls: "button quiet")),
                  page.others.isEmpty ? nothing : Layout.form(SiteURL.mergeThread(id).path, context: context, cls: "actions",
                      el("label", ["for": "merge-into", "class": "grow"], text("Make it part of"),
                         el("select", ["id": "merge-into", "name": "into"], children: page.others.map { other in
                             el("option", ["value": String(other.id)], text(other.name))
                         })),
                      Layout.button("Merge", cls: "button quiet", confirm: "Merge \(t.name) into the thread you chose? Its notes and tasks move there.")))
    }

    /// A note's "Move to": another thread, or none; the choice stays when threads are formed again.
    static func moveForm(_ note: Note, current: Int64, threads: [NoteThread], back: String, context: PageContext) -> Node {
        let id = String(note.id)
        return Layout.form(SiteURL.moveNote(id).path, context: context, cls: "inline move",
                           void("input", ["type": "hidden", "name": "back", "value": back]),
                           el("label", ["for": "move-\(id)"], el("span", ["class": "visually-hidden"], text("Move “\(note.displayTitle)” to")),
                              el("select", ["id": "move-\(id)", "name": "thread"], children: threads.map { el("option", ["value": String($0.id)], text($0.name)) }
                                 + [el("option", ["value": ""], text("No thread (take it out)"))])),
                           Layout.button("Move", cls: "button quiet"))
    }
}
