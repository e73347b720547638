import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import PostgresNIO
import ServerCommon
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing
import VaporTesting

/// The check in front of every API request: the bearer token read from its header, the sign-in
/// still live, the user's sync version as of the request. On PostgreSQL the checks that arrive
/// while one is out go together as the next query; each must still get its own sign-in's answer.
@Suite("The sign-in check")
struct SessionCheckTests {
    @Test("The bearer token: the scheme in any case, one token, nothing else")
    func bearerToken() {
        func token(_ value: String?) -> String? {
            var headers = HTTPHeaders()
            if let value { headers.add(name: .authorization, value: value) }
            return headers.bearerToken
        }
        #expect(token("Bearer abc.def-ghi_") == "abc.def-ghi_")
        #expect(token("bearer abc") == "abc")
        #expect(token("BEARER   abc  ") == "abc")
        #expect(token(nil) == nil)
        #expect(token("") == nil)
        #expect(token("Bearer") == nil)
        #expect(token("Bearer ") == nil)
        #expect(token("Bearerabc") == nil)
        #expect(token("Bearer abc def") == nil)
        #expect(token("Basic abc") == nil)
        #expect(token("Bearar abc") == nil)
        #expect(token("Bëarer abc") == nil)
        // The same answers as Vapor's own reading wherever that one reads a token.
        for value in ["Bearer x", "bearer x", "BeArEr  x", "Bearer x y", "Token x", "Bearer"] {
            var headers = HTTPHeaders()
            headers.add(name: .authorization, value: value)
            #expect(headers.bearerToken == headers.bearerAuthorization?.token, "\(value)")
        }
    }

    @Test("If-None-Match: a list of tags, weak or strong, or *")
    func ifNoneMatchValues() {
        let tag = #""threads-7-abcdef01-2166136261""#
        #expect(ifNoneMatch(tag, contains: tag))
        #expect(ifNoneMatch(#""other", "threads-7-abcdef01-2166136261""#, contains: tag))
        #expect(ifNoneMatch("\"other\",\t\"threads-7-abcdef01-2166136261\" ", contains: tag))
        #expect(ifNoneMatch("W/" + tag, contains: tag))
        #expect(ifNoneMatch("*", contains: tag))
        #expect(!ifNoneMatch(#""threads-8-abcdef01-2166136261""#, contains: tag))
        #expect(!ifNoneMatch(#""other""#, contains: tag))
        #expect(!ifNoneMatch("", contains: tag))
        #expect(!ifNoneMatch(String(tag.dropLast()), contains: tag))
    }

    @Test("Checks that arrive while a query is out go together as the next, each sign-in once, each answered for itself")
    func batching() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let a = SessionCheck.Key(sessionId: UUID(), userId: UUID()), b = SessionCheck.Key(sessionId: UUID(), userId: UUID())
        let c = SessionCheck.Key(sessionId: UUID(), userId: b.userId), d = SessionCheck.Key(sessionId: UUID(), userId: UUID())
        let asked = NIOLockedValueBox<[(keys: [SessionCheck.Key], promise: EventLoopPromise<[SessionCheck.Key: Int64]>)]>([])
        let batch = SessionCheckBatch(loop: loop) { keys in
            let promise = loop.makePromise(of: [SessionCheck.Key: Int64].self)
            asked.withLockedValue { $0.append((keys, promise)) }
            return promise.futureResult
        }
        func sent() -> [[SessionCheck.Key]] { asked.withLockedValue { $0.map { $0.keys } } }
        // (Outside the lock: on an embedded loop an answer runs the next query's closure at once.)
        func query(_ index: Int) -> EventLoopPromise<[SessionCheck.Key: Int64]> { asked.withLockedValue { $0[index].promise } }

        // Nothing out: the first check goes at once, alone.
        let first = batch.version(a)
        #expect(sent() == [[a]])
        // While it is out, three more arrive (b twice): nothing is sent.
        let waiting = [batch.version(b), batch.version(c), batch.version(b)]
        let answered = NIOLockedValueBox(0)
        for future in waiting { future.whenComplete { _ in answered.withLockedValue { $0 += 1 } } }
        #expect(asked.withLockedValue { $0.count } == 1)
        // The first answer sends the waiting checks as one query, b once.
        query(0).succeed([a: 3])
        #expect(try first.wait() == 3)
        #expect(sent() == [[a], [b, c]])
        #expect(answered.withLockedValue { $0 } == 0)  // still out
        // b is live at version 5; c's sign-in has ended (no row): b's two checks get 5, c's nil.
        query(1).succeed([b: 5])
        #expect(try waiting.map { try $0.wait() } == [5, nil, 5])
        // A failed query fails its checks only; the next check is sent as usual.
        let failed = batch.version(d)
        struct Broken: Error {}
        query(2).fail(Broken())
        #expect(throws: Broken.self) { try failed.wait() }
        let after = batch.version(d)
        #expect(sent() == [[a], [b, c], [d], [d]])
        query(3).succeed([d: 1])
        #expect(try after.wait() == 1)
        #expect(batch.queries == 4 && batch.checks == 6)
    }

    @Test("PostgreSQL's statement for many checks answers for each sign-in: live, ended, unknown, someone else's")
    func manyInOneStatement() async throws {
        guard TestDatabase.isPostgres else { return }
        try await withTestApp { app, _ in
            let ann = try await register(app)
            let bob = try await register(app, email: "bob@example.com", name: "Bob")
            let ended = try await register(app, email: "cy@example.com", name: "Cy")
            _ = try await TestUser(app: app, auth: bob).thread()
            #expect(try await app.send(.POST, "/auth/logout", token: ended.accessToken, json: LogoutRequest(refreshToken: ended.refreshToken)).status == .noContent)
            func session(_ auth: AuthResponse) async throws -> SessionCheck.Key {
                let payload = try await app.jwt.keys.verify(auth.accessToken, as: AccessTokenPayload.self)
                return SessionCheck.Key(sessionId: try #require(UUID(uuidString: payload.sid)), userId: auth.user.id)
            }
            let annKey = try await session(ann), bobKey = try await session(bob), endedKey = try await session(ended)
            let unknown = SessionCheck.Key(sessionId: UUID(), userId: ann.user.id)
            let crossed = SessionCheck.Key(sessionId: annKey.sessionId, userId: bob.user.id)
            let postgres = try #require(app.db as? any PostgresDatabase)
            let versions = try await postgres.withConnection { connection in
                SessionCheck.versions(of: [annKey, bobKey, endedKey, unknown, crossed], on: connection)
            }.get()
            #expect(versions == [annKey: 0, bobKey: 1])
        }
    }

    @Test("Many requests at once from live and ended sign-ins: each gets its own answer and its own user's page")
    func concurrentSignIns() async throws {
        try await withLiveServer { app, _, server in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            let ended = try await register(app, email: "cy@example.com", name: "Cy")
            _ = try await ann.thread("DMC", "310")
            for number in ["1", "2", "3"] { _ = try await bob.thread("Anchor", number) }
            let annAgain = try await login(app).decode(AuthResponse.self)
            #expect(try await app.send(.POST, "/auth/logout", token: ended.accessToken, json: LogoutRequest(refreshToken: ended.refreshToken)).status == .noContent)

            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            func get(_ token: String) async throws -> (HTTPResponseStatus, String?, Int) {
                var request = HTTPClientRequest(url: server + "/threads")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await http.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 20)
                let count = response.status == .ok ? try StitchJSON.decode([InventoryThread].self, from: Data(buffer: body)).count : -1
                return (response.status, response.headers.first(name: "ETag"), count)
            }
            try await withClosing(http, close: { try await $0.shutdown() }) { _ in
                let cases: [(token: String, status: HTTPResponseStatus, threads: Int)] = [
                    (ann.token, .ok, 1), (bob.token, .ok, 3), (ended.accessToken, .unauthorized, -1), (annAgain.accessToken, .ok, 1),
                ]
                for _ in 0..<3 {
                    try await withThrowingTaskGroup(of: (Int, HTTPResponseStatus, String?, Int).self) { group in
                        for index in 0..<80 {
                            let which = index % cases.count
                            group.addTask { let (status, tag, count) = try await get(cases[which].token); return (which, status, tag, count) }
                        }
                        for try await (which, status, tag, count) in group {
                            #expect(status == cases[which].status)
                            #expect(count == cases[which].threads)
                            // The page's tag carries its own user's version: Ann's 1, Bob's 3.
                            if status == .ok { #expect(tag?.hasPrefix(#""threads-\#(cases[which].threads)-"#) == true, "\(tag ?? "no tag")") }
                        }
                    }
                }
                if TestDatabase.isPostgres {
                    // Requests read in the same turn of a loop share a query: with 80 at a time,
                    // some always are (117 checks in 102 queries per loop, measured, debug build).
                    var queries = 0, checks = 0
                    for batch in app.perLoop.all.compactMap(\.sessionChecks) {
                        let counts = try await batch.counts().get()
                        queries += counts.queries
                        checks += counts.checks
                    }
                    #expect(checks >= 240 && queries < checks, "\(checks) checks in \(queries) queries")
                }
                // A sign-out takes effect on the very next request, the other sign-in unaffected.
                #expect(try await app.send(.POST, "/auth/logout", token: ann.token, json: LogoutRequest(refreshToken: ann.auth.refreshToken)).status == .noContent)
                #expect(try await get(ann.token).0 == .unauthorized)
                #expect(try await get(annAgain.accessToken).0 == .ok)
            }
        }
    }
}
