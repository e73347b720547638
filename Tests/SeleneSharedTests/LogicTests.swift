import Foundation
@testable import SeleneShared
import Testing

func note(_ id: Int64, _ content: String, title: String? = nil, at date: Date = Date(timeIntervalSince1970: 1_800_000_000),
          analysis: NoteAnalysis? = nil, thread: Int64? = nil) -> Note {
    Note(id: id, title: title, content: content, createdAt: date, source: .web, contentHash: "h\(id)", analysis: analysis, threadId: thread)
}

let now = WireDate.date(from: "2026-11-25T10:00:00Z")!  // a Wednesday

@Suite("Query analysis")
struct QueryAnalyzerTests {
    func kind(_ text: String) -> QueryAnalysis.Kind { QueryAnalyzer.analyze(text, now: now).kind }

    @Test("Searches, threads, time ranges, tasks and open chat")
    func kinds() {
        #expect(kind("What did I write about sourdough starters?") == .search)
        #expect(QueryAnalyzer.analyze("What did I write about sourdough starters?", now: now).keywords == ["sourdough", "starters"])
        #expect(kind("what's in my garden thread?") == .thread(name: "garden"))
        #expect(kind("What's in my garden tomato thread about compost?") == .thread(name: "garden tomato"))
        #expect(kind("Summarise the thread about Kubernetes migration") == .thread(name: "Kubernetes migration"))
        #expect(kind("thread: Running") == .thread(name: "Running"))
        #expect(kind("/thread Home renovation") == .thread(name: "Home renovation"))
        #expect(kind("What did I do last week?") == .timeRange)
        #expect(kind("notes from yesterday") == .timeRange)
        #expect(kind("What are my open tasks?") == .tasks)
        #expect(kind("what should I do next") == .tasks)
        #expect(kind("Hi!") == .openChat)
        #expect(kind("thanks") == .openChat)
        #expect(kind("the and of") == .openChat)
    }

    @Test("Time ranges are computed from now, in whole days and weeks (weeks start on Monday)")
    func ranges() {
        func range(_ text: String) -> DateInterval? { QueryAnalyzer.analyze(text, now: now).range }
        #expect(range("yesterday") == DateInterval(start: WireDate.date(from: "2026-11-24T00:00:00Z")!, end: WireDate.date(from: "2026-11-25T00:00:00Z")!))
        #expect(range("last week") == DateInterval(start: WireDate.date(from: "2026-11-16T00:00:00Z")!, end: WireDate.date(from: "2026-11-23T00:00:00Z")!))
        #expect(range("this week")?.start == WireDate.date(from: "2026-11-23T00:00:00Z")!)
        #expect(range("in the last 3 days") == DateInterval(start: now.addingTimeInterval(-3 * 86_400), end: now))
        #expect(range("last month") == DateInterval(start: WireDate.date(from: "2026-10-01T00:00:00Z")!, end: WireDate.date(from: "2026-11-01T00:00:00Z")!))
        #expect(range("what happened in March") == DateInterval(start: WireDate.date(from: "2026-03-01T00:00:00Z")!, end: WireDate.date(from: "2026-04-01T00:00:00Z")!))
        #expect(range("since Monday") == DateInterval(start: WireDate.date(from: "2026-11-23T00:00:00Z")!, end: now))
        #expect(range("garden") == nil)
    }

    @Test("Names retrieval looks for: capitalised words, a title kept with its name; not a question's first word, I, months or days")
    func names() {
        func names(_ text: String) -> [String] { QueryAnalyzer.analyze(text, now: now).names }
        #expect(names("What did Priya say about Berlin?") == ["Priya", "Berlin"])
        #expect(names("what did Dr. Okafor tell me to do") == ["Dr Okafor"])
        #expect(names("Tell me about Aunt Rosa's lasagne") == ["Aunt Rosa"])
        #expect(names("Priya's news") == ["Priya"])
        #expect(names("Kallax shelf") == ["Kallax"])
        #expect(names("When did I last call Mum? And Leo?") == ["Mum", "Leo"])
        #expect(names("What did I decide about the roof in March? On Monday I wasn't sure") == [])
        #expect(names("what did tomasz recommend") == [])
        #expect(names("Priya and Priya again") == ["Priya"])
    }

    @Test("Quoted words are phrases: straight or curly quotes, at least one word")
    func phrases() {
        func phrases(_ text: String) -> [String] { QueryAnalyzer.analyze(text, now: now).phrases }
        #expect(phrases(#"where did I write "kitchen sink""#) == ["kitchen sink"])
        #expect(phrases("the film “Porco Rosso” and \"cup of tea\"") == ["Porco Rosso", "cup of tea"])
        #expect(phrases(#"an empty "" and a lone " quote"#).isEmpty)
        #expect(phrases("no quotes here").isEmpty)
        #expect(QueryAnalyzer.analyze(#""kitchen sink" repair"#, now: now).keywords == ["kitchen", "sink", "repair"])
    }

    @Test("'When did I last…' asks for the newest match; its time words leave the keywords, and a month names a range")
    func latestAndTime() {
        func latest(_ text: String) -> Bool { QueryAnalyzer.analyze(text, now: now).wantsLatest }
        #expect(latest("when did I last get a haircut"))
        #expect(latest("When was the boiler last serviced?"))
        #expect(latest("what's the latest on the roof"))
        #expect(latest("the most recent note about Priya"))
        #expect(!latest("what did I do last week"))
        #expect(!latest("my last day at the old job"))
        let roof = QueryAnalyzer.analyze("what did I decide about the roof in March", now: now)
        #expect(roof.keywords == ["decide", "roof"])
        #expect(roof.range == DateInterval(start: WireDate.date(from: "2026-03-01T00:00:00Z")!, end: WireDate.date(from: "2026-04-01T00:00:00Z")!))
        #expect(QueryAnalyzer.analyze("when did I last get a haircut", now: now).keywords == ["haircut"])
    }

    @Test("A long note's later parts are embedded on their own: 150 words every 120 from the 120th, with the title")
    func chunks() {
        #expect(ProcessingPrompts.embeddingChunks(title: "T", content: Array(repeating: "word", count: 180).joined(separator: " ")).isEmpty)
        let words = (0..<400).map { "w\($0)" }
        let chunks = ProcessingPrompts.embeddingChunks(title: "Weekly review", content: words.joined(separator: " "))
        #expect(chunks.count == 3)
        #expect(chunks[0] == "Weekly review\n\n" + words[120..<270].joined(separator: " "))
        #expect(chunks[2] == "Weekly review\n\n" + words[360..<400].joined(separator: " "))
        #expect(ProcessingPrompts.embeddingChunks(title: nil, content: words.joined(separator: "\n"))[1].hasPrefix("w240 w241"))
        let huge = Array(repeating: "x", count: 100_000).joined(separator: " ")
        #expect(ProcessingPrompts.embeddingChunks(title: nil, content: huge).count == ProcessingPrompts.maxChunks)
    }

    @Test("Modes: deep dive, synthesis, thinking partner, plain chat")
    func modes() {
        #expect(QueryAnalyzer.analyze("Tell me everything about the migration", now: now).mode == .deepDive)
        #expect(QueryAnalyzer.analyze("How do running and work stress connect?", now: now).mode == .synthesis)
        #expect(QueryAnalyzer.analyze("Should I move flats this summer?", now: now).mode == .thinkingPartner)
        #expect(QueryAnalyzer.analyze("When did I plant tomatoes?", now: now).mode == .chat)
    }
}

@Suite("Context within a token budget, prompts, citations")
struct ContextAndCitationTests {
    @Test("Notes are numbered in order and cut to fit; what doesn't fit is counted")
    func budget() {
        let notes = (1...30).map { i in note(Int64(i), String(repeating: "word\(i) ", count: 200), title: "Note \(i)") }
        let context = ContextBuilder(budget: 1000, perNoteTokens: 100).build(notes: notes)
        #expect(context.estimatedTokens <= 1000)
        #expect(context.notes.count >= 5 && context.omitted == 30 - context.notes.count)
        #expect(context.notes[1]?.id == 1 && context.notes[2]?.id == 2)
        #expect(context.text.contains("[1] Note 1: word1 ") && context.text.hasPrefix(PromptMarkers.contextHeader))
        // The day last and in words, the title only when there is one.
        #expect(ContextBuilder().build(notes: [note(4, "Fed the starter.")]).text.hasSuffix("\n[1] Fed the starter. (written 15 Jan 2027)"))
        let memories = [Memory(id: 1, content: "Lives in Lisbon", type: .fact, confidence: 0.9, sourceSessionId: nil, embedding: nil, createdAt: now, lastAccessedAt: now)]
        let withMemories = ContextBuilder().build(notes: [note(1, "garden")], memories: memories, extra: "The thread \"Garden\".")
        #expect(withMemories.text.contains(PromptMarkers.memoriesHeader + "\n- Lives in Lisbon"))
        #expect(withMemories.text.hasPrefix("The thread"))
        #expect(ContextBuilder().build(notes: []).text.isEmpty)
        #expect(TokenBudget.truncate("one two three four five six seven", toTokens: 3) == "one two…")
    }

    @Test("A chat prompt: mode and summary, the history, then context, citation rule and question")
    func prompts() throws {
        let context = ContextBuilder().build(notes: [note(7, "Planted tomatoes", title: "Garden")])
        let history = [ChatMessage(role: .user, content: "hi", createdAt: now), ChatMessage(role: .assistant, content: "hello", createdAt: now)]
        let thread = NoteThread(id: 3, name: "Garden", summary: "Vegetables.", status: .active, momentum: 1, lastActivityAt: now, createdAt: now, noteCount: 4)
        let messages = PromptBuilder.chat(question: "When?", context: context, summary: "We talked about soil.", history: history, mode: .deepDive, thread: thread)
        #expect(messages.map(\.role) == [.system, .user, .assistant, .user])
        #expect(messages[0].content.contains("Go deep") && messages[0].content.contains("\"Garden\""))
        // The summary is a paragraph of its own in the one system message.
        #expect(messages[0].content.hasSuffix("\n\nEarlier in this conversation: We talked about soil."))
        // The citation rule sits between the notes and the question, in the last turn.
        let last = messages[3].content
        #expect(last.hasSuffix("Question: When?") && last.contains("[1] Garden: Planted tomatoes (written "))
        let rule = try #require(last.range(of: "square brackets"))
        #expect(last.range(of: "[1] Garden: ")!.lowerBound < rule.lowerBound && rule.upperBound < last.range(of: "Question: When?")!.lowerBound)
        #expect(!PromptBuilder.chat(question: "Hi", context: .empty, summary: nil, history: [], mode: .chat).last!.content.contains("square brackets"))
        #expect(PromptBuilder.memoryExtraction(history, known: []).contains(PromptMarkers.memoryExtraction))
        #expect(PromptBuilder.compression(previousSummary: "x", messages: history).contains("Summary so far: x"))
        #expect(PromptBuilder.parseTasks("Sure:\n- Buy compost\n* Water daily\n1. Buy compost\n- ok\nnot a task", existing: []) == ["Buy compost", "Water daily"])
    }

    @Test("Citations: renumbered in order of first use; a number not in the context is dropped, never a link")
    func citations() {
        let context = [1: note(11, "a", title: "Alpha"), 2: note(22, "b", title: "Beta"), 3: note(33, "c")]
        let parsed = CitationParser.parse("Beta says so [2]. Alpha too [1, 2] and [9]. Also [Note 3][2]. See [x] and [link](http://e).", context: context)
        #expect(parsed.citations.map(\.noteId) == [22, 11, 33])
        #expect(parsed.citedNoteIds == [22, 11, 33])
        #expect(parsed.text == "Beta says so [1]. Alpha too [2][1] and. Also [3][1]. See [x] and [link](http://e).")
        #expect(parsed.citations[0] == Citation(number: 1, noteId: 22, title: "Beta"))
        let segments = parsed.segments
        #expect(segments.first == .text("Beta says so "))
        #expect(segments.contains(.citation(Citation(number: 3, noteId: 33, title: "c"))))
        let none = CitationParser.parse("Nothing cited [4] here.", context: context)
        #expect(none.citations.isEmpty && none.text == "Nothing cited here.")
        let stored = ChatMessage(role: .assistant, content: parsed.text, createdAt: now, citedNoteIds: parsed.citedNoteIds)
        let again = CitationParser.segments(of: stored, titles: [22: "Beta"])
        let cited: [Int64] = again.compactMap { if case .citation(let c) = $0 { c.noteId } else { nil } }
        #expect(cited == [22, 11, 22, 33, 22])
    }
}

@Suite("Vectors, memories, compression, resurfacing, sub-projects")
struct ServiceLogicTests {
    @Test("Vector helpers")
    func vectors() {
        #expect(VectorUtility.cosine([1, 0], [0, 1]) == 0)
        #expect(abs(VectorUtility.cosine([1, 2, 3], [2, 4, 6]) - 1) < 1e-6)
        #expect(VectorUtility.cosine([1, 2], [1, 2, 3]) == 0 && VectorUtility.cosine([0, 0], [1, 1]) == 0)
        #expect(VectorUtility.normalized([3, 4]) == [0.6, 0.8])
        #expect(VectorUtility.centroid([[1, 0], [0, 1]]).map { abs($0[0] - 0.7071) < 1e-3 && abs($0[1] - 0.7071) < 1e-3 } == true)
        let long = (0..<100).map { Float($0) }
        #expect(VectorUtility.dot(long, long) == long.reduce(0) { $0 + $1 * $1 })
        let added = VectorUtility.adding([0, 1], to: [1, 0], count: 3)
        #expect(added[0] > added[1] && abs(VectorUtility.norm(added) - 1) < 1e-6)
    }

    struct NoLLM: LLMProvider {
        func generate(_ prompt: String, system: String?, model: String?) async throws -> String { throw SeleneClientError.llmUnavailable("none") }
        func embed(_ text: String, model: String?) async throws -> [Float] { throw SeleneClientError.llmUnavailable("none") }
        func isAvailable() async -> Bool { false }
        func chat(_ messages: [LLMMessage], model: String?) async throws -> AsyncThrowingStream<String, any Error> { throw SeleneClientError.llmUnavailable("none") }
    }

    var service: MemoryService {
        MemoryService(data: RemoteDataService(settings: ServerSettings(url: URL(string: "http://127.0.0.1:1")!, token: nil)), llm: NoLLM())
    }

    func memory(_ id: Int64, _ content: String, _ embedding: [Float]?, confidence: Double = 0.7, accessed: Date = now) -> Memory {
        Memory(id: id, content: content, type: .fact, confidence: confidence, sourceSessionId: nil, embedding: embedding, createdAt: now, lastAccessedAt: accessed)
    }

    @Test("A near-duplicate memory updates the one kept; a new one is inserted; a batch doesn't duplicate itself")
    func plan() {
        let existing = [memory(1, "Lives in Lisbon", [1, 0, 0]), memory(2, "Prefers tea over coffee", [0, 1, 0])]
        let candidates: [(MemoryService.Extracted, [Float]?)] = [
            (.init(content: "I live in Lisbon.", type: .fact, confidence: 0.9), [0.99, 0.05, 0]),
            (.init(content: "prefers TEA over coffee", type: .preference, confidence: 0.5), nil),
            (.init(content: "Runs on Sundays", type: .pattern, confidence: 0.8), [0, 0, 1]),
            (.init(content: "Runs every Sunday", type: .pattern, confidence: 0.85), [0, 0.01, 1]),
        ]
        let actions = service.plan(candidates, existing: existing, sessionId: nil)
        #expect(actions.count == 4)
        guard case .update(1, let first) = actions[0], case .update(2, let second) = actions[1],
              case .insert(let third) = actions[2], case .update(let id, let fourth) = actions[3] else {
            Issue.record("unexpected \(actions)")
            return
        }
        #expect(first.content == "I live in Lisbon." && abs((first.confidence ?? 0) - 0.95) < 1e-9)
        #expect(second.content == nil && abs((second.confidence ?? 0) - 0.75) < 1e-9)
        #expect(third.content == "Runs on Sundays" && third.type == .pattern)
        #expect(id < 0 && fourth.content == "Runs every Sunday")
    }

    @Test("Recall ranks by similarity × confidence × recency")
    func recallRank() {
        let memories = [memory(1, "Lives in Lisbon", [1, 0], confidence: 0.9),
                        memory(2, "Lives near the park", [0.9, 0.1], confidence: 0.9, accessed: now.addingTimeInterval(-120 * 86_400)),
                        memory(3, "Hates mornings", [0, 1], confidence: 1)]
        let ranked = service.rank(memories, query: [1, 0], question: "where do I live", now: now)
        #expect(ranked.map(\.0.id) == [1, 2])
        let byWords = service.rank(memories, query: nil, question: "mornings", now: now)
        #expect(byWords.map(\.0.id) == [3])
    }

    @Test("Compression: which messages a summary covers, and when a session needs it")
    func compression() {
        let messages = (0..<20).map { ChatMessage(role: $0 % 2 == 0 ? .user : .assistant, content: "m\($0)", createdAt: now.addingTimeInterval(Double($0))) }
        var session = ChatSession(title: "t", messages: messages, createdAt: now, updatedAt: now)
        let service = CompressionService(llm: NoLLM(), threshold: 16, keepRecent: 6)
        #expect(service.needsCompression(session))
        #expect(service.promptHistory(session).summary == nil && service.promptHistory(session).messages.count == 16)
        session.compressionState = .compressed
        session.summary = "Earlier."
        session.compressedAt = messages[13].createdAt
        #expect(CompressionService.uncovered(session).map(\.content) == ["m14", "m15", "m16", "m17", "m18", "m19"])
        #expect(!service.needsCompression(session))
        #expect(service.promptHistory(session) == ("Earlier.", Array(messages.suffix(6))))
    }

    @Test("Resurfacing picks old, strongly related notes; sub-projects come from shared concepts")
    func resurfacingAndSubprojects() {
        let resurfacing = Resurfacing(data: RemoteDataService(settings: ServerSettings(url: URL(string: "http://127.0.0.1:1")!, token: nil)))
        let related = [RelatedNote(note: note(1, "old", at: now.addingTimeInterval(-100 * 86_400)), relationshipType: .association, strength: 0.8),
                       RelatedNote(note: note(2, "recent", at: now.addingTimeInterval(-5 * 86_400)), relationshipType: .association, strength: 0.9),
                       RelatedNote(note: note(3, "weak", at: now.addingTimeInterval(-100 * 86_400)), relationshipType: .association, strength: 0.2),
                       RelatedNote(note: note(4, "words", at: now.addingTimeInterval(-400 * 86_400)), relationshipType: .keyword, strength: 0.9)]
        let picked = resurfacing.pick(related, now: now, limit: 3)
        #expect(picked.map(\.note.id) == [1] && picked[0].reason == "You wrote about this 3 months ago")

        func analysis(_ concepts: [String]) -> NoteAnalysis {
            NoteAnalysis(concepts: concepts.map { Concept(name: $0, confidence: 0.8) }, primaryTheme: "garden", secondaryThemes: [], sentiment: .neutral,
                         sentimentScore: 0, emotionalTone: "calm", energyLevel: .medium, noteType: .idea, actionability: .none)
        }
        let thread = NoteThread(id: 1, name: "Garden", summary: "", status: .active, momentum: 3, lastActivityAt: now, createdAt: now, noteCount: 10)
        let notes = (0..<10).map { i in note(Int64(i), "n", analysis: analysis(i < 4 ? ["garden", "compost"] : i < 7 ? ["garden", "tomatoes"] : ["garden"])) }
        let suggestions = SubprojectSuggester.suggest(thread: thread, notes: notes)
        #expect(suggestions.map(\.name) == ["Compost", "Tomatoes"])
        #expect(suggestions[0].noteIds == [0, 1, 2, 3])
        #expect(SubprojectSuggester.suggest(thread: thread, notes: Array(notes.prefix(5))).isEmpty)
    }

    @Test("The privacy router sends nothing personal to a hosted model unless allowed; it is off by default")
    func privacy() {
        let local = RemoteLLMService(settings: ServerSettings(url: URL(string: "http://127.0.0.1:1")!, token: nil))
        let hosted = HostedLLMService(settings: .init(baseURL: URL(string: "http://127.0.0.1:2")!, apiKey: "k", model: "m"))
        let personal = ["\(PromptMarkers.contextHeader)\n[1] my note"]
        let plain = ["What is the capital of Portugal?"]
        func isHosted(_ p: any LLMProvider) -> Bool { (p as AnyObject) === hosted }
        #expect(!isHosted(PrivacyRouter(local: local, hosted: hosted).route(plain)))
        let on = PrivacyRouter(local: local, hosted: hosted, settings: .init(hostedEnabled: true))
        #expect(isHosted(on.route(plain)) && !isHosted(on.route(personal)))
        #expect(!isHosted(on.route(["\(PromptMarkers.memoryExtraction) …"])))
        let all = PrivacyRouter(local: local, hosted: hosted, settings: .init(hostedEnabled: true, allowPersonalContent: true))
        #expect(isHosted(all.route(personal)))
        #expect(!isHosted(PrivacyRouter(local: local, hosted: nil, settings: .init(hostedEnabled: true)).route(plain)))
    }
}

@Suite("Wire formats, validation and settings")
struct WireTests {
    @Test("A streamed body's lines: split across pieces, empty ones left out, the unfinished rest kept for the next piece")
    func streamedLines() {
        var pending = Data()
        var lines: [String] = []
        for piece in ["{\"a\":", "1}\n\n{\"b\"", ":2}\n{\"c\":3}\n{\"d\""] {
            pending.append(Data(piece.utf8))
            lines += HTTPTransport.completeLines(of: &pending).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(lines == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
        #expect(String(decoding: pending, as: UTF8.self) == #"{"d""#)
        var nothing = Data("no newline yet".utf8)
        #expect(HTTPTransport.completeLines(of: &nothing).isEmpty)
        #expect(nothing == Data("no newline yet".utf8))
    }

    @Test("The OpenAI codec: /v1 added once; stream lines read as pieces, skips, the end or the server's error")
    func openAIWire() throws {
        #expect(OpenAIWire.apiBase("http://h:8080") == "http://h:8080/v1")
        #expect(OpenAIWire.apiBase("http://h:8080/v1/") == "http://h:8080/v1")
        #expect(OpenAIWire.apiBase("https://api.example.com/v1") == "https://api.example.com/v1")
        func line(_ text: String) throws -> OpenAIWire.StreamLine { try OpenAIWire.streamLine(Data(text.utf8)) }
        #expect(try line(#"data: {"choices":[{"delta":{"content":"Hi"}}]}"#) == .piece("Hi"))
        #expect(try line(#"data: {"choices":[{"delta":{"role":"assistant"}}]}"#) == .skip)
        #expect(try line(#"data: {"choices":[],"usage":{"completion_tokens":3}}"#) == .skip)
        #expect(try line(": keep-alive") == .skip)
        #expect(try line("data: [DONE]\r") == .done)
        #expect(throws: OpenAIWire.WireError.server("model crashed")) { try line(#"data: {"error":{"message":"model crashed"}}"#) }
        #expect(throws: OpenAIWire.WireError.server("overloaded")) { try line(#"error: {"error":"overloaded"}"#) }
        #expect(throws: OpenAIWire.WireError.self) { try line("data: {not json") }
        let whole = try OpenAIWire.completion(Data(#"{"choices":[{"message":{"content":"{}"},"finish_reason":"length"}],"usage":{"completion_tokens":7}}"#.utf8))
        #expect(whole == .init(text: "{}", truncated: true, generatedTokens: 7))
        #expect(try OpenAIWire.modelIDs(Data(#"{"object":"list","data":[{"id":"gemma3-270m"}]}"#.utf8)) == ["gemma3-270m"])
        #expect(OpenAIWire.lists("gemma-3-270m-q4_k_m", in: ["/models/gemma-3-270m-q4_k_m.gguf"]))
        #expect(!OpenAIWire.lists("llama3.2", in: ["gemma3-270m"]))
        // json_object carries the schema in the system message, since no grammar enforces it.
        let schema: JSONValue = ["type": "object"]
        let body = OpenAIWire.ChatBody(model: "m", messages: [LLMMessage(role: .user, content: "q")], stream: false, responseFormat: .jsonObject(schema))
        #expect(body.messages.first?.role == "system" && body.messages.first?.content.hasPrefix(PromptMarkers.jsonSchema) == true)
        #expect(body.response_format == ["type": "json_object"])
        #expect(OpenAIWire.ChatBody(model: "m", messages: [], stream: true, responseFormat: .jsonSchema(schema)).response_format?["json_schema"]?["schema"] == schema)
    }

    @Test("Dates: written with milliseconds in UTC; read with or without fractions and offsets; impossible days refused")
    func dates() {
        let date = WireDate.date(from: "2026-02-28T23:30:00+02:00")!
        #expect(WireDate.string(from: date) == "2026-02-28T21:30:00.000Z")
        #expect(WireDate.date(from: "2026-01-31T12:00:00.1234Z").map(WireDate.string) == "2026-01-31T12:00:00.123Z")
        #expect(WireDate.date(from: "2024-02-29T00:00:00z") != nil)
        for bad in ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:60Z", "2026-01-01", "2026-01-01T00:00:00",
                    "yesterday", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+2:00"] {
            #expect(WireDate.date(from: bad) == nil, "\(bad)")
        }
        #expect(WireDate.date(from: "1969-12-31T23:59:59Z")?.timeIntervalSince1970 == -1)
        #expect(WireDate.date(from: "0001-01-01T00:00:00Z")?.timeIntervalSince1970 == -62_135_596_800)
    }

    @Test("A note's JSON is flat and camelCase, and reads back equal")
    func noteJSON() throws {
        let analysis = NoteAnalysis(concepts: [Concept(name: "soil", confidence: 0.9)], primaryTheme: "garden", secondaryThemes: [], sentiment: .positive,
                                    sentimentScore: 0.5, emotionalTone: "calm", energyLevel: .low, noteType: .idea, actionability: .someday)
        let n = Note(id: 3, title: "T", content: "C", createdAt: now, source: .drafts, sourceUuid: "u", contentHash: "h", tags: ["a"], status: .done,
                     attempts: 1, analysis: analysis, processedAt: now, processedBy: "m", embeddingModel: "e", threadId: 9, threadName: "Garden")
        let json = String(decoding: try SeleneJSON.encode(n), as: UTF8.self)
        #expect(json.contains(#""primaryTheme":"garden""#) && json.contains(#""createdAt":"2026-11-25T10:00:00.000Z""#) && json.contains(#""threadId":9"#))
        #expect(try SeleneJSON.decode(Note.self, from: Data(json.utf8)) == n)
        let bare = Note(id: 1, title: nil, content: "# Heading\nbody", createdAt: now, source: .web, contentHash: "h")
        #expect(try SeleneJSON.decode(Note.self, from: SeleneJSON.encode(bare)) == bare && bare.displayTitle == "Heading")
    }

    @Test("Captures are checked and tidied")
    func capture() throws {
        let tidy = try CaptureInput(content: "a\r\nb", title: "  T  ", tags: [" #idea ", "Idea", "x"], sourceUuid: "6F9619FF-8B86-D011-B42D-00C04FC964FF", source: .drafts).validated()
        #expect(tidy.content == "a\nb" && tidy.title == "T" && tidy.tags == ["idea", "x"] && tidy.sourceUuid == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(throws: NoteTooLarge.self) { try CaptureInput(content: String(repeating: "é", count: 600_000), source: .web).validated() }
        #expect { try CaptureInput(content: " ", title: String(repeating: "t", count: 501), tags: [""], source: .web).validated() } throws: {
            ($0 as? FieldErrors)?.fields.keys.sorted() == ["content", "tags[0]", "title"]
        }
        #expect(SeleneText.problem("e\u{301}", max: 1, lineBreaks: false) != nil)
        #expect(try DeviceRequest(token: "ABCDEF0123456789").validated() == DeviceRequest(token: "abcdef0123456789", platform: .ios))
    }

    @Test("Server addresses as people type them")
    func addresses() {
        #expect(ServerSettings.parseURL("my-mac.local:5678")?.absoluteString == "http://my-mac.local:5678")
        #expect(ServerSettings.parseURL(" https://selene.example.ts.net/ ")?.absoluteString == "https://selene.example.ts.net")
        #expect(ServerSettings.parseURL("ftp://x") == nil && ServerSettings.parseURL("") == nil && ServerSettings.parseURL("http://") == nil)
    }

    @Test("The file credential store keeps the token readable by its owner only")
    func credentials() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("selene-cred-\(UUID())/server.json").path
        let store = FileCredentialStore(path: path)
        #expect(try store.load() == nil)
        let settings = ServerSettings(url: URL(string: "http://127.0.0.1:5678")!, token: "secret")
        try store.save(settings)
        #expect(try store.load() == settings)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try store.clear()
        #expect(try store.load() == nil)
        try FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    @Test("Text tokens, momentum, actions")
    func smallLogic() {
        #expect(TextTokens.searchTerms("The garden's TOMATOES, and the garden!") == ["garden", "tomatoes"])
        #expect(Momentum.score(noteDates: [now, now.addingTimeInterval(-7 * 86_400)], now: now, halfLife: 7 * 86_400) == 1.5)
        #expect(Momentum.status(lastActivity: now.addingTimeInterval(-61 * 86_400), now: now, dormantAfter: 14 * 86_400, archiveAfter: 60 * 86_400) == .archived)
        #expect(ActionExtractor.actions(in: "- [ ] buy seeds\nTODO: call Ana\nI need to fix the tap. Nice day.\n- [x] done") == ["Buy seeds", "Call Ana", "Fix the tap"])
    }

    @Test("Stems on bytes are the stems by characters; words of any script are letters and digits")
    func stems() {
        let words = ["moving", "moved", "moves", "studies", "studied", "running", "happily", "surprisingly", "reportedly", "paintings",
                     "painting", "ties", "lies", "ceded", "cakes", "bus", "glass", "balls", "tree", "sees", "hopped", "fizz", "buzzing",
                     "a", "is", "eye", "ing", "sing", "kings", "Rings", "FEELINGS", "recommendation", "2024s", "x1s", "queued"]
        for word in words {
            #expect(TextTokens.stem(word) == TextTokens.characterStem(word), "\(word)")
        }
        #expect(TextTokens.stem("moving") == "mov" && TextTokens.stem("studies") == "study" && TextTokens.stem("running") == "run")
        #expect(TextTokens.stem("Cafés") == "café" && TextTokens.stem("naïvely") == "naïv")
        #expect(TextTokens.words("Zoë's 3 café-visits, 東京!") == ["zoë", "s", "3", "café", "visits", "東京"])
        // Matching on bytes finds what matching by characters finds: stems, a longer word a term
        // of five letters begins, capitals, digits, punctuation between words, all found early.
        let texts = ["[03/03/2024, 19:42] Priya: the interviews went well, RECOMMENDATION letters done",
                     "Maya (7:42 pm on 3 March, 2024): moved the sofa bed; studied for 2024's exam",
                     "recommend", "", "   ", "running-runner ran", "Kings and queens — queued"]
        let termLists = [["interview", "recommend", "letter"], ["moving", "sofa", "study", "2024"], ["recommendation"], ["run"],
                         ["king", "queue", "missing"], [], ["café"]]
        for text in texts {
            for terms in termLists {
                #expect(TextTokens.asciiMatching(terms, in: text) == TextTokens.characterMatching(terms, in: text), "\(terms) in \(text)")
            }
        }
        #expect(TextTokens.matching(["interview", "recommend", "letter", "exam"], in: texts[0]) == ["interview", "recommend", "letter"])
        #expect(TextTokens.matching(["café", "visit"], in: "Zoë's café-visits") == ["café", "visit"])
    }
}
