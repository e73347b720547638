import ServerCommon
import Foundation
import StitchCore

struct PatternViewerPage {
    var projectId: String
    var projectTitle: String
    var detail: PatternDetail
    var page: Int

    static func progressText(_ pages: PatternPages, lastPage: Int) -> String {
        switch pages.status {
        case .rendering: "Drawing pages: \(pages.rendered) of \(pages.pageCount) ready"
        case .failed: "The pages could not be drawn: \(pages.message ?? "unknown reason")"
        case .ready: pages.pageCount == 1 ? "1 page" : "Page \(min(lastPage, pages.pageCount)) of \(pages.pageCount)"
        }
    }

    func render(_ context: PageContext) -> Node {
        let id = detail.pattern.id.wireText
        let pages = detail.pages
        let count = max(pages.pageCount, 1)
        return Layout.page(detail.pattern.title, section: .projects, context: context,
            el("div", ["class": "toolbar"], el("h1", [:], text(detail.pattern.title))),
            el("p", [:], el("a", ["href": SiteURL.project(projectId).path + "#patterns"], text("Back to \(projectTitle)")),
               when(detail.contentType == ImageFormat.pdf.contentType,
                    group([text(" · "), el("a", ["href": SiteURL.patternKey(projectId, id).path, "id": "read-key"], text("Read the colour key into the thread list"))]))),
            pages.status == .failed ? el("p", ["class": "flash", "role": "alert"], text(Self.progressText(pages, lastPage: page))) : nothing,
            el("div", ["class": "pattern-progress", "id": "pattern-progress", "hidden": pages.status == .rendering ? nil : "hidden",
                       "data-status-url": SiteURL.patternStatus(projectId, id).path],
               el("label", ["for": "pattern-progress-bar", "id": "pattern-progress-text", "aria-live": "polite"], text(Self.progressText(pages, lastPage: page))),
               el("progress", ["id": "pattern-progress-bar", "max": String(count), "value": String(pages.rendered)])),
            el("div", ["class": "pattern-viewer", "id": "pattern-viewer", "data-page": String(page), "data-count": String(count),
                       "data-rendered": String(pages.rendered),
                       "data-page-url": SiteURL.patternPage(projectId, id, page).path, "data-thumb-base": SiteURL.pattern(projectId, id).path + "/thumbs/"],
               el("div", ["class": "pager"],
                  page > 1 ? el("a", ["class": "button secondary", "href": SiteURL.pattern(projectId, id).path(query: ["page": String(page - 1)]), "rel": "prev"], text("‹ Previous")) : el("span", [:]),
                  el("span", ["class": "counter", "id": "pattern-counter", "aria-live": "polite"], text("Page \(page) of \(count)")),
                  page < count ? el("a", ["class": "button secondary", "href": SiteURL.pattern(projectId, id).path(query: ["page": String(page + 1)]), "rel": "next"], text("Next ›")) : el("span", [:])),
               el("div", ["class": "zoom-controls", "role": "group", "aria-label": "Zoom"],
                  el("button", ["class": "round", "type": "button", "data-zoom": "out", "aria-label": "Zoom out"], text("−")),
                  el("output", ["id": "pattern-zoom", "aria-live": "polite"], text("100%")),
                  el("button", ["class": "round", "type": "button", "data-zoom": "in", "aria-label": "Zoom in"], text("+")),
                  el("button", ["class": "secondary", "type": "button", "data-zoom": "fit"], text("Fit"))),
               el("div", ["class": "pattern-stage", "id": "pattern-stage"],
                  page <= pages.rendered
                      ? void("img", ["id": "pattern-page", "src": SiteURL.patternPage(projectId, id, page).path, "alt": "Page \(page) of \(detail.pattern.title)", "draggable": "false"])
                      : el("p", ["class": "muted", "id": "pattern-page-wait"], text("Page \(page) is still being drawn…"))),
               el("ol", ["class": "pattern-thumbs", "id": "pattern-thumbs", "aria-label": "Pages"], children: (1...count).map { n in
                   el("li", [:],
                      el("a", ["href": SiteURL.pattern(projectId, id).path(query: ["page": String(n)]), "aria-current": n == page ? "page" : nil,
                               "aria-label": "Page \(n)"],
                         n <= pages.rendered
                             ? void("img", ["src": SiteURL.patternThumb(projectId, id, n).path, "alt": "", "loading": "lazy"])
                             : el("span", ["class": "thumb-wait", "data-thumb": String(n)], text(String(n)))))
               })),
            Layout.form(.patternLastPage(projectId, id), context: context, attrs: "visually-hidden",
                void("input", ["type": "hidden", "name": "page", "value": String(page)]),
                el("button", ["type": "submit", "tabindex": "-1"], text("Remember this page"))),
            Layout.form(.deletePattern(projectId, id), context: context, attrs: "stack confirm",
                el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete the pattern \(detail.pattern.title)?"], text("Delete pattern"))))
    }
}
