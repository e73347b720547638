import ServerCommon
import Foundation
import StitchCore

/// A painted canvas's colours beside its photo, to review before they become a project's
/// thread list: each colour's share and region (its row's "Show" lights it up on the photo),
/// the thread for it (the nearest of each catalog, or any other), skeins, merging two colours
/// onto one thread, dropping one, adding a thread; fewer or more colours, the canvas's own
/// colour, a bare spot tapped to correct the light, and the size and mesh asked for when the
/// amounts need them.
struct CanvasPalettePage {
    var canvas: Canvas
    var answer: CanvasPaletteAnswer
    var asked: CanvasPalettes.Asked
    /// Where the threads can go: the canvas's project first, then the stitcher's other live
    /// projects, each with its sections.
    var targets: [Target]
    var brands: [String]
    var errors: [String: String] = [:]

    /// A project the threads can be added to.
    struct Target {
        var project: Project
        var title: String
        var sections: [ProjectSection]
    }

    /// The form's value for "a new project from this canvas".
    static let newProject = "new"

    /// The reading asked as query items (the "fewer / more colours" links and the forms keep it).
    static func query(_ asked: CanvasPalettes.Asked, detail: CanvasPalette.Detail? = nil) -> [String: String] {
        var query = ["detail": String((detail ?? asked.detail).rawValue), "ground": asked.ground.rawValue, "stitch": asked.stitch.rawValue,
                     "strands": String(asked.strands)]
        if let spot = asked.spot { query["spot"] = "\(spot.x),\(spot.y)" }
        return query
    }

    /// "Colour 3", as the rows and the merge choices name a colour.
    static func name(_ index: Int) -> String { "Colour \(index + 1)" }

    func render(_ context: PageContext) -> Node {
        let id = canvas.id.wireText
        let rows = answer.threads.rows
        return Layout.page("Colours · \(canvas.designName)", section: .stash, context: context,
            el("div", ["class": "toolbar"], el("h1", [:], text("Colours of \(canvas.designName)"))),
            el("p", [:], el("a", ["href": SiteURL.canvas(id).path], text("Back to \(canvas.designName)"))),
            photo(),
            el("p", ["class": "card", "id": "palette-message", "role": "status"], text(message())),
            Layout.errorSummary(errors),
            adjust(),
            answer.threads.amountsNote.map { sizeForm($0, context: context) } ?? nothing,
            rows.isEmpty ? nothing
                : Layout.form(.canvasPalette(id), context: context, attrs: "stack palette-form",
                    hiddenQuery(),
                    el("ol", ["class": "list palette-rows", "id": "palette-rows"], children: rows.enumerated().map { row($1, index: $0) }),
                    addRow(),
                    target(),
                    el("button", ["class": "primary", "type": "submit", "id": "palette-confirm"], text("Add the ticked threads"))))
    }

    private func photo() -> Node {
        let map = answer.palette.map
        return el("figure", ["class": "palette-photo", "id": "palette-photo", "data-map": map?.cells, "data-map-width": map.map { String($0.width) },
                             "data-map-height": map.map { String($0.height) }, "data-photo-width": answer.photoWidth.map(String.init),
                             "data-photo-height": answer.photoHeight.map(String.init)],
            el("div", ["class": "palette-frame"],
               void("img", ["src": imageURL(answer.imageKey, width: PictureSizes.widths[2])!, "alt": "Photo of \(canvas.designName)",
                            "id": "palette-image"]),
               el("canvas", ["class": "palette-overlay", "aria-hidden": "true"])),
            el("figcaption", ["class": "muted"],
               text("“Show” on a colour’s row lights up where it is painted. "),
               el("button", ["class": "secondary", "type": "button", "id": "palette-spot", "hidden": "hidden", "aria-pressed": "false"],
                  text("Tap a bare spot of canvas")),
               el("span", ["id": "palette-spot-help", "hidden": "hidden"], text(" Now tap unpainted canvas on the photo: its colour corrects the light."))))
    }

    private func message() -> String {
        let count = answer.palette.colours.count
        guard count > 0 else { return "No painted colours found on this photo: it looks like bare canvas. Try a photo of the painted canvas." }
        var parts = ["Found \(count) colour\(count == 1 ? "" : "s"); bare canvas is \(percent(answer.palette.bareShare)) of the photo."]
        if asked.spot != nil {
            parts.append("Colours corrected against the spot you tapped.")
        } else if answer.palette.reference != nil {
            parts.append("Colours corrected against the canvas’s unpainted border.")
        } else {
            parts.append("No unpainted border found, so the colours are as photographed: tap a bare spot to correct them.")
        }
        return parts.joined(separator: " ")
    }

    private func percent(_ share: Double) -> String {
        share < 0.01 && share > 0 ? "under 1%" : "\(Int((share * 100).rounded()))%"
    }

    /// Fewer or more colours (links), and the canvas's colour, the stitch and strands (a GET form).
    private func adjust() -> Node {
        let path = SiteURL.canvasPalette(canvas.id.wireText).path
        let fewer = CanvasPalette.Detail(rawValue: asked.detail.rawValue - 1), more = CanvasPalette.Detail(rawValue: asked.detail.rawValue + 1)
        func link(_ label: String, _ detail: CanvasPalette.Detail?, id: String) -> Node {
            guard let detail else { return el("span", ["class": "button secondary disabled", "aria-disabled": "true", "id": id], text(label)) }
            return el("a", ["class": "button secondary", "id": id, "href": SiteURL.canvasPalette(canvas.id.wireText).path(query: Self.query(asked, detail: detail))],
                      text(label))
        }
        var keep: [(String, String)] = [("detail", String(asked.detail.rawValue))]
        if let spot = asked.spot { keep.append(("spot", "\(spot.x),\(spot.y)")) }
        return el("section", ["class": "card", "id": "palette-adjust", "aria-labelledby": "palette-adjust-title"],
            el("h2", ["id": "palette-adjust-title"], text("Reading")),
            el("div", ["class": "toolbar"], link("Fewer colours", fewer, id: "palette-fewer"), link("More colours", more, id: "palette-more")),
            el("form", ["method": "get", "action": path, "class": "stack", "id": "palette-read"],
               el("div", [:], children: keep.map { void("input", ["type": "hidden", "name": $0.0, "value": $0.1]) }),
               Layout.select("Canvas", name: "ground", options: [("white", "White canvas"), ("ecru", "Ecru canvas")], selected: asked.ground.rawValue),
               Layout.select("Stitch", name: "stitch", options: [("basketweave", "Basketweave"), ("continental", "Continental")], selected: asked.stitch.rawValue),
               Layout.field("Strands", name: "strands", value: String(asked.strands), type: "number", extra: ["min": "1", "max": "24", "inputmode": "numeric"]),
               el("button", ["class": "secondary", "type": "submit"], text("Read again"))))
    }

    /// The canvas's size and mesh, asked when the amounts need them.
    private func sizeForm(_ note: String, context: PageContext) -> Node {
        el("section", ["class": "card", "id": "palette-size", "aria-labelledby": "palette-size-title"],
           el("h2", ["id": "palette-size-title"], text("How big is the canvas?")),
           el("p", ["class": "muted"], text(note + ": they are saved on the canvas.")),
           Layout.form(.canvasPaletteSize(canvas.id.wireText), context: context,
              hiddenQuery(),
              Layout.field("Design size", name: "size", value: canvas.size, error: errors["size"], extra: ["placeholder": "10 x 12 in"]),
              Layout.field("Mesh", name: "meshCount", value: canvas.meshCount.map(String.init), type: "number", error: errors["meshCount"],
                           extra: ["min": "1", "inputmode": "numeric", "placeholder": "18"]),
              el("button", ["class": "secondary", "type": "submit", "id": "palette-size-save"], text("Save and count skeins"))))
    }

    private func hiddenQuery() -> Node {
        el("div", [:], children: Self.query(asked).sorted { $0.key < $1.key }.map { void("input", ["type": "hidden", "name": "read-" + $0.key, "value": $0.value]) })
    }

    private func row(_ row: PaletteThreads.Row, index: Int) -> Node {
        let name = Self.name(index)
        let options = choices(row).map { c in
            (value: "\(c.brand)|\(c.number)",
             label: "\(c.brand) \(c.number)\(c.name.isEmpty ? "" : " \(c.name)") — \(c.closeness)" + (c.owned ? " · you have \(c.ownedQuantity)" : ""))
        }
        let merges = [(value: "", label: "Its own thread")] + answer.threads.rows.indices.filter { $0 != index }.map { (value: String($0), label: "The same thread as \(Self.name($0))") }
        let same = row.sameThreadAs.compactMap { hex in answer.threads.rows.firstIndex { $0.hex == hex }.map(Self.name) }
        return el("li", ["class": "row key-row palette-row", "data-colour": String(index), "data-symbol": String(CanvasPalette.Map.symbols[min(index, CanvasPalette.Map.symbols.count - 1)]),
                         "id": "colour-\(index)"],
            void("input", ["type": "hidden", "name": "row-\(index)", "value": row.hex]),
            el("label", ["class": "key-take palette-take", "for": "take-\(index)"],
               void("input", ["type": "checkbox", "id": "take-\(index)", "name": "take-\(index)", "value": "on", "checked": "checked"]),
               el("span", ["class": "swatch", "style": "background:\(row.hex)", "role": "img", "aria-label": "Painted colour \(row.hex)"]),
               el("span", ["class": "title"], text(name)),
               el("span", ["class": "muted"], text(" · \(percent(row.share)) of the painted area"))),
            el("button", ["class": "secondary palette-show", "type": "button", "data-show": String(index), "aria-pressed": "false",
                          "aria-controls": "palette-photo", "hidden": "hidden"], text("Show \(name.lowercased()) on the photo")),
            el("div", ["class": "grow key-detail palette-detail"],
               el("div", ["class": "palette-have"], text(have(row))),
               when(!same.isEmpty, el("div", ["class": "muted palette-same"], text("On the same thread as \(same.joined(separator: " and "))")))),
            Layout.select("Thread", name: "thread-\(index)", options: options, selected: row.choice.map { "\($0.brand)|\($0.number)" }, id: "thread-\(index)"),
            Layout.field("Or another thread", name: "other-\(index)", error: errors["other-\(index)"], id: "other-\(index)",
                         extra: ["placeholder": "DMC 3865", "autocomplete": "off"]),
            Layout.field("Skeins", name: "quantity-\(index)", value: String(row.skeins ?? 1), type: "number", error: errors["quantity-\(index)"],
                         id: "quantity-\(index)", extra: ["min": "1", "inputmode": "numeric"]),
            Layout.select("Merge", name: "merge-\(index)", options: merges, selected: "", id: "merge-\(index)"))
    }

    /// The thread to use first, then the nearest of each catalog (without repeats).
    private func choices(_ row: PaletteThreads.Row) -> [PaletteThreads.Choice] {
        var list: [PaletteThreads.Choice] = []
        for c in [row.choice].compactMap({ $0 }) + row.nearest where !list.contains(where: { $0.brand == c.brand && $0.number == c.number }) {
            list.append(c)
        }
        return list
    }

    private func have(_ row: PaletteThreads.Row) -> String {
        guard let choice = row.choice else { return "No thread with a colour is close" }
        let owned = choice.ownedQuantity == 0 ? "you have none" : "you have \(choice.ownedQuantity)"
        guard let skeins = row.skeins, let stitches = row.stitches else { return "\(choice.brand) \(choice.number): \(owned)" }
        let buy = (row.toBuy ?? 0) > 0 ? ", buy \(row.toBuy!)" : ", enough"
        return "About \(stitches.formatted()) stitches, \(skeins) skein\(skeins == 1 ? "" : "s"); \(owned)\(buy)"
    }

    /// A thread the photo didn't show (a colour too small to read, or one the stitcher wants).
    private func addRow() -> Node {
        el("fieldset", ["class": "palette-add", "id": "palette-add"],
           el("legend", [:], text("Add a thread")),
           Layout.select("Brand", name: "add-brand", options: brands.map { ($0, $0) }, selected: brands.first, id: "add-brand"),
           Layout.field("Number", name: "add-number", error: errors["add-number"], id: "add-number", extra: ["autocomplete": "off"]),
           Layout.field("Skeins", name: "add-quantity", value: "1", type: "number", error: errors["add-quantity"], id: "add-quantity",
                        extra: ["min": "1", "inputmode": "numeric"]))
    }

    /// The project (and section) the threads go to.
    private func target() -> Node {
        var options: [(value: String, label: String)] = []
        for t in targets {
            options.append((t.project.id.wireText, t.project.canvasId == canvas.id ? "\(t.title) (this canvas’s project)" : t.title))
            options += t.sections.map { ("\(t.project.id.wireText)/\($0.id.wireText)", "\(t.title) — \($0.name)") }
        }
        if !targets.contains(where: { $0.project.canvasId == canvas.id }) {
            options.insert((Self.newProject, "A new project from this canvas"), at: 0)
        }
        return Layout.select("Add to", name: "target", options: options, selected: options.first?.value, id: "palette-target")
    }
}
