import Foundation
import ServerCommon
import StitchCore

/// A provider's sign-in met an account with its verified address: that account's password, or
/// a link mailed to it, adds the sign-in to it (nothing was created).
struct LinkSignInPage {
    var token: String
    var pending: AccountLinks.Pending
    var hasPassword: Bool
    var canMail: Bool
    var error: String?

    func render(_ context: PageContext) -> Node {
        let name = AccountLinks.name(pending.provider)
        return Layout.document("Add \(name) to your account", body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text("You already have an account")),
            el("p", ["class": "tagline"], text("An account with \(pending.email) already exists. "
                + (hasPassword ? "Enter its password to add \(name) to it" : "It has no password: a link mailed to that address adds \(name) to it")
                + ": from then on either signs you in to the same stash.")),
            error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            when(hasPassword, Layout.form(.linkSignIn, context: context,
                void("input", ["type": "hidden", "name": "token", "value": token]),
                Layout.field("Password of \(pending.email)", name: "password", type: "password", required: true,
                             extra: ["autocomplete": "current-password"]),
                el("button", ["class": "primary", "type": "submit"], text("Add \(name) and sign in")))),
            when(canMail, Layout.form(.mailLinkSignIn, context: context,
                void("input", ["type": "hidden", "name": "token", "value": token]),
                el("button", ["class": hasPassword ? "secondary" : "primary", "type": "submit"], text("Email me a link instead")))),
            when(!hasPassword && !canMail, el("p", ["class": "flash", "role": "alert"],
                text("This server can't send email. Sign in to that account another way, then add \(name) in Settings."))),
            el("p", [:], when(hasPassword, group([el("a", ["href": SiteURL.forgotPassword.path], text("Forgot password?")), text(" · ")])),
               el("a", ["href": SiteURL.signIn.path], text("Back to sign in")))))
    }
}

/// The link mailed for a pending sign-in, opened: one tap adds it to the account (a GET changes
/// nothing, so a mail program's look at the link adds nothing).
struct ConfirmLinkSignInPage {
    var token: String
    var pending: AccountLinks.Pending
    /// The account's address was never confirmed: adding takes it back (`AccountLinks.takeBack`).
    var takesBack = false

    func render(_ context: PageContext) -> Node {
        let name = AccountLinks.name(pending.provider)
        return Layout.document("Add \(name) to your account", body: el("main", ["class": "signin", "id": "main"],
            el("h1", [:], text("Add \(name) to your account")),
            el("p", ["class": "tagline"], text("\(name) will open the account of \(pending.email), with everything in it.")),
            takesBack ? el("p", ["class": "muted"], text("This account's address was never confirmed, so someone else may have made it with your address. Adding \(name) removes the password set on it and signs out every device; you can choose a new password afterwards from Forgot password.")) : nothing,
            Layout.form(.confirmLinkSignIn, context: context,
                void("input", ["type": "hidden", "name": "token", "value": token]),
                el("button", ["class": "primary", "type": "submit"], text("Add \(name)"))),
            el("p", [:], el("a", ["href": SiteURL.signIn.path], text("Not now")))))
    }
}

/// Bringing a second account of the person's into this one: offered after adding a sign-in that
/// opens another account, or proven here with the other account's email and password.
struct MergeAccountPage {
    /// A signed offer (`WebLinkIntent.offer`) for the account a provider's sign-in opened.
    var offer: String?
    var provider: String?
    var other: (name: String, counts: [(String, Int)])?
    var email = ""
    var error: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Merge an account", section: .settings, context: context,
            el("h1", [:], text("Merge another account into this one")),
            error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
            el("section", ["class": "card"], children: offer.map { offer in [
                el("p", [:], text("This \(provider ?? "sign-in") opens another account: “\(other?.name ?? "")”, with \(other?.counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ") ?? "nothing").")),
                el("p", ["class": "muted"], text("Merging moves everything in it into this account, and your devices sync it. The other account is then deleted, and \(provider ?? "its sign-in") signs in here.")),
                Layout.form(.mergeAccount, context: context,
                    void("input", ["type": "hidden", "name": "offer", "value": offer]),
                    el("div", ["class": "actions"],
                       el("button", ["class": "primary", "type": "submit"], text("Merge it into this account")),
                       el("a", ["class": "button secondary", "href": SiteURL.settings.path], text("Cancel")))),
            ] } ?? [
                el("p", ["class": "muted"], text("Prove the other account is yours by signing in to it: its email and password here, or add its Apple, Instagram or TikTok sign-in from Settings and you'll be offered the merge.")),
                Layout.form(.mergeAccount, context: context,
                    Layout.field("Email of the other account", name: "email", value: email, type: "email", required: true,
                                 extra: ["autocomplete": "off", "inputmode": "email"]),
                    Layout.field("Its password", name: "password", type: "password", required: true, extra: ["autocomplete": "off"]),
                    el("p", ["class": "muted"], text("Everything in it moves here; it is then deleted, and its address no longer signs in. Accounts that both hold the same thread can't be merged: the page says which.")),
                    el("button", ["class": "primary", "type": "submit"], text("Merge it into this account"))),
            ]))
    }
}
