import ArgumentParser
import Foundation
import SeleneShared
import TerminalExchange

// The terminal client. These commands talk to a Selene server only through SeleneShared's
// Remote services and view models, never the server's internals (this file imports neither).

enum ClientCommands {
    static let all: [any ParsableCommand.Type] = [Login.self, Chat.self, NoteCommand.self, NotesCommand.self, TasksCommand.self, Search.self, BriefingCommand.self, Threads.self, ThreadCommand.self, RememberCommand.self, MemoriesCommand.self, OutboundCommand.self]
}

// Vapor's ConsoleKit has property wrappers of the same names; this executable means ArgumentParser's.
typealias Option<Value> = ArgumentParser.Option<Value>
typealias Flag<Value> = ArgumentParser.Flag<Value>
typealias Argument<Value> = ArgumentParser.Argument<Value>

/// Exit codes, as `stitch` has them.
enum ClientExit: Int32 {
    case failure = 1, usage = 2, invalid = 3, unreachable = 4, signedOut = 5, notFound = 6
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
    var code: ClientExit
}

/// Where the server is: `--server`/`--token`, else SELENE_SERVER/SELENE_TOKEN, else what
/// `selene login` kept.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The Selene server, e.g. http://my-mac.local:5678 (SELENE_SERVER; default: what `selene login` kept).")
    var server: String?
    @Option(name: .long, help: "The API token (SELENE_TOKEN).")
    var token: String?
    @Flag(name: .long, help: "Print JSON for scripts.")
    var json = false

    func settings() throws -> ServerSettings {
        let env = ProcessInfo.processInfo.environment
        let stored = try? FileCredentialStore.standard().load()
        guard let address = server ?? env["SELENE_SERVER"] ?? stored?.url.absoluteString else {
            throw ClientError(description: "No server yet: run `selene login --server http://HOST:5678 --token TOKEN` first.", code: .signedOut)
        }
        guard let url = ServerSettings.parseURL(address) else {
            throw ClientError(description: "\(address) is not a server address (like http://my-mac.local:5678).", code: .usage)
        }
        return ServerSettings(url: url, token: token ?? env["SELENE_TOKEN"] ?? stored?.token ?? LocalServerToken.read(for: url))
    }

    /// How long a request may take before the server counts as unreachable: `SELENE_TIMEOUT`
    /// seconds (a busy or slow machine), 30 by default.
    var requestTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["SELENE_TIMEOUT"].flatMap(TimeInterval.init).flatMap { $0 > 0 ? $0 : nil } ?? 30
    }

    var data: RemoteDataService { get throws { RemoteDataService(settings: try settings(), timeout: requestTimeout, exchange: TerminalHTTP.exchange) } }
    var llm: RemoteLLMService { get throws { RemoteLLMService(settings: try settings(), exchange: TerminalHTTP.exchange) } }
}

/// Runs a command body: failures become one line on stderr and a meaningful exit code.
func client(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ClientError {
        FileHandle.standardError.write(Data("selene: \(error.description)\n".utf8))
        throw ExitCode(error.code.rawValue)
    } catch let error as FieldErrors {
        FileHandle.standardError.write(Data("selene: \(error.description)\n".utf8))
        throw ExitCode(ClientExit.invalid.rawValue)
    } catch let error as SeleneClientError {
        FileHandle.standardError.write(Data("selene: \(error.description)\n".utf8))
        switch error {
        case .unreachable: throw ExitCode(ClientExit.unreachable.rawValue)
        case .signedOut, .wrongToken, .notConfigured: throw ExitCode(ClientExit.signedOut.rawValue)
        case .notFound: throw ExitCode(ClientExit.notFound.rawValue)
        case .server(let status, _, _) where status == 400 || status == 413: throw ExitCode(ClientExit.invalid.rawValue)
        default: throw ExitCode(ClientExit.failure.rawValue)
        }
    }
}

/// A line on standard output, unbuffered like the streamed answer it sits beside (mixing
/// `print`'s buffer with direct writes reorders them when the output is a pipe).
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = SeleneJSON.makeEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    say(String(decoding: try encoder.encode(value), as: UTF8.self))
}

func noteLine(_ note: Note) -> String {
    let excerpt = TokenBudget.truncate(note.content.replacingOccurrences(of: "\n", with: " "), toTokens: 20)
    let title = note.displayTitle == excerpt ? "" : "\(note.displayTitle) — "
    return "\(note.id)\t\(WireDate.day(of: note.createdAt))\t\(title)\(excerpt)"
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set the server and API token; they are tested, then kept (0600).")
    @Option(name: .long, help: "The server's address.") var server: String
    @Option(name: .long, help: "The API token (or SELENE_TOKEN; asked for when missing).") var token: String?

    @MainActor
    func run() async throws {
        try await client {
            let setup = ServerSetupViewModel(store: FileCredentialStore.standard())
            setup.address = server
            setup.token = token ?? ProcessInfo.processInfo.environment["SELENE_TOKEN"]
                ?? ServerSettings.parseURL(server).flatMap(LocalServerToken.read(for:)) ?? readToken()
            guard await setup.testAndSave() else {
                if case .failed(let why) = setup.status {
                    throw ClientError(description: why, code: why.contains("can't be reached") ? .unreachable : why.contains("address") ? .usage : .signedOut)
                }
                throw ClientError(description: "The server didn't accept these settings.", code: .signedOut)
            }
            say("Connected to \(setup.saved?.url.absoluteString ?? server).")
        }
    }

    func readToken() -> String {
        FileHandle.standardError.write(Data("API token (empty if the server has none): ".utf8))
        return readLine(strippingNewline: true) ?? ""
    }
}

/// A server on this machine keeps the token it made on its first start in its data folder
/// (`SELENE_DATA_DIR`, `./data/selene` by default): the terminal reads it there when nothing else
/// names one, as Jupyter's clients find a local server's token. Only for a loopback address:
/// the token never goes to another machine that way.
enum LocalServerToken {
    static func read(for url: URL) -> String? {
        guard let host = url.host?.lowercased(), host == "localhost" || host == "::1" || host.hasPrefix("127.") else { return nil }
        let folder = ProcessInfo.processInfo.environment["SELENE_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "./data/selene"
        guard let text = try? String(contentsOfFile: (folder as NSString).appendingPathComponent("api-token"), encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }
}

struct NoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note", abstract: "Capture a note, or correct or delete one.",
        discussion: "selene note \"TEXT\" captures (the same as `selene note add`); `selene note edit ID`, `selene note rm ID`, `selene note move ID --to THREAD` (or --out).",
        subcommands: [Add.self, Edit.self, Remove.self, Move.self], defaultSubcommand: Add.self)

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Capture a note (\"-\" reads it from standard input).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The note's text.") var text: String
        @Option(name: .long, help: "A title.") var title: String?
        @Option(name: .long, help: "A tag (repeatable).") var tag: [String] = []

        func run() async throws {
            try await client {
                var content = text
                if text == "-" { content = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
                let request = NewNote(content: content, title: title, tags: tag.isEmpty ? nil : tag, source: .cli)
                _ = try request.input().validated()
                let note = try await options.data.createNote(request)
                if options.json { try printJSON(note) } else { say("Saved note \(note.id).") }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Correct a note: new words (--text, \"-\" for standard input), a title (\"\" clears it) or tags.",
            discussion: "New words make the server work the note out again (analysis, embedding, thread, tasks).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The note's number.") var id: Int64
        @Option(name: .long, help: "The note's new words (\"-\" reads them from standard input).") var text: String?
        @Option(name: .long, help: "A new title (\"\" clears it).") var title: String?
        @Option(name: .long, help: "Its tags, all of them (repeatable).") var tag: [String] = []
        @Flag(name: .long, help: "Remove every tag.") var clearTags = false

        func run() async throws {
            try await client {
                var content = text
                if text == "-" { content = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
                let edit = NoteEdit(content: content, title: title, tags: clearTags ? [] : (tag.isEmpty ? nil : tag))
                guard edit.content != nil || edit.title != nil || edit.tags != nil else {
                    throw ClientError(description: "Nothing to change: give --text, --title, --tag or --clear-tags.", code: .usage)
                }
                let data = try options.data
                let before = try await data.note(id: id)
                _ = try edit.applied(to: before, whole: false)
                let note = try await data.updateNote(id: id, edit)
                if options.json { try printJSON(note) } else {
                    let reworked = note.content != before.content || note.title != before.title
                    say(reworked ? "Saved note \(note.id); Selene works it out again." : "Saved note \(note.id).")
                }
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a note in another thread (--to, its number or name), or in none (--out); it stays there when threads are formed again.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The note's number.") var id: Int64
        @Option(name: .long, help: "The thread: its number, or part of its name.") var to: String?
        @Flag(name: .long, help: "Out of every thread.") var out = false

        func run() async throws {
            try await client {
                guard (to == nil) != !out else { throw ClientError(description: "Give --to THREAD or --out.", code: .usage) }
                let data = try options.data
                var target: NoteThread?
                if let to { target = try await ThreadCommand.resolve(to, data) }
                try await data.placeNote(id: id, in: target?.id)
                say(target.map { "Note \(id) is in \($0.name) now." } ?? "Note \(id) is in no thread now.")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a note and what Selene made of it.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The note's number.") var id: Int64

        func run() async throws {
            try await client {
                try await options.data.deleteNote(id: id)
                if options.json { try printJSON(["deleted": id]) } else { say("Deleted note \(id).") }
            }
        }
    }
}

struct TasksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tasks", abstract: "What your notes ask you to do, threaded or not; tick them off.",
        subcommands: [List.self, Done.self, Reopen.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open tasks (--all: done ones too).")
        @OptionGroup var options: ClientOptions
        @Flag(name: .long, help: "Done tasks too.") var all = false

        func run() async throws {
            try await client {
                let data = try options.data
                let tasks = try await data.allTasks(status: all ? nil : .open, limit: 500)
                if options.json { try printJSON(AllTasks(tasks: tasks)); return }
                if tasks.isEmpty { say(all ? "No tasks." : "Nothing to do."); return }
                var threads: [Int64: String] = [:]
                for id in Set(tasks.compactMap(\.threadId)) { threads[id] = try? await data.thread(id: id).thread.name }
                for task in tasks {
                    let thread = task.threadId.flatMap { threads[$0] } ?? "—"
                    say("\(task.id)\t\(task.status == .done ? "✓" : "·")\t\(task.title)\t\(thread)")
                }
            }
        }
    }

    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tick a task off.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The task's number (from `selene tasks`).") var id: Int64
        func run() async throws { try await TasksCommand.set(id, .done, options) }
    }

    struct Reopen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Open a task again.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The task's number.") var id: Int64
        func run() async throws { try await TasksCommand.set(id, .open, options) }
    }

    static func set(_ id: Int64, _ status: TaskStatus, _ options: ClientOptions) async throws {
        try await client {
            let task = try await options.data.setTask(id: id, status: status)
            if options.json { try printJSON(task) } else { say(status == .done ? "Done: \(task.title)" : "Open again: \(task.title)") }
        }
    }
}

struct RememberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remember", abstract: "Tell Selene something to remember (\"I'm vegetarian\"); it is used in later answers.")
    @OptionGroup var options: ClientOptions
    @Option(name: .long, help: "fact, preference, pattern or context (default: fact).") var kind: String = "fact"
    @Argument(help: "What to remember.") var words: [String]

    func run() async throws {
        try await client {
            guard let type = MemoryType(rawValue: kind) else {
                throw ClientError(description: "--kind is one of \(MemoryType.allCases.map(\.rawValue).joined(separator: ", "))", code: .usage)
            }
            let memory = try await options.data.remember(RememberRequest(content: words.joined(separator: " "), type: type))
            if options.json { try printJSON(memory) } else { say("Remembered (\(memory.id)): \(memory.content)") }
        }
    }
}

struct MemoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memories", abstract: "What Selene remembers about you; forget one with --forget N.")
    @OptionGroup var options: ClientOptions
    @Option(name: .long, help: "Forget the memory with this number.") var forget: Int64?

    func run() async throws {
        try await client {
            let data = try options.data
            if let forget {
                try await data.deleteMemory(id: forget)
                say("Forgotten.")
                return
            }
            let memories = try await data.memories(limit: 500)
            if options.json { try printJSON(MemoryList(memories: memories)); return }
            if memories.isEmpty { say("No memories yet: `selene remember …` tells Selene something."); return }
            for memory in memories { say("\(memory.id)\t\(memory.type.rawValue)\t\(memory.content)") }
        }
    }
}

struct OutboundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbound", abstract: "What left this machine: every request Selene sent out (model server, transcription, pushes, a hosted model), newest first.")
    @OptionGroup var options: ClientOptions
    @Option(name: .long, help: "How many (1–500).") var limit = 50
    @Option(name: .long, help: "Only this purpose: chat, embed, analysis, briefing, model-check, transcription, apns, web-push, hosted.") var purpose: String?

    func run() async throws {
        try await client {
            guard SeleneLimits.limitRange.contains(limit) else { throw ClientError(description: "--limit must be between 1 and 500.", code: .usage) }
            let list = try await options.data.outbound(limit: limit, purpose: purpose)
            if options.json { try printJSON(list); return }
            if list.entries.isEmpty { say("Nothing has left this machine in the last \(list.keptDays) days."); return }
            for e in list.entries {
                let answer = e.failure.map { "failed: \($0.prefix(60))" } ?? "\(e.bytesIn) B in\(e.status.map { " (\($0))" } ?? "")"
                say("\(WireDate.string(from: e.at))\t\(e.purpose)\t\(e.destination)\t\(e.bytesOut) B out\t\(answer)\t\(e.noteDerived ? "from your notes" : "nothing from your notes")\(e.reason.map { "\t\($0)" } ?? "")")
            }
        }
    }
}

struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "notes", abstract: "Your notes, newest first.")
    @OptionGroup var options: ClientOptions
    @Option(name: .long, help: "Only those written since this day (2026-11-01) or moment (2026-11-01T08:00:00Z).") var since: String?
    @Option(name: .long, help: "How many (1–500).") var limit = 20

    func run() async throws {
        try await client {
            guard SeleneLimits.limitRange.contains(limit) else { throw ClientError(description: "--limit must be between 1 and 500.", code: .usage) }
            let data = try options.data
            var notes: [Note]
            if let since {
                guard let date = WireDate.date(from: since) ?? WireDate.date(from: since + "T00:00:00Z") else {
                    throw ClientError(description: "--since must be a day such as 2026-11-01 (or an ISO-8601 moment).", code: .usage)
                }
                notes = try await data.notes(since: date, limit: limit)
            } else {
                notes = try await data.notes(limit: limit)
            }
            if options.json { try printJSON(NoteList(notes: notes)) } else if notes.isEmpty { say("No notes.") } else { notes.forEach { say(noteLine($0)) } }
        }
    }
}

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Search notes: words and meaning (hybrid), or words only with --keyword.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Words or a question.") var query: String
    @Option(name: .long, help: "How many (1–500).") var limit = 10
    @Flag(name: .long, help: "Full-text search only.") var keyword = false

    func run() async throws {
        try await client {
            _ = try SearchRequest(query: query, limit: limit).validated()
            let data = try options.data
            if keyword {
                let notes = try await data.searchNotes(query, limit: limit)
                if options.json { try printJSON(SearchResponse(query: query, notes: notes)) } else { notes.forEach { say(noteLine($0)) } }
            } else {
                let response = try await data.retrieveNotes(query, limit: limit, noteType: nil, actionability: nil)
                if options.json { try printJSON(response) } else {
                    response.results.forEach { say(noteLine($0.note)) }
                    if response.source == .keyword { FileHandle.standardError.write(Data("(words only: no embeddings were available)\n".utf8)) }
                }
            }
        }
    }
}

struct BriefingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "briefing", abstract: "Today's briefing.")
    @OptionGroup var options: ClientOptions
    @Flag(name: .long, help: "Write it again now.") var regenerate = false

    @MainActor
    func run() async throws {
        try await client {
            let model = BriefingViewModel(data: try options.data)
            if regenerate { await model.regenerate() } else { await model.load() }
            if case .failed = model.state { _ = try await options.data.briefing() }
            guard let briefing = model.briefing else { throw ClientError(description: "No briefing came back.", code: .failure) }
            if options.json { try printJSON(briefing); return }
            say("Briefing for \(briefing.date)\(briefing.author == .extractive ? " (written from your notes; no LLM)" : "")\n")
            say(briefing.text)
            // The cards, numbered as on the web: `selene chat --about N` starts a conversation from one.
            let headings: [BriefingCard.Kind: String] = [.thread: "Threads moving", .link: "Links across threads",
                                                         .resurfaced: "Worth another look", .task: "Open tasks"]
            for kind in BriefingCard.Kind.allCases {
                let cards = model.cards.filter { $0.kind == kind }
                guard !cards.isEmpty else { continue }
                say("\n\(headings[kind]!):")
                for card in cards { say("  \(card.number). \(card.title)\(card.detail.map { " — \($0)" } ?? "")") }
            }
            if !model.cards.isEmpty { say("\nselene chat --about N asks about card N.") }
        }
    }
}

/// Corrections of a thread: `selene thread rename`, `merge`, `split`.
struct ThreadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thread", abstract: "Correct a thread: rename it, merge it into another, split notes off it.",
        subcommands: [Rename.self, Merge.self, Split.self])

    /// A thread by its number, or the best match for part of its name.
    static func resolve(_ given: String, _ data: RemoteDataService) async throws -> NoteThread {
        if let id = Int64(given) { return try await data.thread(id: id).thread }
        guard let found = try await data.thread(named: given) else {
            throw ClientError(description: "No thread's name matches \"\(given)\" (`selene threads` lists them).", code: .notFound)
        }
        return found.thread
    }

    /// One correction: the thread named on the command line found, `work` done on it, and the
    /// thread it answers printed (as JSON with --json, else as `told` says it).
    static func correct(_ options: ClientOptions, _ given: String,
                        _ work: (RemoteDataService, NoteThread) async throws -> NoteThread,
                        told: (NoteThread, NoteThread) -> String) async throws {
        try await client {
            let data = try options.data
            let thread = try await resolve(given, data)
            let result = try await work(data, thread)
            if options.json { try printJSON(result) } else { say(told(thread, result)) }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Name a thread; the name is yours (kept when its summary is written again).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The thread: its number or part of its name.") var thread: String
        @Argument(help: "Its new name.") var name: String

        func run() async throws {
            try await ThreadCommand.correct(options, thread, { try await $0.renameThread(id: $1.id, to: name) },
                                            told: { "Thread \($1.id) is \($1.name) now." })
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a thread part of another: its notes, tasks and conversations move.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The thread that goes.") var thread: String
        @Option(name: .long, help: "The thread it becomes part of.") var into: String

        func run() async throws {
            try await ThreadCommand.correct(options, thread, { data, source in
                try await data.mergeThread(id: source.id, into: try await ThreadCommand.resolve(into, data).id)
            }, told: { "\($0.name) is part of \($1.name) now (\($1.noteCount) notes)." })
        }
    }

    struct Split: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Split notes off a thread into a thread of their own (a sub-project).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The thread.") var thread: String
        @Option(name: .long, help: "The notes' numbers, comma-separated.") var notes: String
        @Option(name: .long, help: "The new thread's name.") var name: String

        func run() async throws {
            let ids = notes.split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            try await client {
                guard !ids.isEmpty else { throw ClientError(description: "--notes takes note numbers, e.g. --notes 12,15,19.", code: .usage) }
            }
            try await ThreadCommand.correct(options, thread, { try await $0.splitThread(id: $1.id, notes: ids, name: name) },
                                            told: { "Thread \($1.id), \($1.name): \($1.noteCount) notes split off." })
        }
    }
}

struct Threads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Threads by momentum; with a name or id, that thread's notes and tasks.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A thread's id or (part of its) name.") var thread: String?
    @Option(name: .long, help: "How many (1–500).") var limit = 10

    func run() async throws {
        try await client {
            let data = try options.data
            guard let thread else {
                let threads = try await data.activeThreads(limit: limit)
                if options.json { try printJSON(ThreadList(threads: threads)); return }
                if threads.isEmpty { say("No active threads yet.") }
                threads.forEach { say("\($0.id)\t\(String(format: "%.2f", $0.momentum))\t\($0.noteCount) notes\t\($0.name)") }
                return
            }
            let detail: ThreadDetail
            if let id = Int64(thread) { detail = try await data.thread(id: id) } else {
                guard let found = try await data.thread(named: thread) else { throw ClientError(description: "No thread's name matches \"\(thread)\".", code: .notFound) }
                detail = found
            }
            let tasks = try await data.tasks(threadId: detail.thread.id)
            if options.json { try printJSON(detail); return }
            say("\(detail.thread.name) — \(detail.thread.summary)\n")
            if !tasks.isEmpty { say("Tasks:"); tasks.forEach { say("  [\($0.status == .done ? "x" : " ")] \($0.title)") }; say("") }
            detail.notes.forEach { say(noteLine($0)) }
        }
    }
}

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat with your notes: answers stream as they are written, with the notes they cite.",
        discussion: "Without a question it is interactive: /new, /sessions, /open N, /thread NAME, /quit.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Ask one question and stop.") var question: String?
    @Option(name: .long, help: "Continue this session (its id).") var session: String?
    @Option(name: .long, help: "Start from card N of today's briefing (`selene briefing` numbers them): its notes, and its question unless you ask one.")
    var about: Int?

    struct Answer: Encodable {
        var sessionId: UUID
        var answer: String?
        var citations: [Int64]
        /// Those of `citations` Selene matched to the answer itself; the model didn't cite them.
        var seleneCitations: [Int64]
        var unavailable: String?
        var notes: [Int64]
    }

    @MainActor
    func run() async throws {
        try await client {
            let data = try options.data, llm = try options.llm
            let chat = ChatViewModel(data: data, llm: llm)
            listen(to: chat)
            if let session, let id = UUID(uuidString: session) {
                await chat.openSession(id)
                if let error = chat.errorMessage { throw ClientError(description: error, code: .notFound) }
            }
            if let about {
                let card = try await focus(chat, onCard: about, data: data)
                // The card's question unless another is given; without one, the conversation goes
                // on (interactive) about the same notes.
                if let question { return try await ask(question, in: chat) }
                if !options.json { say("› \(card.question)") }
                try await ask(card.question, in: chat)
                if options.json { return }
            }
            if let question { return try await ask(question, in: chat) }
            try await converse(starting: chat, data: data, llm: llm)
        }
    }

    /// Streams what the chat does (searching, thinking, the answer's words) to the terminal,
    /// unless the answer is wanted as JSON.
    @MainActor
    private func listen(to chat: ChatViewModel) {
        let quiet = options.json
        chat.onEvent = { event in
            guard !quiet else { return }
            switch event {
            case .searching: FileHandle.standardError.write(Data("Searching notes…\n".utf8))
            case .thinking: FileHandle.standardError.write(Data("Thinking…\n".utf8))
            case .delta(let text): FileHandle.standardOutput.write(Data(text.utf8))
            }
        }
    }

    /// Asks one question and prints what came of it: the answer's citations, or the notes found
    /// when no model could answer; JSON with `--json`. A chat that failed throws.
    @MainActor
    private func ask(_ text: String, in chat: ChatViewModel) async throws {
        await chat.ask(text)
        if options.json {
            try printJSON(Answer(sessionId: chat.session.id, answer: chat.lastAnswer?.text, citations: chat.lastAnswer?.citedNoteIds ?? [],
                                 seleneCitations: chat.lastAnswer?.seleneCitedNoteIds ?? [],
                                 unavailable: chat.unavailableMessage, notes: chat.foundNotes.map(\.id)))
        } else if let answer = chat.lastAnswer {
            say("")
            for c in answer.citations { say("  [\(c.number)] \(c.title) (note \(c.noteId))\(c.bySelene ? " — matched by Selene" : "")") }
        } else if let unavailable = chat.unavailableMessage {
            say("\n\(unavailable)")
            chat.foundNotes.forEach { say("  " + noteLine($0)) }
        }
        if let error = chat.errorMessage, chat.lastAnswer == nil, chat.unavailableMessage == nil {
            throw ClientError(description: error, code: error.contains("can't be reached") ? .unreachable : .failure)
        }
    }

    /// Points the chat at card `number` of today's briefing: its notes become the chat's focus.
    @MainActor
    private func focus(_ chat: ChatViewModel, onCard number: Int, data: RemoteDataService) async throws -> BriefingCard {
        let model = BriefingViewModel(data: data)
        await model.load()
        guard let card = model.cards.first(where: { $0.number == number }) else {
            throw ClientError(description: "Today's briefing has no card \(number) (`selene briefing` numbers them).", code: .notFound)
        }
        chat.focus = try await BriefingCards.seed(card, data: data)
        if !options.json { FileHandle.standardError.write(Data("About: \(card.title) (\(chat.focus.count) notes)\n".utf8)) }
        return card
    }

    /// The interactive conversation: a question per line, or /new, /sessions, /open N,
    /// /thread NAME (the chat moves into that thread's workspace), /quit.
    @MainActor
    private func converse(starting first: ChatViewModel, data: RemoteDataService, llm: RemoteLLMService) async throws {
        var chat = first
        var threadName: String?
        say("Selene — ask about your notes. /new, /sessions, /open N, /thread NAME, /quit")
        while true {
            FileHandle.standardOutput.write(Data("\n\(threadName.map { "[\($0)] " } ?? "")› ".utf8))
            guard let line = readLine(strippingNewline: true) else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            switch text.split(separator: " ", maxSplits: 1).first.map(String.init) ?? "" {
            case "/quit", "/exit": return
            case "/new":
                chat.newSession()
                say("New conversation.")
            case "/sessions":
                await chat.loadSessions()
                for (i, s) in chat.orderedSessions.enumerated() { say("  \(i + 1). \(s.isPinned ? "📌 " : "")\(s.title) (\(s.messages.count) messages)") }
            case "/open":
                let n = Int(text.dropFirst(5).trimmingCharacters(in: .whitespaces)) ?? 0
                await chat.loadSessions()
                let ordered = chat.orderedSessions
                guard n >= 1, n <= ordered.count else { say("No conversation \(n); /sessions lists them."); continue }
                await chat.openSession(ordered[n - 1].id)
                chat.session.messages.suffix(4).forEach {
                    say("\($0.role == .user ? "you" : "selene"): \($0.content)\($0.isIncomplete ? " … [cut off before the end]" : "")")
                }
            case "/thread":
                let name = text.dropFirst(7).trimmingCharacters(in: .whitespaces)
                guard let found = try await data.thread(named: name) else { say("No thread's name matches \"\(name)\"."); continue }
                let workspace = ThreadWorkspaceChatViewModel(threadId: found.thread.id, data: data, llm: llm)
                await workspace.load()
                guard let scoped = workspace.chat else { say(workspace.errorMessage ?? "That thread can't be opened."); continue }
                chat = scoped
                listen(to: chat)
                threadName = found.thread.name
                say("Talking about \(found.thread.name) (\(found.notes.count) notes).")
            default:
                try await ask(text, in: chat)
            }
        }
    }
}
