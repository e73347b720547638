import ServerCommon
import Foundation
import StitchCore

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
           // One form for both buttons ("Set aside" posts it elsewhere and reads brand and number),
           // and the skeins bought set with − and + (app.js) rather than typed: a number field a
           // line is a field the browser's autofill reads at every load — 75 of them held a slow
           // phone's load event back by 0.9 s. Without a script, "Bought" buys what the line says.
           Layout.form(.buy, context: context, attrs: "row-actions",
                       void("input", ["type": "hidden", "name": "brand", "value": item.brand]),
                       void("input", ["type": "hidden", "name": "number", "value": item.number]),
                       void("input", ["type": "hidden", "name": "colorName", "value": item.colorName]),
                       void("input", ["type": "hidden", "name": "quantity", "value": String(item.toBuy)]),
                       el("span", ["class": "stepper"],
                          el("button", ["class": "round", "type": "button", "data-bought-step": "-1", "hidden": "hidden",
                                        "aria-label": "One skein fewer of \(item.brand) \(item.number)",
                                        "disabled": item.toBuy <= 1 ? "disabled" : nil], text("−")),
                          el("output", ["class": "qty", "aria-live": "polite", "aria-label": "Skeins bought of \(item.brand) \(item.number)"],
                             text(String(item.toBuy))),
                          el("button", ["class": "round", "type": "button", "data-bought-step": "1", "hidden": "hidden",
                                        "aria-label": "One skein more of \(item.brand) \(item.number)"], text("+"))),
                       el("button", ["class": "primary", "type": "submit", "aria-label": "Bought \(item.brand) \(item.number)"], text("Bought")),
                       el("button", ["class": "secondary no-print", "type": "submit", "formaction": SiteURL.shoppingDismiss.path, "formnovalidate": "formnovalidate",
                                     "aria-label": "Set aside \(item.brand) \(item.number)",
                                     "title": "Leave it off the list until your projects need a different number of it"], text("Set aside"))))
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
