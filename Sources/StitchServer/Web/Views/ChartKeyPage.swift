import ServerCommon
import Foundation
import StitchCore

/// A chart's colour key to review before it becomes the project's thread list: every thread
/// read (ticked unless the project already needs it) with what the stitcher has, its quantity
/// and how it was found, a section to put it in, the nearest substitute, and the key's lines
/// that couldn't be read.
struct ChartKeyPage {
    var projectId: String
    var projectTitle: String
    var pattern: Pattern
    var proposal: ChartKeyProposal
    var sections: [ProjectSection]
    var errors: [String: String]

    /// The API's field errors as the page shows them: one message over the form.
    static func formFields(_ fields: [String: String]) -> [String: String] {
        ["form": fields.sorted { $0.key < $1.key }.map(\.value).joined(separator: " ")]
    }

    static func rule(_ thread: ChartKey.Thread, count: Int) -> String {
        switch thread.rule {
        case .key: "skeins from the key"
        case .stitches: "estimated from \(thread.stitches ?? 0) stitches on \(count) count"
        case .guess: "a guess: the key gives no quantity"
        }
    }

    func render(_ context: PageContext) -> Node {
        let id = pattern.id.wireText
        let catalog = try? Catalogs.shared()
        return Layout.page("Colour key · \(pattern.title)", section: .projects, context: context,
            el("div", ["class": "toolbar"], el("h1", [:], text("Colour key"))),
            el("p", [:], el("a", ["href": SiteURL.project(projectId).path + "#threads"], text("Back to \(projectTitle)")), text(" · "),
               el("a", ["href": SiteURL.pattern(projectId, id).path], text("Read \(pattern.title)"))),
            el("p", ["class": "card key-message", "id": "key-message", "role": "status"], text(proposal.message)),
            errors["form"].map { el("p", ["class": "flash error", "role": "alert", "id": "key-errors"], text($0)) } ?? nothing,
            when(proposal.rows.contains { $0.thread.rule == .stitches },
                 el("p", ["class": "muted", "id": "key-rule"],
                    text("Skeins from stitch counts: each stitch takes 5 stitch widths of every strand (2 strands where the key doesn't say), "
                         + "on \(proposal.count) count (\(proposal.countSource)), from 8 m skeins of 6 strands, with a fifth more for starts and ends."))),
            when(!proposal.rows.isEmpty,
                 Layout.form(.patternKey(projectId, id), context: context, attrs: "stack key-form",
                    el("ul", ["class": "list key-rows", "id": "key-rows"], children: proposal.rows.enumerated().map { index, row in
                        self.row(row, index: index, hex: catalog?.entry(brand: row.thread.brand, number: row.thread.number)?.hex)
                    }),
                    el("button", ["class": "primary", "type": "submit", "id": "key-confirm"], text("Add the ticked threads to \(projectTitle)")))),
            when(!proposal.unread.isEmpty,
                 el("section", ["class": "card", "id": "key-unread"],
                    el("h2", [:], text("Lines not read")),
                    el("p", ["class": "muted"], text("Add these by hand if the project needs them.")),
                    el("ul", ["class": "list"], children: proposal.unread.map { line in
                        el("li", ["class": "row unread"],
                           el("div", ["class": "grow"],
                              el("div", [:], el("code", [:], text(line.text))),
                              el("div", ["class": "muted"], text("Page \(line.page): \(line.reason)"))))
                    }))))
    }

    private func row(_ row: ChartKeyProposal.Row, index: Int, hex: String?) -> Node {
        let thread = row.thread
        let name = thread.catalogName ?? thread.printedName
        let short = max(0, thread.quantity - row.owned)
        let have = row.alreadyRequired ? "Already on the project's list"
            : row.owned == 0 ? "You have none" : "You have \(row.owned)" + (short > 0 ? ", buy \(short) more" : ", enough")
        let substitute = row.substitutes.first { $0.owned > 0 } ?? row.substitutes.first
        return el("li", ["class": "row key-row", "data-key": thread.label, "data-owned": String(row.owned)],
            void("input", ["type": "hidden", "name": "row-\(index)", "value": thread.label]),
            el("label", ["class": "key-take", "for": "take-\(index)"],
               void("input", ["type": "checkbox", "id": "take-\(index)", "name": "take-\(index)", "value": "\(thread.brand)|\(thread.number)",
                              "checked": row.alreadyRequired ? nil : "checked"]),
               hex.map { el("span", ["class": "swatch", "style": "background:\($0)", "role": "img",
                                     "aria-label": "Colour \($0)"]) } ?? nothing,
               el("span", ["class": "title"], text(thread.label + (name.map { " · \($0)" } ?? ""))),
               when(!thread.symbols.isEmpty, el("span", ["class": "muted"], text(" · symbol " + thread.symbols.joined(separator: " "))))),
            el("div", ["class": "grow key-detail"],
               el("div", ["class": row.alreadyRequired ? "muted" : "key-have"], text(have)),
               when(thread.nameDisagrees,
                    el("div", ["class": "error key-flag"],
                       text("The chart calls it “\(thread.printedName ?? "")”, but \(thread.label) is \(thread.catalogName ?? "another colour") — check the number."))),
               when(!thread.blendedWith.isEmpty, el("div", ["class": "muted"], text("Blended with " + thread.blendedWith.joined(separator: " and ")))),
               when(short > 0 && substitute != nil, substitute.map { s in
                   el("div", ["class": "muted key-substitute"],
                      text("Nearest: \(s.brand) \(s.number)\(s.name.isEmpty ? "" : " \(s.name)") (ΔE \(String(format: "%.1f", s.deltaE)))"
                           + (s.owned > 0 ? " — you have \(s.owned)" : "")))
               } ?? nothing)),
            Layout.field("Skeins", name: "quantity-\(index)", value: String(thread.quantity), type: "number", id: "quantity-\(index)",
                         extra: ["min": "1", "inputmode": "numeric", "aria-describedby": "rule-\(index)"]),
            el("span", ["class": "footnote", "id": "rule-\(index)"], text(Self.rule(thread, count: proposal.count))),
            when(!sections.isEmpty,
                 Layout.select("Section", name: "section-\(index)", options: [("", "No section")] + sections.map { ($0.id.wireText, $0.name) },
                               selected: nil, id: "section-\(index)")))
    }
}
