import ServerCommon
import Foundation
import StitchCore

struct InventoryPage {
    /// Rows the page shows at first, and how many more each "Show more" adds: the page's size
    /// follows this, not the stash (measured in Benchmarks/stitch-web: 454 threads rendered whole
    /// were 7,374 elements and 4 s on a slow phone).
    static let pageSize = 100

    /// The rows shown: the first of the matching threads, in inventory order.
    var threads: [InventoryThread]
    /// How many threads match the search and filters.
    var matching: Int
    var brands: [String]
    var search: String
    var brand: String?
    var fiber: FiberType?
    var total: Int

    func render(_ context: PageContext) -> Node {
        Layout.page("Inventory", section: .inventory, context: context, split: .list(empty: "Choose a thread to see it here."),
            el("div", ["class": "toolbar"],
               el("h1", [:], text("Inventory")),
               el("form", ["method": "get", "action": SiteURL.inventory.path, "class": "toolbar", "role": "search"],
                  Layout.field("Search", name: "q", value: search, type: "search", extra: ["placeholder": "Brand, number or colour", "enterkeyhint": "search"]),
                  Layout.select("Brand", name: "brand", options: [("", "All brands")] + brands.map { ($0, $0) }, selected: brand ?? ""),
                  Layout.select("Fiber", name: "fiberType", options: [("", "All fibers")] + FiberType.allCases.map { ($0.rawValue, $0.displayName) }, selected: fiber?.rawValue ?? ""),
                  el("button", ["class": "secondary", "type": "submit"], text("Filter"))),
               el("a", ["class": "button secondary", "href": SiteURL.scan.path], text("Scan")),
               el("a", ["class": "button primary", "href": SiteURL.newThread.path, "aria-label": "Add thread"], text("+ Add thread"))),
            total == 0
                ? Layout.emptyState(icon: "inventory", title: "No threads yet", message: "Tap + to add your first thread",
                                    action: el("a", ["class": "button primary", "href": SiteURL.newThread.path], text("+ Add thread")))
                : threads.isEmpty
                    ? el("p", ["class": "muted"], text("No threads match."))
                    : el("ul", ["class": "list", "id": "threads", "data-matching": String(matching)], children: threads.map { row($0, context) }),
            more,
            when(total > 0, Layout.form(.matchCatalog, context: context, attrs: "stack",
                el("button", ["class": "secondary", "type": "submit"], text("Match my threads to the catalog")),
                el("p", ["class": "muted"], text("Fills in the catalog's colour and name where a thread has none; yours are kept.")))))
    }

    /// Under a list cut short: how much is shown, and a link to the next page's worth (app.js
    /// adds those rows in place; without a script the link opens the longer list).
    var more: Node {
        guard matching > threads.count else { return nothing }
        let next = min(Self.pageSize, matching - threads.count)
        return el("p", ["class": "more", "id": "more", "role": "status"],
                  text("Showing \(threads.count) of \(matching) \(search.isEmpty && brand == nil && fiber == nil ? "threads" : "matching threads"). "),
                  el("a", ["class": "button secondary", "id": "more-threads",
                             "href": SiteURL.inventory.path(query: ["q": search, "brand": brand, "fiberType": fiber?.rawValue, "shown": String(threads.count + Self.pageSize)])],
                     text("Show \(next) more")))
    }

    /// The inventory beside one thread (from tablet width): a page's worth of rows around it, in
    /// inventory order, that one marked; the rest is a tap away on the list itself.
    static func beside(_ all: [InventoryThread], current: UUID) -> Layout.Split {
        let sorted = InventoryThread.sortedInInventoryOrder(all)
        let at = sorted.firstIndex { $0.id == current } ?? 0
        let start = max(0, min(at - pageSize / 2, sorted.count - pageSize))
        let window = sorted[start..<min(sorted.count, start + pageSize)]
        return .detail(list: group([
            when(window.count < sorted.count, el("p", ["class": "muted"], text("\(window.count) of \(sorted.count) threads · "),
                                                  el("a", ["href": SiteURL.inventory.path], text("All threads")))),
            el("ul", ["class": "list"], children: window.map { t in
                el("li", ["class": t.id == current ? "row current" : "row"], swatch(t), title(t, current: t.id == current),
                   el("span", ["class": "badge data", "aria-label": "Quantity \(t.quantity)"], text(String(t.quantity))))
            }),
        ]), label: "Inventory")
    }

    static func swatch(_ t: InventoryThread) -> Node {
        t.colorHex.map { el("span", ["class": "swatch", "style": "background:\($0)", "role": "img", "aria-label": "Colour \($0)"]) }
            ?? el("span", ["class": "swatch", "role": "img", "aria-label": "No colour"], text("?"))
    }

    /// Brand and number (the link to the thread), its colour and fiber under it.
    static func title(_ t: InventoryThread, current: Bool = false) -> Node {
        let subtitle = [t.displayColorName, t.fiberType.displayName].compactMap { $0 }.joined(separator: " · ")
        return el("div", ["class": "grow"],
            el("a", ["class": "title", "href": SiteURL.thread(t.id.wireText).path, "aria-current": current ? "page" : nil],
               text(t.brand + " "), el("span", ["class": "data"], text(t.number))),
            el("div", ["class": "muted"], text(subtitle)))
    }

    func row(_ t: InventoryThread, _ context: PageContext) -> Node {
        el("li", ["class": "row", "data-thread": t.id.wireText],
            Self.swatch(t),
            Self.title(t),
            stepper(t, context))
    }

    /// −, the quantity, +: one form whose two buttons send `delta` (a page of 100 rows is 400
    /// elements lighter than with a form, token and field per button: what a slow phone lays out).
    func stepper(_ t: InventoryThread, _ context: PageContext) -> Node {
        func button(_ delta: Int, _ label: String) -> Node {
            el("button", ["class": "round", "type": "submit", "name": "delta", "value": String(delta),
                          "aria-label": "\(delta < 0 ? "One less" : "One more") \(t.brand) \(t.number)",
                          "disabled": delta < 0 && t.quantity == 0 ? "disabled" : nil], text(label))
        }
        return el("form", ["method": "post", "action": SiteURL.stepThread(t.id.wireText).path, "class": "step stepper"],
                  Layout.csrf(context),
                  button(-1, "−"),
                  el("output", ["aria-live": "polite", "aria-label": "Quantity of \(t.brand) \(t.number)", "class": "qty"], text(String(t.quantity))),
                  button(1, "+"))
    }
}

/// Add or edit a thread. New threads support batch entry: with "Add another" on, saving keeps the
/// brand and clears the rest.
struct ThreadFormPage {
    var thread: InventoryThread?
    var values: [String: String]
    var errors: [String: String] = [:]
    var brandSuggestions: [String]
    var addAnother = true
    var saved: String?
    /// What brought the person here, e.g. a scanned code nobody knows yet.
    var note: String?
    /// Editing: the colours that could stand in for this one.
    var alternatives: CatalogAlternatives?
    /// Adding: the thread of the same brand and number the person has already.
    var duplicate: InventoryThread?
    /// Editing, from tablet width: the inventory beside the form.
    var split: Layout.Split?

    func render(_ context: PageContext) -> Node {
        let editing = thread != nil
        let action: SiteURL = thread.map { .thread($0.id.wireText) } ?? .newThread
        return Layout.page(editing ? "Edit thread" : "Add thread", section: .inventory, context: context, split: split,
            el("h1", [:], text(editing ? "Edit thread" : "Add thread")),
            saved.map { el("p", ["class": "flash", "role": "status"], text($0)) } ?? nothing,
            note.map { el("p", ["class": "flash", "role": "status", "id": "scan-note"], text($0)) } ?? nothing,
            duplicate.map(duplicateOffer(context)) ?? Layout.errorSummary(errors),
            Layout.form(action, context: context,
                el("fieldset", [:],
                   el("legend", [:], text("Thread")),
                   // Shown by the page's script: type a number or a colour name, pick the catalog's
                   // colour, and brand, number, name and swatch are filled in.
                   el("div", ["class": "catalog-find", "data-catalog": "", "hidden": "hidden"],
                      el("label", ["for": "f-catalog"], text("Find in the catalog"),
                         void("input", ["type": "search", "id": "f-catalog", "placeholder": "310 or black", "autocomplete": "off",
                                        "aria-controls": "catalog-results", "enterkeyhint": "search"])),
                      el("ul", ["class": "list catalog-results", "id": "catalog-results", "role": "listbox", "aria-label": "Catalog colours"]),
                      // The picked colour's line, where the brand makes it in several (DMC floss
                      // or pearl cotton sizes): the choice goes into "Weight or length".
                      el("label", ["for": "f-line", "id": "catalog-line", "hidden": "hidden"], text("Line"),
                         el("select", ["id": "f-line"]))),
                   void("input", ["type": "hidden", "name": "catalogColorName", "value": values["catalogColorName"] ?? ""]),
                   Layout.field("Brand", name: "brand", value: values["brand"], error: errors["brand"], required: true,
                                extra: ["list": "brands", "autocomplete": "off", "autofocus": values["brand"]?.isEmpty ?? true ? "autofocus" : nil]),
                   el("datalist", ["id": "brands"], children: brandSuggestions.map { void("option", ["value": $0]) }),
                   Layout.field("Number", name: "number", value: values["number"], error: errors["number"], required: true,
                                extra: ["autofocus": values["brand"]?.isEmpty ?? true ? nil : "autofocus", "autocapitalize": "characters"]),
                   Layout.field("Colour name", name: "colorName", value: values["colorName"], error: errors["colorName"]),
                   Layout.field("Colour", name: "colorHex", value: values["colorHex"], error: errors["colorHex"],
                                extra: ["placeholder": "#1A2B3C", "pattern": "#[0-9A-Fa-f]{6}"])),
                el("fieldset", [:],
                   el("legend", [:], text("Stock")),
                   Layout.select("Fiber", name: "fiberType", options: FiberType.allCases.map { ($0.rawValue, $0.displayName) }, selected: values["fiberType"] ?? "wool"),
                   Layout.field("Quantity", name: "quantity", value: values["quantity"] ?? "1", type: "number", error: errors["quantity"],
                                extra: ["min": "0", "inputmode": "numeric"]),
                   Layout.field("Weight or length", name: "weightOrLength", value: values["weightOrLength"], error: errors["weightOrLength"], extra: ["placeholder": "8m skein"]),
                   Layout.field("Barcode", name: "barcode", value: values["barcode"], error: errors["barcode"], extra: ["inputmode": "numeric"]),
                   el("label", ["for": "f-notes"], text("Notes"), el("textarea", ["id": "f-notes", "name": "notes", "rows": "3"], text(values["notes"] ?? "")))),
                when(!editing, el("label", ["class": "check", "for": "f-addAnother"],
                    void("input", ["type": "checkbox", "id": "f-addAnother", "name": "addAnother", "value": "on", "checked": addAnother ? "checked" : nil]),
                    text("Add another (keeps the brand)"))),
                el("button", ["class": "primary", "type": "submit"], text(editing ? "Save" : "Add thread"))),
            thread.map { runningLow($0, context: context) } ?? nothing,
            alternatives.map(Self.alternativesSection) ?? nothing,
            thread.map { t in
                Layout.form(.deleteThread(t.id.wireText), context: context, attrs: "stack confirm",
                            el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete \(t.brand) \(t.number)?"], text("Delete thread")))
            } ?? nothing)
    }

    /// Running low: put this thread on the shopping list by hand.
    func runningLow(_ t: InventoryThread, context: PageContext) -> Node {
        el("section", ["class": "card", "id": "running-low"],
           el("h2", [:], text("Running low?")),
           Layout.form(.shoppingAdd, context: context, attrs: "inline",
               void("input", ["type": "hidden", "name": "brand", "value": t.brand]),
               void("input", ["type": "hidden", "name": "number", "value": t.number]),
               void("input", ["type": "hidden", "name": "colorName", "value": t.colorName]),
               void("input", ["type": "hidden", "name": "notes", "value": "Running low"]),
               void("input", ["type": "hidden", "name": "back", "value": SiteURL.thread(t.id.wireText).path]),
               Layout.field("Skeins to buy", name: "quantity", value: "1", type: "number", id: "f-low-quantity", extra: ["min": "1", "inputmode": "numeric", "style": "width:5em"]),
               el("button", ["class": "secondary", "type": "submit"], text("Add to shopping list"))))
    }

    /// "You have DMC 310 already (3 skeins)": add this one's quantity to it (the same form again,
    /// asking to merge), or change the number below.
    func duplicateOffer(_ context: PageContext) -> (InventoryThread) -> Node {
        { existing in
            let adding = Int(values["quantity"] ?? "") ?? 0
            let kept = values.filter { $0.key != BrowserSession.csrfField && $0.key != "merge" }.sorted { $0.key < $1.key }
            return el("section", ["class": "card", "id": "duplicate", "role": "alert"],
                el("p", [:], text("You have \(existing.brand) \(existing.number)\(existing.colorName.map { " \($0)" } ?? "") already: "
                                  + "\(existing.quantity) \(existing.quantity == 1 ? "skein" : "skeins"). Add to it, or change the number below.")),
                el("div", ["class": "toolbar"],
                   Layout.form(.newThread, context: context, attrs: "inline",
                       group(kept.map { void("input", ["type": "hidden", "name": $0.key, "value": $0.value]) }),
                       void("input", ["type": "hidden", "name": "merge", "value": "on"]),
                       el("button", ["class": "primary", "type": "submit", "id": "merge-thread"],
                          text(adding > 0 ? "Add \(adding) to it" : "Fill in what it lacks"))),
                   el("a", ["class": "button secondary", "href": SiteURL.thread(existing.id.wireText).path], text("Open \(existing.brand) \(existing.number)"))))
        }
    }

    /// "Nearest in other brands" (by CIEDE2000), or the same brand's nearest where the catalogs
    /// have no other.
    static func alternativesSection(_ alternatives: CatalogAlternatives) -> Node {
        el("section", ["class": "card", "id": "alternatives"],
           el("h2", [:], text(alternatives.otherBrands ? "Nearest in other brands" : "Nearest other colours")),
           alternatives.entry.map { el("p", ["class": "muted"], text("\($0.label) in the \($0.brand) \($0.line.lowercased()) catalog.")) } ?? nothing,
           el("ul", ["class": "list"], children: alternatives.nearest.map { n in
               el("li", ["class": "row"],
                  el("span", ["class": "swatch", "style": "background:\(n.entry.hex)", "role": "img", "aria-label": "Colour \(n.entry.hex)"]),
                  el("div", ["class": "grow"], el("span", ["class": "title"], text(n.entry.label)),
                     el("div", ["class": "muted"], text(n.difference))))
           }))
    }

    static func values(of t: InventoryThread) -> [String: String] {
        ["brand": t.brand, "number": t.number, "colorName": t.colorName ?? "", "catalogColorName": t.catalogColorName ?? "",
         "colorHex": t.colorHex ?? "", "fiberType": t.fiberType.rawValue,
         "quantity": String(t.quantity), "weightOrLength": t.weightOrLength ?? "", "barcode": t.barcode ?? "", "notes": t.notes ?? ""]
    }
}

/// Scan-to-add: a photo of a thread's barcode (the phone's camera), or its digits typed.
/// Where the browser has a BarcodeDetector the page's script reads the photo itself and sends
/// only the digits; otherwise the photo goes to the server (ZBar).
struct ScanPage {
    var errors: [String: String] = [:]
    var code = ""
    /// Several owned threads carry the scanned code.
    var result: BarcodeScan?

    func render(_ context: PageContext) -> Node {
        Layout.page("Scan a thread", section: .inventory, context: context,
            el("h1", [:], text("Scan a thread")),
            result.map { scan in
                el("section", ["class": "stack", "id": "scan-result"],
                   el("p", ["class": "flash", "role": "status"], text(scan.message)),
                   el("ul", ["class": "list"], children: scan.threads.map { t in
                       el("li", ["class": "row"],
                          el("a", ["class": "title", "href": SiteURL.thread(t.id.wireText).path], text("\(t.brand) \(t.number)")),
                          el("span", ["class": "muted"], text("\(t.quantity) in stock")))
                   }))
            } ?? nothing,
            Layout.errorSummary(errors),
            Layout.form(.scan, context: context, multipart: true, attrs: "stack scan-form",
                el("label", ["for": "f-image", "class": "button primary camera"], text("Take a photo of the barcode"),
                   void("input", ["type": "file", "id": "f-image", "name": "image", "accept": "image/*", "capture": "environment",
                                  "data-scan-photo": "", "class": "visually-hidden"])),
                errors["image"].map { el("p", ["class": "error", "id": "image-error"], text($0)) } ?? nothing,
                Layout.field("Or type the digits under the bars", name: "code", value: code, error: errors["code"],
                             extra: ["inputmode": "numeric", "autocomplete": "off", "placeholder": "5012345678900", "enterkeyhint": "search"]),
                el("button", ["class": "secondary", "type": "submit"], text("Look up"))),
            el("p", ["class": "muted"], text("A thread you have opens its page; one the catalog lists, or nobody knows yet, opens the add form with its barcode filled in, so the next scan finds it.")))
    }
}

/// The inventory as the page keeps it for searching offline (`GET /app/inventory.json`): what a
/// row shows, in inventory order.
struct OfflineInventory: Encodable {
    struct Row: Encodable {
        /// As the page's rows carry it (`data-thread`).
        var id: String
        var brand: String
        var number: String
        var colorName: String?
        var colorHex: String?
        var fiberType: FiberType
        var quantity: Int

        init(_ t: InventoryThread) {
            id = t.id.wireText
            brand = t.brand
            number = t.number
            colorName = t.displayColorName
            colorHex = t.colorHex
            fiberType = t.fiberType
            quantity = t.quantity
        }
    }

    var threads: [Row]
}
