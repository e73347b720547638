import ArgumentParser
import BuildStamp
import Foundation
import StitchCore
import StitchKit

@main
struct Stitch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stitch",
        abstract: "Stitchuation from the terminal: threads, canvases, projects, journal and shopping list, offline first.",
        version: BuildStamp.describe(StitchVersion.current),
        subcommands: [
            Register.self, Login.self, Logout.self, WhoAmI.self, PasswordCommand.self, ForgotPassword.self, AccountCommand.self, SyncCommand.self, StatusCommand.self,
            Threads.self, Canvases.self, Projects.self, Journal.self, Sections.self, Needs.self, Patterns.self,
            ReadinessCommand.self, ShoppingListCommand.self, Import.self, Export.self, DeletedCommand.self, RestoreCommand.self,
        ])

    /// Runs a command body, turning failures into a clear line on stderr and a meaningful exit code.
    static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(error.code.rawValue)
        } catch let error as StitchCore.ValidationError {
            FileHandle.standardError.write(Data("error: \(error.fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))\n".utf8))
            throw ExitCode(ExitCode32.invalid.rawValue)
        } catch let error as ClientError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            switch error {
            case .offline: throw ExitCode(ExitCode32.offline.rawValue)
            case .signedOut: throw ExitCode(ExitCode32.signedOut.rawValue)
            case .server(let status, _) where [400, 413, 415, 422].contains(status): throw ExitCode(ExitCode32.invalid.rawValue)
            default: throw ExitCode(ExitCode32.failure.rawValue)
            }
        }
    }
}

struct JSONFlag: ParsableArguments {
    @Flag(name: .long, help: "Print JSON for scripts.") var json = false
}

// MARK: - Account

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account on a server and sign in.")
    @Option(help: "The server, e.g. http://127.0.0.1:8080") var server: String
    @Option var email: String
    @Option(help: "Your name as the app shows it") var name: String

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open(server: server)
            let password = try Terminal.password(prompt: "Choose a password (at least 8 characters): ")
            let session = try await ctx.api.register(email: email, password: password, displayName: name)
            try ctx.store.setSetting("server", server)
            print("Welcome, \(session.user.displayName)! Signed in to \(server) as \(session.user.email ?? email).")
            print(await ctx.syncSoon())
        }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sign in to a server.")
    @Option var server: String
    @Option var email: String

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open(server: server)
            let password = try Terminal.password(prompt: "Password: ")
            let session = try await ctx.api.login(email: email, password: password)
            try ctx.store.setSetting("server", server)
            print("Signed in to \(server) as \(session.user.email ?? email).")
            print(await ctx.syncSoon())
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Sign out (the data on this device stays).")
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            try await ctx.api.logout()
            print("Signed out. Your data on this device is kept.")
        }
    }
}

struct PasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Change your password; every other device and browser is signed out.",
        discussion: "Scripts give the current password in STITCH_PASSWORD and the new one in STITCH_NEW_PASSWORD.")
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            guard ctx.signedIn else { throw ClientError.signedOut }
            let current = try Terminal.password(prompt: "Current password: ")
            let new = try Terminal.newPassword()
            try await ctx.api.changePassword(current: current, new: new)
            print("Password changed. Every other device and browser has been signed out; this one stays signed in.")
        }
    }
}

struct ForgotPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forgot-password", abstract: "Get a link by email to choose a new password, then set it with the link.",
        discussion: """
            stitch forgot-password --server URL --email ADDRESS mails the link; \
            stitch forgot-password --server URL --link 'LINK FROM THE EMAIL' sets the new password (asked twice; STITCH_NEW_PASSWORD in scripts). \
            Every device and browser signed in to the account is signed out; sign in again with stitch login.
            """)
    @Option var server: String
    @Option(help: "The address the account signs in with.") var email: String?
    // Unconditional: a token is base64url and starts with "-" one time in 64 (CI, 2026-11-27).
    @Option(parsing: .unconditional, help: "The link from the email (or its token).") var link: String?

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open(server: server)
            switch (email, link) {
            case (let email?, nil):
                print(try await ctx.api.requestPasswordReset(email: email))
            case (nil, let link?):
                let new = try Terminal.newPassword()
                try await ctx.api.confirmPasswordReset(token: link, newPassword: new)
                print("Password changed, and every device and browser signed in to the account signed out. Sign in with: stitch login --server \(server) --email …")
            default:
                throw CLIError("Give either --email (to get a link) or --link (to use it)", code: .invalid)
            }
        }
    }
}

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "account", abstract: "Your account.", subcommands: [Delete.self])

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete your account and everything in it from the server, and this device's copy.",
            discussion: "Asks for your password (STITCH_PASSWORD in scripts). An account that signs in with Apple, Instagram or TikTok has no password: pass --confirm DELETE. Make a backup first (stitch export --format json --out DIR) if you may want any of it again.")
        @Option(help: "For an account without a password: the word DELETE.") var confirm: String?
        @Flag(name: .shortAndLong, help: "Don't ask \"are you sure\".") var yes = false

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                guard let session = try ctx.tokens.load() else { throw ClientError.signedOut }
                let hasPassword = session.user.providers.contains(.email)
                if !yes {
                    guard Terminal.confirm("Delete the account \(session.user.email ?? session.user.displayName) on \(session.server) and everything in it, for good? [y/N] ") else {
                        throw CLIError("Nothing deleted", code: .usage)
                    }
                }
                let request = hasPassword
                    ? DeleteAccountRequest(password: try Terminal.password(prompt: "Password: "))
                    : DeleteAccountRequest(confirm: confirm)
                try await ctx.api.deleteAccount(request)
                try ctx.store.eraseAll()
                print("Your account and everything in it have been deleted from \(session.server), and this device's copy with it.")
            }
        }
    }
}

struct DeletedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deleted", abstract: "What you deleted in the last \(RecentlyDeleted.days) days, to restore with `stitch restore`.")
    @OptionGroup var output: JSONFlag

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            guard ctx.signedIn else { throw ClientError.signedOut }
            let deleted = try await ctx.api.recentlyDeleted()
            if output.json { print(try Output.json(deleted)); return }
            if deleted.items.isEmpty { print("Nothing was deleted in the last \(RecentlyDeleted.days) days."); return }
            for item in deleted.items {
                let day = Timestamp.string(from: item.deletedAt).prefix(10), until = Timestamp.string(from: item.restorableUntil).prefix(10)
                print("\(item.type.rawValue) \(Output.short(item.id))  \(item.title)  deleted \(day), restorable until \(until)")
            }
            print("Restore one with: stitch restore TYPE ID")
        }
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Bring back something deleted in the last \(RecentlyDeleted.days) days (a project with its journal, sections and patterns).")
    @Argument(help: "thread, canvas, project or journalEntry (as `stitch deleted` lists them).") var type: String
    @Argument(help: "Its id, or the first characters of it that `stitch deleted` shows.") var id: String

    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            guard ctx.signedIn else { throw ClientError.signedOut }
            guard let kind = EntityType(rawValue: type), RecentlyDeleted.kinds.contains(kind) else {
                throw CLIError("Restore a thread, canvas, project or journalEntry", code: .usage)
            }
            let candidates = try await ctx.api.recentlyDeleted().items.filter { $0.type == kind && $0.id.text.lowercased().hasPrefix(id.lowercased()) }
            guard let item = candidates.first, candidates.count == 1 else {
                throw CLIError(candidates.isEmpty ? "No \(type) \(id) was deleted in the last \(RecentlyDeleted.days) days (`stitch deleted` lists them)"
                                                  : "\(candidates.count) of them start with \(id): give more of the id", code: candidates.isEmpty ? .notFound : .usage)
            }
            _ = try await ctx.api.restore(kind, id: item.id)
            try await ctx.engine.syncWithRetry(attempts: 3, initialDelay: .milliseconds(300))
            print("Restored \(item.title); synced.")
        }
    }
}

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Who is signed in.")
    @OptionGroup var output: JSONFlag
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            guard let session = try ctx.tokens.load() else { throw ClientError.signedOut }
            if output.json { print(try Output.json(session.user)) } else {
                print("\(session.user.displayName) <\(session.user.email ?? "no email")> on \(session.server)")
            }
        }
    }
}

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Push local changes and pull the server's.")
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            guard ctx.signedIn else { throw ClientError.signedOut }
            try await ctx.engine.syncWithRetry(attempts: 3, initialDelay: .milliseconds(300))
            let status = try await ctx.engine.status()
            print("Synced. \(status.pending) change(s) pending.")
            for rejected in status.rejected {
                print("  refused \(rejected.type?.rawValue ?? "record") \(Output.short(rejected.id)): \(rejected.error?.error ?? "")")
            }
            for name in status.deletedElsewhere {
                print("  deleted on another device: your change to \(name) wasn't kept")
            }
        }
    }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Pending changes, last sync, server.")
    @OptionGroup var output: JSONFlag
    func run() async throws {
        try await Stitch.run {
            let ctx = try Context.open()
            let status = try await ctx.engine.status()
            let session = try ctx.tokens.load()
            struct Report: Encodable { var server: String?; var signedInAs: String?; var pending: Int; var stagedImages: Int; var lastSync: Date? }
            let savedServer = try ctx.store.setting("server")
            let report = Report(server: session?.server ?? savedServer, signedInAs: session?.user.email,
                                pending: status.pending, stagedImages: status.stagedImages, lastSync: status.lastSync)
            if output.json { print(try Output.json(report)); return }
            print("Server:      \(report.server ?? "none (run stitch login)")")
            print("Signed in:   \(report.signedInAs ?? (session == nil ? "no" : "yes"))")
            print("Pending:     \(report.pending) change(s)\(report.stagedImages > 0 ? ", \(report.stagedImages) picture(s) to upload" : "")")
            print("Last sync:   \(report.lastSync.map(Timestamp.string(from:)) ?? "never")")
        }
    }
}
