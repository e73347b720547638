import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import SeleneServer
import SeleneShared
import Vapor

/// Capture speed: notes posted to the Drafts webhook over HTTP by 32 concurrent clients, with
/// processing off, against the same captures made in-process (what HTTP and JSON add).
enum CaptureBench {
    static let concurrency = 32

    static func run(database: String, options: SeleneBench.Options, report: inout Report) async throws {
        print("== Capture on \(database): \(options.captures) notes through POST /webhook/api/drafts")
        try await SeleneBench.withApplication(database: database) { app in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = app.http.server.shared.localAddress!.port!
            let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
                                    configuration: .init(connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)))
            do {
                let total = options.captures
                @Sendable func body(_ i: Int, _ prefix: String) throws -> ByteBuffer {
                    ByteBuffer(data: try SeleneJSON.encode(DraftsCapture(content: "\(prefix) note \(i): walked to the market, bought figs and bread, thought about the garden plan",
                                                                         uuid: "\(prefix)-\(i)", tags: ["bench"])))
                }
                // Warm up the connections and the route.
                try await post(client, port: port, count: 200, prefix: "warm", body: body)
                let http = try await SeleneBench.time { try await post(client, port: port, count: total, prefix: "http", body: body) }
                let store = NoteStore(db: app.db)
                let direct = try await SeleneBench.time {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                var i = worker
                                while i < total {
                                    _ = try await store.capture(DraftsCapture(content: "direct note \(i): walked to the market, bought figs and bread, thought about the garden plan",
                                                                              uuid: "direct-\(i)", tags: ["bench"]).input().validated(),
                                                                idempotent: true, now: Date())
                                    i += concurrency
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                let stored = try await store.count()
                precondition(stored == total * 2 + 200, "every capture must be stored once: \(stored)")
                let httpRate = Double(total) / (http / 1000), directRate = Double(total) / (direct / 1000)
                report.add("capture through the webhook (processing off, \(concurrency) clients)", database: database, value: httpRate, unit: "notes/s",
                           baseline: directRate, baselineName: "in-process capture", target: "≥ 1,000 notes/s, every capture durable (synchronous=FULL)")
                // Sending the same notes again: each answers the note already there.
                let again = try await SeleneBench.time { try await post(client, port: port, count: total, prefix: "http", body: body, expect: .ok) }
                report.add("resending captured notes (idempotent)", database: database, value: Double(total) / (again / 1000), unit: "notes/s",
                           baseline: httpRate, baselineName: "first capture")
                let afterResend = try await store.count()
                precondition(afterResend == stored, "a resend must not store a second note")
            } catch {
                try? await client.shutdown()
                await app.server.shutdown()
                throw error
            }
            try await client.shutdown()
            await app.server.shutdown()
        }
    }

    static func post(_ client: HTTPClient, port: Int, count: Int, prefix: String, body: @escaping @Sendable (Int, String) throws -> ByteBuffer,
                     expect: HTTPResponseStatus = .created) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var i = worker
                    while i < count {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/webhook/api/drafts")
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.body = .bytes(try body(i, prefix))
                        let response = try await client.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        guard response.status == expect else { throw SeleneConfigError("capture answered \(response.status)") }
                        i += concurrency
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
