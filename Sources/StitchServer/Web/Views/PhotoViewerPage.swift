import ServerCommon
import Foundation
import StitchCore

struct PhotoViewerPage {
    var projectId: UUID
    var title: String
    var images: [JournalImage]
    var index: Int

    func render(_ context: PageContext) -> Node {
        let image = images[index]
        let pid = projectId.wireText
        return Layout.page("Photo \(index + 1) of \(images.count)", section: .projects, context: context,
            el("div", ["class": "viewer"],
               el("div", ["class": "pager"],
                  index > 0 ? el("a", ["class": "button secondary", "href": SiteURL.photo(pid, images[index - 1].id.wireText).path, "rel": "prev"], text("‹ Previous")) : el("span", [:]),
                  el("span", ["class": "counter", "aria-live": "polite"], text("\(index + 1) of \(images.count)")),
                  index < images.count - 1 ? el("a", ["class": "button secondary", "href": SiteURL.photo(pid, images[index + 1].id.wireText).path, "rel": "next"], text("Next ›")) : el("span", [:])),
               // One size, no srcset: the viewer zooms by the picture's own pixels, which a width
               // descriptor larger than a small picture's would misstate.
               el("div", ["class": "photo-stage", "id": "photo-stage"],
                  void("img", ["src": imageURL(image.imageKey, width: PictureSizes.widths[2])!, "alt": "Photo \(index + 1) of \(images.count) from \(title)", "class": "zoomable",
                               "id": "photo", "draggable": "false"])),
               el("p", [:], el("a", ["href": SiteURL.project(pid).path + "#journal"], text("Back to \(title)")))))
    }
}
