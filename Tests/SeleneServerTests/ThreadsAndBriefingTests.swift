import Foundation
import OllamaStub
import SeleneShared
import ServerCommon
@testable import SeleneServer
import Testing
import VaporTesting

@Suite("Threads (detection, momentum, status, tasks) and the briefing")
struct ThreadsAndBriefingTests {
    static let garden = [
        "Garden plan: tomatoes in the raised garden bed, compost the garden soil",
        "Garden soil needs compost before the tomatoes go in the garden bed",
        "Tomatoes and compost: the garden bed soil is ready in the garden",
    ]

    final class Events: @unchecked Sendable {
        let lock = NSLock()
        var seen: [SeleneEvent] = []
        func add(_ e: SeleneEvent) { lock.withLock { seen.append(e) } }
        var all: [SeleneEvent] { lock.withLock { seen } }
    }

    @Test("Three similar notes start a thread the LLM names; a fourth joins; a stranger stays out; tasks from actionable notes")
    func detection() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let events = Events()
                app.selene.events.listen { events.add($0) }
                let first = try await app.note(Self.garden[0])
                try await app.process()
                #expect(try await app.call(.GET, "/api/threads", as: ThreadList.self).count == 0)
                try await app.note(Self.garden[1])
                try await app.note("Quarterly tax forms and receipts")
                try await app.process()
                #expect(try await app.call(.GET, "/api/threads", as: ThreadList.self).count == 0)
                clock.advance(by: 3600)
                try await app.note(Self.garden[2])
                try await app.process()
                let threads: ThreadList = try await app.call(.GET, "/api/threads")
                #expect(threads.count == 1)
                let thread = try #require(threads.threads.first)
                #expect(thread.name == "Garden Tomato" && thread.noteCount == 3 && thread.status == .active)
                #expect(thread.summary.contains("garden"))
                #expect(events.all.contains { if case .threadDetected(let t) = $0 { t.id == thread.id } else { false } })

                clock.advance(by: 3600)
                let task = try await app.note("I need to buy compost for the garden bed and tomatoes. Remember to water the garden.")
                try await app.process()
                let detail: ThreadDetail = try await app.call(.GET, "/api/threads/\(thread.id)")
                #expect(detail.thread.noteCount == 4 && detail.notes.map(\.id).contains(task.id))
                #expect(detail.notes.allSatisfy { $0.threadId == thread.id && $0.threadName == thread.name })
                let tasks: TaskList = try await app.call(.GET, "/api/threads/\(thread.id)/tasks")
                #expect(tasks.threadId == thread.id)
                #expect(tasks.tasks.map(\.title).sorted() == ["Buy compost for the garden bed and tomatoes", "Water the garden"])
                #expect(tasks.tasks.allSatisfy { $0.status == .open && $0.sourceNoteId == task.id })
                let done: ThreadTask = try await app.call(.PATCH, "/api/tasks/\(tasks.tasks[0].id)", json: TaskUpdate(status: .done))
                #expect(done.status == .done && done.completedAt == clock.now)

                let assignments: ThreadAssignments = try await app.call(.POST, "/api/notes/thread-assignments",
                                                                        json: ThreadAssignmentsRequest(noteIds: [first.id, task.id, 999]))
                #expect(assignments.assignments.map(\.noteId) == [first.id, task.id])
                #expect(assignments.assignments.allSatisfy { $0.threadId == thread.id && $0.threadName == "Garden Tomato" })
                let found: ThreadDetail = try await app.call(.GET, "/api/threads/search/TOMA")
                #expect(try await app.call(.GET, "/api/threads/search/garden%20tom", as: ThreadDetail.self).thread.id == thread.id)
                #expect(found.thread.id == thread.id && found.notes.count == 4)
                #expect(try await app.send(.GET, "/api/threads/search/zebra").status == .notFound)
                // What is typed is matched as it is: "%" and "_" are characters, not patterns.
                for typed in ["%25", "_", "%25%25", "g_rden"] {
                    #expect(try await app.send(.GET, "/api/threads/search/\(typed)").status == .notFound, "\(typed)")
                }
                #expect(try await app.send(.GET, "/api/threads/999").status == .notFound)
                #expect(try await app.send(.GET, "/api/threads/999/tasks").status == .notFound)
                #expect(try await app.send(.GET, "/api/threads?status=sleeping").status == .badRequest)
                // Related notes in the same thread are labelled so.
                let related: RelatedNotes = try await app.call(.GET, "/api/notes/\(first.id)/related")
                #expect(related.results.contains { $0.relationshipType == .association || $0.relationshipType == .thread })
            }
        }
    }

    @Test("Momentum: Σ 2^(−age/half-life) with a fixed clock; active → dormant → archived; a new note revives")
    func momentum() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.threads.halfLife = 86_400 }) { app, clock in
                let start = clock.now
                for (i, text) in Self.garden.enumerated() {
                    clock.set(start.addingTimeInterval(Double(i) * 86_400))
                    try await app.note(text)
                }
                try await app.process()
                let now = start.addingTimeInterval(2 * 86_400)
                var thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(abs(thread.momentum - (1 + 0.5 + 0.25)) < 1e-9, "\(thread.momentum)")
                #expect(thread.lastActivityAt == now)
                #expect(Momentum.score(noteDates: [now, now.addingTimeInterval(-86_400)], now: now, halfLife: 86_400) == 1.5)
                #expect(Momentum.score(noteDates: [now.addingTimeInterval(3600)], now: now, halfLife: 86_400) == 1)

                let threads = ThreadService(db: app.db, services: app.selene, logger: app.logger)
                clock.set(now.addingTimeInterval(13 * 86_400))
                try await threads.refresh(now: clock.now)
                thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(thread.status == .active && abs(thread.momentum - 1.75 * pow(2, -13)) < 1e-9)
                clock.set(now.addingTimeInterval(15 * 86_400))
                try await threads.refresh(now: clock.now)
                #expect(try await app.call(.GET, "/api/threads", as: ThreadList.self).count == 0)
                #expect(try await app.call(.GET, "/api/threads?status=dormant", as: ThreadList.self).threads.map(\.id) == [thread.id])
                clock.set(now.addingTimeInterval(61 * 86_400))
                try await threads.refresh(now: clock.now)
                #expect(try await app.call(.GET, "/api/threads?status=archived", as: ThreadList.self).threads.map(\.id) == [thread.id])
                try await app.note("More garden compost for the tomatoes in the garden bed soil")
                try await app.process()
                let revived = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(revived.id == thread.id && revived.status == .active && revived.noteCount == 4 && revived.lastActivityAt == clock.now)
                #expect(Momentum.status(lastActivity: now, now: now.addingTimeInterval(14 * 86_400), dormantAfter: 14 * 86_400, archiveAfter: 60 * 86_400) == .dormant)
            }
        }
    }

    @Test("Threads are ordered by momentum, then last activity")
    func ordering() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                for text in Self.garden { try await app.note(text) }
                clock.advance(by: 86_400)
                let bread = ["Sourdough starter and bread flour, sourdough loaf", "Bread flour for the sourdough loaf and starter",
                             "Sourdough bread: starter, flour, loaf", "Starter fed; sourdough loaf with bread flour"]
                for text in bread { try await app.note(text) }
                try await app.process()
                let threads: ThreadList = try await app.call(.GET, "/api/threads")
                #expect(threads.threads.count == 2)
                #expect(threads.threads.first?.noteCount == 4 && threads.threads.map(\.momentum) == threads.threads.map(\.momentum).sorted(by: >))
                #expect(try await app.call(.GET, "/api/threads?limit=1", as: ThreadList.self).count == 1)
            }
        }
    }

    @Test("While the LLM is unreachable a new thread waits for the maintenance pass; an unusable naming answer names it from its notes")
    func namingFallback() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                for text in Self.garden.prefix(2) { try await app.note(text) }
                try await app.process()
                try await app.note(Self.garden[2])
                // The third note's analysis and embedding get through; the naming doesn't.
                stub.setFault(.serverError, after: 2)
                #expect(try await app.process().done == 1)
                #expect(try await app.call(.GET, "/api/threads", as: ThreadList.self).count == 0)
                stub.setFault(.none)
                let threads = ThreadService(db: app.db, services: app.selene, logger: app.logger)
                #expect(try await threads.placeUnthreaded() == 3)
                let thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(thread.name == "Garden Tomato" && thread.noteCount == 3)
            }
        }
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                for text in Self.garden.prefix(2) { try await app.note(text) }
                try await app.process()
                try await app.note(Self.garden[2])
                stub.setFault(.invalidJSON, after: 2)
                #expect(try await app.process().done == 1)
                let thread = try #require(try await app.call(.GET, "/api/threads", as: ThreadList.self).threads.first)
                #expect(thread.name == "Garden" && thread.summary.hasPrefix("Notes about garden") && thread.noteCount == 3)
            }
        }
    }

    @Test("Briefing by the LLM: new notes, top threads, links across threads, open tasks; once a day unless asked again")
    func briefingWithLLM() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let events = Events()
                app.selene.events.listen { events.add($0) }
                for text in Self.garden { try await app.note(text) }
                try await app.note("I need to order compost for the garden bed tomatoes and garden soil")
                try await app.process()
                let briefing: Briefing = try await app.call(.GET, "/api/briefing")
                #expect(briefing.author == .llm && briefing.text.hasPrefix("Good morning"))
                #expect(briefing.date == WireDate.day(of: clock.now))
                #expect(briefing.notes.count == 4 && briefing.threads.count == 1 && !briefing.tasks.isEmpty)
                #expect(events.all.contains { if case .briefingReady(let b) = $0 { b.id == briefing.id } else { false } })
                let again: Briefing = try await app.call(.GET, "/api/briefing")
                #expect(again.id == briefing.id && again.text == briefing.text && again.notes.map(\.id) == briefing.notes.map(\.id))
                #expect(stub.requests.filter { $0.path == "/api/generate" }.count == 1)
                // Tomorrow: only what is new since.
                clock.advance(by: 86_400)
                let fresh = try await app.note("A new garden idea: a compost bin by the garden bed")
                try await app.process()
                let tomorrow: Briefing = try await app.call(.GET, "/api/briefing")
                #expect(tomorrow.id != briefing.id && tomorrow.notes.map(\.id) == [fresh.id])
                let forced = try await app.send(.POST, "/api/briefing")
                #expect(try forced.status == .created && forced.decode(Briefing.self).id == tomorrow.id)
                // A story of the model's own, about none of the notes: the briefing is written from them instead.
                stub.setFault(.invented, times: 1)
                let invented = try await app.send(.POST, "/api/briefing")
                let written = try invented.decode(Briefing.self)
                #expect(written.author == .extractive && written.text.contains("1 new note") && !written.text.contains("kitchen"), "\(written.text)")
                #expect(stub.requests.filter { $0.path == "/api/generate" }.count == 4, "the model was asked")
            }
        }
    }

    @Test("Briefing cards lead to a conversation: \"Ask about this\" opens a chat that starts from the card's notes with its question; the answer cites them; tasks tick off on the briefing")
    func briefingCards() async throws {
        try await withStub { stub in
            try await withSelene(tokens: [testToken], stub: stub) { app, _ in
                for text in Self.garden { try await app.note(text, token: testToken) }
                try await app.note("I need to order compost for the garden bed tomatoes and garden soil", token: testToken)
                try await app.process()
                let (cookie, csrf) = try await SafeDefaultTests.browserCookies(app, token: testToken)
                let form = ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"]
                let page = try await app.send(.GET, "/app/briefing", headers: ["Cookie": cookie]).text
                let briefing: Briefing = try await app.call(.GET, "/api/briefing", token: testToken)
                let cards = BriefingCards.cards(briefing, resurfaced: [])
                #expect(cards.contains { $0.kind == .thread } && cards.contains { $0.kind == .task }, "\(cards)")
                for card in cards { #expect(page.contains("href=\"/app/chat/about/\(card.number)\""), "card \(card.number)") }

                for card in cards {
                    // The card's conversation: its notes listed and given with the question, the question in the box.
                    let about = try await app.send(.GET, "/app/chat/about/\(card.number)", headers: ["Cookie": cookie])
                    let seeded = try await BriefingCards.seed(card, data: ServerDataProvider(app: app))
                    let context = seeded.map(String.init).joined(separator: ",")
                    #expect(about.status == .ok && about.text.contains(escape(card.question)) && about.text.contains("About: \(escape(card.title))"))
                    #expect(!seeded.isEmpty && about.text.contains("name=\"context\" value=\"\(context)\""), "\(card.kind): \(seeded)")
                    let session = UUID()
                    let question = card.question.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let asked = try await app.send(.POST, "/app/chat/\(session.uuidString.lowercased())/ask",
                                                   raw: "question=\(question)&context=\(context)&_csrf=\(csrf)", headers: HTTPHeaders(form.map { ($0, $1) }))
                    #expect(asked.status == .ok && asked.text.contains("name=\"context\" value=\"\(context)\""), "follow-ups keep the card's notes")
                    let prompt = try #require(stub.requests.last { $0.path == "/api/chat" && !$0.hasFormat }?.prompt)
                    for id in seeded { #expect(prompt.contains(try await ServerDataProvider(app: app).note(id: id).content)) }
                    let answer = try #require(try await ConversationStore(db: app.db).session(session)?.messages.last)
                    let cited = answer.citedNoteIds ?? []
                    #expect(answer.role == .assistant && !cited.isEmpty && cited.allSatisfy(seeded.contains), "\(cited) of \(seeded)")
                }
                #expect(try await app.send(.GET, "/app/chat/about/\(cards.count + 1)", headers: ["Cookie": cookie]).status == .notFound)

                // A task ticks off on the briefing and stays there, ticked, linked to its thread.
                let task = try #require(cards.first { $0.kind == .task }?.taskId)
                let tick = try await app.send(.POST, "/app/tasks/\(task)", raw: "status=done&back=briefing&_csrf=\(csrf)", headers: HTTPHeaders(form.map { ($0, $1) }))
                #expect(tick.status == .seeOther && tick.headers.first(name: .location) == "/app/briefing")
                let after = try await app.send(.GET, "/app/briefing", headers: ["Cookie": cookie]).text
                #expect(after.contains("class=\"row done\"") && after.contains("href=\"/app/threads/"))
            }
        }
    }

    @Test("Without an LLM the briefing is written from the same data")
    func briefingExtractive() async throws {
        try await withSelene { app, _ in
            try await app.note("First thought of the day")
            try await app.note("Second thought")
            let briefing: Briefing = try await app.call(.GET, "/api/briefing")
            #expect(briefing.author == .extractive)
            #expect(briefing.text.contains("2 new notes") && briefing.text.contains("Second thought"))
        }
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                try await app.note("Only one")
                stub.setFault(.serverError)
                let briefing: Briefing = try await app.call(.GET, "/api/briefing")
                #expect(briefing.author == .extractive && briefing.text.contains("1 new note"))
            }
        }
    }

    @Test("Associations across threads: distinct pairs in different threads, one of them recent")
    func associations() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.processing.associationThreshold = 0.1 }) { app, clock in
                for text in Self.garden { try await app.note(text) }
                let kitchen = ["Kitchen herbs: basil, tomatoes and compost pots in the kitchen window", "Kitchen window herbs, basil pots, tomatoes, kitchen compost",
                               "Basil and tomatoes in kitchen pots by the window with compost"]
                for text in kitchen { try await app.note(text) }
                try await app.process()
                let threads = try await app.call(.GET, "/api/threads", as: ThreadList.self)
                #expect(threads.count == 2)
                let list: AssociationList = try await app.call(.GET, "/api/briefing/associations?minSimilarity=0.1")
                #expect(!list.associations.isEmpty)
                for a in list.associations {
                    #expect(a.threadA != nil && a.threadB != nil && a.threadA?.id != a.threadB?.id)
                    #expect(a.similarity >= 0.1)
                }
                let pairs = list.associations.map { Set([$0.noteA.id, $0.noteB.id]) }
                #expect(Set(pairs).count == pairs.count)
                #expect(list.associations.map(\.similarity) == list.associations.map(\.similarity).sorted(by: >))
                #expect(try await app.call(.GET, "/api/briefing/associations?minSimilarity=0.1&limit=1", as: AssociationList.self).count == 1)
                clock.advance(by: 8 * 86_400)
                #expect(try await app.call(.GET, "/api/briefing/associations?minSimilarity=0.1", as: AssociationList.self).count == 0)
                #expect(try await app.call(.GET, "/api/briefing/associations?minSimilarity=0.1&recentDays=30", as: AssociationList.self).count == list.count)
                for bad in ["minSimilarity=2", "recentDays=0", "limit=0", "minSimilarity=x"] {
                    #expect(try await app.send(.GET, "/api/briefing/associations?\(bad)").status == .badRequest, "\(bad)")
                }
            }
        }
    }

    @Test("Several processes on one database: the day's scheduled briefing is written and announced once; thread maintenance goes to one holder at a time")
    func oneRunnerPerJob() async throws {
        try await withSelene { app, clock in
            let events = Events()
            app.selene.events.listen { events.add($0) }
            try await app.note("Planted tomatoes and basil in the raised bed")
            // Four processes wake at the briefing hour at once.
            let written = try await withThrowingTaskGroup(of: Bool.self) { group in
                for owner in ["a", "b", "c", "d"] {
                    group.addTask { try await BriefingService(db: app.db, services: app.selene, logger: app.logger).scheduled(owner: owner) }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(written.filter { $0 }.count == 1, "\(written)")
            #expect(try await BriefingModel.query(on: app.db).count() == 1)
            #expect(events.all.filter { if case .briefingReady = $0 { true } else { false } }.count == 1, "one push")
            // The next day is a new job.
            clock.advance(by: 86_400)
            #expect(try await BriefingService(db: app.db, services: app.selene, logger: app.logger).scheduled(owner: "b"))
            #expect(try await !BriefingService(db: app.db, services: app.selene, logger: app.logger).scheduled(owner: "a"))

            let lease = JobLease(db: app.db)
            let now = clock.now
            #expect(try await lease.claim("thread-maintenance", owner: "a", now: now, until: now.addingTimeInterval(540)))
            #expect(try await !lease.claim("thread-maintenance", owner: "b", now: now.addingTimeInterval(60), until: now.addingTimeInterval(600)))
            #expect(try await lease.claim("thread-maintenance", owner: "b", now: now.addingTimeInterval(541), until: now.addingTimeInterval(1081)))
            try await lease.release("thread-maintenance", owner: "b")
            #expect(try await lease.claim("thread-maintenance", owner: "a", now: now.addingTimeInterval(542), until: now.addingTimeInterval(1082)))
        }
    }

    @Test("The schedule: the next briefing at the configured hour (and minute) in the configured zone; a malformed time is refused")
    func schedule() async throws {
        try await withSelene(adjust: { $0.briefingHour = 7; $0.timeZone = TimeZone(identifier: "Europe/Berlin")! }) { app, _ in
            let service = BriefingService(db: app.db, services: app.selene, logger: app.logger)
            let at = WireDate.date(from: "2026-11-24T05:30:00Z")!
            #expect(service.nextRun(after: at) == WireDate.date(from: "2026-11-24T06:00:00Z"))
            #expect(service.nextRun(after: WireDate.date(from: "2026-11-24T06:00:00Z")!) == WireDate.date(from: "2026-11-25T06:00:00Z"))
            #expect(service.day(of: WireDate.date(from: "2026-11-24T23:30:00Z")!) == "2026-11-25")
        }
        // A time with minutes (SELENE_BRIEFING_HOUR=6:45).
        let quarter = try SeleneConfig.fromEnvironment(["SELENE_BRIEFING_HOUR": "6:45"])
        #expect(quarter.briefingHour == 6 && quarter.briefingMinute == 45)
        try await withSelene(adjust: { $0.briefingHour = 6; $0.briefingMinute = 45 }) { app, _ in
            let service = BriefingService(db: app.db, services: app.selene, logger: app.logger)
            #expect(service.nextRun(after: WireDate.date(from: "2026-11-24T06:30:00Z")!) == WireDate.date(from: "2026-11-24T06:45:00Z"))
            #expect(service.nextRun(after: WireDate.date(from: "2026-11-24T06:45:00Z")!) == WireDate.date(from: "2026-11-25T06:45:00Z"))
        }
        for bad in ["6:5", "6:60", "24:00", "6:", "6:30:00", "six"] {
            #expect(throws: SeleneConfigError.self, "\(bad)") { try SeleneConfig.fromEnvironment(["SELENE_BRIEFING_HOUR": bad]) }
        }
    }

    @Test("Thread and association thresholds: the measured defaults, settable, and refused outside (0, 1)")
    func thresholdSettings() throws {
        let defaults = try SeleneConfig.fromEnvironment([:])
        #expect(defaults.threads.joinThreshold == 0.40 && defaults.threads.seedThreshold == 0.40 && defaults.processing.associationThreshold == 0.35)
        let set = try SeleneConfig.fromEnvironment(["SELENE_THREAD_JOIN": "0.55", "SELENE_THREAD_SEED": "0.5", "SELENE_ASSOCIATION_THRESHOLD": "0.45"])
        #expect(set.threads.joinThreshold == 0.55 && set.threads.seedThreshold == 0.5 && set.processing.associationThreshold == 0.45)
        for bad in ["0", "1", "1.5", "-0.2", "high"] {
            #expect { try SeleneConfig.fromEnvironment(["SELENE_THREAD_JOIN": bad]) } throws: { "\($0)".contains("between 0 and 1") }
        }
    }
}
