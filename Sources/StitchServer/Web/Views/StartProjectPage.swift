import ServerCommon
import Foundation
import StitchCore

struct StartProjectPage {
    var available: [Canvas]

    func render(_ context: PageContext) -> Node {
        Layout.page("Start a project", section: .projects, context: context,
            el("h1", [:], text("Start a project")),
            el("p", ["class": "muted"], text("Plan one to list its threads and see whether you can start it; start it when you begin stitching.")),
            available.isEmpty
                ? Layout.emptyState(icon: "stash", title: "No available canvases", message: "All canvases are already linked to projects. Add a new canvas first.",
                                    action: el("a", ["class": "button primary", "href": SiteURL.newCanvas.path], text("+ Add canvas")))
                : el("ul", ["class": "list"], children: available.map { c in
                    el("li", ["class": "row"],
                       imageURL(c.imageKey).map { void("img", ["class": "thumb", "src": $0, "alt": "", "loading": "lazy", "width": "64", "height": "64"]) } ?? el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("stash", size: 32)),
                       el("div", ["class": "grow"], el("strong", [:], text(c.designName)), el("div", ["class": "muted"], text(c.designer))),
                       Layout.form(.startProject, context: context, attrs: "inline",
                                   void("input", ["type": "hidden", "name": "canvasId", "value": c.id.wireText]),
                                   void("input", ["type": "hidden", "name": "status", "value": ProjectStatus.planned.rawValue]),
                                   el("button", ["class": "secondary", "type": "submit", "aria-label": "Plan \(c.designName)"], text("Plan"))),
                       Layout.form(.startProject, context: context, attrs: "inline",
                                   void("input", ["type": "hidden", "name": "canvasId", "value": c.id.wireText]),
                                   el("button", ["class": "primary", "type": "submit", "aria-label": "Start \(c.designName)"], text("Start"))))
                }),
            withoutCanvas(context))
    }

    /// A project stitched from a chart (its pattern added on its page), or not chosen yet: a name
    /// instead of a canvas.
    func withoutCanvas(_ context: PageContext) -> Node {
        el("section", ["class": "card", "id": "without-canvas"],
           el("h2", [:], text("Without a canvas")),
           el("p", ["class": "muted"], text("Stitching from a chart? Give the project a name, then add the chart on its page.")),
           Layout.form(.startProject, context: context,
               Layout.field("Name", name: "name", required: true, id: "f-project-name", extra: ["placeholder": "Fox, from the chart", "maxlength": "200"]),
               el("div", ["class": "toolbar"],
                  el("button", ["class": "secondary", "type": "submit", "name": "status", "value": ProjectStatus.planned.rawValue], text("Plan it")),
                  el("button", ["class": "primary", "type": "submit", "name": "status", "value": ProjectStatus.wip.rawValue], text("Start it")))))
    }
}
