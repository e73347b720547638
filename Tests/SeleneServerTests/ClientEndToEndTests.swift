import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import VaporTesting

/// SeleneShared's view models and Remote services against the real server over HTTP, with the
/// Ollama-protocol stub as the LLM.
@Suite("SeleneShared end to end: view models against the real server")
struct ClientEndToEndTests {
    static let garden = ThreadsAndBriefingTests.garden

    final class Recorder: @unchecked Sendable {
        var events: [String] = []
    }

    @Test("A question about a thread gets that thread's notes in context and citations that point at them")
    @MainActor
    func threadQuestion() async throws {
        try await withLiveSelene { live in
            let gardenNotes = try await live.notes(Self.garden)
            _ = try await live.notes(["Quarterly tax forms and receipts", "Bike chain needs oil before the ride"])
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            let recorder = Recorder()
            chat.onEvent = { event in
                switch event {
                case .searching: recorder.events.append("searching")
                case .thinking: recorder.events.append("thinking")
                case .delta: if recorder.events.last != "delta" { recorder.events.append("delta") }
                }
            }
            chat.draft = "What's in my garden tomato thread about compost?"
            await chat.send()
            #expect(chat.errorMessage == nil && chat.unavailableMessage == nil)
            #expect(recorder.events == ["searching", "thinking", "delta"])
            #expect(chat.progress == .idle && chat.draft.isEmpty)
            let answer = try #require(chat.lastAnswer)
            #expect(!answer.citations.isEmpty)
            #expect(Set(answer.citedNoteIds).isSubset(of: Set(gardenNotes.map(\.id))), "\(answer)")
            #expect(answer.text.hasPrefix("From your notes:"))
            // The prompt held the thread's notes as numbered context.
            let prompt = try #require(live.stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
            #expect(prompt.contains(PromptMarkers.contextHeader) && prompt.contains("The thread \"Garden Tomato\""))
            for note in gardenNotes { #expect(prompt.contains(note.content)) }
            #expect(!prompt.contains("Quarterly tax"))
            // The session is on the server with both messages and the citations.
            let stored = try #require(try await live.data.sessions().first)
            #expect(stored.id == chat.session.id && stored.messages.count == 2 && stored.title == "What's in my garden tomato thread about compost?")
            #expect(stored.messages[1].citedNoteIds == answer.citedNoteIds)
            #expect(try await live.data.recentMessages(sessionId: stored.id, limit: 10).map(\.role) == [.user, .assistant])
        }
    }

    @Test("Memories are extracted once, not duplicated, and recalled in a later session")
    @MainActor
    func memories() async throws {
        try await withLiveSelene { live in
            _ = try await live.notes(["Green tea tasting notes: sencha, gyokuro", "Morning routine: tea and a walk"])
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            await chat.ask("I prefer green tea in the morning. What did I write about tea?")
            var memories = try await live.data.memories(limit: 50)
            #expect(memories.map(\.content) == ["I prefer green tea in the morning."])
            #expect(memories.first?.type == .preference && memories.first?.sourceSessionId == chat.session.id)
            let first = try #require(memories.first)
            live.clock.advance(by: 3600)
            await chat.ask("I prefer green tea in the morning! Any notes on sencha?")
            memories = try await live.data.memories(limit: 50)
            #expect(memories.count == 1 && memories[0].id == first.id && memories[0].confidence > first.confidence)

            live.clock.advance(by: 86_400)
            chat.newSession()
            await chat.ask("Which tea do I prefer in the morning?")
            let prompt = try #require(live.stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
            #expect(prompt.contains(PromptMarkers.memoriesHeader) && prompt.contains("- I prefer green tea in the morning."))
            let recalled = try #require(try await live.data.memories(limit: 50).first)
            #expect(recalled.lastAccessedAt == live.clock.now)
            #expect(try await live.data.memories(limit: 50).count == 1)
            #expect(try await live.data.sessions().count == 2)
        }
    }

    @Test("Memories by hand (the terminal's and the API's way): full confidence, embedded, merged when said again, refused when empty, used in the next answer")
    @MainActor
    func memoriesByHand() async throws {
        try await withLiveSelene { live in
            let said = try await live.data.remember(RememberRequest(content: "I'm vegetarian", type: .preference))
            #expect(said.confidence == 1 && said.type == .preference && said.embedding?.isEmpty == false)
            let again = try await live.data.remember(RememberRequest(content: "I'm vegetarian."))
            #expect(again.id == said.id && again.type == .fact && again.content == "I'm vegetarian.")
            await #expect(throws: (any Error).self) { try await live.data.remember(RememberRequest(content: "   ")) }
            #expect(try await live.data.memories(limit: 50).count == 1)
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            await chat.ask("I'm vegetarian: what should I cook for dinner?")
            let prompt = try #require(live.stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
            #expect(prompt.contains(PromptMarkers.memoriesHeader) && prompt.contains("- I'm vegetarian."), "\(prompt)")
        }
    }

    @Test("A long session is compressed (state and summary saved) and still answers about its early part")
    @MainActor
    func compression() async throws {
        try await withLiveSelene { live in
            _ = try await live.notes(["Groceries: figs, bread, cheese"])
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            await chat.ask("My bike is a blue Brompton. Where did I note groceries?")
            for i in 1...8 {
                live.clock.advance(by: 60)
                await chat.ask("Question number \(i) about groceries and figs?")
            }
            let stored = try #require(try await live.data.sessions().first { $0.id == chat.session.id })
            #expect(stored.compressionState == .compressed && stored.compressedAt != nil)
            #expect(stored.summary?.contains("My bike is a blue Brompton") == true, "\(stored.summary ?? "")")
            #expect(stored.messages.count == 18)
            live.clock.advance(by: 60)
            await chat.ask("What colour is my Brompton bike?")
            #expect(chat.lastAnswer?.text == "Earlier you said: My bike is a blue Brompton.", "\(chat.lastAnswer?.text ?? "")")
            let prompt = try #require(live.stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
            #expect(prompt.contains("Earlier in this conversation:") && !prompt.contains("user: My bike is a blue Brompton. Where"))
        }
    }

    @Test("With the LLM unreachable, chat says so plainly and shows the notes that match; nothing typed is lost")
    @MainActor
    func llmDown() async throws {
        try await withLiveSelene { live in
            let notes = try await live.notes(["Sourdough starter schedule", "Sourdough loaf was dense", "Tax papers"])
            await live.stub.stop()
            let down = try PortHold(live.stub.port)  // no other test's server answers in its place
            defer { down.release() }
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            chat.draft = "What about my sourdough?"
            await chat.send()
            #expect(chat.lastAnswer == nil && chat.unavailableMessage?.contains("can't reach the LLM") == true)
            if case .failed = chat.progress {} else { Issue.record("progress \(chat.progress)") }
            #expect(Set(chat.foundNotes.map(\.id)) == Set(notes.prefix(2).map(\.id)))
            let stored = try #require(try await live.data.sessions().first)
            #expect(stored.messages.map(\.content) == ["What about my sourdough?"])
            // The server itself gone: the question stays in the box.
            await live.stopServer()
            chat.draft = "Still there?"
            await chat.send()
            #expect(chat.draft == "Still there?" && chat.errorMessage?.contains("can't be reached") == true)
            #expect(chat.session.messages.map(\.content) == ["What about my sourdough?"])
        }
    }

    @Test("An answer the model breaks off is kept, marked incomplete, never logged or remembered as whole, and left out of the next prompt")
    @MainActor
    func cutAnswer() async throws {
        try await withLiveSelene { live in
            _ = try await live.notes(["Roofer: the chimney flashing must be replaced before winter"])
            live.stub.setFault(.cutStream)
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            let recorder = Recorder()
            // Kept before it is shown: when a piece reaches the screen, the server already has it.
            chat.onEvent = { event in
                if case .delta = event { recorder.events.append("delta") }
            }
            await chat.ask("What did the roofer say about the chimney?")
            #expect(chat.lastAnswer == nil && chat.unavailableMessage?.contains("broke off") == true, "\(chat.unavailableMessage ?? "")")
            #expect(recorder.events.count == 2, "\(recorder.events)")
            var stored = try #require(try await live.data.sessions().first { $0.id == chat.session.id })
            #expect(stored.messages.map(\.role) == [.user, .assistant])
            let cut = stored.messages[1]
            #expect(cut.isIncomplete && !cut.content.isEmpty, "\(cut)")
            // Not in the conversation log, and nothing learned from it.
            #expect(try await live.data.recentMessages(sessionId: stored.id, limit: 10).map(\.role) == [.user])
            // The conversation goes on; the cut answer is not part of what the model is shown.
            live.stub.setFault(.none)
            live.clock.advance(by: 60)
            await chat.ask("And before winter?")
            #expect(chat.lastAnswer != nil)
            let prompt = try #require(live.stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
            #expect(!prompt.contains(cut.content), "\(prompt)")
            stored = try #require(try await live.data.sessions().first { $0.id == chat.session.id })
            #expect(stored.messages.map(\.role) == [.user, .assistant, .user, .assistant])
            #expect(stored.messages.map(\.isIncomplete) == [false, true, false, false])
            #expect(try await live.data.recentMessages(sessionId: stored.id, limit: 10).map(\.role) == [.user, .user, .assistant])
        }
    }

    @Test("The set-up screen tests the address and token against an authenticated endpoint before keeping them")
    @MainActor
    func setup() async throws {
        try await withLiveSelene { live in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("selene-setup-\(UUID())/server.json").path
            let store = FileCredentialStore(path: path)
            let setup = ServerSetupViewModel(store: store)
            setup.address = "not a url ://"
            #expect(!(await setup.testAndSave()))
            setup.address = live.url.absoluteString + "/"
            setup.token = ""
            #expect(!(await setup.testAndSave()))
            #expect(setup.status == .failed("The server needs an API token: paste one from `selene token new` (its SELENE_API_TOKEN)."))
            setup.token = "wrong-token-wrong-token-wrong-token-0000"
            #expect(!(await setup.testAndSave()))
            if case .failed(let why) = setup.status { #expect(why.contains("refused")) }
            let nothing = try store.load()
            #expect(nothing == nil)
            setup.token = testToken
            #expect(await setup.testAndSave())
            let kept = try store.load()
            #expect(setup.status == .connected && kept == ServerSettings(url: live.url, token: testToken))
            #expect(ServerSetupViewModel(store: store).address == live.url.absoluteString)
            setup.address = "127.0.0.1:1"
            #expect(!(await setup.testAndSave()))
            if case .failed(let why) = setup.status { #expect(why.contains("can't be reached")) }
            setup.signOut()
            let cleared = try store.load()
            #expect(cleared == nil)
            try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        }
    }

    @Test("The briefing view model: today's briefing with its threads, and old notes resurfaced")
    @MainActor
    func briefing() async throws {
        try await withLiveSelene { live in
            let old = try await live.data.createNote(NewNote(content: "Garden compost bin plans for the tomatoes bed"))
            try await (live.app.db as! any SQLDatabase).raw("UPDATE notes SET created_at = \(bind: live.clock.now.addingTimeInterval(-90 * 86_400)) WHERE id = \(bind: Int(old.id))").run()
            _ = try await live.notes(Self.garden)
            let model = BriefingViewModel(data: live.data, now: live.now)
            await model.load()
            #expect(model.state == .loaded)
            let briefing = try #require(model.briefing)
            #expect(briefing.author == .llm && briefing.threads.count == 1 && briefing.notes.count >= 3)
            #expect(model.resurfaced.map(\.note.id).contains(old.id))
            #expect(model.resurfaced.first?.reason == "You wrote about this 3 months ago")
            await model.regenerate()
            #expect(model.briefing?.id == briefing.id && model.state == .loaded)
            await live.stopServer()
            await model.load()
            if case .failed(let why) = model.state { #expect(why.contains("can't be reached")) } else { Issue.record("\(model.state)") }
        }
    }

    @Test("The thread workspace: chat scoped to the thread, task suggestions added as tasks")
    @MainActor
    func workspace() async throws {
        try await withLiveSelene { live in
            let garden = try await live.notes(Self.garden)
            _ = try await live.notes(["Compost bins for the office kitchen", "Kitchen compost collection on Fridays"])
            let thread = try #require(try await live.data.activeThreads(limit: 5).first { $0.name == "Garden Tomato" })
            let workspace = ThreadWorkspaceChatViewModel(threadId: thread.id, data: live.data, llm: live.llm, now: live.now)
            await workspace.load()
            #expect(workspace.thread?.notes.count == 3 && workspace.chat != nil)
            await workspace.ask("Where does the compost go?")
            let answer = try #require(workspace.chat?.lastAnswer)
            #expect(!answer.citations.isEmpty && Set(answer.citedNoteIds).isSubset(of: Set(garden.map(\.id))))
            #expect(workspace.chat?.session.threadId == thread.id)
            await workspace.suggestTasks()
            #expect(!workspace.suggestions.isEmpty && workspace.suggestions.allSatisfy { $0.hasPrefix("Follow up on") })
            let first = workspace.suggestions[0]
            await workspace.accept(first)
            #expect(try await live.data.tasks(threadId: thread.id).map(\.title).contains(first))
            #expect(!workspace.suggestions.contains(first))
            let task = try #require(workspace.tasks.first)
            await workspace.setTask(task.id, done: true)
            #expect(workspace.tasks.first?.status == .done)
            // A second workspace opens the same conversation.
            let again = ThreadWorkspaceChatViewModel(threadId: thread.id, data: live.data, llm: live.llm, now: live.now)
            await again.load()
            #expect(again.chat?.session.id == workspace.chat?.session.id && again.chat?.session.messages.count == 2)
        }
    }

    @Test("Sessions: new, load, pin (pinned first), delete")
    @MainActor
    func sessions() async throws {
        try await withLiveSelene { live in
            let chat = ChatViewModel(data: live.data, llm: live.llm, now: live.now)
            await chat.ask("hello")
            let first = chat.session.id
            live.clock.advance(by: 10)
            chat.newSession()
            await chat.ask("hi again")
            let second = chat.session.id
            await chat.loadSessions()
            #expect(chat.orderedSessions.map(\.id) == [second, first])
            await chat.pin(first, true)
            #expect(chat.orderedSessions.map(\.id) == [first, second])
            await chat.openSession(first)
            #expect(chat.session.id == first && chat.session.messages.first?.content == "hello" && chat.session.isPinned)
            await chat.delete(first)
            #expect(chat.sessions.map(\.id) == [second] && chat.session.id != first)
            let remaining = try await live.data.sessions().map(\.id)
            #expect(remaining == [second])
            await chat.openSession(first)
            #expect(chat.errorMessage == "That conversation is gone.")
        }
    }
}
