import ServerCommon
import Foundation
import StitchCore

/// What every page needs besides its own model.
struct PageContext {
    var user: UserProfile?
    var csrf: String
    var flash: String?
    var appleSignIn: Bool = false
    /// Instagram / TikTok buttons on the sign-in page: (path name, label).
    var oauthSignIn: [(String, String)] = []
}

enum Section: String, CaseIterable {
    case inventory, stash, projects, shopping, settings

    var title: String {
        switch self {
        case .inventory: "Inventory"
        case .stash: "Stitch Stash"
        case .projects: "Projects"
        case .shopping: "Shopping"
        case .settings: "Settings"
        }
    }

    var icon: Node { Icon.svg(rawValue) }

    var url: SiteURL {
        switch self {
        case .inventory: .inventory
        case .stash: .stash
        case .projects: .projects
        case .shopping: .shopping
        case .settings: .settings
        }
    }
}

enum Layout {
    /// From 1024 px (a tablet held sideways, as SPEC plans the iPad's split view) a list and its
    /// detail sit side by side: the list in a phone-wide column, the item beside it. Below that
    /// width the page is the phone's: the list page alone, the item's page alone (the list beside
    /// it is not shown, and its thumbnails, lazy, are not fetched). Pages, not scripts: the
    /// detail is an ordinary page that carries its list, so it works offline from the worker's
    /// copies and after every form's redirect.
    enum Split {
        /// This page is the list; where an item would show, what to do to see one.
        case list(empty: String)
        /// This page is one item of a list: the list, the item marked, beside it.
        case detail(list: Node, label: String)
    }

    /// A signed-in page: sidebar from tablet width up, tab bar on phones.
    static func page(_ title: String, section: Section?, context: PageContext, split: Split? = nil, _ content: Node...) -> Node {
        let flash = context.flash.map { el("p", ["class": "flash", "role": "status"], text($0)) } ?? nothing
        let body: [Node]
        switch split {
        case nil:
            body = [flash] + content
        case .list(let empty)?:
            body = [el("div", ["class": "split"],
                       el("div", ["class": "split-primary"], children: [flash] + content),
                       el("div", ["class": "split-empty card", "aria-hidden": "true"], el("p", ["class": "muted"], text(empty))))]
        case .detail(let list, let label)?:
            body = [el("div", ["class": "split"],
                       el("aside", ["class": "split-primary split-list", "aria-label": label], list),
                       el("div", ["class": "split-detail"], children: [flash] + content))]
        }
        return document(title, body: group([
            el("div", ["class": "shell"],
               el("nav", ["class": "sidebar", "aria-label": "Sections"], children:
                    [el("div", ["class": "brand"], text("Stitchuation"))] + navLinks(section)),
               el("main", ["id": "main", "class": split.map { _ in "split-main" }, "data-user": context.user?.id.wireText, "data-csrf": context.csrf],
                  children: body)),
            el("nav", ["class": "tabbar", "aria-label": "Sections"], children: navLinks(section)),
        ]))
    }

    static func navLinks(_ current: Section?) -> [Node] {
        Section.allCases.map { s in
            el("a", ["href": s.url.path, "aria-current": s == current ? "page" : nil],
               el("span", ["class": "icon", "aria-hidden": "true"], s.icon), el("span", [:], text(s.title)))
        }
    }

    static let head = DocumentHead(
        app: "Stitchuation", themeColor: "#F5F0E8", stylesheet: SiteURL.stylesheet.path, script: SiteURL.script.path,
        manifest: SiteURL.manifest.path, icon: SiteURL.icon.path, iconSVG: PWA.icon, preloadFonts: [SiteURL.font("SourceSerif4.woff2").path])

    static func document(_ title: String, body: Node) -> Node { ServerCommon.document(title, head: head, body: body) }

    static func csrf(_ context: PageContext) -> Node {
        void("input", ["type": "hidden", "name": BrowserSession.csrfField, "value": context.csrf])
    }

    /// A form that changes something: POST, with the CSRF token. An upload form names the token
    /// in its address too, so the server checks it before it reads the files (`WebAuth`).
    static func form(_ action: SiteURL, context: PageContext, multipart: Bool = false, attrs cls: String = "stack", _ children: Node...) -> Node {
        let target = multipart ? action.path(query: [BrowserSession.csrfField: context.csrf]) : action.path
        return el("form", ["method": "post", "action": target, "class": cls, "enctype": multipart ? "multipart/form-data" : nil],
                  children: [csrf(context)] + children)
    }

    static func field(_ label: String, name: String, value: String? = nil, type: String = "text", error: String? = nil,
                      required: Bool = false, id given: String? = nil, extra: Attrs = [:]) -> Node {
        let id = given ?? "f-\(name)"
        var attrs: [(String, String)] = [("type", type), ("id", id), ("name", name)]
        if let value, type != "file" { attrs.append(("value", value)) }
        if required { attrs.append(("required", "required")) }
        if error != nil { attrs.append(("aria-invalid", "true")); attrs.append(("aria-describedby", id + "-error")) }
        for (k, v) in extra { if let v { attrs.append((k, v)) } }
        return el("label", ["for": id],
                  text(label),
                  .void("input", attrs),
                  error.map { el("span", ["class": "error", "id": id + "-error"], text($0)) } ?? nothing)
    }

    /// A text area; `id` when the page has several forms with the same field.
    static func textArea(_ label: String, name: String, value: String?, id given: String? = nil, rows: Int = 3) -> Node {
        let id = given ?? "f-\(name)"
        return el("label", ["for": id], text(label), el("textarea", ["id": id, "name": name, "rows": String(rows)], text(value ?? "")))
    }

    static func select(_ label: String, name: String, options: [(value: String, label: String)], selected: String?, id given: String? = nil) -> Node {
        let id = given ?? "f-\(name)"
        return el("label", ["for": id], text(label),
           el("select", ["id": id, "name": name], children: options.map { option in
               el("option", ["value": option.value, "selected": option.value == selected ? "selected" : nil], text(option.label))
           }))
    }

    static func emptyState(icon: String, title: String, message: String, action: Node = nothing) -> Node {
        el("div", ["class": "empty card"],
           el("div", ["class": "icon", "aria-hidden": "true"], Icon.svg(icon, size: 48)),
           el("h2", [:], text(title)),
           el("p", ["class": "muted"], text(message)),
           action)
    }

    static func errorSummary(_ errors: [String: String]) -> Node {
        guard !errors.isEmpty else { return nothing }
        return el("div", ["class": "flash", "role": "alert"],
                  text("Please check: " + errors.keys.sorted().map { errors[$0]! }.joined(separator: "; ")))
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "" }
        return String(Timestamp.string(from: date).prefix(10))
    }

    static func longDate(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "d MMM yyyy"
        return f.string(from: date)
    }
}
