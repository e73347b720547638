import Foundation
import SeleneShared
import ServerCommon

/// Every page of the web app as a function of its data, rendered by construction (escaped).
enum Pages {
    static func signIn(context: PageContext, error: String?) -> Node {
        Layout.document("Sign in", body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], Layout.moon(), text(" Selene")),
            el("p", ["class": "muted"], text("Your notes, your threads of thought, your briefing. Sign in with this server's API token: the link Selene printed when it first started, or paste the token (`selene token show` prints both).")),
            error.map { el("p", ["class": "flash error", "role": "alert"], text($0)) } ?? nothing,
            Layout.form(SiteURL.signIn.path, context: context,
                el("label", ["for": "token"], text("API token"),
                   void("input", ["id": "token", "name": "token", "type": "password", "autocomplete": "current-password", "required": "required",
                                  "aria-invalid": error == nil ? nil : "true"])),
                Layout.button("Sign in"))))
    }

    static func setup(context: PageContext, suggestedToken: String) -> Node {
        Layout.document("Set up", body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], Layout.moon(), text(" Welcome to Selene")),
            el("div", ["class": "card"],
               el("p", [:], text("This server was started with SELENE_API_TOKEN=off, so it has no token and only answers on this computer (127.0.0.1).")),
               el("p", [:], text("To use Selene from your phone or the Drafts app, start it without that setting (it makes a token and keeps it in its data folder), or with a token of your own, and listen on your private network:")),
               el("p", [:], el("code", [:], text("SELENE_API_TOKEN=\(suggestedToken) selene serve --hostname 0.0.0.0"))),
               el("p", ["class": "muted"], text("(A fresh token, made just now; `selene token new` makes another.)"))),
            Layout.form(SiteURL.setup.path, context: context, Layout.button("Continue on this computer"))))
    }

    /// What the service worker shows when a page isn't kept and the network is gone.
    static func offline() -> Node {
        Layout.document("Offline", body: el("main", ["class": "main"],
            el("h1", [:], text("You're offline")),
            el("p", [:], text("Notes, tasks, threads and the briefing you opened lately can still be read. A note you capture now is kept in this browser and sent when you're back.")),
            el("p", [:], el("a", ["href": SiteURL.notes.path, "class": "button quiet"], text("Notes")), text(" "),
               el("a", ["href": SiteURL.newNote.path, "class": "button quiet"], text("Capture a note")))))
    }

    static func error(status: Int, title: String, message: String) -> Node {
        Layout.document(title, body: el("main", ["id": "main", "class": "signin"],
            el("h1", [:], text(title)), el("p", [:], text(message)),
            el("p", [:], el("a", ["class": "button", "href": SiteURL.chat.path], text("Back to Selene")))))
    }
}
