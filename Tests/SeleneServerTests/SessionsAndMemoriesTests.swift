import Foundation
import SeleneShared
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Selene sessions, messages, memories and devices")
struct SessionsAndMemoriesTests {
    func session(_ title: String, at date: Date, messages: [String] = []) -> ChatSession {
        ChatSession(title: title, messages: messages.enumerated().map {
            ChatMessage(role: $0.offset % 2 == 0 ? .user : .assistant, content: $0.element, createdAt: date, citedNoteIds: $0.offset % 2 == 1 ? [1] : nil)
        }, createdAt: date, updatedAt: date)
    }

    @Test("A session is saved whole (insert or replace), listed by last update, pinned, deleted with its messages")
    func sessions() async throws {
        try await withSelene { app, clock in
            let a = session("Garden plans", at: clock.now, messages: ["What did I plant?", "Tomatoes [1]."])
            let created = try await app.send(.PUT, "/api/sessions/\(a.id)", json: a)
            #expect(try created.status == .created && created.decode(ChatSession.self) == a)
            clock.advance(by: 60)
            let b = session("Taxes", at: clock.now)
            #expect(try await app.send(.PUT, "/api/sessions/\(b.id)", json: b).status == .created)
            var list: SessionList = try await app.call(.GET, "/api/sessions")
            #expect(list.sessions.map(\.id) == [b.id, a.id])
            var changed = a
            changed.title = "Garden"
            changed.messages.append(ChatMessage(role: .user, content: "And beans?", createdAt: clock.now))
            changed.compressionState = .compressed
            changed.summary = "We talked about the garden."
            changed.compressedAt = clock.now
            changed.updatedAt = clock.now.addingTimeInterval(1)
            let replaced = try await app.send(.PUT, "/api/sessions/\(a.id.uuidString.lowercased())", json: changed)
            #expect(try replaced.status == .ok && replaced.decode(ChatSession.self) == changed)
            list = try await app.call(.GET, "/api/sessions")
            #expect(list.sessions.map(\.id) == [a.id, b.id] && list.sessions[0] == changed)
            // One session, whole; a cut-off answer keeps its mark.
            changed.messages.append(ChatMessage(role: .assistant, content: "Beans want", createdAt: clock.now, incomplete: true))
            #expect(try await app.send(.PUT, "/api/sessions/\(a.id)", json: changed).status == .ok)
            #expect(try await app.call(.GET, "/api/sessions/\(a.id)", as: ChatSession.self) == changed)
            #expect(try await app.send(.GET, "/api/sessions/\(UUID())").status == .notFound)
            #expect(try await app.send(.GET, "/api/sessions/nope").status == .badRequest)
            let pinned: ChatSession = try await app.call(.PATCH, "/api/sessions/\(b.id)/pin", json: PinRequest(isPinned: true))
            #expect(pinned.isPinned && pinned.title == "Taxes")
            // Messages: latest N, oldest first.
            for i in 0..<5 {
                clock.advance(by: 1)
                _ = try await app.call(.POST, "/api/sessions/\(a.id)/messages", json: NewMessage(role: i % 2 == 0 ? .user : .assistant, content: "m\(i)"), as: ConversationMessage.self)
            }
            _ = try await app.call(.POST, "/api/sessions/\(b.id)/messages", json: NewMessage(role: .user, content: "other"), as: ConversationMessage.self)
            let last3: MessageList = try await app.call(.GET, "/api/sessions/\(a.id)/messages?limit=3")
            #expect(last3.messages.map(\.content) == ["m2", "m3", "m4"])
            #expect(try await app.call(.GET, "/api/sessions/\(a.id)/messages", as: MessageList.self).count == 5)
            let all: MessageList = try await app.call(.GET, "/api/messages?limit=2")
            #expect(all.messages.map(\.content) == ["m4", "other"])
            #expect(try await app.send(.DELETE, "/api/sessions/\(a.id)").status == .noContent)
            #expect(try await app.send(.DELETE, "/api/sessions/\(a.id)").status == .notFound)
            #expect(try await app.send(.GET, "/api/sessions/\(a.id)/messages").status == .notFound)
            #expect(try await app.call(.GET, "/api/messages", as: MessageList.self).messages.map(\.content) == ["other"])
        }
    }

    @Test("Session errors: bad ids, a body for another id, unknown enum values, unknown sessions")
    func sessionErrors() async throws {
        try await withSelene { app, clock in
            let s = session("x", at: clock.now)
            #expect(try await app.send(.PUT, "/api/sessions/not-a-uuid", json: s).status == .badRequest)
            let other = try await app.send(.PUT, "/api/sessions/\(UUID())", json: s)
            #expect(other.status == .badRequest && other.error?.fields?["id"] != nil)
            var raw = String(decoding: try SeleneJSON.encode(s), as: UTF8.self)
            raw = raw.replacingOccurrences(of: "\"full\"", with: "\"squeezed\"")
            let badEnum = try await app.send(.PUT, "/api/sessions/\(s.id)", raw: raw)
            #expect(badEnum.status == .badRequest && badEnum.error?.fields?["compressionState"] != nil)
            var blank = s
            blank.title = "  "
            #expect(try await app.send(.PUT, "/api/sessions/\(s.id)", json: blank).error?.fields?["title"] != nil)
            var threaded = s
            threaded.threadId = 42
            let noThread = try await app.send(.PUT, "/api/sessions/\(s.id)", json: threaded)
            #expect(noThread.status == .conflict && noThread.error?.fields?["threadId"] != nil)
            #expect(try await app.call(.GET, "/api/sessions", as: SessionList.self).count == 0)
            #expect(try await app.send(.PATCH, "/api/sessions/\(s.id)/pin", json: PinRequest(isPinned: true)).status == .notFound)
            #expect(try await app.send(.POST, "/api/sessions/\(s.id)/messages", json: NewMessage(role: .user, content: "x")).status == .notFound)
            #expect(try await app.send(.PATCH, "/api/sessions/\(s.id)/pin", raw: #"{"isPinned":"yes"}"#).error?.fields?["isPinned"] != nil)
        }
    }

    @Test("Memories: by confidence then last access; partial updates; the embedding never touches the content; touch")
    func memories() async throws {
        try await withSelene { app, clock in
            let s = session("chat", at: clock.now)
            _ = try await app.call(.PUT, "/api/sessions/\(s.id)", json: s, as: ChatSession.self)
            let low: CreatedId = try await app.call(.POST, "/api/memories", json: NewMemory(content: "Likes tea", type: .preference, confidence: 0.4))
            clock.advance(by: 10)
            let high: CreatedId = try await app.call(.POST, "/api/memories", json: NewMemory(content: "Lives in Lisbon", type: .fact, confidence: 0.9,
                                                                                         sourceSessionId: s.id, embedding: [0.1, 0.2, 0.3]))
            clock.advance(by: 10)
            let tie: CreatedId = try await app.call(.POST, "/api/memories", json: NewMemory(content: "Runs on Sundays", type: .pattern, confidence: 0.4))
            var list: MemoryList = try await app.call(.GET, "/api/memories")
            #expect(list.memories.map(\.id) == [high.id, tie.id, low.id])
            #expect(list.memories.allSatisfy { $0.embedding == nil })
            clock.advance(by: 10)
            let touched: Touched = try await app.call(.POST, "/api/memories/touch", json: TouchRequest(ids: [low.id, 999]))
            #expect(touched.count == 1)
            list = try await app.call(.GET, "/api/memories?includeEmbeddings=true")
            #expect(list.memories.map(\.id) == [high.id, low.id, tie.id])
            #expect(list.memories[0].embedding == [0.1, 0.2, 0.3] && list.memories[0].sourceSessionId == s.id)
            #expect(list.memories[1].lastAccessedAt == clock.now)
            let embedded: Memory = try await app.call(.PUT, "/api/memories/\(low.id)", json: MemoryUpdate(embedding: [1, 0]))
            #expect(embedded.content == "Likes tea" && embedded.embedding == [1, 0] && embedded.confidence == 0.4)
            let changed: Memory = try await app.call(.PUT, "/api/memories/\(low.id)", json: MemoryUpdate(content: "Loves green tea", confidence: 0.7))
            #expect(changed.content == "Loves green tea" && changed.embedding == [1, 0] && changed.type == .preference)
            #expect(try await app.send(.PUT, "/api/memories/999", json: MemoryUpdate(confidence: 0.5)).status == .notFound)
            #expect(try await app.send(.DELETE, "/api/memories/\(tie.id)").status == .noContent)
            #expect(try await app.send(.GET, "/api/memories/\(tie.id)").status == .notFound)
            // Deleting the session keeps the memory it came from.
            #expect(try await app.send(.DELETE, "/api/sessions/\(s.id)").status == .noContent)
            let kept: Memory = try await app.call(.GET, "/api/memories/\(high.id)")
            #expect(kept.content == "Lives in Lisbon" && kept.sourceSessionId == nil)
        }
    }

    @Test("Memories by hand on the web: the Memories page's form (refused when empty, merged when said again, kept with the model down); \"Remember this\" fills it with an answer's words")
    func memoriesOnTheWeb() async throws {
        try await withSelene(tokens: [testToken]) { app, clock in
            let (cookie, csrf) = try await SafeDefaultTests.browserCookies(app, token: testToken)
            func post(_ body: String) async throws -> TestingHTTPResponse {
                try await app.send(.POST, "/app/memories", raw: body + "&_csrf=\(csrf)",
                                   headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            }
            let store = ConversationStore(db: app.db)
            let added = try await post("content=I%27m+vegetarian&type=preference")
            #expect(added.status == .seeOther && added.headers.first(name: .location)?.contains("Remembered") == true, "\(added.headers)")
            var kept = try await store.memories(limit: 50, includeEmbeddings: true)
            // No model here: kept without an embedding; recall finds it by its words meanwhile.
            #expect(kept.map(\.content) == ["I'm vegetarian"] && kept[0].type == .preference && kept[0].confidence == 1 && kept[0].embedding == nil)
            // Said again in other case and punctuation: the same memory, in the newer words and kind.
            let again = try await post("content=I%27m+Vegetarian.&type=fact")
            #expect(again.headers.first(name: .location)?.contains("updated") == true)
            kept = try await store.memories(limit: 50, includeEmbeddings: false)
            #expect(kept.map(\.content) == ["I'm Vegetarian."] && kept[0].type == .fact)
            // Nothing to remember: the form again, with the error, and nothing stored.
            let empty = try await post("content=+++&type=fact")
            #expect(empty.status == .badRequest && empty.text.contains("role=\"alert\""))
            #expect(try await store.memories(limit: 50, includeEmbeddings: false).count == 1)
            // Without the form's token, nothing either.
            let forged = try await app.send(.POST, "/app/memories", raw: "content=x&_csrf=forged",
                                            headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
            #expect(forged.status == .forbidden)

            // "Remember this" on a whole answer: the form filled with its words, citation numbers left out.
            let chat = session("Dinner", at: clock.now, messages: ["What do I cook on Fridays?", "Lentil soup on Fridays [1], with bread [1, 2]."])
            #expect(try await app.send(.PUT, "/api/sessions/\(chat.id)", token: testToken, json: chat).status == .created)
            let sid = chat.id.uuidString.lowercased(), mid = chat.messages[1].id.uuidString.lowercased()
            let page = try await app.send(.GET, "/app/chat/\(sid)", headers: ["Cookie": cookie]).text
            #expect(page.contains("/app/memories?message=\(mid)&amp;session=\(sid)") && page.contains("Remember this"), "\(page)")
            // When: each message its hour and minute, the conversation its day (UTC in the page; selene.js shows the reader's zone).
            let stamp = WireDate.string(from: clock.now)
            let hour = { () -> String in
                var calendar = Calendar(identifier: .gregorian); calendar.timeZone = TimeZone(identifier: "UTC")!
                let parts = calendar.dateComponents([.hour, .minute], from: clock.now)
                return String(format: "%02d:%02d UTC", parts.hour!, parts.minute!)
            }()
            let clockTag = "<time class=\"when\" datetime=\"\(stamp)\" data-local=\"time\">\(hour)</time>"
            #expect(page.components(separatedBy: clockTag).count - 1 == 2, "both messages say when: \(page)")
            #expect(page.contains("<time class=\"when\" datetime=\"\(stamp)\" data-local=\"date\">"), "the conversation says its day")
            let form = try await app.send(.GET, "/app/memories?message=\(mid)&session=\(sid)", headers: ["Cookie": cookie]).text
            #expect(form.contains(">Lentil soup on Fridays, with bread.</textarea>") && form.contains("name=\"session\" value=\"\(sid)\""), "\(form)")
            #expect(try await post("content=Lentil+soup+on+Fridays&type=pattern&session=\(sid)").status == .seeOther)
            #expect(try await store.memories(limit: 50, includeEmbeddings: false).contains { $0.sourceSessionId == chat.id && $0.type == .pattern })
        }
    }

    @Test("Memory errors: out-of-range confidence, unknown type, bad embeddings, empty updates, unknown session")
    func memoryErrors() async throws {
        try await withSelene { app, _ in
            let bad: [(String, String)] = [
                (#"{"content":"x","type":"fact","confidence":1.5}"#, "confidence"),
                (#"{"content":"x","type":"rumour","confidence":0.5}"#, "type"),
                (#"{"content":" ","type":"fact","confidence":0.5}"#, "content"),
                (#"{"content":"x","type":"fact","confidence":0.5,"embedding":[]}"#, "embedding"),
                (#"{"content":"x","type":"fact","confidence":0.5,"embedding":[1e300]}"#, "embedding"),
                (#"{"content":"x","type":"fact"}"#, "confidence"),
            ]
            for (body, field) in bad {
                let res = try await app.send(.POST, "/api/memories", raw: body)
                #expect(res.status == .badRequest, "\(body)")
                #expect(res.error?.fields?[field] != nil, "\(body): \(res.text)")
            }
            let noSession = try await app.send(.POST, "/api/memories", json: NewMemory(content: "x", type: .fact, confidence: 0.5, sourceSessionId: UUID()))
            #expect(noSession.status == .conflict && noSession.error?.fields?["sourceSessionId"] != nil)
            #expect(try await app.call(.GET, "/api/memories", as: MemoryList.self).count == 0)
            let id: CreatedId = try await app.call(.POST, "/api/memories", json: NewMemory(content: "x", type: .fact, confidence: 0.5))
            #expect(try await app.send(.PUT, "/api/memories/\(id.id)", raw: "{}").status == .badRequest)
            #expect(try await app.send(.POST, "/api/memories/touch", json: TouchRequest(ids: [])).status == .badRequest)
            #expect(try await app.send(.GET, "/api/memories?includeEmbeddings=maybe").status == .badRequest)
        }
    }

    @Test("Devices: register (again refreshes last seen), list, unregister; tokens are hex")
    func devices() async throws {
        try await withSelene { app, clock in
            let token = String(repeating: "ab12", count: 16)
            let first = try await app.send(.POST, "/api/devices/register", json: DeviceRequest(token: token.uppercased()))
            #expect(first.status == .created)
            let device = try first.decode(Device.self)
            #expect(device.token == token && device.platform == .ios)
            clock.advance(by: 3600)
            let again = try await app.send(.POST, "/api/devices/register", json: DeviceRequest(token: token, platform: .ios))
            #expect(again.status == .ok)
            let refreshed = try again.decode(Device.self)
            #expect(refreshed.id == device.id && refreshed.lastSeenAt == clock.now && refreshed.createdAt == device.createdAt)
            #expect(try await app.call(.GET, "/api/devices", as: DeviceList.self).count == 1)
            for bad in ["zz", "", "12 34", String(repeating: "g", count: 64)] {
                #expect(try await app.send(.POST, "/api/devices/register", json: DeviceRequest(token: bad)).error?.fields?["token"] != nil, "\(bad)")
            }
            #expect(try await app.send(.POST, "/api/devices/register", raw: #"{"token":"abcdefabcdefabcdef","platform":"android"}"#).status == .badRequest)
            #expect(try await app.call(.POST, "/api/devices/unregister", json: DeviceRequest(token: token), as: Unregistered.self).removed)
            #expect(!(try await app.call(.POST, "/api/devices/unregister", json: DeviceRequest(token: token), as: Unregistered.self).removed))
            #expect(try await app.call(.GET, "/api/devices", as: DeviceList.self).count == 0)
        }
    }
}
