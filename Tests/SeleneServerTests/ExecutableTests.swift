import BuildStamp
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OllamaStub
import SeleneShared
import TestDatabases
import Testing

/// The real `selene` binary, as a person runs it.
@Suite("The selene executable")
struct ExecutableTests {
    static func binary() throws -> String {
        guard let found = builtProduct("selene") else {
            throw TestDatabaseError("build the selene executable first (swift build)")
        }
        return found
    }

    struct Run { var status: Int32; var out: String; var err: String }

    /// Runs the binary on a thread of its own (never one of Swift's cooperative threads, which an
    /// in-process server may need meanwhile), feeding `input` to its standard input.
    static func runAsync(_ arguments: [String], env: [String: String], input: String? = nil, timeout: TimeInterval = 240,
                         executable: String? = nil) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(arguments, env: env, input: input, timeout: timeout, executable: executable) })
            }
        }
    }

    /// `selene` (or `executable`) with `arguments`, standard input `input`; what it printed and its status.
    static func run(_ arguments: [String], env: [String: String], input: String? = nil, timeout: TimeInterval = 240,
                    executable: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable ?? binary())
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SELENE_") && $0.key != "HOST" && $0.key != "PORT" }
        for (k, v) in env { environment[k] = v }
        // The live server shares two cores with every suite running beside it: a request may wait
        // far longer than a person's 30 s (a refused connection still fails at once).
        if environment["SELENE_TIMEOUT"] == nil { environment["SELENE_TIMEOUT"] = "180" }
        process.environment = environment
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    func tempDir() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("selene-exe-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("With tokens off it refuses to listen beyond loopback and says why")
    func refusesOpenNetwork() throws {
        let data = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data) }
        for args in [["serve", "--hostname", "0.0.0.0", "--port", "0"], ["serve"]] {
            let env = args.count == 1 ? ["SELENE_DATA_DIR": data, "HOST": "192.168.1.5", "PORT": "0", "SELENE_API_TOKEN": "off"]
                : ["SELENE_DATA_DIR": data, "SELENE_API_TOKEN": "off"]
            let run = try Self.run(args, env: env)
            #expect(run.status != 0)
            #expect(run.err.contains("Refusing to listen") && run.err.contains("SELENE_API_TOKEN"), "\(run.err)")
        }
        let short = try Self.run(["serve"], env: ["SELENE_DATA_DIR": data, "SELENE_API_TOKEN": "too-short"])
        #expect(short.status != 0 && short.err.contains("at least 32"))
    }

    @Test("The first start as the README has it: a token made and shown once with the web app's link; the API, the terminal and the webhook use it")
    func firstStart() async throws {
        let data = try tempDir(), home = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: home) }
        let port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = ["serve", "--port", "\(port)"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SELENE_") && $0.key != "HOST" && $0.key != "PORT" }
        environment.merge(["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": "off", "SELENE_BRIEFING_HOUR": "off", "LOG_LEVEL": "warning"]) { $1 }
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        let base = "http://127.0.0.1:\(port)"
        // The banner is written before the server answers; read standard error until the link shows.
        var printed = ""
        let deadline = Date().addingTimeInterval(180)
        while !printed.contains("Drafts:"), Date() < deadline, process.isRunning {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let token = try String(contentsOfFile: data + "/api-token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(printed.contains("\(base)/app/signin?token=\(token)") && printed.contains("selene login --server \(base)"), "\(printed)")
        #expect(try FileManager.default.attributesOfItem(atPath: data + "/api-token")[.posixPermissions] as? Int == 0o600)

        let env = ["SELENE_HOME": home, "SELENE_DATA_DIR": data]
        // Without the token nothing is read; the terminal finds a local server's token in its data folder.
        let anonymous = try await Self.runAsync(["search", "x", "--server", base, "--token", "wrong-token-wrong-token-wrong-token-00"], env: ["SELENE_HOME": home])
        #expect(anonymous.status == 5, "\(anonymous.err)")
        let login = try await Self.runAsync(["login", "--server", base], env: env)
        #expect(login.status == 0 && login.out.contains("Connected to"), "\(login.out)\(login.err)")
        let note = try await Self.runAsync(["note", "the safe code is 4711"], env: ["SELENE_HOME": home])
        #expect(note.status == 0, "\(note.err)")

        // The Drafts webhook with the same token, as the README's action sends it.
        var hook = URLRequest(url: URL(string: base + "/webhook/api/drafts")!)
        hook.httpMethod = "POST"
        hook.setValue("application/json", forHTTPHeaderField: "Content-Type")
        hook.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        hook.httpBody = Data(#"{"content":"from Drafts","uuid":"6A1B0F1E-3E6F-4E0A-9C2D-3F5C2B1A0D9E"}"#.utf8)
        let (_, hookResponse) = try await URLSession.shared.data(for: hook)
        #expect((hookResponse as? HTTPURLResponse)?.statusCode == 201)
        hook.setValue(nil, forHTTPHeaderField: "Authorization")
        let (_, refused) = try await URLSession.shared.data(for: hook)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)

        let show = try await Self.runAsync(["token", "show", "--port", "\(port)"], env: ["SELENE_DATA_DIR": data])
        #expect(show.out.contains(token) && show.out.contains("\(base)/app/signin?token=\(token)"), "\(show.out)\(show.err)")
        // A second start reads the same token and doesn't print it (it then finds the port taken and stops).
        let again = try await Self.runAsync(["serve", "--port", "\(port)"], env: ["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": "off"])
        #expect(again.status != 0 && again.err.contains("api-token") && !again.err.contains(token), "\(again.err)")
    }

    @Test("selene --version prints the version and commit the web app's More page and /health show (one place: SeleneVersion; the commit from git at build time)")
    func version() async throws {
        let run = try Self.run(["--version"], env: [:])
        let said = "\(SeleneVersion.current) (commit \(BuildStamp.commit))"
        #expect(run.status == 0 && run.out.trimmingCharacters(in: .whitespacesAndNewlines) == said)
        if let commit = checkoutCommit() { #expect(BuildStamp.commit.hasPrefix(commit), "\(BuildStamp.commit) vs \(commit)") }
        try await withSelene(tokens: [testToken]) { app, _ in
            let (cookie, _) = try await SafeDefaultTests.browserCookies(app, token: testToken)
            let more = try await app.send(.GET, "/app/more", headers: ["Cookie": cookie])
            #expect(more.text.contains("Selene \(said)"))
            let health = try await app.send(.GET, "/health")
            let status = try health.decode(HealthStatus.self)
            #expect(status.version == SeleneVersion.current && status.commit == BuildStamp.commit)
        }
    }

    @Test("selene token new prints a usable token")
    func tokenNew() throws {
        let run = try Self.run(["token", "new"], env: [:])
        let token = run.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.status == 0 && token.count >= 32 && !token.contains(" "))
    }

    @Test("selene import: a summary of what was imported and what was skipped and why; exit 3 when something was")
    func importCommand() throws {
        let data = try tempDir(), folder = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data); try? FileManager.default.removeItem(atPath: folder) }
        try Data("# One\nfirst".utf8).write(to: URL(fileURLWithPath: folder + "/one.md"))
        try Data("second".utf8).write(to: URL(fileURLWithPath: folder + "/two.txt"))
        try Data([0xC3, 0x28]).write(to: URL(fileURLWithPath: folder + "/bad.md"))
        let env = ["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": "off", "LOG_LEVEL": "error"]
        let run = try Self.run(["import", folder], env: env)
        #expect(run.status == 3, "\(run.out)\(run.err)")
        #expect(run.out.contains("Imported 2 notes; 0 already there."), "\(run.out)")
        #expect(run.out.contains("bad.md: is not UTF-8 text"), "\(run.out)")
        #expect(run.err.contains("Importing: 3/3"), "\(run.err)")
        try FileManager.default.removeItem(atPath: folder + "/bad.md")
        let again = try Self.run(["import", folder], env: env)
        #expect(again.status == 0 && again.out.contains("Imported 0 notes; 2 already there."), "\(again.out)")
        let missing = try Self.run(["import", folder + "/nope"], env: env)
        #expect(missing.status != 0 && missing.err.contains("is not a folder"))
    }

    @Test("selene reprocess: without a model server it says which setting to set and fails; with one it says what it read again")
    func reprocessCommand() async throws {
        let data = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let off = try await Self.runAsync(["reprocess"], env: ["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": "off", "LOG_LEVEL": "error"])
        #expect(off.status != 0 && off.err.contains("SELENE_OLLAMA_URL"), "\(off.out)\(off.err)")
        try await withStub { stub in
            let run = try await Self.runAsync(["reprocess", "--all"], env: ["SELENE_DATA_DIR": data, "SELENE_OLLAMA_URL": stub.baseURL, "LOG_LEVEL": "error"])
            #expect(run.status == 0 && run.out.contains("Read 0 notes again; 0 notes with no name in them"), "\(run.out)\(run.err)")
        }
    }

    @Test("The terminal client: note, search, threads, briefing and chat (one question, and interactive), with --json and exit codes")
    func terminal() async throws {
        try await withLiveSelene { live in
            let home = try tempDir()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["SELENE_HOME": home]
            let login = try await Self.runAsync(["login", "--server", live.url.absoluteString, "--token", testToken], env: env)
            #expect(login.status == 0 && login.out.contains("Connected to"), "\(login.err)")
            let stored = try String(contentsOfFile: home + "/server.json", encoding: .utf8)
            #expect(stored.contains(testToken))
            #expect(try FileManager.default.attributesOfItem(atPath: home + "/server.json")[.posixPermissions] as? Int == 0o600)
            for text in ThreadsAndBriefingTests.garden {
                let note = try await Self.runAsync(["note", text], env: env)
                #expect(note.status == 0 && note.out.hasPrefix("Saved note"), "\(note.err)")
            }
            let fromStdin = try await Self.runAsync(["note", "-", "--title", "Piped", "--tag", "cli", "--json"], env: env, input: "A note from a pipe\nsecond line")
            let piped = try SeleneJSON.decode(Note.self, from: Data(fromStdin.out.utf8))
            #expect(piped.source == .cli && piped.title == "Piped" && piped.tags == ["cli"] && piped.content == "A note from a pipe\nsecond line")
            try await live.app.process()

            let search = try await Self.runAsync(["search", "garden compost", "--json"], env: env)
            let response = try SeleneJSON.decode(RetrieveResponse.self, from: Data(search.out.utf8))
            #expect(response.source == .hybrid && response.count == 4)
            #expect(Set(response.results.prefix(3).map(\.note.content)) == Set(ThreadsAndBriefingTests.garden))
            let threads = try await Self.runAsync(["threads"], env: env)
            #expect(threads.status == 0 && threads.out.contains("Garden Tomato"))
            let thread = try await Self.runAsync(["threads", "tomato", "--json"], env: env)
            #expect(try SeleneJSON.decode(ThreadDetail.self, from: Data(thread.out.utf8)).notes.count == 3)
            let briefing = try await Self.runAsync(["briefing"], env: env)
            #expect(briefing.status == 0 && briefing.out.contains("Good morning") && briefing.out.contains("Garden Tomato"))

            let one = try await Self.runAsync(["chat", "What's in my garden tomato thread?"], env: env)
            #expect(one.status == 0 && one.out.hasPrefix("From your notes:") && one.out.contains("  [1] "), "\(one.out)\(one.err)")
            #expect(one.err.contains("Searching notes…") && one.err.contains("Thinking…"))
            let json = try await Self.runAsync(["chat", "compost?", "--json"], env: env)
            struct Answer: Decodable { var sessionId: UUID; var answer: String?; var citations: [Int64] }
            let answer = try SeleneJSON.decode(Answer.self, from: Data(json.out.utf8))
            #expect(answer.answer?.contains("[1]") == true && !answer.citations.isEmpty)
            let chat = try await Self.runAsync(["chat"], env: env, input: "/new\n/thread tomato\nwhere does the compost go?\n/sessions\n/quit\n")
            #expect(chat.status == 0, "\(chat.err)")
            #expect(chat.out.contains("Talking about Garden Tomato (3 notes).") && chat.out.contains("[Garden Tomato] › From your notes:"))
            #expect(chat.out.contains("About Garden Tomato"))

            let empty = try await Self.runAsync(["note", " "], env: env)
            #expect(empty.status == 3 && empty.err.contains("content"))
            let missing = try await Self.runAsync(["threads", "zebra"], env: env)
            #expect(missing.status == 6)
            let wrong = try await Self.runAsync(["search", "x", "--token", "wrong-token-wrong-token-wrong-token-00"], env: env)
            #expect(wrong.status == 5 && wrong.err.contains("refused"))
            let port = try freeLoopbackPort()
            let unreachable = try await Self.runAsync(["search", "x", "--server", "127.0.0.1:\(port)"], env: env)
            #expect(unreachable.status == 4 && unreachable.err.contains("can't be reached"))
            let nobody = try await Self.runAsync(["threads"], env: ["SELENE_HOME": home + "/empty"])
            #expect(nobody.status == 5 && nobody.err.contains("selene login"))
        }
    }

    @Test("The terminal client waits for a slow answer without keeping a core busy (URLSession on Linux did: 11 s of CPU over a 9 s answer, taken from the local model)")
    func terminalWaitsIdle() async throws {
        try await withLiveSelene { live in
            let home = try tempDir()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["SELENE_HOME": home, "SELENE_SERVER": live.url.absoluteString, "SELENE_TOKEN": testToken]
            #expect(try await Self.runAsync(["note", "The car service is due on 14 March at the garage on Elm Road."], env: env).status == 0)
            try await live.app.process()
            // The model writes its answer slowly: half a second between pieces, some 15 pieces.
            live.stub.setChunkDelay(0.5)
            // bash's `times` prints the CPU its children used (user, then system) after the client ends.
            let timed = try await Self.runAsync(["-c", "\"$@\" 2>/dev/null; status=$?; times >&2; exit $status", "bash", try Self.binary(),
                                                 "chat", "--json", "When is the car service due?"], env: env, executable: "/bin/bash")
            struct Answer: Decodable { var answer: String?; var citations: [Int64] }
            let answer = try SeleneJSON.decode(Answer.self, from: Data(timed.out.utf8))
            #expect(timed.status == 0 && answer.answer?.contains("14 March") == true && answer.citations == [1], "\(timed.out)")
            let times = timed.err.split(separator: "\n").last.map(String.init) ?? ""
            let seconds = times.matches(of: /(\d+)m([\d.]+)s/).map { Double($0.output.1)! * 60 + Double($0.output.2)! }
            #expect(seconds.count == 2, "\(timed.err)")
            // Waiting some 7 s; the client itself starts, asks and prints in a fraction of a second.
            #expect(seconds.reduce(0, +) < 2, "the client used \(seconds) s of CPU (user, system) while the model wrote: \(times)")
        }
    }

    @Test("The terminal's notes and tasks: list (--since), edit (words, title, tags; standard input), rm; tasks done and reopened; bad input and unknown ids exit non-zero")
    func terminalNotes() async throws {
        try await withLiveSelene { live in
            let home = try tempDir()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["SELENE_HOME": home, "SELENE_SERVER": live.url.absoluteString, "SELENE_TOKEN": testToken]
            var ids: [Int64] = []
            for text in ["Call the plumber about the sink", "Sourdough starter fed at 9", "Book the dentist"] {
                let run = try await Self.runAsync(["note", "add", text, "--json"], env: env)
                ids.append(try SeleneJSON.decode(Note.self, from: Data(run.out.utf8)).id)
            }
            try await live.app.process()
            let list = try await Self.runAsync(["notes"], env: env)
            #expect(list.status == 0 && list.out.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) } == ids.reversed().map { "\($0)" },
                    "\(list.out)")
            let today = WireDate.day(of: live.now())
            let since = try await Self.runAsync(["notes", "--since", today, "--json"], env: env)
            #expect(try SeleneJSON.decode(NoteList.self, from: Data(since.out.utf8)).count == 3)
            let future = try await Self.runAsync(["notes", "--since", "2999-01-01"], env: env)
            #expect(future.status == 0 && future.out.contains("No notes."))
            #expect(try await Self.runAsync(["notes", "--since", "yesterday"], env: env).status == 2)

            let edit = try await Self.runAsync(["note", "edit", "\(ids[0])", "--text", "-", "--title", "Plumber", "--tag", "home"], env: env,
                                               input: "Call the plumber about the kitchen sink and the tap")
            #expect(edit.status == 0 && edit.out.contains("works it out again"), "\(edit.out)\(edit.err)")
            var note = try await live.data.note(id: ids[0])
            #expect(note.content == "Call the plumber about the kitchen sink and the tap" && note.title == "Plumber" && note.tags == ["home"])
            #expect(note.status == .pending)
            let retag = try await Self.runAsync(["note", "edit", "\(ids[0])", "--clear-tags"], env: env)
            #expect(retag.status == 0 && retag.out == "Saved note \(ids[0]).\n", "\(retag.out)")
            note = try await live.data.note(id: ids[0])
            #expect(note.tags.isEmpty && note.title == "Plumber")
            #expect(try await Self.runAsync(["note", "edit", "\(ids[0])"], env: env).status == 2)
            let blank = try await Self.runAsync(["note", "edit", "\(ids[0])", "--text", " "], env: env)
            #expect(blank.status == 3 && blank.err.contains("content"))
            #expect(try await Self.runAsync(["note", "edit", "9999", "--title", "x"], env: env).status == 6)

            let rm = try await Self.runAsync(["note", "rm", "\(ids[1])"], env: env)
            #expect(rm.status == 0 && rm.out.contains("Deleted note \(ids[1])."))
            #expect(try await Self.runAsync(["note", "rm", "\(ids[1])"], env: env).status == 6)
            let remaining = try await Self.runAsync(["notes", "--json"], env: env)
            #expect(try SeleneJSON.decode(NoteList.self, from: Data(remaining.out.utf8)).notes.map(\.id) == [ids[2], ids[0]])
            // Tasks from a note in no thread: listed, ticked off, opened again.
            _ = try await Self.runAsync(["note", "TODO: call the plumber about the sink"], env: env)
            try await live.app.process()
            let open = try await Self.runAsync(["tasks"], env: env)
            let fields = open.out.split(separator: "\n").first.map { $0.split(separator: "\t").map(String.init) } ?? []
            #expect(open.status == 0 && fields.count == 4 && fields[2] == "Call the plumber about the sink" && fields[3] == "—", "\(open.out)")
            let taskId = fields.first ?? "0"
            let done = try await Self.runAsync(["tasks", "done", taskId], env: env)
            #expect(done.status == 0 && done.out == "Done: Call the plumber about the sink\n")
            #expect(try await Self.runAsync(["tasks"], env: env).out == "Nothing to do.\n")
            let every = try await Self.runAsync(["tasks", "--all", "--json"], env: env)
            #expect(try SeleneJSON.decode(AllTasks.self, from: Data(every.out.utf8)).tasks.map(\.status) == [.done])
            #expect(try await Self.runAsync(["tasks", "reopen", taskId], env: env).out.hasPrefix("Open again"))
            #expect(try await Self.runAsync(["tasks", "done", "9999"], env: env).status == 6)
            // A note whose words are a subcommand's name is still a note with `add`.
            let literal = try await Self.runAsync(["note", "add", "edit"], env: env)
            #expect(literal.status == 0 && literal.out.hasPrefix("Saved note"))
        }
    }

    @Test("The terminal corrects threads (rename, split off, merge back, a note moved out and in) and keeps memories by hand (remember, list, forget); a name that matches no thread exits 6")
    func terminalCorrections() async throws {
        try await withLiveSelene { live in
            let home = try tempDir()
            defer { try? FileManager.default.removeItem(atPath: home) }
            let env = ["SELENE_HOME": home, "SELENE_SERVER": live.url.absoluteString, "SELENE_TOKEN": testToken]
            var ids: [Int64] = []
            for text in ThreadsAndBriefingTests.garden {
                let run = try await Self.runAsync(["note", "add", text, "--json"], env: env)
                ids.append(try SeleneJSON.decode(Note.self, from: Data(run.out.utf8)).id)
            }
            try await live.app.process()
            let before = try SeleneJSON.decode(ThreadDetail.self, from: Data(try await Self.runAsync(["threads", "tomato", "--json"], env: env).out.utf8))
            let id = before.thread.id

            let rename = try await Self.runAsync(["thread", "rename", "tomato", "Raised bed"], env: env)
            #expect(rename.status == 0 && rename.out == "Thread \(id) is Raised bed now.\n", "\(rename.out)\(rename.err)")
            let split = try await Self.runAsync(["thread", "split", "Raised bed", "--notes", "\(ids[1])", "--name", "Compost", "--json"], env: env)
            let compost = try SeleneJSON.decode(NoteThread.self, from: Data(split.out.utf8))
            #expect(split.status == 0 && compost.name == "Compost" && compost.noteCount == 1 && compost.id != id, "\(split.err)")
            #expect(try await live.data.thread(id: id).notes.map(\.id).sorted() == [ids[0], ids[2]])
            let merge = try await Self.runAsync(["thread", "merge", "Compost", "--into", "\(id)"], env: env)
            #expect(merge.status == 0 && merge.out == "Compost is part of Raised bed now (3 notes).\n", "\(merge.out)\(merge.err)")
            let out = try await Self.runAsync(["note", "move", "\(ids[2])", "--out"], env: env)
            #expect(out.status == 0 && out.out == "Note \(ids[2]) is in no thread now.\n")
            #expect(try await live.data.thread(id: id).notes.count == 2)
            let back = try await Self.runAsync(["note", "move", "\(ids[2])", "--to", "raised"], env: env)
            #expect(back.status == 0 && back.out == "Note \(ids[2]) is in Raised bed now.\n")
            #expect(try await Self.runAsync(["thread", "rename", "zebra", "x"], env: env).status == 6)
            #expect(try await Self.runAsync(["thread", "split", "\(id)", "--notes", "none", "--name", "x"], env: env).status == 2)
            #expect(try await Self.runAsync(["note", "move", "\(ids[0])"], env: env).status == 2)

            #expect(try await Self.runAsync(["remember", "I", "keep", "bees", "--kind", "gossip"], env: env).status == 2)
            let remember = try await Self.runAsync(["remember", "I", "keep", "bees", "--kind", "fact"], env: env)
            #expect(remember.status == 0 && remember.out.hasPrefix("Remembered (") && remember.out.contains("I keep bees"), "\(remember.err)")
            let memories = try await Self.runAsync(["memories"], env: env)
            let line = memories.out.split(separator: "\n").first { $0.hasSuffix("I keep bees") }.map(String.init) ?? ""
            #expect(memories.status == 0 && !line.isEmpty, "\(memories.out)")
            let forget = try await Self.runAsync(["memories", "--forget", String(line.prefix { $0 != "\t" })], env: env)
            #expect(forget.status == 0 && forget.out == "Forgotten.\n")
            #expect(try await Self.runAsync(["memories"], env: env).out.contains("I keep bees") == false)
        }
    }
}
