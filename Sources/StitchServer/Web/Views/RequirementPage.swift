import ServerCommon
import Foundation
import StitchCore

/// One thread a project needs, edited on a page of its own: how many skeins, its colour name and
/// its notes. (On the project's page each row links here: fifteen rows of closed edit forms were
/// 45 fields the browser's autofill reads at every load of that page, about half its load on a
/// slow phone.)
struct RequirementPage {
    var project: ProjectDetail
    var requirement: ProjectThread
    /// What was sent when it was refused; the stored values otherwise.
    var values: [String: String]
    var errors: [String: String] = [:]

    static func values(of r: ProjectThread) -> [String: String] {
        ["quantityNeeded": String(r.quantityNeeded), "colorName": r.colorName ?? "", "notes": r.notes ?? ""]
    }

    func render(_ context: PageContext) -> Node {
        let projectId = project.project.id.wireText
        let name = "\(requirement.brand) \(requirement.number)"
        let back = SiteURL.project(projectId).path + "#threads"
        return Layout.page("\(name) · \(project.title)", section: .projects, context: context,
            el("p", [:], el("a", ["href": back], text("← \(project.title)"))),
            el("h1", [:], text(name), (requirement.colorName?.isEmpty == false ? requirement.colorName : nil)
                .map { el("span", ["class": "muted"], text(" · " + $0)) } ?? nothing),
            Layout.errorSummary(errors),
            Layout.form(.requirement(projectId, requirement.id.wireText), context: context,
                Layout.field("Skeins needed", name: "quantityNeeded", value: values["quantityNeeded"], type: "number",
                             error: errors["quantityNeeded"], required: true, extra: ["min": "1", "inputmode": "numeric"]),
                Layout.field("Colour name", name: "colorName", value: values["colorName"], error: errors["colorName"]),
                Layout.field("Notes", name: "notes", value: values["notes"], error: errors["notes"], extra: ["placeholder": "Tent stitch, 2 plies"]),
                el("div", ["class": "toolbar"],
                   el("button", ["class": "primary", "type": "submit"], text("Save")),
                   el("a", ["class": "button secondary", "href": back], text("Cancel")))))
    }
}
