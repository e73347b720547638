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
