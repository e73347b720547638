import Foundation
import SeleneShared
import ServerCommon

/// Notes: search, capture, the list, one note, editing.
extension Pages {
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
              ] + (a.people.isEmpty ? [] : [el("dt", [:], text("People")), el("dd", [:], text(a.people.joined(separator: ", ")))])
                + (a.places.isEmpty ? [] : [el("dt", [:], text("Places")), el("dd", [:], text(a.places.joined(separator: ", ")))]) + [
                  el("dt", [:], text("Kind")), el("dd", [:], text("\(a.noteType.rawValue), \(a.actionability.rawValue)")),
                  el("dt", [:], text("Feeling")), el("dd", [:], text("\(a.sentiment.rawValue) (\(String(format: "%+.2f", a.sentimentScore))), \(a.emotionalTone), \(a.energyLevel.rawValue) energy")),
              ] } ?? [])),
            el("h2", [:], text("Related notes")),
            (related?.results.isEmpty ?? true) ? el("p", ["class": "muted"], text("Nothing related yet.")) :
                el("ul", ["class": "list"], children: related!.results.map { r in
                    Layout.noteRow(r.note, extra: el("span", ["class": "chip"], text("\(r.relationshipType.rawValue) \(Int((r.strength * 100).rounded()))%")))
                }))
    }
}
