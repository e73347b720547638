import Foundation
import OllamaStub
import SeleneShared
@testable import SeleneServer
import SQLKit
import Testing
import VaporTesting

@Suite("The processing queue's life: down, retry, restart, failure reason, two workers")
struct QueueTests {
    @Test("A captured note is processed: analysis, embedding with its model and dimension, associations")
    func processes() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let a = try await app.note("Tomatoes and basil in the garden bed, garden compost")
                let b = try await app.note("The garden bed needs compost for the tomatoes")
                try await app.note("Quarterly tax papers")
                let summary = try await app.process()
                #expect(summary.claimed == 3 && summary.done == 3 && summary.outage == nil)
                let note: Note = try await app.call(.GET, "/api/notes/\(a.id)")
                #expect(note.status == .done && note.attempts == 1 && note.lastError == nil)
                #expect(note.analysis?.primaryTheme == "garden" && note.processedBy == OllamaStub.chatModel && note.processedAt == clock.now)
                #expect(note.embeddingModel == OllamaStub.embeddingModel)
                let row = try #require(try await (app.db as! any SQLDatabase).raw("SELECT model, dimension, vector FROM note_embeddings WHERE note_id = \(bind: Int(a.id))").first())
                #expect(try row.decode(column: "dimension", as: Int.self) == OllamaStub.dimension)
                #expect(try row.decode(column: "vector", as: Data.self).count == OllamaStub.dimension * 4)
                let pairs = try await (app.db as! any SQLDatabase).raw("SELECT note_a_id, note_b_id, similarity FROM note_associations").all()
                #expect(pairs.count == 1)
                #expect(try pairs.first?.decode(column: "note_a_id", as: Int.self) == Int(a.id))
                #expect(try pairs.first?.decode(column: "note_b_id", as: Int.self) == Int(b.id))
                // Analysis and embedding requests: one each per note, never twice.
                #expect(stub.requests.filter { $0.hasFormat }.count == 3 && stub.requests.filter { $0.path == "/api/embed" }.count == 3)
                #expect(try await app.process().claimed == 0)
            }
        }
    }

    /// Settings for a model server that was listening and has stopped, and its port, held (`PortHold`)
    /// until the test starts it again there.
    static func stoppedStub() async throws -> (port: PortHold, settings: SeleneConfig.LLM) {
        let stub = try await OllamaStub.start()
        await stub.stop()
        return (try PortHold(stub.port), SeleneConfig.LLM(baseURL: "http://127.0.0.1:\(stub.port)", chatModel: OllamaStub.chatModel, embeddingModel: OllamaStub.embeddingModel,
                                            numCtx: 4096, requestTimeout: 3, connectTimeout: 1, structuredRetries: 1))
    }

    @Test("Ollama down: capture, search and reading still work; notes wait with the reason, spend no attempt, then catch up once")
    func down() async throws {
        let (port, settings) = try await Self.stoppedStub()
        try await withSelene(adjust: { $0.llm = settings }) { app, clock in
            let first = try await app.note("Sourdough starter schedule")
            try await app.note("Sourdough loaf notes")
            #expect(try await app.call(.POST, "/api/notes/search", json: SearchRequest(query: "sourdough"), as: SearchResponse.self).count == 2)
            let retrieved: RetrieveResponse = try await app.call(.POST, "/api/notes/retrieve", json: RetrieveRequest(query: "sourdough"))
            #expect(retrieved.source == .keyword && retrieved.count == 2)
            let health: LLMHealth = try await app.call(.GET, "/api/llm/health")
            #expect(!health.available && health.reason?.contains("not reachable") == true && health.provider == "ollama")

            for _ in 0..<3 {
                let summary = try await app.process()
                #expect(summary.outage != nil && summary.done == 0 && summary.deferred == 2)
            }
            let waiting: Note = try await app.call(.GET, "/api/notes/\(first.id)")
            #expect(waiting.status == .pending && waiting.lastError?.contains("Ollama is not reachable") == true)
            // An outage is not the note's fault: no attempt spent, no back-off of its own.
            #expect(waiting.attempts == 0)

            let back = try await port.restart()
            // Caught up once it answers. (On a loaded machine the first round after the restart can
            // still miss its one-second connect and count as the outage it was: such a round spends
            // nothing, so the rounds are counted until the notes are done, each once.)
            var processed = 0
            for _ in 0..<5 where processed < 2 {
                let round = try await app.process()
                processed += round.done
                if round.outage != nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(processed == 2)
            let done: Note = try await app.call(.GET, "/api/notes/\(first.id)")
            #expect(done.status == .done && done.lastError == nil && done.analysis != nil && done.attempts == 1)
            #expect(back.requests.filter { $0.hasFormat }.count == 2)
            #expect(try await app.process().claimed == 0)
            let counts = try await SeleneAdmin.processingCounts(app)
            #expect(counts == ["pending": 0, "processing": 0, "done": 2, "failed": 0])
            await back.stop()
        }
    }

    @Test("A worker killed mid-way: its notes are due again at once, not after the lease; live and other machines' workers keep theirs")
    func orphansReclaimed() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, clock in
                let finished = Process()
                finished.executableURL = URL(fileURLWithPath: "/bin/true")
                try finished.run()
                finished.waitUntilExit()
                let host = ProcessInfo.processInfo.hostName
                let gone = "\(host)-\(finished.processIdentifier)-dead0001"
                let alive = "\(host)-\(getpid())-live0001"
                let elsewhere = "another-machine-\(finished.processIdentifier)-away0001"
                #expect(ProcessingQueue.ownerIsGone(gone) && !ProcessingQueue.ownerIsGone(alive) && !ProcessingQueue.ownerIsGone(elsewhere))
                #expect(!ProcessingQueue.ownerIsGone("no-pid-here") && !ProcessingQueue.ownerIsGone("test-worker"))

                var ids: [Int64] = []
                for owner in [gone, alive, elsewhere] {
                    let note = try await app.note("Held by \(owner)")
                    ids.append(note.id)
                    _ = try await ProcessingQueue(db: app.db, services: app.selene, owner: owner, logger: app.logger).claim(limit: 1, now: clock.now)
                }
                let queue = ProcessingQueue(db: app.db, services: app.selene, owner: "\(host)-\(getpid())-next0001", logger: app.logger)
                #expect(try await queue.reclaimOrphans(now: clock.now) == 1)
                let summary = try await queue.runOnce()
                #expect(summary.done == 1)
                var notes: [Note] = []
                for id in ids { notes.append(try await app.call(.GET, "/api/notes/\(id)", as: Note.self)) }
                #expect(notes.map(\.status) == [.done, .processing, .processing])
                #expect(notes[0].attempts == 2, "the killed try counts as an attempt")
            }
        }
    }

    @Test("Model server down, 10 captures, back up: the worker probes, says it is paused, and processes all once it is back, with no capture to wake it")
    func outageResumes() async throws {
        let (port, settings) = try await Self.stoppedStub()
        try await withSelene(adjust: { $0.llm = settings }) { app, clock in
            let queue = ProcessingQueue(db: app.writeDB, services: app.selene, owner: "loop", logger: app.logger)
            try await withWorker(queue, app: app) {
                // The first capture finds the model server down and pauses the worker; the other
                // nine arrive while it is paused (each waking it, which must not lengthen the pause).
                try await app.note("Capture 0 while the model server is down")
                app.selene.queueSignal.wake()
                var health: LLMHealth = try await app.call(.GET, "/api/llm/health")
                for _ in 0..<600 where health.pausedSince == nil {
                    try await Task.sleep(nanoseconds: 50_000_000)
                    health = try await app.call(.GET, "/api/llm/health")
                }
                for i in 1..<10 {
                    try await app.note("Capture \(i) while the model server is down")
                    app.selene.queueSignal.wake()
                }
                health = try await app.call(.GET, "/api/llm/health")
                let pausedSince = try #require(health.pausedSince)
                let nextCheck = try #require(health.nextCheckAt)
                #expect(health.pauseReason?.contains("not reachable") == true)
                // Captures don't lengthen the pause: the next check is at most the longest probe interval away.
                #expect(nextCheck.timeIntervalSince(Date()) <= app.selene.config.processing.maxProbeInterval + 1)
                #expect(pausedSince <= clock.now)

                let back = try await port.restart()
                let returned = Date()
                var counts: [String: Int] = [:]
                // The next probe is at most `maxProbeInterval` away (checked above); the deadline is for a
                // loaded machine: in a full PostgreSQL run on two cores a note took ~15 s here (a 60 s deadline once
                // ended with 3 of 10 done). The loop ends as soon as all are.
                while Date().timeIntervalSince(returned) < 300 {
                    counts = try await SeleneAdmin.processingCounts(app)
                    if counts["done"] == 10 { break }
                    try await Task.sleep(nanoseconds: 200_000_000)
                }
                // Nothing is captured after the return: the queue picks up again by itself, on its next probe.
                #expect(counts["done"] == 10, "\(counts)")
                let after: LLMHealth = try await app.call(.GET, "/api/llm/health")
                #expect(after.available && after.pausedSince == nil)
                let notes = try await app.call(.GET, "/api/notes", as: NoteList.self).notes
                #expect(notes.allSatisfy { $0.attempts == 1 }, "no attempt spent on the outage")
                #expect(back.requests.filter { $0.hasFormat && $0.text.hasPrefix("Note:") }.count == 10, "each note analysed once")
                await back.stop()
            }
        }
    }

    /// Runs the processing loop beside `body`, and stops it — cancelled, woken, and waited for —
    /// before the application shuts down. A loop left running holds a database connection past
    /// the shutdown: its reads fail on a removed file, and a connection released after the thread
    /// pool stopped can't close (sqlite-nio's debug assertion ended a CI run so).
    private func withWorker(_ queue: ProcessingQueue, app: Application, _ body: () async throws -> Void) async throws {
        let worker = Task { await BackgroundWork.work(queue, services: app.selene, logger: app.logger) }
        func stop() async {
            worker.cancel()
            app.selene.queueSignal.wake()
            await worker.value
        }
        do { try await body() } catch {
            await stop()
            throw error
        }
        await stop()
    }

    @Test("A worker that dies mid-note leaves it claimed until the lease runs out; another worker then finishes it, once")
    func restart() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.processing.lease = 120 }) { app, clock in
                let note = try await app.note("Bike repair checklist")
                let dead = ProcessingQueue(db: app.db, services: app.selene, owner: "dead-worker", logger: app.logger)
                #expect(try await dead.claim(limit: 10, now: clock.now) == [Int(note.id)])
                let stuck: Note = try await app.call(.GET, "/api/notes/\(note.id)")
                #expect(stuck.status == .processing)
                // Still leased: nobody else takes it.
                #expect(try await app.process(owner: "new-worker").claimed == 0)
                clock.advance(by: 121)
                let summary = try await app.process(owner: "new-worker")
                #expect(summary.claimed == 1 && summary.done == 1)
                let done: Note = try await app.call(.GET, "/api/notes/\(note.id)")
                #expect(done.status == .done && done.attempts == 2)
                // The dead worker's late result can't land: its lease is gone.
                #expect(await dead.process(Int(note.id)).isLostLease)
                #expect(stub.requests.filter { $0.hasFormat }.count == 2)
            }
        }
    }

    @Test("An answer that stays invalid marks the note failed with the reason; retry puts it back")
    func failureReason() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let note = try await app.note("Something to analyse")
                stub.setFault(.invalidJSON)
                let summary = try await app.process()
                #expect(summary.failed == 1 && summary.outage == nil)
                let failed: Note = try await app.call(.GET, "/api/notes/\(note.id)")
                #expect(failed.status == .failed && failed.lastError?.contains("not usable") == true)
                #expect(failed.lastError?.contains("primaryTheme") == true || failed.lastError?.contains("JSON") == true)
                #expect(try await app.process().claimed == 0)
                stub.setFault(.none)
                #expect(try await app.call(.POST, "/api/processing/retry", as: Touched.self).count == 1)
                #expect(try await app.process().done == 1)
                #expect(try await app.call(.GET, "/api/notes/\(note.id)", as: Note.self).status == .done)
            }
        }
    }

    @Test("A missing model defers processing with the ollama pull to run")
    func missingModel() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub) { app, _ in
                let note = try await app.note("Waiting for a model")
                stub.setFault(.modelMissing)
                #expect(try await app.process().outage?.contains("ollama pull") == true)
                let waiting: Note = try await app.call(.GET, "/api/notes/\(note.id)")
                #expect(waiting.status == .pending && waiting.lastError?.contains("ollama pull \(OllamaStub.chatModel)") == true)
            }
        }
    }

    @Test("Two workers share the queue: every note processed exactly once")
    func twoWorkers() async throws {
        try await withStub { stub in
            try await withSelene(stub: stub, adjust: { $0.processing.batchSize = 2 }) { app, _ in
                var contents: [String] = []
                for i in 0..<24 {
                    let text = "Note \(i) about topic\(i) with words w\(i)a w\(i)b"
                    contents.append(text)
                    try await app.note(text)
                }
                async let one = app.process(owner: "worker-one")
                async let two = app.process(owner: "worker-two")
                let (a, b) = try await (one, two)
                #expect(a.done + b.done == 24 && a.claimed + b.claimed == 24)
                let analysed = stub.requests.filter(\.hasFormat).map(\.text)
                #expect(analysed.count == 24 && Set(analysed).count == 24, "\(a) \(b)")
                let notes = try await app.call(.GET, "/api/notes", as: NoteList.self).notes
                #expect(notes.allSatisfy { $0.status == .done && $0.attempts == 1 })
            }
        }
    }
}

extension ProcessingQueue.Outcome {
    var isLostLease: Bool { if case .lostLease = self { true } else { false } }
}

/// A stopped model server's port, bound and not listening: a connection is refused, as when the
/// server is down, and no other test's server (the suites run in parallel) takes the port before
/// the stub starts on it again — which made "back up" bind fail and "down" reach someone else.
final class PortHold: @unchecked Sendable {
    let port: Int
    private var fd: Int32

    init(_ port: Int) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0 else {
            if fd >= 0 { close(fd) }
            throw POSIXError(.EADDRINUSE)
        }
    }

    /// The stub again, on this port.
    func restart() async throws -> OllamaStub {
        release()
        return try await OllamaStub.start(port: port)
    }

    func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}
