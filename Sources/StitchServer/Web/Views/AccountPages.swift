import BuildStamp
import ServerCommon
import Foundation
import StitchCore

/// Sign in and create account.
struct SignInPage {
    enum Mode { case signIn, signUp }
    var mode: Mode
    var email = ""
    var displayName = ""
    var errors: [String: String] = [:]
    var message: String?

    func render(_ context: PageContext) -> Node {
        let signingUp = mode == .signUp
        return Layout.document(signingUp ? "Create an account" : "Sign in", body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text("Stitchuation")),
            el("p", ["class": "tagline"], text("Your craft companion")),
            message.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            when(context.appleSignIn && !signingUp, el("form", ["method": "post", "action": SiteURL.appleSignIn.path],
                Layout.csrf(context), el("button", ["class": "apple", "type": "submit"], text(" Sign in with Apple")))),
            group(signingUp ? [] : context.oauthSignIn.map { provider, label in
                el("form", ["method": "post", "action": SiteURL.oauthSignIn(provider).path],
                   Layout.csrf(context), el("button", ["class": "secondary provider \(provider)", "type": "submit"], text("Continue with \(label)")))
            }),
            Layout.form(signingUp ? .signUp : .signIn, context: context,
                when(signingUp, Layout.field("Your name", name: "displayName", value: displayName, error: errors["displayName"], required: true,
                                             extra: ["autocomplete": "name"])),
                Layout.field("Email", name: "email", value: email, type: "email", error: errors["email"], required: true,
                             extra: ["autocomplete": "email", "inputmode": "email"]),
                Layout.field("Password", name: "password", type: "password", error: errors["password"], required: true,
                             extra: ["autocomplete": signingUp ? "new-password" : "current-password", "minlength": signingUp ? "8" : nil]),
                el("button", ["class": "primary", "type": "submit"], text(signingUp ? "Create account" : "Sign in"))),
            el("p", [:], signingUp
                ? el("a", ["href": SiteURL.signIn.path], text("I already have an account"))
                : group([el("a", ["href": SiteURL.signUp.path], text("Create an account")), text(" · "),
                         el("a", ["href": SiteURL.forgotPassword.path], text("Forgot password?"))]))))
    }
}

/// "Forgot password": an address to mail a link to, then what was done.
struct ForgotPasswordPage {
    var email = ""
    var errors: [String: String] = [:]
    var message: String?
    /// The answer once asked (the same whether or not an account has the address).
    var sent: String?
    /// False when the server has no mail set up: the page says so instead of offering the form.
    var canSend = true

    func render(_ context: PageContext) -> Node {
        Layout.document("Forgot password", body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text("Forgot password")),
            sent.map { el("p", ["class": "flash", "role": "status"], text($0)) }
                ?? el("p", ["class": "tagline"], text(canSend ? "We'll email you a link to choose a new password." : PasswordReset.unconfigured.reason)),
            message.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            when(sent == nil && canSend, Layout.form(.forgotPassword, context: context,
                Layout.field("Email", name: "email", value: email, type: "email", error: errors["email"], required: true,
                             extra: ["autocomplete": "email", "inputmode": "email"]),
                el("button", ["class": "primary", "type": "submit"], text("Email me a link")))),
            el("p", [:], el("a", ["href": SiteURL.signIn.path], text("Back to sign in")))))
    }
}

/// The page a mailed link opens: the new password, twice.
struct ResetPasswordPage {
    var token: String
    var errors: [String: String] = [:]
    var message: String?
    /// False for a link that has expired or was used: the page offers a new one instead.
    var usable = true

    func render(_ context: PageContext) -> Node {
        Layout.document("Choose a new password", body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text("Choose a new password")),
            message.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            usable
                ? Layout.form(.resetPassword, context: context,
                      void("input", ["type": "hidden", "name": "token", "value": token]),
                      PasswordPage.newPasswordFields(errors: errors),
                      el("p", ["class": "muted"], text("Every device and browser signed in to your account will be signed out.")),
                      el("button", ["class": "primary", "type": "submit"], text("Set new password")))
                : el("p", [:], el("a", ["class": "button primary", "href": SiteURL.forgotPassword.path], text("Email me a new link"))),
            el("p", [:], el("a", ["href": SiteURL.signIn.path], text("Back to sign in")))))
    }
}

struct SettingsPage {
    var user: UserProfile
    var counts: [(String, Int)]
    var methods = SignInMethods(methods: [], hasPassword: false)
    /// The providers this server offers in the browser, with where their flow starts.
    var addable: [(IdentityProvider, SiteURL)] = []
    /// The address isn't proven yet (`AddressProof`), and this server can mail the link again.
    var canConfirmAddress = false

    /// "Ways to sign in": each with Remove (never the last), the providers to add, and a merge.
    func waysIn(_ context: PageContext) -> Node {
        let linked = Set(methods.methods.map(\.provider))
        return el("section", ["class": "card", "id": "sign-in-methods"],
            el("h2", [:], text("Ways to sign in")),
            el("ul", ["class": "ways"], children: methods.methods.map { method in
                el("li", [:],
                   el("span", [:], text(method.provider == .email ? "Email and password" : AccountLinks.name(method.provider)),
                      method.detail.map { el("span", ["class": "muted"], text(" · \($0)")) } ?? nothing),
                   when(methods.methods.count > 1, Layout.form(.removeSignIn(method.provider.rawValue), context: context, attrs: "inline",
                       el("button", ["class": "secondary", "type": "submit",
                                     "aria-label": "Remove \(method.provider == .email ? "the password" : AccountLinks.name(method.provider))"],
                          text(method.provider == .email ? "Remove password" : "Remove")))))
            }),
            el("div", ["class": "actions"], children: addable.filter { !linked.contains($0.0) }.map { provider, start in
                Layout.form(start, context: context, attrs: "inline",
                    void("input", ["type": "hidden", "name": "intent", "value": "link"]),
                    el("button", ["class": "secondary", "type": "submit"], text("Add \(AccountLinks.name(provider))")))
            } + (methods.hasPassword || user.email == nil ? [] : [
                el("a", ["class": "button secondary", "href": SiteURL.forgotPassword.path], text("Set a password")),
            ])),
            el("p", ["class": "muted"], text("Made a second account by signing in another way? "),
               el("a", ["href": SiteURL.mergeAccount.path], text("Merge it into this one"))))
    }

    func render(_ context: PageContext) -> Node {
        Layout.page("Settings", section: .settings, context: context,
            el("h1", [:], text("Settings")),
            el("section", ["class": "card"],
               el("h2", [:], text("Account")),
               el("dl", ["class": "facts"],
                  el("dt", [:], text("Name")), el("dd", [:], text(user.displayName)),
                  el("dt", [:], text("Email")), el("dd", [:], text(user.email ?? "—"),
                     canConfirmAddress ? el("span", ["class": "muted"], text(" · not confirmed yet")) : nothing),
                  el("dt", [:], text("Member since")), el("dd", [:], text(Layout.longDate(user.createdAt)))),
               el("div", ["class": "actions"],
                  Layout.form(.signOut, context: context, el("button", ["class": "secondary", "type": "submit"], text("Sign out"))),
                  when(canConfirmAddress, Layout.form(.confirmAddressAgain, context: context,
                      el("button", ["class": "secondary", "type": "submit"], text("Email me the confirmation link")))),
                  when(user.providers.contains(.email), el("a", ["class": "button secondary", "href": SiteURL.password.path], text("Change password"))))),
            waysIn(context),
            el("section", ["class": "card"],
               el("h2", [:], text("Recently deleted")),
               el("p", ["class": "muted"], text("Deleted something by mistake? It can be restored for \(RecentlyDeleted.days) days.")),
               el("a", ["class": "button secondary", "href": SiteURL.recentlyDeleted.path], text("Recently deleted"))),
            el("section", ["class": "card"],
               el("h2", [:], text("Your data")),
               el("p", ["class": "muted"], text(counts.map { "\($0.1) \($0.0)" }.joined(separator: " · "))),
               el("div", ["class": "actions"],
                  el("a", ["class": "button secondary", "href": SiteURL.exportJSON.path, "download": "stitchuation-export.json"], text("Download everything (JSON, with pictures)")),
                  el("a", ["class": "button secondary", "href": SiteURL.exportCSV("threads").path, "download": "threads.csv"], text("Threads (CSV)")),
                  el("a", ["class": "button secondary", "href": SiteURL.exportCSV("canvases").path, "download": "canvases.csv"], text("Canvases (CSV)"))),
               el("div", ["class": "actions"],
                  el("a", ["class": "button secondary", "href": SiteURL.importFile.path], text("Import from a spreadsheet")),
                  el("a", ["class": "button secondary", "href": SiteURL.restore.path], text("Restore a backup")))),
            el("section", ["class": "card"],
               el("h2", [:], text("Sync")),
               el("p", ["class": "muted"], text("The web app writes straight to the server, so it is always in sync; it keeps your inventory, stash, projects and shopping list as you last saw them, to read with no signal (changes wait for a connection). The iPhone app and the stitch command-line client keep a copy on the device, changes included, and sync it with the server."))),
            el("section", ["class": "card"],
               el("h2", [:], text("Leave Stitchuation")),
               el("p", ["class": "muted"], text("Deleting your account removes everything in it from this server.")),
               el("a", ["class": "button danger", "href": SiteURL.deleteAccount.path], text("Delete account…"))),
            el("p", ["class": "muted", "id": "version"], text("Stitchuation \(BuildStamp.describe(StitchVersion.current))")))
    }
}

/// A friendly page for errors, with the right status.
struct ErrorPage {
    var status: Int
    var title: String
    var message: String

    func render() -> Node {
        Layout.document(title, body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text(title)),
            el("p", ["class": "tagline"], text(message)),
            el("a", ["class": "button primary", "href": SiteURL.inventory.path], text("Back to my threads"))))
    }
}

/// Settings → Recently deleted: what was deleted in the last 30 days, newest first, each with
/// Restore (a project brings its journal, sections and patterns back with it).
struct RecentlyDeletedPage {
    var deleted: RecentlyDeleted

    static func kind(_ type: EntityType) -> String {
        switch type {
        case .thread: "Thread"
        case .canvas: "Canvas"
        case .project: "Project"
        case .journalEntry: "Journal entry"
        default: type.rawValue
        }
    }

    func render(_ context: PageContext) -> Node {
        Layout.page("Recently deleted", section: .settings, context: context,
            el("h1", [:], text("Recently deleted")),
            el("p", ["class": "muted"], text("What you deleted in the last \(RecentlyDeleted.days) days, on any device. Restore brings it back everywhere; after \(RecentlyDeleted.days) days it is gone for good, with its photos.")),
            deleted.items.isEmpty
                ? Layout.emptyState(icon: "inventory", title: "Nothing deleted lately", message: "Threads, canvases, projects and journal entries you delete stay here for \(RecentlyDeleted.days) days.", action: nothing)
                : el("ul", ["class": "list card", "id": "deleted"], children: deleted.items.map { item in
                    el("li", ["class": "row", "data-deleted": "\(item.type.rawValue)/\(item.id.wireText)"],
                       item.hasPhoto == true
                           ? void("img", ["class": "thumb", "src": SiteURL.deletedPhoto(item.type.rawValue, item.id.wireText).path + "?w=\(PictureSizes.widths[0])",
                                          "alt": "", "loading": "lazy", "width": "64", "height": "64"])
                           : nothing,
                       el("div", ["class": "grow"],
                          el("span", ["class": "title"], text(item.title)),
                          el("div", ["class": "muted"], text("\(Self.kind(item.type)) · deleted \(Layout.longDate(item.deletedAt)) · until \(Layout.longDate(item.restorableUntil))"))),
                       Layout.form(.restoreDeleted(item.type.rawValue, item.id.wireText), context: context, attrs: "inline",
                          el("button", ["class": "secondary", "type": "submit", "aria-label": "Restore \(item.title)"], text("Restore"))))
                }),
            el("p", [:], el("a", ["href": SiteURL.settings.path], text("Back to Settings"))))
    }
}
