import BuildStamp
import Foundation
import SeleneShared
import ServerCommon

/// The More tab: its menu, voice, tasks, memories, devices and status.
extension Pages {
    static func more(context: PageContext) -> Node {
        Layout.page("More", tab: .more, context: context,
            el("h1", [:], text("More")),
            el("nav", ["class": "card menu", "aria-label": "More"], children: [
                (SiteURL.notes, "Notes"), (SiteURL.tasks, "Tasks"), (SiteURL.search, "Search notes"), (SiteURL.newNote, "Capture a note"), (SiteURL.memories, "Memories"),
                (SiteURL.voice, "Voice input"), (SiteURL.devices, "Devices"), (SiteURL.status, "LLM and queue status"),
                (SiteURL.outbound, "What left this machine"),
                (SiteURL.hosted, "Hosted model"),
            ].map { el("a", ["href": $0.0.path], text($0.1)) }),
            Layout.form(SiteURL.signOut.path, context: context, cls: "inline", Layout.button("Sign out", cls: "button quiet")),
            el("p", ["class": "muted", "id": "version"], text("Selene \(BuildStamp.describe(SeleneVersion.current))")))
    }

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

    static func status(llm: LLMHealth, counts: [String: Int], push: String, backup: String, context: PageContext) -> Node {
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
                      text("Processing paused since "), Layout.moment(since, .full),
                      llm.nextCheckAt.map { .fragment([text(", next check at "), Layout.moment($0, .full)]) } ?? nothing,
                      text(": \(llm.pauseReason ?? "the model server can't serve")."))
               } ?? .fragment([])),
            el("div", ["class": "card"],
               el("h2", [:], text("Processing queue")),
               el("dl", ["class": "facts"], children: ProcessingStatus.allCases.flatMap { s in
                   [el("dt", [:], text(s.rawValue)), el("dd", [:], text(String(counts[s.rawValue] ?? 0)))]
               })),
            el("div", ["class": "card"], el("h2", [:], text("Push")), el("p", [:], text(push))),
            el("div", ["class": "card"], el("h2", [:], text("Backups")), el("p", ["id": "backups"], text(backup))))
    }

    /// The outbound ledger: every request Selene sent off this machine, newest first.
    static func outbound(_ list: OutboundList, context: PageContext) -> Node {
        let fromNotes = list.entries.filter(\.noteDerived).count
        let places = Set(list.entries.map(\.destination)).sorted()
        return Layout.page("What left this machine", tab: .more, context: context,
            el("h1", [:], text("What left this machine")),
            el("p", ["class": "muted"], text("Every request Selene sent out, written down before it left: the model server, transcription, pushes, a hosted model when one is on. Kept \(list.keptDays) days (SELENE_OUTBOUND_DAYS).")),
            el("p", ["id": "outbound-summary"], text(list.entries.isEmpty ? "Nothing has left this machine in the last \(list.keptDays) days."
                : "The newest \(list.count): \(fromNotes) carried words from your notes; to \(places.joined(separator: ", ")).")),
            list.entries.isEmpty ? .fragment([]) : el("div", ["class": "scroll-x", "role": "region", "aria-label": "Requests", "tabindex": "0"],
                el("table", ["class": "ledger"],
                   el("thead", [:], el("tr", [:], children: ["When", "Why", "Where", "Sent", "Received", "From your notes"].map { el("th", ["scope": "col"], text($0)) })),
                   el("tbody", [:], children: list.entries.map { e in
                       el("tr", [:], children: [
                           el("td", [:], Layout.moment(e.at, .full)),
                           el("td", [:], text(e.purpose + (e.reason.map { " (\($0))" } ?? ""))),
                           el("td", [:], text(e.destination)),
                           el("td", [:], text("\(e.bytesOut) B")),
                           el("td", [:], text(e.failure.map { "failed: \($0.prefix(80))" } ?? "\(e.bytesIn) B\(e.status.map { " (\($0))" } ?? "")")),
                           el("td", [:], text(e.noteDerived ? "yes" : "no")),
                       ])
                   }))))
    }

    /// The hosted model's page: what it may receive, the held request word for word, and the answer.
    static func hosted(_ consent: HostedConsent, context: PageContext) -> Node {
        func answer(_ value: String, _ label: String, cls: String = "button") -> Node {
            Layout.form(SiteURL.hosted.path, context: context, cls: "inline",
                        void("input", ["type": "hidden", "name": "answer", "value": value]), Layout.button(label, cls: cls))
        }
        let place = "\(consent.model ?? "") at \(consent.url ?? "")"
        let said = consent.decidedAt.map { " on \(WireDate.string(from: $0))" } ?? ""
        let body: [Node]
        switch consent.state {
        case .off:
            body = [el("p", ["id": "hosted-state"], text(consent.url == nil ? "No hosted model is switched on: everything is answered on this machine."
                : "The hosted model \(place) receives only requests that carry nothing of your notes, memories or conversations (SELENE_HOSTED_PERSONAL is off)."))]
        case .notAsked:
            body = [el("p", ["id": "hosted-state"], text("SELENE_HOSTED_PERSONAL=on lets \(place) receive your notes, but nothing from them has gone: the first request that would carry any is kept on your own model and shown here, word for word, for your yes."))]
        case .waiting:
            body = [el("p", ["id": "hosted-state", "class": "notice"], text("This is exactly what \(place) would receive: the first request with something from your notes. Nothing of it has been sent; your own model answered instead. Should requests like it go to the hosted model?")),
                    el("div", ["class": "actions"], answer("yes", "Yes, send them"), answer("no", "No, keep my notes here", cls: "button quiet"))]
        case .allowed:
            body = [el("p", ["id": "hosted-state"], text("You said yes\(said): requests with something from your notes go to \(place), each written in What left this machine.")),
                    el("div", ["class": "actions"], answer("no", "Stop: keep my notes here", cls: "button danger"))]
        case .refused:
            body = [el("p", ["id": "hosted-state"], text("You said no\(said): requests with something from your notes stay on your own model; the rest may go to \(place).")),
                    el("div", ["class": "actions"], answer("yes", "Send them after all"), answer("again", "Ask me again with the next one", cls: "button quiet"))]
        }
        let held: Node = consent.messages.isEmpty ? nothing : el("section", ["aria-labelledby": "held-title"],
            el("h2", ["id": "held-title"], text("The request"), consent.askedAt.map { .fragment([text(" of "), Layout.moment($0, .full)]) } ?? nothing),
            el("ol", ["class": "held"], children: consent.messages.map { m in
                el("li", [:], el("p", ["class": "muted"], text(m.role.rawValue)), el("pre", ["class": "prompt", "tabindex": "0"], text(m.content)))
            }))
        return Layout.page("Hosted model", tab: .more, context: context, group([el("h1", [:], text("Hosted model"))] + body + [held]))
    }

    /// Above a conversation while the hosted model waits for a yes.
    static let hostedNotice = el("p", ["class": "notice", "id": "hosted-waiting"],
        text("Your own model answered: the hosted model needs your yes before it sees anything from your notes. "),
        el("a", ["href": SiteURL.hosted.path], text("See exactly what it would receive")))

    /// When the last scheduled backup ran, where, and how often; or how to turn them on.
    static func backupLine(_ settings: BackupSettings?, last: Date?) -> String {
        guard let settings else {
            return "No scheduled backups: set SELENE_BACKUP_DIR (and SELENE_BACKUP_KEEP) to take one every night, or run `selene backup --to PATH`."
        }
        let hours = settings.every / 3600
        let every = hours == 24 ? "every night" : "every \(hours.formatted(.number.precision(.fractionLength(0...2)))) hours"
        guard let last else { return "Backups \(every) into \(settings.directory), the newest \(settings.keep) kept. None has finished yet." }
        return "Last backup finished \(WireDate.string(from: last)), into \(settings.directory); \(every), the newest \(settings.keep) kept."
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
}
