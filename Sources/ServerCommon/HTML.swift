import Foundation

/// A small HTML tree that escapes every text and attribute value by construction.
///
/// Used by both web apps (Stitchuation's and Selene's).
///
/// Why not Plot (which SwiftPackageIndex-Server uses): Plot's context-typed nodes make the
/// attributes a phone-friendly form needs (inputmode, enterkeyhint, capture, aria-*, data-*,
/// form-associated buttons) awkward, while the one thing we need from it, escaping by
/// construction, is a few lines here. Views stay plain functions, rendered and tested as text.
public indirect enum Node: Sendable {
    case element(String, [(String, String)], [Node])
    case void(String, [(String, String)])
    case text(String)
    case raw(String)
    case fragment([Node])

    public func render() -> String {
        var out = ""
        render(into: &out)
        return out
    }

    private func render(into out: inout String) {
        switch self {
        case let .element(name, attrs, children):
            out += "<\(name)"
            for (k, v) in attrs { out += " \(k)=\"\(escape(v))\"" }
            out += ">"
            for child in children { child.render(into: &out) }
            out += "</\(name)>"
        case let .void(name, attrs):
            out += "<\(name)"
            for (k, v) in attrs { out += " \(k)=\"\(escape(v))\"" }
            out += ">"
        case let .text(text):
            out += escape(text)
        case let .raw(html):
            out += html
        case let .fragment(nodes):
            for node in nodes { node.render(into: &out) }
        }
    }
}

public func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.count)
    for c in text.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.unicodeScalars.append(c)
        }
    }
    return out
}

/// Attributes in a stable order; `nil` values are left out (how boolean attributes are switched off).
public typealias Attrs = KeyValuePairs<String, String?>

private func clean(_ attrs: Attrs) -> [(String, String)] {
    attrs.compactMap { key, value in value.map { (key, $0) } }
}

public func el(_ name: String, _ attrs: Attrs = [:], _ children: Node...) -> Node { .element(name, clean(attrs), children) }
public func el(_ name: String, _ attrs: Attrs = [:], children: [Node]) -> Node { .element(name, clean(attrs), children) }
public func void(_ name: String, _ attrs: Attrs = [:]) -> Node { .void(name, clean(attrs)) }
public func text(_ s: String) -> Node { .text(s) }
public func group(_ nodes: [Node]) -> Node { .fragment(nodes) }
public let nothing = Node.fragment([])

public func when(_ condition: Bool, _ node: @autoclosure () -> Node) -> Node { condition ? node() : nothing }

/// What every page of a web app carries in its `<head>`: both apps' pages are `document`s.
public struct DocumentHead: Sendable {
    /// The app's name: a page's title is "Page · App" (the app's own name alone on its home).
    public var app: String
    public var themeColor: String
    public var stylesheet: String
    public var script: String
    public var manifest: String
    public var icon: String
    /// The icon's SVG itself: the tab's icon is then a `data:` URL in the page, not a request the
    /// browser makes once the page is idle (a round trip on a slow link, after the load event).
    /// `icon` stays the home-screen icon's address.
    public var iconSVG: String?
    /// Fonts every page needs (WOFF2), asked for with the page rather than after the stylesheet,
    /// so `font-display: optional` can use them from the first paint.
    public var preloadFonts: [String]
    /// Whether the layout shrinks with the on-screen keyboard (`interactive-widget=resizes-content`),
    /// for pages whose composer sits at the bottom.
    public var resizesWithKeyboard: Bool

    public init(app: String, themeColor: String, stylesheet: String, script: String, manifest: String, icon: String, iconSVG: String? = nil,
                preloadFonts: [String] = [], resizesWithKeyboard: Bool = false) {
        self.iconSVG = iconSVG
        self.app = app
        self.themeColor = themeColor
        self.stylesheet = stylesheet
        self.script = script
        self.manifest = manifest
        self.icon = icon
        self.preloadFonts = preloadFonts
        self.resizesWithKeyboard = resizesWithKeyboard
    }
}

/// An SVG as a `data:` URL, the few characters a URL or an attribute can't carry percent-escaped.
public func svgDataURL(_ svg: String) -> String {
    var url = "data:image/svg+xml,"
    for c in svg.trimmingCharacters(in: .whitespacesAndNewlines) {
        switch c {
        case "%": url += "%25"
        case "#": url += "%23"
        case "<": url += "%3C"
        case ">": url += "%3E"
        case "\"": url += "%22"
        case "\n", "\r": url += " "
        default: url.append(c)
        }
    }
    return url
}

/// A whole page: the doctype, the shared head and the page's body.
public func document(_ title: String, head: DocumentHead, body: Node) -> Node {
    let viewport = "width=device-width, initial-scale=1, viewport-fit=cover" + (head.resizesWithKeyboard ? ", interactive-widget=resizes-content" : "")
    return group([
        .raw("<!DOCTYPE html>"),
        el("html", ["lang": "en"],
           el("head", [:], children: [
               void("meta", ["charset": "utf-8"]),
               void("meta", ["name": "viewport", "content": viewport]),
               void("meta", ["name": "theme-color", "content": head.themeColor]),
               el("title", [:], text(title == head.app ? title : "\(title) · \(head.app)")),
           ] + head.preloadFonts.map { void("link", ["rel": "preload", "href": $0, "as": "font", "type": "font/woff2", "crossorigin": "anonymous"]) } + [
               void("link", ["rel": "stylesheet", "href": head.stylesheet]),
               void("link", ["rel": "manifest", "href": head.manifest]),
               void("link", ["rel": "icon", "href": head.iconSVG.map(svgDataURL) ?? head.icon, "type": "image/svg+xml"]),
               void("link", ["rel": "apple-touch-icon", "href": head.icon]),
               el("script", ["src": head.script, "defer": "defer"]),
           ]),
           el("body", [:], body)),
    ])
}
