import ServerCommon
import Foundation
import StitchCore

struct ProjectDetailPage {
    var detail: ProjectDetail
    var readiness: ProjectReadiness
    var sections: [ProjectSection]
    var journal: [JournalEntryDetail]
    var inventory: [InventoryThread]
    /// Up to this many threads in the inventory, a thread requirement is picked from a list of
    /// them; above it, typed (the brand offered from the inventory's brands) and linked on save.
    static let pickerLimit = 300
    /// The inventory's brands, each once, in natural order.
    var brands: [String] {
        var seen = Set<String>()
        return inventory.map(\.brand).filter { seen.insert($0.lowercased()).inserted }.sorted(by: NaturalOrder.areInIncreasingOrder)
    }
    var patterns: [PatternDetail] = []
    var errors: [String: String] = [:]

    var projectId: String { detail.project.id.wireText }

    func render(_ context: PageContext) -> Node {
        let p = detail.project
        return Layout.page(detail.title, section: .projects, context: context, split: split,
            heroImage(detail.pictureKey, alt: "Picture of \(detail.title)", id: "picture") ?? nothing,
            el("div", ["class": "toolbar"], el("h1", [:], text(detail.title)), statusBadge(p.status)),
            el("dl", ["class": "facts", "id": "project-facts"],
               group(canvasFacts),
               el("dt", [:], text(p.status == .planned ? "Planned" : "Started")), el("dd", [:], text(Layout.longDate(p.startedAt))),
               el("dt", [:], text("At finishing")), el("dd", [:], text(p.finishingAt.map(Layout.longDate) ?? "—")),
               el("dt", [:], text("Completed")), el("dd", [:], text(p.completedAt.map(Layout.longDate) ?? "—"))),
            datesEditor(context),
            sizeEditor(context),
            pictureChooser(context),
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

    /// A project without a canvas chooses its picture: one of its journal photos, or its
    /// pattern's first page (none to choose from: nothing shown).
    func pictureChooser(_ context: PageContext) -> Node {
        guard detail.canvas == nil else { return nothing }
        let photos = journal.flatMap(\.images)
        guard !photos.isEmpty || !patterns.isEmpty else { return nothing }
        let current = detail.project.imageKey
        func option(_ value: String, _ label: String, _ picture: Node, id: String) -> Node {
            el("label", ["class": "picture-option", "for": id],
               void("input", ["type": "radio", "name": "picture", "value": value, "id": id, "checked": value == (current ?? "") ? "checked" : nil]),
               picture, el("span", [:], text(label)))
        }
        return el("details", ["class": "edit", "id": detail.project.imageKey == nil ? "picture" : "choose-picture"],
            el("summary", [:], text(current == nil ? "Choose a picture" : "Change the picture")),
            errors["picture"].map { el("p", ["class": "error", "role": "alert"], text($0)) } ?? nothing,
            Layout.form(.projectPicture(projectId), context: context, attrs: "stack",
                el("div", ["class": "picture-options"], children:
                    photos.enumerated().map { index, image in
                        option(image.imageKey, "Journal photo \(index + 1)",
                               void("img", ["src": imageURL(image.imageKey)!, "alt": "", "loading": "lazy", "width": "64", "height": "64"]),
                               id: "picture-\(index)")
                    } + patterns.enumerated().map { index, pattern in
                        option("pattern:\(pattern.pattern.id.wireText)", "First page of \(pattern.pattern.title)",
                               void("img", ["src": SiteURL.patternThumb(projectId, pattern.pattern.id.wireText, 1).path, "alt": "", "loading": "lazy", "width": "64", "height": "64"]),
                               id: "picture-pattern-\(index)")
                    } + [option("", "No picture", el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("projects", size: 32)), id: "picture-none")]),
                el("button", ["class": "secondary", "type": "submit"], text("Use this picture"))))
    }

    /// What is known of the piece: the canvas's designer, and the mesh and size (the canvas's,
    /// or the project's own without one).
    var canvasFacts: [Node] {
        let (size, mesh) = detail.project.dimensions(canvas: detail.canvas)
        let facts: [(String, String?)] = [("Designer", detail.canvas?.designer), ("Mesh", mesh.map { "\($0) mesh" }), ("Size", size)]
        return facts.compactMap { label, value in
            value.flatMap { $0.isEmpty ? nil : group([el("dt", [:], text(label)), el("dd", [:], text($0))]) }
        }
    }

    var requirementRecords: [UUID: ProjectThread] = [:]
    /// Skeins on the shopping list by hand, per thread.
    var addedByHand: [ThreadKey: Int] = [:]
    /// The projects beside it from tablet width.
    var split: Layout.Split?

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

    /// A project without a canvas says its own size and mesh, as a canvas does (blank clears).
    func sizeEditor(_ context: PageContext) -> Node {
        let p = detail.project
        guard p.canvasId == nil else { return nothing }
        let known = p.size != nil || p.meshCount != nil
        return el("details", ["class": "edit", "id": "size", "open": errors["size"] != nil || errors["meshCount"] != nil ? "open" : nil],
            el("summary", [:], text(known ? "Change size and mesh" : "Add size and mesh")),
            Layout.form(.projectSize(projectId), context: context,
                Layout.field("Size", name: "size", value: p.size, error: errors["size"], id: "f-project-size", extra: ["placeholder": "14×18 in"]),
                Layout.field("Mesh count", name: "meshCount", value: p.meshCount.map(String.init), type: "number", error: errors["meshCount"],
                             id: "f-project-mesh", extra: ["min": "1", "max": String(Limits.maxMeshCount), "inputmode": "numeric"]),
                el("button", ["class": "primary", "type": "submit"], text("Save size"))))
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

    /// Rename, status, notes, move up/down and delete, under the section's heading.
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
                Layout.textArea("Notes", name: "notes", value: record?.notes, id: "f-section-notes-\(sid)"),
                el("button", ["class": "primary", "type": "submit"], text("Save section"))),
            el("div", ["class": "toolbar"],
               move("up", "↑ Move up", index > 0), move("down", "↓ Move down", index < count - 1),
               Layout.form(.deleteSection(projectId, sid), context: context, attrs: "inline",
                   el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete the section \(s.name)? Its threads stay with the project."],
                      text("Delete section")))))
    }

    /// Quantity, colour name and notes of one requirement: a link to its page (a form per row was
    /// three fields per thread for the browser to read at every load).
    func editLink(_ r: RequirementReadiness) -> Node {
        el("a", ["class": "edit-link", "href": SiteURL.requirement(projectId, r.requirementId.wireText).path],
           text("Edit"), el("span", ["class": "visually-hidden"], text(" \(r.brand) \(r.number)")))
    }

    func dot(_ color: ReadinessColor) -> Node {
        el("span", ["class": "readiness \(color.rawValue)", "role": "img", "aria-label": "Readiness \(color.rawValue)"])
    }

    func requirementRows(_ reqs: [RequirementReadiness], context: PageContext) -> Node {
        guard !reqs.isEmpty else { return el("p", ["class": "muted"], text("No threads listed yet.")) }
        // In a box of its own that scrolls sideways if a phone is too narrow for its columns:
        // the page itself never does (WCAG 1.4.10).
        return el("div", ["class": "scroll"], el("table", [:],
            el("thead", [:], el("tr", [:], el("th", [:], text("Thread")), el("th", [:], text("Have")), el("th", [:], text("Need")),
                                el("th", [:], text("Buy")), el("th", [:], el("span", ["class": "visually-hidden"], text("Remove"))))),
            el("tbody", [:], children: reqs.map { r in
                el("tr", ["data-requirement": r.requirementId.wireText],
                   el("td", [:], text("\(r.brand) "), el("span", ["class": "data"], text(r.number)),
                      r.colorName.map { el("span", ["class": "muted"], text(" · " + $0)) } ?? nothing,
                      el("div", ["class": "footnote"], text(r.summary)),
                      shoppingTool(r, context: context),
                      (requirementRecords[r.requirementId]?.notes).map { el("div", ["class": "footnote requirement-notes"], text($0)) } ?? nothing,
                      editLink(r)),
                   el("td", ["class": "data have"], text(String(r.have))),
                   el("td", ["class": "data need"], text(String(r.needed))),
                   el("td", ["class": "data buy"], text(String(r.toBuy))),
                   el("td", [:], Layout.form(.deleteRequirement(projectId, r.requirementId.wireText), context: context, attrs: "",
                                             el("button", ["class": "round", "type": "submit", "aria-label": "Remove \(r.brand) \(r.number)"], text("×")))))
            })))
    }

    func threadsSection(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "threads"],
           el("h2", [:], dot(readiness.color), text(" Threads")),
           el("p", ["class": "muted", "id": "readiness-summary", "data-color": readiness.color.rawValue], text(readiness.summary)),
           group(readiness.sections.enumerated().map { index, s in
               group([el("h3", ["data-section-color": s.color.rawValue, "data-section": s.sectionId.wireText], dot(s.color), text(" " + s.name),
                         (sections.first { $0.id == s.sectionId }).map { el("span", ["class": "muted section-status"], text(" · " + $0.status.displayName)) } ?? nothing),
                      (sections.first { $0.id == s.sectionId }?.notes).map { el("p", ["class": "muted section-notes"], text($0)) } ?? nothing,
                      sectionTools(s, index: index, count: readiness.sections.count, context: context),
                      requirementRows(s.requirements, context: context)])
           }),
           when(!readiness.unsectioned.isEmpty || readiness.sections.isEmpty,
                group([when(!readiness.sections.isEmpty, el("h3", [:], text("Other threads"))), requirementRows(readiness.unsectioned, context: context)])),
           el("details", [:],
              el("summary", [:], text("Add a thread requirement")),
              Layout.form(.newRequirement(projectId), context: context,
                  inventory.count <= Self.pickerLimit
                      ? group([Layout.select("From your inventory", name: "threadId",
                                             options: [("", "— not in my inventory —")] + inventory.map { ($0.id.wireText, "\($0.brand) \($0.number)\($0.colorName.map { " · \($0)" } ?? "")") },
                                             selected: nil),
                               Layout.field("Brand", name: "brand", error: errors["brand"], extra: ["placeholder": "When not from inventory"])])
                      // A list of every thread would be most of the page (5,000 threads: 476 KiB of HTML).
                      : group([el("p", ["class": "muted"], text("Type its brand and number: a thread of your inventory with them is linked to it.")),
                               Layout.field("Brand", name: "brand", error: errors["brand"], extra: ["list": "inventory-brands"]),
                               el("datalist", ["id": "inventory-brands"], children: brands.map { void("option", ["value": $0]) })]),
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
                      when(!entry.images.isEmpty, el("div", ["class": "grid"], children: entry.images.enumerated().map { index, image in
                          el("a", ["href": SiteURL.photo(projectId, image.id.wireText).path],
                             void("img", ["src": imageURL(image.imageKey, width: PictureSizes.widths[1])!, "srcset": imageSrcset(image.imageKey),
                                          "sizes": "(min-width: 1024px) 240px, 50vw", "alt": "Journal photo \(index + 1)", "loading": "lazy"]))
                      })),
                      entryTools(entry, context: context))
               }))
    }

    func entryTools(_ detail: JournalEntryDetail, context: PageContext) -> Node {
        let entry = detail.entry, photos = detail.images.count
        let eid = entry.id.wireText
        return el("details", ["class": "edit"],
            el("summary", [:], text("Edit entry")),
            Layout.form(.entry(projectId, eid), context: context,
                Layout.textArea("Notes", name: "notes", value: entry.notes, id: "f-entry-notes-\(eid)"),
                Layout.field("Date", name: "date", value: Layout.date(entry.createdAt), type: "date", id: "f-entry-date-\(eid)"),
                el("button", ["class": "primary", "type": "submit"], text("Save entry"))),
            photoTools(detail, context: context),
            Layout.form(.entryPhotos(projectId, eid), context: context, multipart: true,
                Layout.field("Add photos", name: "images", type: "file", error: errors["image"], id: "f-entry-photos-\(eid)",
                             extra: ["accept": "image/jpeg,image/png,image/heic,image/webp", "multiple": "multiple"]),
                el("button", ["class": "secondary", "type": "submit"], text("Add photos"))),
            Layout.form(.deleteEntry(projectId, eid), context: context, attrs: "inline",
                el("button", ["class": "danger", "type": "submit",
                              "data-confirm": photos == 0 ? "Delete this journal entry?" : "Delete this journal entry and its \(photos == 1 ? "photo" : "\(photos) photos")?"],
                   text("Delete entry"))))
    }
}

extension ProjectDetailPage {
    /// An entry's photos in order, each with "Earlier", "Later" and "Remove" (buttons a finger
    /// can hit: the `.photo-tools` rule).
    func photoTools(_ detail: JournalEntryDetail, context: PageContext) -> Node {
        guard !detail.images.isEmpty else { return nothing }
        let eid = detail.entry.id.wireText, last = detail.images.count - 1
        func move(_ image: JournalImage, _ direction: String, _ label: String, disabled: Bool, _ n: Int) -> Node {
            Layout.form(.moveEntryPhoto(projectId, eid, image.id.wireText), context: context, attrs: "inline",
                void("input", ["type": "hidden", "name": "direction", "value": direction]),
                el("button", ["class": "secondary", "type": "submit", "aria-label": "Move photo \(n) \(direction)",
                              "disabled": disabled ? "disabled" : nil], text(label)))
        }
        return el("ol", ["class": "photo-tools", "aria-label": "This entry's photos"], children: detail.images.enumerated().map { index, image in
            el("li", ["data-photo": image.id.wireText],
               void("img", ["src": imageURL(image.imageKey)!, "alt": "Photo \(index + 1)", "loading": "lazy", "width": "64", "height": "64"]),
               move(image, "earlier", "↑ Earlier", disabled: index == 0, index + 1),
               move(image, "later", "↓ Later", disabled: index == last, index + 1),
               Layout.form(.deleteEntryPhoto(projectId, eid, image.id.wireText), context: context, attrs: "inline",
                   el("button", ["class": "danger", "type": "submit", "aria-label": "Remove photo \(index + 1)",
                                 "data-confirm": "Remove this photo from the entry?"], text("Remove"))))
        })
    }
}

/// One journal photo, large, with "2 of 5" and previous/next. Double-tap zooms to 2× (app.js).
