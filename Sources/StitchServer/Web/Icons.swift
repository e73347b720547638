import ServerCommon

/// Line icons drawn in the current text colour (emoji fonts are missing on many systems).
enum Icon {
    static func svg(_ name: String, size: Int = 24) -> Node {
        let paths: String
        switch name {
        case "inventory":  // a spool of thread
            paths = #"<rect x="6" y="3" width="12" height="3" rx="1"/><rect x="6" y="18" width="12" height="3" rx="1"/><path d="M8 6v12M16 6v12M8 9l8 2M8 13l8 2"/>"#
        case "stash":  // a framed canvas
            paths = #"<rect x="3" y="4" width="18" height="16" rx="2"/><rect x="7" y="8" width="10" height="8"/><path d="M7 8l10 8M17 8L7 16"/>"#
        case "projects":  // a needle and thread
            paths = #"<path d="M19 3L6 16"/><path d="M17 3h4v4"/><path d="M6 16c-3 1-3 5 1 5s5-4 2-6"/>"#
        case "shopping":  // a basket
            paths = #"<path d="M3 9h18l-2 11H5L3 9z"/><path d="M8 9l4-5 4 5"/>"#
        case "settings":
            paths = #"<circle cx="12" cy="12" r="3"/><path d="M12 2v3M12 19v3M2 12h3M19 12h3M5 5l2 2M17 17l2 2M5 19l2-2M17 7l2-2"/>"#
        case "journal":
            paths = #"<rect x="5" y="3" width="14" height="18" rx="2"/><path d="M9 7h6M9 11h6M9 15h4"/>"#
        default:
            paths = #"<circle cx="12" cy="12" r="8"/>"#
        }
        return .raw(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(size)" height="\#(size)" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">\#(paths)</svg>"#)
    }
}
