import ServerCommon
import Foundation
import StitchCore

/// A picture's address at the width a place shows it (`PictureSizes`: a JPEG made for pages);
/// by default a 64-pt list thumbnail's.
func imageURL(_ key: String?, width: Int = PictureSizes.widths[0]) -> String? { key.map { SiteURL.image($0).path + "?w=\(width)" } }

/// Every width made of a picture, for `srcset` (the browser picks by the `sizes` it is shown at).
func imageSrcset(_ key: String) -> String {
    PictureSizes.widths.map { "\(SiteURL.image(key).path)?w=\($0) \($0)w" }.joined(separator: ", ")
}

/// A picture shown large (a canvas's or a project's): a card's width, more on a wide screen.
func heroImage(_ key: String?, alt: String, id: String? = nil) -> Node? {
    key.map { void("img", ["class": "hero", "id": id, "src": imageURL($0, width: PictureSizes.widths[1])!, "srcset": imageSrcset($0),
                           "sizes": "(min-width: 1024px) 720px, 100vw", "alt": alt]) }
}

struct StashPage {
    var canvases: [Canvas]
    var search: String
    var total: Int

    func render(_ context: PageContext) -> Node {
        Layout.page("Stitch Stash", section: .stash, context: context, split: .list(empty: "Choose a canvas to see it here."),
            el("div", ["class": "toolbar"],
               el("h1", [:], text("Stitch Stash")),
               el("form", ["method": "get", "action": SiteURL.stash.path, "class": "toolbar", "role": "search"],
                  Layout.field("Search", name: "q", value: search, type: "search", extra: ["placeholder": "Designer or design name"]),
                  el("button", ["class": "secondary", "type": "submit"], text("Search"))),
               el("a", ["class": "button primary", "href": SiteURL.newCanvas.path, "aria-label": "Add canvas"], text("+ Add canvas"))),
            total == 0
                ? Layout.emptyState(icon: "stash", title: "No canvases yet", message: "Tap + to add your first canvas",
                                    action: el("a", ["class": "button primary", "href": SiteURL.newCanvas.path], text("+ Add canvas")))
                : el("ul", ["class": "list", "id": "canvases"], children: canvases.map { Self.row($0) }))
    }

    /// The stash's order: the newest first.
    static func order(_ canvases: [Canvas]) -> [Canvas] {
        canvases.sorted { ($0.createdAt, $0.id.text) > ($1.createdAt, $1.id.text) }
    }

    /// The stash beside a canvas (from tablet width), that canvas marked.
    static func beside(_ canvases: [Canvas], current: UUID) -> Layout.Split {
        .detail(list: el("ul", ["class": "list"], children: order(canvases).map { row($0, current: $0.id == current) }), label: "Stitch Stash")
    }

    static func row(_ c: Canvas, current: Bool = false) -> Node {
        el("li", ["class": current ? "row current" : "row"],
           imageURL(c.imageKey).map { void("img", ["class": "thumb", "src": $0, "alt": "", "loading": "lazy", "width": "64", "height": "64"]) }
               ?? el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("stash", size: 32)),
           el("div", ["class": "grow"],
              el("a", ["class": "title", "href": SiteURL.canvas(c.id.wireText).path, "aria-current": current ? "page" : nil], text(c.designName)),
              el("div", ["class": "muted"], text(c.designer))),
           c.meshCount.map { el("span", ["class": "badge mesh", "aria-label": "\($0) mesh"], text("\($0)m")) } ?? nothing)
    }
}

struct CanvasFormPage {
    var canvas: Canvas?
    var values: [String: String]
    var errors: [String: String] = [:]
    var addAnother = false
    /// Editing, from tablet width: the stash beside the form.
    var split: Layout.Split?

    func render(_ context: PageContext) -> Node {
        let editing = canvas != nil
        let action: SiteURL = canvas.map { .editCanvas($0.id.wireText) } ?? .newCanvas
        return Layout.page(editing ? "Edit canvas" : "Add canvas", section: .stash, context: context, split: split,
            el("h1", [:], text(editing ? "Edit canvas" : "Add canvas")),
            Layout.errorSummary(errors),
            Layout.form(action, context: context, multipart: true,
                el("fieldset", [:],
                   el("legend", [:], text("Photo")),
                   Layout.field(editing ? "Replace photo" : "Photo", name: "image", type: "file", error: errors["image"],
                                extra: ["accept": "image/jpeg,image/png,image/heic,image/webp"])),
                el("fieldset", [:],
                   el("legend", [:], text("Canvas")),
                   Layout.field("Designer", name: "designer", value: values["designer"], error: errors["designer"], required: true),
                   Layout.field("Design name", name: "designName", value: values["designName"], error: errors["designName"], required: true,
                                extra: ["autofocus": !editing && !(values["designer"] ?? "").isEmpty && (values["designName"] ?? "").isEmpty ? "autofocus" : nil]),
                   Layout.field("Acquired", name: "acquiredAt", value: values["acquiredAt"], type: "date", error: errors["acquiredAt"]),
                   Layout.field("Size", name: "size", value: values["size"], error: errors["size"], extra: ["placeholder": "13x18"]),
                   Layout.field("Mesh count", name: "meshCount", value: values["meshCount"], type: "number", error: errors["meshCount"],
                                extra: ["inputmode": "numeric", "min": "1"]),
                   el("label", ["for": "f-notes"], text("Notes"), el("textarea", ["id": "f-notes", "name": "notes", "rows": "3"], text(values["notes"] ?? "")))),
                when(!editing, el("label", ["class": "check", "for": "f-addAnother"],
                    void("input", ["type": "checkbox", "id": "f-addAnother", "name": "addAnother", "value": "on", "checked": addAnother ? "checked" : nil]),
                    text("Add another (keeps the designer)"))),
                el("button", ["class": "primary", "type": "submit"], text(editing ? "Save" : "Add canvas"))))
    }

    static func values(of c: Canvas) -> [String: String] {
        ["designer": c.designer, "designName": c.designName, "acquiredAt": Layout.date(c.acquiredAt), "size": c.size ?? "",
         "meshCount": c.meshCount.map(String.init) ?? "", "notes": c.notes ?? ""]
    }
}

struct CanvasDetailPage {
    var canvas: Canvas
    var project: Project?
    /// The stash beside it from tablet width.
    var split: Layout.Split?

    func render(_ context: PageContext) -> Node {
        let c = canvas
        return Layout.page(c.designName, section: .stash, context: context, split: split,
            heroImage(c.imageKey, alt: "Photo of \(c.designName)") ?? nothing,
            el("h1", [:], text(c.designName)),
            el("p", ["class": "muted"], text(c.designer)),
            el("dl", ["class": "facts"],
               el("dt", [:], text("Acquired")), el("dd", [:], text(c.acquiredAt.map(Layout.longDate) ?? "—")),
               el("dt", [:], text("Size")), el("dd", [:], text(c.size ?? "—")),
               el("dt", [:], text("Mesh")), el("dd", ["class": "data"], text(c.meshCount.map { "\($0)" } ?? "—"))),
            c.notes.map { el("p", [:], text($0)) } ?? nothing,
            project.map { p in el("p", [:], text("Project: "), el("a", ["href": SiteURL.project(p.id.wireText).path], text(p.status.displayName))) }
                ?? el("p", [:], text("Not started")),
            el("div", ["class": "toolbar"],
               c.imageKey.map { _ in el("a", ["class": "button primary", "href": SiteURL.canvasPalette(c.id.wireText).path, "id": "canvas-palette"],
                                        text("Colours and threads")) } ?? nothing,
               el("a", ["class": "button secondary", "href": SiteURL.editCanvas(c.id.wireText).path], text("Edit")),
               el("a", ["class": "button danger", "href": SiteURL.deleteCanvas(c.id.wireText).path], text("Delete"))))
    }
}

struct DeleteCanvasPage {
    var canvas: Canvas
    var error: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Delete canvas", section: .stash, context: context,
            el("h1", [:], text("Delete canvas")),
            error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            el("p", [:], text("Are you sure you want to delete this canvas?")),
            el("p", ["class": "muted"], text("\(canvas.designName) by \(canvas.designer)")),
            Layout.form(.deleteCanvas(canvas.id.wireText), context: context,
                el("button", ["class": "danger", "type": "submit"], text("Delete")),
                el("a", ["class": "button secondary", "href": SiteURL.canvas(canvas.id.wireText).path], text("Cancel"))))
    }
}
