import ServerCommon
import Foundation
import StitchCore

/// What a CSV import is of.
enum ImportKind: String, CaseIterable {
    case threads, canvases

    var noun: String { rawValue }
    var section: Section { self == .threads ? .inventory : .stash }
    var url: SiteURL { self == .threads ? .inventory : .stash }
}

/// Settings → Import: choose a file, what it holds and how duplicates merge.
struct ImportPage {
    var kind: ImportKind = .threads
    var rule: DuplicateRule = .add
    var error: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Import", section: .settings, context: context,
            el("h1", [:], text("Import from a spreadsheet")),
            el("section", ["class": "card"],
               el("p", [:], text("A CSV file from a spreadsheet or another stash app: comma, semicolon or tab separated, with a header line naming the columns (brand, number, colour, quantity… in the usual spellings). You'll see what would happen before anything is saved.")),
               error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
               Layout.form(.importFile, context: context, multipart: true,
                   el("fieldset", [:],
                      el("legend", [:], text("The file holds")),
                      group(ImportKind.allCases.map { k in
                          el("label", ["class": "check"], .void("input", [("type", "radio"), ("name", "kind"), ("value", k.rawValue)] + (k == kind ? [("checked", "checked")] : [])),
                             text(k == .threads ? "Threads (inventory)" : "Canvases (stash)"))
                      })),
                   el("fieldset", [:],
                      el("legend", [:], text("When it's already there (same brand and number, or same designer and design)")),
                      group(DuplicateRule.allCases.map { r in
                          el("label", ["class": "check"], .void("input", [("type", "radio"), ("name", "onDuplicate"), ("value", r.rawValue)] + (r == rule ? [("checked", "checked")] : [])),
                             text(r.rawValue.capitalized + ": " + r.explanation))
                      })),
                   Layout.field("CSV file", name: "file", type: "file", required: true, extra: ["accept": ".csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain"]),
                   el("button", ["class": "primary", "type": "submit"], text("Preview")))))
    }
}

/// What an import would do, before anything is written; confirming writes exactly this.
struct ImportPreviewPage {
    var kind: ImportKind
    var filename: String
    var fileBase64: String
    var report: ImportReport
    var summary: String
    var entries: [(action: String, title: String, lines: String, detail: String)]
    var writes: Int
    var rule: DuplicateRule

    func render(_ context: PageContext) -> Node {
        let shown = entries.prefix(1000)
        return Layout.page("Check the import", section: .settings, context: context,
            el("h1", [:], text("Check the import")),
            el("section", ["class": "card", "id": "import-report"],
               el("h2", [:], text(filename.isEmpty ? "Your file" : filename)),
               el("p", [:], text("Read \(report.rowsRead) row(s), \(report.delimiter)-separated, \(report.encoding).")),
               el("div", ["class": "scroll"], el("table", ["id": "import-columns"],
                  el("thead", [:], el("tr", [:], el("th", [:], text("Column")), el("th", [:], text("Header")), el("th", [:], text("Imported as")))),
                  el("tbody", [:], children: report.columns.map { c in
                      el("tr", ["class": c.field == nil ? "unused" : "used"],
                         el("td", ["class": "data"], text(c.letter)), el("td", [:], text(c.header.isEmpty ? "—" : c.header)),
                         el("td", [:], text(c.label ?? c.field ?? "not imported" + (c.note.map { ": \($0)" } ?? ""))))
                  }))),
               group(report.warnings.map { el("p", ["class": "flash warning", "role": "alert"], text($0)) }),
               when(!report.problems.isEmpty, group([
                   el("h3", [:], text("\(report.problems.count) value(s) can't be read; their rows are not imported")),
                   el("div", ["class": "scroll"], el("table", ["id": "import-problems"],
                      el("thead", [:], el("tr", [:], el("th", [:], text("Line")), el("th", [:], text("Column")), el("th", [:], text("Problem")))),
                      el("tbody", [:], children: report.problems.map { p in
                          el("tr", [:], el("td", ["class": "data"], text(String(p.line))), el("td", [:], text(p.column ?? "—")), el("td", [:], text(p.message)))
                      }))),
               ]))),
            el("section", ["class": "card", "id": "import-plan"],
               el("h2", [:], text("What would happen")),
               el("p", ["id": "import-summary"], text(summary)),
               el("div", ["class": "scroll"], el("table", ["id": "import-entries"],
                  el("thead", [:], el("tr", [:], el("th", [:], text("")), el("th", [:], text(kind == .threads ? "Thread" : "Canvas")),
                                      el("th", [:], text("Line")), el("th", [:], text("Details")))),
                  el("tbody", [:], children: shown.map { e in
                      el("tr", ["data-action": e.action],
                         el("td", [:], text(e.action)), el("td", [:], text(e.title)), el("td", ["class": "data"], text(e.lines)), el("td", [:], text(e.detail)))
                  }))),
               when(entries.count > shown.count, el("p", ["class": "muted"], text("…and \(entries.count - shown.count) more."))),
               Layout.form(.importConfirm, context: context, multipart: true,
                   void("input", ["type": "hidden", "name": "kind", "value": kind.rawValue]),
                   void("input", ["type": "hidden", "name": "onDuplicate", "value": rule.rawValue]),
                   void("input", ["type": "hidden", "name": "filename", "value": filename]),
                   el("textarea", ["name": "file", "hidden": "hidden", "aria-hidden": "true"], text(fileBase64)),
                   when(report.quantitiesMissing, el("label", ["class": "check"],
                       void("input", ["type": "checkbox", "name": "acceptDefaults", "value": "yes", "required": "required"]),
                       text("Yes, add them with 0 in stock"))),
                   writes > 0
                       ? el("button", ["class": "primary", "type": "submit"], text("Import \(writes) \(kind.noun)"))
                       : el("p", ["class": "muted"], text("Nothing to import.")),
                   el("a", ["class": "button secondary", "href": SiteURL.importFile.path], text("Choose another file")))))
    }
}

/// Settings → Restore: a whole-account JSON backup.
struct RestorePage {
    var error: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Restore", section: .settings, context: context,
            el("h1", [:], text("Restore a backup")),
            el("section", ["class": "card"],
               el("p", [:], text("A backup file (Settings → Download everything, or stitch export --format json) holds every thread, canvas, project, journal entry and picture. Restoring adds what isn't here and brings back older copies; anything changed here since the backup was made stays as it is now.")),
               error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
               Layout.form(.restore, context: context, multipart: true, attrs: "stack upload",
                   Layout.field("Backup file (JSON)", name: "backup", type: "file", required: true, extra: ["accept": ".json,application/json"]),
                   el("progress", ["max": "100", "value": "0", "hidden": "hidden", "aria-label": "Upload progress"]),
                   el("button", ["class": "primary", "type": "submit"], text("Restore")))))
    }
}

/// What a restore did.
struct RestoreResultPage {
    var summary: RestoreSummary

    func render(_ context: PageContext) -> Node {
        Layout.page("Restored", section: .settings, context: context,
            el("h1", [:], text("Backup restored")),
            el("section", ["class": "card", "id": "restore-summary"],
               el("ul", [:], children: summary.lines.filter { !$0.hasPrefix("  ") }.map { el("li", [:], text($0)) }),
               when(!summary.issues.isEmpty, group([
                   el("h2", [:], text("Not restored as it was")),
                   el("ul", ["id": "restore-issues"], children: summary.issues.map { el("li", [:], text($0.description)) }),
               ])),
               el("a", ["class": "button primary", "href": SiteURL.inventory.path], text("See my threads"))))
    }
}

/// Settings → Change password.
struct PasswordPage {
    var errors: [String: String] = [:]
    var message: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Change password", section: .settings, context: context,
            el("h1", [:], text("Change password")),
            el("section", ["class": "card"],
               message.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
               Layout.form(.password, context: context,
                   Layout.field("Current password", name: "currentPassword", type: "password", error: errors["currentPassword"], required: true,
                                extra: ["autocomplete": "current-password"]),
                   Self.newPasswordFields(errors: errors),
                   el("p", ["class": "muted"], text("Every other device and browser signed in to this account will be signed out.")),
                   el("button", ["class": "primary", "type": "submit"], text("Change password")))))
    }

    /// The new password, twice (here and on the page a reset link opens).
    static func newPasswordFields(errors: [String: String]) -> Node {
        group([
            Layout.field("New password", name: "newPassword", type: "password", error: errors["newPassword"], required: true,
                         extra: ["autocomplete": "new-password", "minlength": String(Limits.passwordMinCharacters)]),
            Layout.field("New password again", name: "confirmPassword", type: "password", error: errors["confirmPassword"], required: true,
                         extra: ["autocomplete": "new-password"]),
        ])
    }
}

/// Settings → Delete account.
struct DeleteAccountPage {
    var hasPassword: Bool
    var counts: [(String, Int)]
    var error: String?

    func render(_ context: PageContext) -> Node {
        Layout.page("Delete account", section: .settings, context: context,
            el("h1", [:], text("Delete your account")),
            el("section", ["class": "card"],
               el("p", [:], text("This deletes your account and everything in it from this server, for good: "
                                 + counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
                                 + ", every journal entry and picture, and every sign-in on every device.")),
               el("p", [:], text("Download a backup first (Settings → Download everything) if you may want any of it again.")),
               error.map { el("p", ["class": "flash", "role": "alert"], text($0)) } ?? nothing,
               Layout.form(.deleteAccount, context: context,
                   hasPassword
                       ? Layout.field("Your password", name: "password", type: "password", required: true, extra: ["autocomplete": "current-password"])
                       : Layout.field("Type DELETE to confirm", name: "confirm", required: true, extra: ["autocomplete": "off", "pattern": "DELETE"]),
                   el("button", ["class": "danger", "type": "submit", "data-confirm": "Delete your account and everything in it? This can't be undone."],
                      text("Delete my account")),
                   el("a", ["class": "button secondary", "href": SiteURL.settings.path], text("Cancel")))))
    }
}
