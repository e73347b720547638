import ServerCommon
import Foundation
import StitchCore

func statusBadge(_ status: ProjectStatus) -> Node {
    el("span", ["class": "badge \(status.rawValue)"], text(status.displayName))
}

struct ProjectsPage {
    var projects: [ProjectDetail]

    func render(_ context: PageContext) -> Node {
        Layout.page("Projects", section: .projects, context: context, split: .list(empty: "Choose a project to see it here."),
            el("div", ["class": "toolbar"],
               el("h1", [:], text("Projects")),
               el("a", ["class": "button primary", "href": SiteURL.startProject.path, "aria-label": "Start project"], text("+ Start project"))),
            projects.isEmpty
                ? Layout.emptyState(icon: "projects", title: "No projects yet", message: "Tap + to start a new project",
                                    action: el("a", ["class": "button primary", "href": SiteURL.startProject.path], text("+ Start project")))
                : el("div", ["id": "projects"], children: Self.groups(projects, current: nil)))
    }

    /// The projects beside one of them (from tablet width), that one marked; grouped as the list is.
    static func beside(_ projects: [ProjectDetail], current: UUID) -> Layout.Split {
        .detail(list: el("div", [:], children: groups(projects, current: current)), label: "Projects")
    }

    /// A section per status, in `groupOrder`, with its count; `current` marked.
    static func groups(_ projects: [ProjectDetail], current: UUID?) -> [Node] {
        groupOrder.compactMap { status in
            let group = projects.filter { $0.project.status == status }
            guard !group.isEmpty else { return nil }
            return el("section", ["class": "project-group", "data-status": status.rawValue],
                el("h2", [:], text(heading(status)), el("span", ["class": "muted"], text(" \(group.count)"))),
                el("ul", ["class": "list"], children: group.map { row($0, current: $0.project.id == current) }))
        }
    }

    /// What is being stitched first, then what is planned, at finishing and done.
    static let groupOrder: [ProjectStatus] = [.wip, .planned, .atFinishing, .completed]

    static func heading(_ status: ProjectStatus) -> String {
        switch status {
        case .wip: "Stitching"
        case .planned: "Planned"
        case .atFinishing: "At finishing"
        case .completed: "Completed"
        }
    }

    static func row(_ p: ProjectDetail, current: Bool = false) -> Node {
        el("li", ["class": current ? "row current" : "row"],
           imageURL(p.pictureKey).map { void("img", ["class": "thumb", "src": $0, "alt": "", "loading": "lazy", "width": "64", "height": "64"]) }
               ?? el("span", ["class": "thumb", "aria-hidden": "true"], Icon.svg("projects", size: 32)),
           el("div", ["class": "grow"],
              el("a", ["class": "title", "href": SiteURL.project(p.project.id.wireText).path, "aria-current": current ? "page" : nil], text(p.title)),
              el("div", ["class": "muted"], text("\(p.project.status == .planned ? "Planned" : "Started") \(Layout.longDate(p.project.startedAt))"))),
           statusBadge(p.project.status))
    }
}
