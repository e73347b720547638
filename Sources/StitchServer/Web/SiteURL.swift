import ServerCommon
import Foundation
import Vapor

/// Every page of the web app, used both to register its route and to build links to it, so the
/// two cannot drift. Parameters are given as ":name" when registering, as the value when linking.
enum SiteURL {
    case home
    case signIn, signUp, signOut, forgotPassword, resetPassword, appleSignIn, appleCallback, oauthSignIn(String), oauthCallback(String)
    case inventory, inventoryData, newThread, thread(String), deleteThread(String), stepThread(String), matchCatalog, scan
    case stash, newCanvas, canvas(String), editCanvas(String), deleteCanvas(String), canvasPalette(String), canvasPaletteSize(String)
    case projects, startProject, project(String), projectStatus(String), deleteProject(String)
    case projectNotes(String), projectDates(String), projectPicture(String), projectSize(String)
    case newEntry(String), entry(String, String), deleteEntry(String, String), photo(String, String)
    case entryPhotos(String, String), deleteEntryPhoto(String, String, String), moveEntryPhoto(String, String, String)
    case patterns(String), pattern(String, String), patternPage(String, String, Int), patternThumb(String, String, Int)
    case patternStatus(String, String), patternLastPage(String, String), deletePattern(String, String), patternKey(String, String)
    case newSection(String), section(String, String), moveSection(String, String), deleteSection(String, String)
    case newRequirement(String), requirement(String, String), deleteRequirement(String, String)
    case shopping, shoppingText, buy, shoppingAdd, shoppingDismiss
    case settings, exportJSON, exportCSV(String)
    case importFile, importConfirm, restore, password, deleteAccount
    case linkSignIn, mailLinkSignIn, confirmLinkSignIn, removeSignIn(String), mergeAccount, confirmAddress, confirmAddressAgain
    case recentlyDeleted, restoreDeleted(String, String), deletedPhoto(String, String)
    case stylesheet, script, font(String), icon, manifest, worker, offline, sync
    case image(String)

    var components: [String] {
        switch self {
        case .home: []
        case .signIn: ["app", "signin"]
        case .signUp: ["app", "signup"]
        case .signOut: ["app", "signout"]
        case .forgotPassword: ["app", "forgot-password"]
        case .resetPassword: ["app", "reset-password"]
        case .appleSignIn: ["app", "signin", "apple"]
        case .appleCallback: ["app", "signin", "apple", "callback"]
        case .oauthSignIn(let provider): ["app", "signin", provider]
        case .oauthCallback(let provider): ["app", "signin", provider, "callback"]
        case .inventory: ["app", "inventory"]
        case .inventoryData: ["app", "inventory.json"]
        case .newThread: ["app", "inventory", "new"]
        case .matchCatalog: ["app", "inventory", "match-catalog"]
        case .scan: ["app", "inventory", "scan"]
        case .thread(let id): ["app", "inventory", id]
        case .deleteThread(let id): ["app", "inventory", id, "delete"]
        case .stepThread(let id): ["app", "inventory", id, "step"]
        case .stash: ["app", "stash"]
        case .newCanvas: ["app", "stash", "new"]
        case .canvas(let id): ["app", "stash", id]
        case .editCanvas(let id): ["app", "stash", id, "edit"]
        case .deleteCanvas(let id): ["app", "stash", id, "delete"]
        case .canvasPalette(let id): ["app", "stash", id, "palette"]
        case .canvasPaletteSize(let id): ["app", "stash", id, "palette", "size"]
        case .projects: ["app", "projects"]
        case .startProject: ["app", "projects", "start"]
        case .project(let id): ["app", "projects", id]
        case .projectStatus(let id): ["app", "projects", id, "status"]
        case .deleteProject(let id): ["app", "projects", id, "delete"]
        case .projectNotes(let id): ["app", "projects", id, "notes"]
        case .projectPicture(let id): ["app", "projects", id, "picture"]
        case .projectDates(let id): ["app", "projects", id, "dates"]
        case .projectSize(let id): ["app", "projects", id, "size"]
        case .newEntry(let id): ["app", "projects", id, "entries"]
        case .entry(let project, let entry): ["app", "projects", project, "entries", entry]
        case .deleteEntry(let project, let entry): ["app", "projects", project, "entries", entry, "delete"]
        case .entryPhotos(let project, let entry): ["app", "projects", project, "entries", entry, "photos"]
        case .deleteEntryPhoto(let project, let entry, let image): ["app", "projects", project, "entries", entry, "photos", image, "delete"]
        case .moveEntryPhoto(let project, let entry, let image): ["app", "projects", project, "entries", entry, "photos", image, "move"]
        case .photo(let project, let image): ["app", "projects", project, "photos", image]
        case .patterns(let project): ["app", "projects", project, "patterns"]
        case .pattern(let project, let id): ["app", "projects", project, "patterns", id]
        case .patternPage(let project, let id, let n): ["app", "projects", project, "patterns", id, "pages", n == 0 ? ":page" : String(n)]
        case .patternThumb(let project, let id, let n): ["app", "projects", project, "patterns", id, "thumbs", n == 0 ? ":page" : String(n)]
        case .patternStatus(let project, let id): ["app", "projects", project, "patterns", id, "status"]
        case .patternLastPage(let project, let id): ["app", "projects", project, "patterns", id, "page"]
        case .deletePattern(let project, let id): ["app", "projects", project, "patterns", id, "delete"]
        case .patternKey(let project, let id): ["app", "projects", project, "patterns", id, "key"]
        case .newSection(let id): ["app", "projects", id, "sections"]
        case .section(let project, let section): ["app", "projects", project, "sections", section]
        case .moveSection(let project, let section): ["app", "projects", project, "sections", section, "move"]
        case .deleteSection(let project, let section): ["app", "projects", project, "sections", section, "delete"]
        case .newRequirement(let id): ["app", "projects", id, "needs"]
        case .requirement(let project, let req): ["app", "projects", project, "needs", req]
        case .deleteRequirement(let project, let req): ["app", "projects", project, "needs", req, "delete"]
        case .shopping: ["app", "shopping"]
        case .buy: ["app", "shopping", "bought"]
        case .shoppingAdd: ["app", "shopping", "add"]
        case .shoppingDismiss: ["app", "shopping", "set-aside"]
        case .shoppingText: ["app", "shopping", "shopping-list.txt"]
        case .settings: ["app", "settings"]
        case .sync: ["app", "sync"]
        case .exportJSON: ["app", "settings", "export.json"]
        case .exportCSV(let kind): ["app", "settings", "export", kind]
        case .importFile: ["app", "settings", "import"]
        case .importConfirm: ["app", "settings", "import", "confirm"]
        case .restore: ["app", "settings", "restore"]
        case .password: ["app", "settings", "password"]
        case .deleteAccount: ["app", "settings", "delete-account"]
        case .linkSignIn: ["app", "link-sign-in"]
        case .mailLinkSignIn: ["app", "link-sign-in", "mail"]
        case .confirmLinkSignIn: ["app", "link-sign-in", "confirm"]
        case .confirmAddress: ["app", "confirm-address"]
        case .confirmAddressAgain: ["app", "settings", "confirm-address"]
        case .recentlyDeleted: ["app", "settings", "deleted"]
        case .restoreDeleted(let type, let id): ["app", "settings", "deleted", type, id, "restore"]
        case .deletedPhoto(let type, let id): ["app", "settings", "deleted", type, id, "photo"]
        case .removeSignIn(let provider): ["app", "settings", "sign-in", provider, "remove"]
        case .mergeAccount: ["app", "settings", "merge"]
        case .stylesheet: ["app", "static", WebAssets.stylesheet.hashedName("app.css")]
        case .script: ["app", "static", WebAssets.script.hashedName("app.js")]
        case .icon: ["app", "static", "icon.svg"]
        case .manifest: ["app", "manifest.webmanifest"]
        case .worker: ["app", "sw.js"]
        case .offline: ["app", "offline"]
        case .font(let name): ["app", "static", "fonts", name]
        case .image(let key): ["app", "images", key]
        }
    }

    var path: String { "/" + components.joined(separator: "/") }

    func path(query: [String: String?]) -> String {
        let items = query.compactMap { k, v in v.flatMap { $0.isEmpty ? nil : URLQueryItem(name: k, value: $0) } }.sorted { $0.name < $1.name }
        guard !items.isEmpty else { return path }
        var c = URLComponents()
        c.queryItems = items
        return path + "?" + (c.percentEncodedQuery ?? "")
    }

    var route: [PathComponent] { components.map { PathComponent(stringLiteral: $0) } }
}
