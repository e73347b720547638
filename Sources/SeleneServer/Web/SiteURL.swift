import Foundation
import Vapor

/// Every page of the web app, used both to register its route and to build links to it.
enum SiteURL {
    case home
    case signIn, signOut, setup
    case chat, session(String), ask(String), stream(String), newSession, pin(String), deleteSession(String), about(String)
    case threads, thread(String), threadAsk(String), threadStream(String), suggestTasks(String), addTask(String), tasks, task(String)
    case renameThread(String), mergeThread(String), splitThread(String), moveNote(String)
    case briefing
    case more, search, voice, transcribe, notes, newNote, note(String), editNote(String), deleteNote(String), memories, memory(String), deleteMemory(String), devices, deleteDevice(String), status, outbound, hosted
    case stylesheet, script, icon, manifest, worker, offline, pushKey, pushSubscribe, pushTest

    var components: [String] {
        switch self {
        case .home: []
        case .signIn: ["app", "signin"]
        case .signOut: ["app", "signout"]
        case .setup: ["app", "setup"]
        case .chat: ["app", "chat"]
        case .session(let id): ["app", "chat", id]
        case .ask(let id): ["app", "chat", id, "ask"]
        case .stream(let id): ["app", "chat", id, "stream"]
        case .newSession: ["app", "chat", "new"]
        case .pin(let id): ["app", "chat", id, "pin"]
        case .deleteSession(let id): ["app", "chat", id, "delete"]
        case .about(let card): ["app", "chat", "about", card]
        case .threads: ["app", "threads"]
        case .thread(let id): ["app", "threads", id]
        case .threadAsk(let id): ["app", "threads", id, "ask"]
        case .threadStream(let id): ["app", "threads", id, "stream"]
        case .suggestTasks(let id): ["app", "threads", id, "suggest"]
        case .addTask(let id): ["app", "threads", id, "tasks"]
        case .renameThread(let id): ["app", "threads", id, "rename"]
        case .mergeThread(let id): ["app", "threads", id, "merge"]
        case .splitThread(let id): ["app", "threads", id, "split"]
        case .moveNote(let id): ["app", "notes", id, "thread"]
        case .tasks: ["app", "tasks"]
        case .task(let id): ["app", "tasks", id]
        case .briefing: ["app", "briefing"]
        case .more: ["app", "more"]
        case .search: ["app", "search"]
        case .voice: ["app", "voice"]
        case .transcribe: ["app", "transcribe"]
        case .notes: ["app", "notes"]
        case .newNote: ["app", "notes", "new"]
        case .note(let id): ["app", "notes", id]
        case .editNote(let id): ["app", "notes", id, "edit"]
        case .deleteNote(let id): ["app", "notes", id, "delete"]
        case .memories: ["app", "memories"]
        case .memory(let id): ["app", "memories", id]
        case .deleteMemory(let id): ["app", "memories", id, "delete"]
        case .devices: ["app", "devices"]
        case .deleteDevice(let id): ["app", "devices", id, "delete"]
        case .status: ["app", "status"]
        case .outbound: ["app", "outbound"]
        case .hosted: ["app", "hosted"]
        case .icon: ["app", "static", "icon.svg"]
        case .manifest: ["app", "manifest.webmanifest"]
        case .worker: ["app", "sw.js"]
        case .offline: ["app", "offline"]
        case .pushKey: ["app", "push", "key"]
        case .pushSubscribe: ["app", "push", "subscribe"]
        case .pushTest: ["app", "push", "test"]
        case .stylesheet: ["app", "static", Assets.css.hashedName("selene.css")]
        case .script: ["app", "static", Assets.js.hashedName("selene.js")]
        }
    }

    var path: String { "/" + components.joined(separator: "/") }

    func path(query: [String: String]) -> String {
        var c = URLComponents()
        c.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return path + "?" + (c.percentEncodedQuery ?? "")
    }

    var route: [PathComponent] { components.map { PathComponent(stringLiteral: $0) } }
}
