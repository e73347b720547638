import ServerCommon
import Foundation
import StitchCore

func statusBadge(_ status: ProjectStatus) -> Node {
    el("span", ["class": "badge \(status.rawValue)"], text(status.displayName))
}

struct ProjectsPage {
    var projects: [ProjectDetail]

    func render(_ context: PageContext) -> Node {
        Layout.page("Projects", section: .projects, context: context,
            el("div", ["class": "toolbar"],
               el("h1", [:], text("Projects")),
               el("a", ["class": "button primary", "href": SiteURL.startProject.path, "aria-label": "Start project"], text("+ Start project"))),
            projects.isEmpty
                ? Layout.emptyState(icon: "projects", title: "No projects yet", message: "Tap + to start a new project",
                                    action: el("a", ["class": "button primary", "href": SiteURL.startProject.path], text("+ Start project")))
                : el("div", ["id": "projects"], children: Self.groupOrder.compactMap { status in
                    let group = projects.filter { $0.project.status == status }
                    guard !group.isEmpty else { return nil }
                    return el("section", ["class": "project-group", "data-status": status.rawValue],
                        el("h2", [:], text(Self.heading(status)), el("span", ["class": "muted"], text(" \(group.count)"))),
                        el("ul", ["class": "list"], children: group.map(row)))
                }))
    }

    /// What is being stitched first, then what is planned, at finishing and done.
    static let groupOrder: [ProjectStatus] = [.wip, .planned, .atFinishing, .completed]

    static func heading(_ status: ProjectStatus) -> String {
        switch status {
        case .wip: "Stitching"
        case .planned: "Planned"
        case .atFinishing: "At finishing"
        case .completed: "Completed"
        }
    }

    func row(_ p: ProjectDetail) -> Node {
        el("li", ["class": "row"],
           imageURL(p.canvas?.imageKey).map { void("img", ["class": "thumb", "src": $0, "alt": "", "loading": "lazy"]) }
               ?? el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("projects", size: 32)),
           el("div", ["class": "grow"],
              el("a", ["class": "title", "href": SiteURL.project(p.project.id.wireText).path], text(p.title)),
              el("div", ["class": "muted"], text("\(p.project.status == .planned ? "Planned" : "Started") \(Layout.longDate(p.project.startedAt))"))),
           statusBadge(p.project.status))
    }
}

struct StartProjectPage {
    var available: [Canvas]

    func render(_ context: PageContext) -> Node {
        Layout.page("Start a project", section: .projects, context: context,
            el("h1", [:], text("Start a project")),
            el("p", ["class": "muted"], text("Plan one to list its threads and see whether you can start it; start it when you begin stitching.")),
            available.isEmpty
                ? Layout.emptyState(icon: "stash", title: "No available canvases", message: "All canvases are already linked to projects. Add a new canvas first.",
                                    action: el("a", ["class": "button primary", "href": SiteURL.newCanvas.path], text("+ Add canvas")))
                : el("ul", ["class": "list"], children: available.map { c in
                    el("li", ["class": "row"],
                       imageURL(c.imageKey).map { void("img", ["class": "thumb", "src": $0, "alt": ""]) } ?? el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("stash", size: 32)),
                       el("div", ["class": "grow"], el("strong", [:], text(c.designName)), el("div", ["class": "muted"], text(c.designer))),
                       Layout.form(.startProject, context: context, attrs: "inline",
                                   void("input", ["type": "hidden", "name": "canvasId", "value": c.id.wireText]),
                                   void("input", ["type": "hidden", "name": "status", "value": ProjectStatus.planned.rawValue]),
                                   el("button", ["class": "secondary", "type": "submit", "aria-label": "Plan \(c.designName)"], text("Plan"))),
                       Layout.form(.startProject, context: context, attrs: "inline",
                                   void("input", ["type": "hidden", "name": "canvasId", "value": c.id.wireText]),
                                   el("button", ["class": "primary", "type": "submit", "aria-label": "Start \(c.designName)"], text("Start"))))
                }),
            withoutCanvas(context))
    }

    /// A project stitched from a chart (its pattern added on its page), or not chosen yet: a name
    /// instead of a canvas.
    func withoutCanvas(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "without-canvas"],
           el("h2", [:], text("Without a canvas")),
           el("p", ["class": "muted"], text("Stitching from a chart? Give the project a name, then add the chart on its page.")),
           Layout.form(.startProject, context: context,
               Layout.field("Name", name: "name", required: true, id: "f-project-name", extra: ["placeholder": "Fox, from the chart", "maxlength": "200"]),
               el("div", ["class": "toolbar"],
                  el("button", ["class": "secondary", "type": "submit", "name": "status", "value": ProjectStatus.planned.rawValue], text("Plan it")),
                  el("button", ["class": "primary", "type": "submit", "name": "status", "value": ProjectStatus.wip.rawValue], text("Start it")))))
    }
}

struct ProjectDetailPage {
    var detail: ProjectDetail
    var readiness: ProjectReadiness
    var sections: [ProjectSection]
    var journal: [JournalEntryDetail]
    var inventory: [InventoryThread]
    var patterns: [PatternDetail] = []
    var errors: [String: String] = [:]

    var projectId: String { detail.project.id.wireText }

    func render(_ context: PageContext) -> Node {
        let p = detail.project
        return Layout.page(detail.title, section: .projects, context: context,
            imageURL(detail.canvas?.imageKey).map { void("img", ["class": "hero", "src": $0, "alt": "Photo of \(detail.title)"]) } ?? nothing,
            el("div", ["class": "toolbar"], el("h1", [:], text(detail.title)), statusBadge(p.status)),
            el("dl", ["class": "facts", "id": "project-facts"],
               group(canvasFacts),
               el("dt", [:], text(p.status == .planned ? "Planned" : "Started")), el("dd", [:], text(Layout.longDate(p.startedAt))),
               el("dt", [:], text("At finishing")), el("dd", [:], text(p.finishingAt.map(Layout.longDate) ?? "—")),
               el("dt", [:], text("Completed")), el("dd", [:], text(p.completedAt.map(Layout.longDate) ?? "—"))),
            datesEditor(context),
            Layout.form(.projectStatus(projectId), context: context, attrs: "toolbar",
                Layout.select("Status", name: "status", options: ProjectStatus.allCases.map { ($0.rawValue, $0.displayName) }, selected: p.status.rawValue),
                el("button", ["class": "secondary", "type": "submit"], text("Change status"))),
            Layout.errorSummary(errors),
            threadsSection(context),
            notesSection(context),
            patternsSection(context),
            journalSection(context),
            Layout.form(.deleteProject(projectId), context: context,
                el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete this project and its journal?"], text("Delete project"))))
    }

    /// What the canvas says about the piece: designer, mesh and size, where known.
    var canvasFacts: [Node] {
        guard let canvas = detail.canvas else { return [] }
        let facts: [(String, String?)] = [("Designer", canvas.designer), ("Mesh", canvas.meshCount.map { "\($0) mesh" }), ("Size", canvas.size)]
        return facts.compactMap { label, value in
            value.flatMap { $0.isEmpty ? nil : group([el("dt", [:], text(label)), el("dd", [:], text($0))]) }
        }
    }

    var requirementRecords: [UUID: ProjectThread] = [:]
    /// Skeins on the shopping list by hand, per thread.
    var addedByHand: [ThreadKey: Int] = [:]

    /// Beside a requirement short of its thread: where it stands with the shopping list. A project
    /// being stitched has its shortfall there already; one the list doesn't count (planned) offers
    /// to put it there by hand, with one tap.
    func shoppingTool(_ r: RequirementReadiness, context: PageContext) -> Node {
        guard r.toBuy > 0 else { return nothing }
        let key = ThreadKey(brand: r.brand, number: r.number)
        if let onList = addedByHand[key] {
            return el("div", ["class": "footnote on-list"],
                      el("a", ["href": SiteURL.shopping.path], text("On your shopping list: \(onList) added by hand")))
        }
        if ShoppingList.counts(detail.project) {
            return el("div", ["class": "footnote on-list"], el("a", ["href": SiteURL.shopping.path], text("On your shopping list")))
        }
        return Layout.form(.shoppingAdd, context: context, attrs: "inline add-to-list",
            void("input", ["type": "hidden", "name": "brand", "value": r.brand]),
            void("input", ["type": "hidden", "name": "number", "value": r.number]),
            void("input", ["type": "hidden", "name": "colorName", "value": r.colorName]),
            void("input", ["type": "hidden", "name": "quantity", "value": String(r.toBuy)]),
            void("input", ["type": "hidden", "name": "notes", "value": "For \(detail.title)"]),
            void("input", ["type": "hidden", "name": "back", "value": SiteURL.project(projectId).path + "#threads"]),
            el("button", ["class": "secondary small", "type": "submit", "aria-label": "Add \(r.toBuy) \(r.brand) \(r.number) to the shopping list"],
               text("Add \(r.toBuy) to shopping list")))
    }

    /// Set the dates by hand (a WIP begun months ago), as far as the status has them.
    func datesEditor(_ context: PageContext) -> Node {
        let p = detail.project
        guard p.status != .planned else { return nothing }
        return el("details", ["class": "edit", "id": "dates"],
            el("summary", [:], text("Change dates")),
            Layout.form(.projectDates(projectId), context: context,
                Layout.field("Started", name: "startedAt", value: Layout.date(p.startedAt), type: "date", error: errors["startedAt"], required: true),
                [.atFinishing, .completed].contains(p.status)
                    ? Layout.field("At finishing", name: "finishingAt", value: Layout.date(p.finishingAt), type: "date", error: errors["finishingAt"]) : nothing,
                p.status == .completed
                    ? Layout.field("Completed", name: "completedAt", value: Layout.date(p.completedAt), type: "date", error: errors["completedAt"]) : nothing,
                el("button", ["class": "primary", "type": "submit"], text("Save dates"))))
    }

    func notesSection(_ context: PageContext) -> Node {
        let notes = detail.project.notes ?? ""
        return el("section", ["class": "card", "id": "notes"],
           el("h2", [:], text("Notes")),
           notes.isEmpty ? el("p", ["class": "muted"], text("No notes yet.")) : el("p", ["class": "prewrap", "id": "project-notes"], text(notes)),
           el("details", [:],
              el("summary", [:], text(notes.isEmpty ? "Add notes" : "Edit notes")),
              Layout.form(.projectNotes(projectId), context: context,
                  Layout.textArea("Notes", name: "notes", value: notes, id: "f-project-notes", rows: 4),
                  el("button", ["class": "primary", "type": "submit"], text("Save notes")))))
    }

    /// Rename, status, move up/down and delete, under the section's heading.
    func sectionTools(_ s: SectionReadiness, index: Int, count: Int, context: PageContext) -> Node {
        let sid = s.sectionId.wireText
        let record = sections.first { $0.id == s.sectionId }
        let move = { (direction: String, label: String, enabled: Bool) -> Node in
            Layout.form(.moveSection(projectId, sid), context: context, attrs: "inline",
                void("input", ["type": "hidden", "name": "direction", "value": direction]),
                el("button", ["class": "secondary", "type": "submit", "disabled": enabled ? nil : "disabled",
                              "aria-label": "Move \(s.name) \(direction)"], text(label)))
        }
        return el("details", ["class": "edit", "data-section-tools": sid],
            el("summary", [:], text("Edit section"), el("span", ["class": "visually-hidden"], text(" " + s.name))),
            Layout.form(.section(projectId, sid), context: context,
                Layout.field("Section name", name: "name", value: s.name, id: "f-section-name-\(sid)"),
                Layout.select("Status", name: "status", options: SectionStatus.allCases.map { ($0.rawValue, $0.displayName) },
                              selected: record?.status.rawValue, id: "f-section-status-\(sid)"),
                el("button", ["class": "primary", "type": "submit"], text("Save section"))),
            el("div", ["class": "toolbar"],
               move("up", "↑ Move up", index > 0), move("down", "↓ Move down", index < count - 1),
               Layout.form(.deleteSection(projectId, sid), context: context, attrs: "inline",
                   el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete the section \(s.name)? Its threads stay with the project."],
                      text("Delete section")))))
    }

    /// Quantity, colour name and notes of one requirement.
    func requirementTools(_ r: RequirementReadiness, context: PageContext) -> Node {
        let rid = r.requirementId.wireText
        let record = requirementRecords[r.requirementId]
        return el("details", ["class": "edit"],
            el("summary", [:], text("Edit"), el("span", ["class": "visually-hidden"], text(" \(r.brand) \(r.number)"))),
            Layout.form(.requirement(projectId, rid), context: context,
                Layout.field("Skeins needed", name: "quantityNeeded", value: String(r.needed), type: "number", id: "f-need-qty-\(rid)",
                             extra: ["min": "1", "inputmode": "numeric"]),
                Layout.field("Colour name", name: "colorName", value: r.colorName, id: "f-need-color-\(rid)"),
                Layout.field("Notes", name: "notes", value: record?.notes, id: "f-need-notes-\(rid)", extra: ["placeholder": "Tent stitch, 2 plies"]),
                el("button", ["class": "primary", "type": "submit"], text("Save"))))
    }

    func dot(_ color: ReadinessColor) -> Node {
        el("span", ["class": "readiness \(color.rawValue)", "role": "img", "aria-label": "Readiness \(color.rawValue)"])
    }

    func requirementRows(_ reqs: [RequirementReadiness], context: PageContext) -> Node {
        guard !reqs.isEmpty else { return el("p", ["class": "muted"], text("No threads listed yet.")) }
        return el("table", [:],
            el("thead", [:], el("tr", [:], el("th", [:], text("Thread")), el("th", [:], text("Have")), el("th", [:], text("Need")),
                                el("th", [:], text("Buy")), el("th", [:], el("span", ["class": "visually-hidden"], text("Remove"))))),
            el("tbody", [:], children: reqs.map { r in
                el("tr", ["data-requirement": r.requirementId.wireText],
                   el("td", [:], text("\(r.brand) "), el("span", ["class": "data"], text(r.number)),
                      r.colorName.map { el("span", ["class": "muted"], text(" · " + $0)) } ?? nothing,
                      el("div", ["class": "footnote"], text(r.summary)),
                      shoppingTool(r, context: context),
                      (requirementRecords[r.requirementId]?.notes).map { el("div", ["class": "footnote requirement-notes"], text($0)) } ?? nothing,
                      requirementTools(r, context: context)),
                   el("td", ["class": "data have"], text(String(r.have))),
                   el("td", ["class": "data need"], text(String(r.needed))),
                   el("td", ["class": "data buy"], text(String(r.toBuy))),
                   el("td", [:], Layout.form(.deleteRequirement(projectId, r.requirementId.wireText), context: context, attrs: "",
                                             el("button", ["class": "round", "type": "submit", "aria-label": "Remove \(r.brand) \(r.number)"], text("×")))))
            }))
    }

    func threadsSection(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "threads"],
           el("h2", [:], dot(readiness.color), text(" Threads")),
           el("p", ["class": "muted", "id": "readiness-summary", "data-color": readiness.color.rawValue], text(readiness.summary)),
           group(readiness.sections.enumerated().map { index, s in
               group([el("h3", ["data-section-color": s.color.rawValue, "data-section": s.sectionId.wireText], dot(s.color), text(" " + s.name),
                         (sections.first { $0.id == s.sectionId }).map { el("span", ["class": "muted section-status"], text(" · " + $0.status.displayName)) } ?? nothing),
                      sectionTools(s, index: index, count: readiness.sections.count, context: context),
                      requirementRows(s.requirements, context: context)])
           }),
           when(!readiness.unsectioned.isEmpty || readiness.sections.isEmpty,
                group([when(!readiness.sections.isEmpty, el("h3", [:], text("Other threads"))), requirementRows(readiness.unsectioned, context: context)])),
           el("details", [:],
              el("summary", [:], text("Add a thread requirement")),
              Layout.form(.newRequirement(projectId), context: context,
                  Layout.select("From your inventory", name: "threadId",
                                options: [("", "— not in my inventory —")] + inventory.map { ($0.id.wireText, "\($0.brand) \($0.number)\($0.colorName.map { " · \($0)" } ?? "")") },
                                selected: nil),
                  Layout.field("Brand", name: "brand", error: errors["brand"], extra: ["placeholder": "When not from inventory"]),
                  Layout.field("Number", name: "number", error: errors["number"]),
                  Layout.field("Skeins needed", name: "quantityNeeded", value: "1", type: "number", error: errors["quantityNeeded"], extra: ["min": "1", "inputmode": "numeric"]),
                  Layout.select("Section", name: "sectionId", options: [("", "No section")] + sections.map { ($0.id.wireText, $0.name) }, selected: nil),
                  el("button", ["class": "primary", "type": "submit"], text("Add requirement")))),
           el("details", [:],
              el("summary", [:], text("Add a section")),
              Layout.form(.newSection(projectId), context: context,
                  Layout.field("Section name", name: "name", error: errors["name"], extra: ["placeholder": "Background, Border, Center motif"]),
                  el("button", ["class": "secondary", "type": "submit"], text("Add section")))))
    }

    /// The patterns stitched from: each with its first page's thumbnail and where its reader is.
    func patternsSection(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "patterns"],
           el("h2", [:], text("Patterns")),
           patterns.isEmpty
               ? el("p", ["class": "muted"], text("Add the pattern you stitch from — a PDF chart or a photo of it — and read it here page by page."))
               : el("ul", ["class": "list", "id": "pattern-list"], children: patterns.map { p in
                   let id = p.pattern.id.wireText
                   return el("li", ["class": "row"],
                      p.pages.rendered > 0
                          ? void("img", ["class": "pattern-thumb", "src": SiteURL.patternThumb(projectId, id, 1).path, "alt": "", "loading": "lazy"])
                          : el("span", ["class": "pattern-thumb"]),
                      el("div", ["class": "grow"],
                         el("a", ["class": "title", "href": SiteURL.pattern(projectId, id).path], text(p.pattern.title)),
                         el("div", ["class": "muted"], text(PatternViewerPage.progressText(p.pages, lastPage: p.pattern.lastPage)))))
               }),
           el("details", ["open": patterns.isEmpty ? "open" : nil],
              el("summary", [:], text("Add a pattern")),
              Layout.form(.patterns(projectId), context: context, multipart: true,
                  Layout.field("PDF or picture", name: "file", type: "file", error: errors["file"],
                               extra: ["accept": "application/pdf,image/jpeg,image/png,image/heic,image/webp", "required": "required"]),
                  Layout.field("Title", name: "title", error: errors["title"], extra: ["placeholder": "The file's name if empty"]),
                  el("button", ["class": "primary", "type": "submit"], text("Add pattern")))))
    }

    func journalSection(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "journal"],
           el("h2", [:], text("Journal")),
           el("details", ["open": journal.isEmpty ? "open" : nil],
              el("summary", [:], text("Add a journal entry")),
              Layout.form(.newEntry(projectId), context: context, multipart: true,
                  el("label", ["for": "f-entry-notes"], text("Notes"), el("textarea", ["id": "f-entry-notes", "name": "notes", "rows": "3"])),
                  Layout.field("Date", name: "date", type: "date", error: errors["date"], id: "f-entry-date", extra: ["placeholder": "Today"]),
                  Layout.field("Photos", name: "images", type: "file", error: errors["image"],
                               extra: ["accept": "image/jpeg,image/png,image/heic,image/webp", "multiple": "multiple"]),
                  el("button", ["class": "primary", "type": "submit"], text("Add entry")))),
           journal.isEmpty
               ? Layout.emptyState(icon: "journal", title: "No entries yet", message: "Tap + to add your first journal entry")
               : el("ul", ["class": "list", "id": "entries"], children: journal.map { entry in
                   el("li", ["class": "card", "data-entry": entry.entry.id.wireText],
                      el("time", ["class": "muted", "datetime": Timestamp.string(from: entry.entry.createdAt)], text(Layout.longDate(entry.entry.createdAt))),
                      el("p", ["class": "prewrap"], text(entry.entry.notes)),
                      when(!entry.images.isEmpty, el("div", ["class": "grid"], children: entry.images.map { image in
                          el("a", ["href": SiteURL.photo(projectId, image.id.wireText).path],
                             void("img", ["src": SiteURL.image(image.imageKey).path, "alt": "Journal photo \(image.sortOrder + 1)", "loading": "lazy"]))
                      })),
                      entryTools(entry.entry, photos: entry.images.count, context: context))
               }))
    }

    func entryTools(_ entry: JournalEntry, photos: Int, context: PageContext) -> Node {
        let eid = entry.id.wireText
        return el("details", ["class": "edit"],
            el("summary", [:], text("Edit entry")),
            Layout.form(.entry(projectId, eid), context: context,
                Layout.textArea("Notes", name: "notes", value: entry.notes, id: "f-entry-notes-\(eid)"),
                Layout.field("Date", name: "date", value: Layout.date(entry.createdAt), type: "date", id: "f-entry-date-\(eid)"),
                el("button", ["class": "primary", "type": "submit"], text("Save entry"))),
            Layout.form(.deleteEntry(projectId, eid), context: context, attrs: "inline",
                el("button", ["class": "danger", "type": "submit",
                              "data-confirm": photos == 0 ? "Delete this journal entry?" : "Delete this journal entry and its \(photos == 1 ? "photo" : "\(photos) photos")?"],
                   text("Delete entry"))))
    }
}

/// One journal photo, large, with "2 of 5" and previous/next. Double-tap zooms to 2× (app.js).
struct PhotoViewerPage {
    var projectId: UUID
    var title: String
    var images: [JournalImage]
    var index: Int

    func render(_ context: PageContext) -> Node {
        let image = images[index]
        let pid = projectId.wireText
        return Layout.page("Photo \(index + 1) of \(images.count)", section: .projects, context: context,
            el("div", ["class": "viewer"],
               el("div", ["class": "pager"],
                  index > 0 ? el("a", ["class": "button secondary", "href": SiteURL.photo(pid, images[index - 1].id.wireText).path, "rel": "prev"], text("‹ Previous")) : el("span", [:]),
                  el("span", ["class": "counter", "aria-live": "polite"], text("\(index + 1) of \(images.count)")),
                  index < images.count - 1 ? el("a", ["class": "button secondary", "href": SiteURL.photo(pid, images[index + 1].id.wireText).path, "rel": "next"], text("Next ›")) : el("span", [:])),
               el("div", ["class": "photo-stage", "id": "photo-stage"],
                  void("img", ["src": SiteURL.image(image.imageKey).path, "alt": "Photo \(index + 1) of \(images.count) from \(title)", "class": "zoomable",
                               "id": "photo", "draggable": "false"])),
               el("p", [:], el("a", ["href": SiteURL.project(pid).path + "#journal"], text("Back to \(title)")))))
    }
}

struct ShoppingPage {
    var items: [ShoppingItem]
    static let scope = "For the projects you are stitching, and threads you add by hand. A thread several projects need is counted once: what they need together, less what you have. Projects at finishing are left out: they are stitched already; so are planned ones until you start them (add a planned project\u{2019}s short threads from its page)."

    /// "Black · need 5 in all, have 1 · buy 4 · Nutcracker 2, Santa 2"; with skeins added by hand
    /// "… · buy 6 · for Nutcracker · 2 by hand: running low"; a thread only added by hand
    /// "Black · have 1 · buy 2 · by hand: running low".
    static func line(_ item: ShoppingItem) -> String {
        let forWhom: String? = item.projects.isEmpty ? nil : item.projects.count == 1
            ? "for " + item.projects[0].title
            : item.projects.map { "\($0.title) \($0.toBuy)" }.joined(separator: ", ")
        let need = item.projects.isEmpty ? "have \(item.have)" : "need \(item.needed) in all, have \(item.have)"
        let hand: String? = item.byHand == 0 ? nil
            : ([item.projects.isEmpty ? "by hand" : "\(item.byHand) by hand"] + item.handNotes).joined(separator: ": ")
        return [item.colorName, need, "buy \(item.toBuy)", forWhom, hand]
            .compactMap { $0 }.joined(separator: " · ")
    }
    /// Per "brand number": the catalog colour closest to it (another brand's when there is one).
    var alternatives: [String: CatalogAlternatives] = [:]

    func render(_ context: PageContext) -> Node {
        // One heading per brand, in the list's order (brand, then number).
        var brands: [(String, [ShoppingItem])] = []
        for item in items {
            if brands.last?.0 == item.brand { brands[brands.count - 1].1.append(item) } else { brands.append((item.brand, [item])) }
        }
        return Layout.page("Shopping list", section: .shopping, context: context,
            el("div", ["class": "toolbar"],
               el("h1", [:], text("Shopping list")),
               when(!items.isEmpty, el("a", ["class": "button secondary no-print", "href": SiteURL.shoppingText.path, "download": "shopping-list.txt"],
                                      text("Plain text"))),
               when(!items.isEmpty, el("button", ["class": "secondary no-print", "type": "button", "data-print": "", "hidden": "hidden"], text("Print")))),
            el("p", ["class": "muted", "id": "shopping-scope"], text(Self.scope)),
            addForm(context),
            items.isEmpty
                ? Layout.emptyState(icon: "shopping", title: "Nothing to buy", message: "Every thread your projects need is in your inventory.")
                : el("div", ["id": "shopping"], children: brands.map { brand, group in
                    el("section", ["data-brand": brand],
                       el("h2", ["class": "shopping-brand"], text(brand)),
                       el("ul", ["class": "list"], children: group.map { row($0, context: context) }))
                }))
    }

    func row(_ item: ShoppingItem, context: PageContext) -> Node {
        let key = "\(item.brand) \(item.number)"
        let hex = alternatives[key]?.entry?.hex
        return el("li", ["class": "row", "data-item": key],
           el("span", ["class": "tick print-only", "aria-hidden": "true"]),
           hex.map { el("span", ["class": "swatch", "style": "background:\($0)", "role": "img", "aria-label": "Colour \($0)"]) }
               ?? el("span", ["class": "swatch unknown", "aria-hidden": "true"], text("?")),
           el("div", ["class": "grow"],
              el("strong", [:], text("\(item.brand) "), el("span", ["class": "data"], text(item.number))),
              el("div", ["class": "muted"], text(Self.line(item))),
              alternatives[key]?.nearest.first.map { n in
                  el("div", ["class": "footnote alternative"],
                     el("span", ["class": "swatch small", "style": "background:\(n.entry.hex)", "role": "img", "aria-label": "Colour \(n.entry.hex)"]),
                     text(" Nearest: \(n.entry.label), \(n.difference)"))
              } ?? nothing),
           el("div", ["class": "row-actions"],
           Layout.form(.buy, context: context, attrs: "stepper",
                       void("input", ["type": "hidden", "name": "brand", "value": item.brand]),
                       void("input", ["type": "hidden", "name": "number", "value": item.number]),
                       void("input", ["type": "hidden", "name": "colorName", "value": item.colorName]),
                       el("label", ["class": "visually-hidden", "for": "q-\(item.brand)-\(item.number)"], text("Skeins bought")),
                       void("input", ["type": "number", "name": "quantity", "id": "q-\(item.brand)-\(item.number)", "value": String(item.toBuy), "min": "1", "inputmode": "numeric", "style": "width:5em"]),
                       el("button", ["class": "primary", "type": "submit", "aria-label": "Bought \(item.brand) \(item.number)"], text("Bought"))),
           Layout.form(.shoppingDismiss, context: context, attrs: "inline no-print",
                       void("input", ["type": "hidden", "name": "brand", "value": item.brand]),
                       void("input", ["type": "hidden", "name": "number", "value": item.number]),
                       el("button", ["class": "secondary", "type": "submit", "aria-label": "Set aside \(item.brand) \(item.number)",
                                     "title": "Leave it off the list until your projects need a different number of it"], text("Set aside")))))
    }

    /// Put a thread on the list by hand: running low, or for something not yet a project.
    func addForm(_ context: PageContext) -> Node {
        el("details", ["class": "card no-print", "id": "shopping-add"],
           el("summary", [:], text("Add a thread by hand")),
           Layout.form(.shoppingAdd, context: context,
               Layout.field("Brand", name: "brand", value: "DMC", required: true, id: "f-shop-brand", extra: ["autocomplete": "off"]),
               Layout.field("Number", name: "number", required: true, id: "f-shop-number", extra: ["autocomplete": "off"]),
               Layout.field("Skeins", name: "quantity", value: "1", type: "number", required: true, id: "f-shop-quantity",
                            extra: ["min": "1", "inputmode": "numeric"]),
               Layout.field("Why (optional)", name: "notes", id: "f-shop-notes", extra: ["placeholder": "Running low"]),
               el("button", ["class": "primary", "type": "submit"], text("Add to list"))))
    }
}

/// A pattern, a page at a time: thumbnails of every page, the page with zoom and pan by touch or
/// buttons (app.js), previous/next, and progress while a PDF's pages are still being drawn. The
/// page shown is saved as the pattern's `lastPage`, so any device opens there next.
struct PatternViewerPage {
    var projectId: String
    var projectTitle: String
    var detail: PatternDetail
    var page: Int

    static func progressText(_ pages: PatternPages, lastPage: Int) -> String {
        switch pages.status {
        case .rendering: "Drawing pages: \(pages.rendered) of \(pages.pageCount) ready"
        case .failed: "The pages could not be drawn: \(pages.message ?? "unknown reason")"
        case .ready: pages.pageCount == 1 ? "1 page" : "Page \(min(lastPage, pages.pageCount)) of \(pages.pageCount)"
        }
    }

    func render(_ context: PageContext) -> Node {
        let id = detail.pattern.id.wireText
        let pages = detail.pages
        let count = max(pages.pageCount, 1)
        return Layout.page(detail.pattern.title, section: .projects, context: context,
            el("div", ["class": "toolbar"], el("h1", [:], text(detail.pattern.title))),
            el("p", [:], el("a", ["href": SiteURL.project(projectId).path + "#patterns"], text("Back to \(projectTitle)")),
               when(detail.contentType == ImageFormat.pdf.contentType,
                    group([text(" · "), el("a", ["href": SiteURL.patternKey(projectId, id).path, "id": "read-key"], text("Read the colour key into the thread list"))]))),
            pages.status == .failed ? el("p", ["class": "flash", "role": "alert"], text(Self.progressText(pages, lastPage: page))) : nothing,
            el("div", ["class": "pattern-progress", "id": "pattern-progress", "hidden": pages.status == .rendering ? nil : "hidden",
                       "data-status-url": SiteURL.patternStatus(projectId, id).path],
               el("label", ["for": "pattern-progress-bar", "id": "pattern-progress-text", "aria-live": "polite"], text(Self.progressText(pages, lastPage: page))),
               el("progress", ["id": "pattern-progress-bar", "max": String(count), "value": String(pages.rendered)])),
            el("div", ["class": "pattern-viewer", "id": "pattern-viewer", "data-page": String(page), "data-count": String(count),
                       "data-rendered": String(pages.rendered),
                       "data-page-url": SiteURL.patternPage(projectId, id, page).path, "data-thumb-base": SiteURL.pattern(projectId, id).path + "/thumbs/"],
               el("div", ["class": "pager"],
                  page > 1 ? el("a", ["class": "button secondary", "href": SiteURL.pattern(projectId, id).path(query: ["page": String(page - 1)]), "rel": "prev"], text("‹ Previous")) : el("span", [:]),
                  el("span", ["class": "counter", "id": "pattern-counter", "aria-live": "polite"], text("Page \(page) of \(count)")),
                  page < count ? el("a", ["class": "button secondary", "href": SiteURL.pattern(projectId, id).path(query: ["page": String(page + 1)]), "rel": "next"], text("Next ›")) : el("span", [:])),
               el("div", ["class": "zoom-controls", "role": "group", "aria-label": "Zoom"],
                  el("button", ["class": "round", "type": "button", "data-zoom": "out", "aria-label": "Zoom out"], text("−")),
                  el("output", ["id": "pattern-zoom", "aria-live": "polite"], text("100%")),
                  el("button", ["class": "round", "type": "button", "data-zoom": "in", "aria-label": "Zoom in"], text("+")),
                  el("button", ["class": "secondary", "type": "button", "data-zoom": "fit"], text("Fit"))),
               el("div", ["class": "pattern-stage", "id": "pattern-stage"],
                  page <= pages.rendered
                      ? void("img", ["id": "pattern-page", "src": SiteURL.patternPage(projectId, id, page).path, "alt": "Page \(page) of \(detail.pattern.title)", "draggable": "false"])
                      : el("p", ["class": "muted", "id": "pattern-page-wait"], text("Page \(page) is still being drawn…"))),
               el("ol", ["class": "pattern-thumbs", "id": "pattern-thumbs", "aria-label": "Pages"], children: (1...count).map { n in
                   el("li", [:],
                      el("a", ["href": SiteURL.pattern(projectId, id).path(query: ["page": String(n)]), "aria-current": n == page ? "page" : nil,
                               "aria-label": "Page \(n)"],
                         n <= pages.rendered
                             ? void("img", ["src": SiteURL.patternThumb(projectId, id, n).path, "alt": "", "loading": "lazy"])
                             : el("span", ["class": "thumb-wait", "data-thumb": String(n)], text(String(n)))))
               })),
            Layout.form(.patternLastPage(projectId, id), context: context, attrs: "visually-hidden",
                void("input", ["type": "hidden", "name": "page", "value": String(page)]),
                el("button", ["type": "submit", "tabindex": "-1"], text("Remember this page"))),
            Layout.form(.deletePattern(projectId, id), context: context, attrs: "stack confirm",
                el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete the pattern \(detail.pattern.title)?"], text("Delete pattern"))))
    }
}
