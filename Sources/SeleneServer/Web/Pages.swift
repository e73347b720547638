import Foundation
import SeleneShared
import ServerCommon

/// Every page of the web app as a function of its data, rendered by construction (escaped).
enum Pages {
    // MARK: Sign-in and set-up

    static func signIn(context: PageContext, error: String?) -> Node {
        Layout.document("Sign in", body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], Layout.moon(), text(" Selene")),
            el("p", ["class": "muted"], text("Your notes, your threads of thought, your briefing. Sign in with this server's API token: the link Selene printed when it first started, or paste the token (`selene token show` prints both).")),
            error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
            Layout.form(SiteURL.signIn.path, context: context,
                el("label", ["for": "token"], text("API token"),
                   void("input", ["id": "token", "name": "token", "type": "password", "autocomplete": "current-password", "required": "required",
                                  "aria-invalid": error == nil ? nil : "true"])),
                Layout.button("Sign in"))))
    }

    static func setup(context: PageContext, suggestedToken: String) -> Node {
        Layout.document("Set up", body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], Layout.moon(), text(" Welcome to Selene")),
            el("div", ["class": "card"],
               el("p", [:], text("This server was started with SELENE_API_TOKEN=off, so it has no token and only answers on this computer (127.0.0.1).")),
               el("p", [:], text("To use Selene from your phone or the Drafts app, start it without that setting (it makes a token and keeps it in its data folder), or with a token of your own, and listen on your private network:")),
               el("p", [:], el("code", [:], text("SELENE_API_TOKEN=\(suggestedToken) selene serve --hostname 0.0.0.0"))),
               el("p", ["class": "muted"], text("(A fresh token, made just now; `selene token new` makes another.)"))),
            Layout.form(SiteURL.setup.path, context: context, Layout.button("Continue on this computer"))))
    }

    // MARK: Chat

    struct ChatPage {
        var sessions: [ChatSession]
        var session: ChatSession
        var titles: [Int64: String]
        var draft = ""
        var unavailable: String?
        var foundNotes: [Note] = []
        var error: String?
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
                  conversation(page.session, titles: page.titles),
                  unavailableBox(page.unavailable, notes: page.foundNotes),
                  askForm(action: SiteURL.ask(id).path, stream: SiteURL.stream(id).path, draft: page.draft, error: page.error,
                          placeholder: "Ask about your notes…", context: context))))
    }

    static func sessionRow(_ s: ChatSession, current: Bool, context: PageContext) -> Node {
        let id = s.id.uuidString.lowercased()
        return el("li", ["class": current ? "row current" : "row"],
                  el("a", ["href": SiteURL.session(id).path, "aria-current": current ? "true" : nil],
                     s.isPinned ? el("span", ["class": "chip pinned"], text("Pinned")) : nothing, text(s.title)),
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

    static func askForm(action: String, stream: String, draft: String, error: String?, placeholder: String, context: PageContext) -> Node {
        group([
            el("p", ["class": "progress", "id": "progress", "aria-live": "polite"]),
            // The composer, as messaging apps have it: one line that grows with its text, the send
            // button beside it, kept above the tab bar (and the keyboard) while the conversation scrolls.
            Layout.form(action, context: context, cls: "ask composer", attrs: ["data-stream": stream],
                error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
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

    // MARK: Threads

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
                    el("li", ["class": "row"], el("strong", [:], text(s.name)), text(" — \(s.noteIds.count) notes"))
                }),
            ]),
            el("h2", [:], text("Ask about this thread")),
            page.session.map { conversation($0, titles: page.titles) } ?? el("ol", ["class": "conversation", "id": "conversation"]),
            unavailableBox(page.unavailable, notes: page.foundNotes),
            askForm(action: SiteURL.threadAsk(id).path, stream: SiteURL.threadStream(id).path, draft: page.draft, error: page.error,
                    placeholder: "Ask about \(t.name)…", context: context),
            el("h2", [:], text("Notes")),
            el("ul", ["class": "list"], children: page.detail.notes.map { Layout.noteRow($0) }))
    }

    // MARK: Briefing

    static func briefing(_ briefing: Briefing?, resurfaced: [Resurfacing.Suggestion], error: String?, context: PageContext) -> Node {
        Layout.page("Briefing", tab: .briefing, context: context,
            el("div", ["class": "actions"], el("h1", [:], text("Briefing")),
               Layout.form(SiteURL.briefing.path, context: context, cls: "inline", Layout.button("Write it again", cls: "button quiet"))),
            error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
            briefing.map { b in group([
                el("p", ["class": "meta"], text("\(b.date) · "), text(b.author == .llm ? "written by your LLM" : "written from your notes (no LLM)")),
                el("div", ["class": "card briefing-text"], text(b.text)),
                el("h2", [:], text("Threads moving")),
                b.threads.isEmpty ? el("p", ["class": "muted"], text("No active threads yet.")) :
                    el("ul", ["class": "list"], children: b.threads.map { t in
                        el("li", ["class": "row"], el("a", ["class": "title", "href": SiteURL.thread(String(t.id)).path], text(t.name)),
                           el("p", ["class": "meta"], text("Momentum \(String(format: "%.2f", t.momentum)) · \(t.noteCount) notes")))
                    }),
                el("h2", [:], text("Links across threads")),
                b.associations.isEmpty ? el("p", ["class": "muted"], text("No surprising links today.")) :
                    el("ul", ["class": "list"], children: b.associations.map { a in
                        el("li", ["class": "row"],
                           el("a", ["href": SiteURL.note(String(a.noteA.id)).path], text(a.noteA.displayTitle)),
                           text(" (\(a.threadA?.name ?? "no thread")) ↔ "),
                           el("a", ["href": SiteURL.note(String(a.noteB.id)).path], text(a.noteB.displayTitle)),
                           text(" (\(a.threadB?.name ?? "no thread")) · \(Int((a.similarity * 100).rounded()))% alike"))
                    }),
                el("h2", [:], text("Open tasks")),
                b.tasks.isEmpty ? el("p", ["class": "muted"], text("Nothing open.")) :
                    el("ul", ["class": "list"], children: b.tasks.map { el("li", ["class": "row"], text($0.title)) }),
                el("h2", [:], text("New notes (\(b.notes.count))")),
                el("ul", ["class": "list"], children: b.notes.prefix(20).map { Layout.noteRow($0) }),
                resurfaced.isEmpty ? nothing : group([
                    el("h2", [:], text("Worth another look")),
                    el("ul", ["class": "list"], children: resurfaced.map { Layout.noteRow($0.note, extra: el("span", [:], text($0.reason))) }),
                ]),
            ]) } ?? nothing)
    }

    // MARK: More

    static func more(context: PageContext) -> Node {
        Layout.page("More", tab: .more, context: context,
            el("h1", [:], text("More")),
            el("nav", ["class": "card menu", "aria-label": "More"], children: [
                (SiteURL.notes, "Notes"), (SiteURL.tasks, "Tasks"), (SiteURL.search, "Search notes"), (SiteURL.newNote, "Capture a note"), (SiteURL.memories, "Memories"),
                (SiteURL.voice, "Voice input"), (SiteURL.devices, "Devices"), (SiteURL.status, "LLM and queue status"),
            ].map { el("a", ["href": $0.0.path], text($0.1)) }),
            Layout.form(SiteURL.signOut.path, context: context, cls: "inline", Layout.button("Sign out", cls: "button quiet")),
            el("p", ["class": "muted", "id": "version"], text("Selene \(SeleneVersion.current)")))
    }

    static func search(query: String, response: RetrieveResponse?, error: String?, context: PageContext) -> Node {
        Layout.page("Search", tab: .more, context: context,
            el("h1", [:], text("Search notes")),
            el("form", ["method": "get", "action": SiteURL.search.path, "class": "stack", "role": "search"],
               el("label", ["for": "q"], text("Words or a question"),
                  void("input", ["id": "q", "name": "q", "type": "search", "value": query, "enterkeyhint": "search"])),
               Layout.button("Search")),
            error.map { el("p", ["class": "flash error"], text($0)) } ?? nothing,
            response.map { r in group([
                el("p", ["class": "meta"], text("\(r.count) result\(r.count == 1 ? "" : "s") · \(r.source == .hybrid ? "words and meaning" : "words only (no embeddings available)")")),
                el("ul", ["class": "list"], children: r.results.map { Layout.noteRow($0.note) }),
            ]) } ?? nothing)
    }

    static func newNote(content: String, title: String, errors: [String: String], context: PageContext) -> Node {
        Layout.page("Capture", tab: .more, context: context,
            el("h1", [:], text("Capture a note")),
            errors.isEmpty ? nothing : el("p", ["class": "flash error", "role": "alert"], text(errors.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; "))),
            Layout.form(SiteURL.newNote.path, context: context,
                el("label", ["for": "title"], text("Title (optional)"), void("input", ["id": "title", "name": "title", "value": title])),
                el("label", ["for": "content"], text("Note"),
                   el("textarea", ["id": "content", "name": "content", "rows": "8", "required": "required",
                                   "aria-invalid": errors["content"] == nil ? nil : "true"], text(content))),
                el("div", ["class": "actions"],
                   Layout.mic(for: "content", label: "Dictate", context: context),
                   Layout.button("Save"))))
    }

    static let notesPerPage = 30

    /// Voice input: off until chosen, each choice saying where the audio goes.
    static func voice(current: VoiceMode, serverSpeech: String?, context: PageContext) -> Node {
        let choices: [(VoiceMode, String, String)] = [
            (.off, "Off", "Type only. Nothing listens."),
            (.server, "On this server", serverSpeech.map { "Your audio is recorded in the browser and sent to your Selene server, which transcribes it with its own speech-to-text (\($0)). It never leaves your machine." }
                ?? "Not available: this server has no speech-to-text configured (SELENE_STT_URL, e.g. whisper.cpp's server)."),
            (.browser, "The browser's recognition", "Your browser's own speech recognition. It may send your audio to its vendor (Chrome sends it to Google, Safari to Apple) — outside your machine."),
        ]
        return Layout.page("Voice input", tab: .more, context: context,
            el("h1", [:], text("Voice input")),
            el("p", ["class": "muted"], text("The Speak buttons of Chat and Capture. Off until you choose; this browser remembers the choice.")),
            Layout.form(SiteURL.voice.path, context: context,
                el("fieldset", ["class": "stack"], children: [el("legend", [:], text("Listen with"))] + choices.map { mode, label, note in
                    el("label", ["class": "choice"],
                       void("input", ["type": "radio", "name": "mode", "value": mode.rawValue, "checked": mode == current ? "checked" : nil,
                                      "disabled": mode == .server && serverSpeech == nil ? "disabled" : nil]),
                       el("span", [:], el("strong", [:], text(label)), el("br", [:]), el("span", ["class": "muted"], text(note))))
                }),
                Layout.button("Save")))
    }

    /// Every task, threaded or not: open ones to tick off, then those done lately.
    static func tasks(_ tasks: [ThreadTask], threads: [Int64: String], notes: [Int64: String], context: PageContext) -> Node {
        let open = tasks.filter { $0.status == .open }, done = tasks.filter { $0.status == .done }
        func rows(_ list: [ThreadTask]) -> Node {
            el("ul", ["class": "list tasks"], children: list.map { task in
                Layout.taskRow(task, back: "tasks", context: context, meta: el("p", ["class": "meta"],
                    task.threadId.flatMap { id in threads[id].map { el("a", ["class": "chip", "href": SiteURL.thread(String(id)).path], text($0)) } }
                        ?? el("span", ["class": "chip"], text("no thread")),
                    task.sourceNoteId.flatMap { id in notes[id].map { el("a", ["href": SiteURL.note(String(id)).path], text("from “\($0)”")) } } ?? nothing))
            })
        }
        return Layout.page("Tasks", tab: .more, context: context,
            el("h1", [:], text("Tasks")),
            el("p", ["class": "muted"], text("What your notes ask you to do, in a thread or not. Tick them off here or on their thread.")),
            open.isEmpty ? Layout.empty("Nothing to do", "A note that asks for something (“call the plumber about the sink”) becomes a task here.") : rows(open),
            done.isEmpty ? nothing : group([el("h2", [:], text("Done lately")), rows(done)]))
    }

    static func notes(_ notes: [Note], more: Bool, page: Int, filter: NoteStore.Browse, threads: [NoteThread], query: String,
                      problems: [String], context: PageContext) -> Node {
        func link(_ page: Int) -> String {
            var items = URLComponents(string: "?" + query)?.queryItems?.filter { $0.name != "page" } ?? []
            if page > 0 { items.append(URLQueryItem(name: "page", value: String(page))) }
            var c = URLComponents()
            c.queryItems = items
            return SiteURL.notes.path + (items.isEmpty ? "" : "?" + (c.percentEncodedQuery ?? ""))
        }
        let day: (Date?) -> String = { $0.map(WireDate.day(of:)) ?? "" }
        return Layout.page("Notes", tab: .more, context: context,
            el("h1", [:], text("Notes")),
            el("form", ["method": "get", "action": SiteURL.notes.path, "class": "filters", "aria-label": "Filter notes"],
               el("label", ["for": "thread"], text("Thread"),
                  el("select", ["id": "thread", "name": "thread"], children: [el("option", ["value": ""], text("Any"))] + threads.map { t in
                      el("option", ["value": String(t.id), "selected": filter.threadId == Int(t.id) ? "selected" : nil], text(t.name))
                  })),
               el("label", ["for": "type"], text("Kind"),
                  el("select", ["id": "type", "name": "type"], children: [el("option", ["value": ""], text("Any"))] + NoteType.allCases.map { t in
                      el("option", ["value": t.rawValue, "selected": filter.noteType == t ? "selected" : nil], text(t.rawValue))
                  })),
               el("label", ["for": "from"], text("From"), void("input", ["id": "from", "name": "from", "type": "date", "value": day(filter.from)])),
               el("label", ["for": "to"], text("To"), void("input", ["id": "to", "name": "to", "type": "date",
                                                                      "value": day(filter.until?.addingTimeInterval(-86_400))])),
               Layout.button("Show", cls: "button quiet")),
            problems.isEmpty ? nothing : el("p", ["class": "flash error", "role": "alert"], text(problems.joined(separator: "; "))),
            notes.isEmpty ? Layout.empty(page == 0 ? "No notes here" : "No more notes", "Capture one, or change the filters.") :
                el("ul", ["class": "list", "id": "notes"], children: notes.map { Layout.noteRow($0) }),
            el("nav", ["class": "pager", "aria-label": "Pages"],
               page > 0 ? el("a", ["href": link(page - 1), "rel": "prev", "class": "button quiet"], text("Newer")) : nothing,
               more ? el("a", ["href": link(page + 1), "rel": "next", "class": "button quiet"], text("Older")) : nothing))
    }

    static func editNote(_ note: Note, content: String, title: String, tags: String, errors: [String: String], context: PageContext) -> Node {
        let id = String(note.id)
        return Layout.page("Edit", tab: .more, context: context,
            el("h1", [:], text("Edit note")),
            errors.isEmpty ? nothing : el("p", ["class": "flash error", "role": "alert"], text(errors.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; "))),
            el("p", ["class": "muted"], text("Changing the words makes Selene work out again what the note is about, where it belongs and what it asks you to do.")),
            Layout.form(SiteURL.editNote(id).path, context: context,
                el("label", ["for": "title"], text("Title (optional)"), void("input", ["id": "title", "name": "title", "value": title])),
                el("label", ["for": "content"], text("Note"),
                   el("textarea", ["id": "content", "name": "content", "rows": "10", "required": "required",
                                   "aria-invalid": errors["content"] == nil ? nil : "true"], text(content))),
                el("label", ["for": "tags"], text("Tags (separated by commas)"), void("input", ["id": "tags", "name": "tags", "value": tags])),
                el("div", ["class": "actions"],
                   el("a", ["href": SiteURL.note(id).path, "class": "button quiet"], text("Cancel")),
                   Layout.button("Save"))))
    }

    static func note(_ note: Note, related: RelatedNotes?, context: PageContext) -> Node {
        Layout.page(note.displayTitle, tab: .more, context: context,
            el("h1", [:], text(note.displayTitle)),
            el("div", ["class": "card"], el("pre", ["class": "note"], text(note.content))),
            el("div", ["class": "actions"],
               el("a", ["href": SiteURL.editNote(String(note.id)).path, "class": "button quiet"], text("Edit")),
               Layout.form(SiteURL.deleteNote(String(note.id)).path, context: context, cls: "inline",
                           Layout.button("Delete", cls: "button danger", confirm: "Delete this note? It leaves its thread, and Selene forgets what it worked out from it."))),
            el("dl", ["class": "facts"], children: [
                el("dt", [:], text("Written")), el("dd", [:], Layout.time(note.createdAt)),
                el("dt", [:], text("From")), el("dd", [:], text(note.source.rawValue)),
                el("dt", [:], text("Processing")), el("dd", [:], text(note.status.rawValue + (note.lastError.map { " — \($0)" } ?? ""))),
            ] + (note.tags.isEmpty ? [] : [el("dt", [:], text("Tags")), el("dd", [:], text(note.tags.joined(separator: ", ")))])
              + (note.threadId.map { id in [el("dt", [:], text("Thread")), el("dd", [:], el("a", ["href": SiteURL.thread(String(id)).path], text(note.threadName ?? "")))] } ?? [])
              + (note.analysis.map { a in [
                  el("dt", [:], text("Theme")), el("dd", [:], text(([a.primaryTheme] + a.secondaryThemes).joined(separator: ", "))),
                  el("dt", [:], text("Concepts")), el("dd", [:], text(a.concepts.map { "\($0.name) (\(Int($0.confidence * 100))%)" }.joined(separator: ", "))),
                  el("dt", [:], text("Kind")), el("dd", [:], text("\(a.noteType.rawValue), \(a.actionability.rawValue)")),
                  el("dt", [:], text("Feeling")), el("dd", [:], text("\(a.sentiment.rawValue) (\(String(format: "%+.2f", a.sentimentScore))), \(a.emotionalTone), \(a.energyLevel.rawValue) energy")),
              ] } ?? [])),
            el("h2", [:], text("Related notes")),
            (related?.results.isEmpty ?? true) ? el("p", ["class": "muted"], text("Nothing related yet.")) :
                el("ul", ["class": "list"], children: related!.results.map { r in
                    Layout.noteRow(r.note, extra: el("span", ["class": "chip"], text("\(r.relationshipType.rawValue) \(Int((r.strength * 100).rounded()))%")))
                }))
    }

    /// What the add form holds: empty, what was typed (refused), or an answer's words ("Remember this").
    struct MemoryDraft {
        var content = ""
        var type: MemoryType = .fact
        var sessionId: UUID?
    }

    static func memories(_ memories: [Memory], errors: [String: String], draft: MemoryDraft, context: PageContext) -> Node {
        Layout.page("Memories", tab: .more, context: context,
            el("h1", [:], text("Memories")),
            el("p", ["class": "muted"], text("What Selene knows about you: learned in conversations, or told. Edit or delete anything.")),
            errors.isEmpty ? nothing : el("p", ["class": "flash error", "role": "alert"], text(errors.values.sorted().joined(separator: "; "))),
            Layout.form(SiteURL.memories.path, context: context, cls: "card stack",
                el("label", ["for": "remember"], text("Remember"),
                   el("textarea", ["id": "remember", "name": "content", "rows": "2", "required": "required",
                                   "placeholder": "I'm vegetarian. My sister is called Ana."], text(draft.content))),
                draft.sessionId.map { void("input", ["type": "hidden", "name": "session", "value": $0.uuidString.lowercased()]) } ?? nothing,
                el("div", ["class": "actions"],
                   el("label", ["for": "remember-type"], text("Kind"),
                      el("select", ["id": "remember-type", "name": "type"], children: MemoryType.allCases.map { t in
                          el("option", ["value": t.rawValue, "selected": t == draft.type ? "selected" : nil], text(t.rawValue))
                      })),
                   Layout.button("Remember"))),
            memories.isEmpty ? Layout.empty("No memories yet", "Selene remembers facts and preferences you mention while chatting, and what you tell it above.") :
                el("ul", ["class": "list"], children: memories.map { m in
                    let id = String(m.id)
                    return el("li", ["class": "row"],
                       Layout.form(SiteURL.memory(id).path, context: context,
                           el("label", ["for": "memory-\(id)"], text("Memory"),
                              el("textarea", ["id": "memory-\(id)", "name": "content", "rows": "2"], text(m.content))),
                           el("div", ["class": "actions"],
                              el("label", ["for": "type-\(id)"], text("Kind"),
                                 el("select", ["id": "type-\(id)", "name": "type"], children: MemoryType.allCases.map { t in
                                     el("option", ["value": t.rawValue, "selected": t == m.type ? "selected" : nil], text(t.rawValue))
                                 })),
                              el("label", ["for": "confidence-\(id)"], text("Confidence"),
                                 void("input", ["id": "confidence-\(id)", "name": "confidence", "type": "number", "min": "0", "max": "1", "step": "0.05",
                                                "value": String(format: "%.2f", m.confidence)])),
                              Layout.button("Save", cls: "button quiet"))),
                       Layout.form(SiteURL.deleteMemory(id).path, context: context, cls: "inline",
                                   Layout.button("Delete", cls: "button danger", confirm: "Forget this?")),
                       el("p", ["class": "meta"], text("Last used \(Layout.day(m.lastAccessedAt))")))
                }))
    }

    static func devices(_ devices: [Device], push: String, context: PageContext) -> Node {
        Layout.page("Devices", tab: .more, context: context,
            el("h1", [:], text("Devices")),
            el("p", ["class": "card"], text(push)),
            el("div", ["class": "card", "id": "web-push"],
               el("h2", [:], text("Notifications in this browser")),
               el("p", ["class": "muted", "id": "web-push-state"], text("This browser can't receive notifications from this page (it needs a service worker and the Push API).")),
               el("button", ["type": "button", "class": "button", "id": "web-push-on", "hidden": "hidden",
                             "data-key": SiteURL.pushKey.path, "data-subscribe": SiteURL.pushSubscribe.path, "data-csrf": context.csrf],
                  text("Turn on notifications")),
               Layout.form(SiteURL.pushTest.path, context: context, cls: "inline", Layout.button("Send a test notification", cls: "button quiet"))),
            devices.isEmpty ? Layout.empty("No devices", "The phone app registers itself for pushes when you allow notifications; a browser, with the button above.") :
                el("ul", ["class": "list"], children: devices.map { d in
                    el("li", ["class": "row"],
                       el("code", [:], text(d.platform == .web ? (URL(string: d.token)?.host ?? "browser") : String(d.token.prefix(12)) + "…")),
                       el("p", ["class": "meta"], text("\(d.platform.rawValue) · added \(Layout.day(d.createdAt)) · last seen \(Layout.day(d.lastSeenAt))")),
                       Layout.form(SiteURL.deleteDevice(String(d.id)).path, context: context, cls: "inline",
                                   Layout.button("Remove", cls: "button danger", confirm: "Stop pushes to this device?")))
                }))
    }

    /// What the service worker shows when a page isn't kept and the network is gone.
    static func offline() -> Node {
        Layout.document("Offline", body: el("main", ["class": "main"],
            el("h1", [:], text("You're offline")),
            el("p", [:], text("Notes, tasks, threads and the briefing you opened lately can still be read. A note you capture now is kept in this browser and sent when you're back.")),
            el("p", [:], el("a", ["href": SiteURL.notes.path, "class": "button quiet"], text("Notes")), text(" "),
               el("a", ["href": SiteURL.newNote.path, "class": "button quiet"], text("Capture a note")))))
    }

    static func status(llm: LLMHealth, counts: [String: Int], push: String, context: PageContext) -> Node {
        Layout.page("Status", tab: .more, context: context,
            el("h1", [:], text("Status")),
            el("div", ["class": "card"],
               el("h2", [:], text("LLM")),
               el("p", [:], text(llm.available ? "Available: \(llm.chatModel ?? "") for answers, \(llm.embeddingModel ?? "") for embeddings." : "Not available: \(llm.reason ?? "unknown")")),
               el("p", ["class": "muted"], text(backendLine(llm))),
               llm.embeddings.map { el("p", ["class": "notice"], text($0)) } ?? .fragment([]),
               el("p", ["id": "hosted-model"], text(hostedLine(llm.hosted))),
               llm.pausedSince.map { since in
                   el("p", ["class": "notice", "id": "processing-paused"],
                      text("Processing paused since \(WireDate.string(from: since))\(llm.nextCheckAt.map { ", next check at \(WireDate.string(from: $0))" } ?? ""): \(llm.pauseReason ?? "the model server can't serve")."))
               } ?? .fragment([])),
            el("div", ["class": "card"],
               el("h2", [:], text("Processing queue")),
               el("dl", ["class": "facts"], children: ProcessingStatus.allCases.flatMap { s in
                   [el("dt", [:], text(s.rawValue)), el("dd", [:], text(String(counts[s.rawValue] ?? 0)))]
               })),
            el("div", ["class": "card"], el("h2", [:], text("Push")), el("p", [:], text(push))))
    }

    /// What may leave this machine for a hosted model, and what did.
    static func hostedLine(_ hosted: HostedUsage?) -> String {
        guard let h = hosted else { return "No hosted model: everything stays on this machine." }
        let what = h.personalContentAllowed ? "anything, notes and conversations included," : "only requests that carry nothing of your notes, memories or conversations"
        let last = h.lastSentAt.map { ", last at \(WireDate.string(from: $0))" } ?? ""
        return "Hosted model \(h.model) at \(h.url) may receive \(what). Since the server started: \(h.sent) request\(h.sent == 1 ? "" : "s") sent to it\(last); \(h.keptLocal) kept on your own model because they were personal."
    }

    /// Which protocol and server answer, and which embed when that's another.
    static func backendLine(_ llm: LLMHealth) -> String {
        func name(_ provider: String?) -> String { provider == "openai" ? "an OpenAI-compatible server" : "Ollama" }
        guard let provider = llm.provider, let url = llm.url else { return "No model server is configured." }
        var line = "Answers from \(name(provider)) at \(url)"
        if let embedURL = llm.embeddingURL, embedURL != url || llm.embeddingProvider != provider {
            line += "; embeddings from \(name(llm.embeddingProvider)) at \(embedURL)"
        }
        return line + "."
    }

    static func error(status: Int, title: String, message: String) -> Node {
        Layout.document(title, body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], text(title)), el("p", [:], text(message)),
            el("p", [:], el("a", ["class": "button", "href": SiteURL.chat.path], text("Back to Selene")))))
    }
}
