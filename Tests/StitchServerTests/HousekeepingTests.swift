import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

@Suite("Housekeeping: expired sign-in records are deleted, and no answer changes")
struct HousekeepingTests {
    static let day: TimeInterval = 24 * 3600

    func counts(_ app: Application) async throws -> (refresh: Int, web: Int, throttles: Int) {
        (try await RefreshTokenModel.query(on: app.db).count(), try await WebSessionModel.query(on: app.db).count(),
         try await LoginThrottleModel.query(on: app.db).count())
    }

    @Test("Prune deletes exactly the refresh tokens, web sessions and login throttles the server already treats as gone")
    func pruneDeletesOnlyDeadRows() async throws {
        try await withTestApp { app, clock in
            // A month ago: a sign-in refreshed once (two rows), a web sign-in, an unknown address
            // that failed once, and an address locked by five failures.
            let old = try await register(app)
            let oldNext = try await refresh(app, old.refreshToken).decode(AuthResponse.self)
            let oldWeb = WebClient(app: app)
            try await oldWeb.signUp(email: "web@example.com")
            _ = try await login(app, email: "ghost@example.com", password: "whatever1")
            for _ in 0..<5 { _ = try await login(app, email: "locked@example.com", password: "whatever1") }
            #expect(try await login(app, email: "locked@example.com", password: "whatever1").status == .tooManyRequests)

            clock.advance(by: 31 * Self.day)
            // Now: a live sign-in refreshed once, a live web sign-in, a recent failure and a fresh lock.
            let live = try await login(app).decode(AuthResponse.self)
            let liveNext = try await refresh(app, live.refreshToken).decode(AuthResponse.self)
            let liveWeb = WebClient(app: app)
            try await liveWeb.signUp(email: "web2@example.com")
            _ = try await login(app, email: "recent@example.com", password: "whatever1")
            for _ in 0..<5 { _ = try await login(app, email: "fresh-lock@example.com", password: "whatever1") }

            // What the server answers for the dead rows before they go.
            let expiredBefore = try await refresh(app, oldNext.refreshToken)
            #expect(expiredBefore.status == .unauthorized)
            #expect(try await oldWeb.request(.GET, "/app/inventory").status == .seeOther)
            let before = try await counts(app)

            let pruned = try await Housekeeping.prune(now: clock.now, config: app.config, on: app.db)
            // The old sign-in's two refresh tokens, the old web session, the two old addresses'
            // throttles: each counted for the account and for the account and client (PasswordAttempts).
            #expect(pruned == Housekeeping.Pruned(refreshTokens: 2, webSessions: 1, loginThrottles: 4))
            let after = try await counts(app)
            #expect(after.refresh == before.refresh - 2 && after.web == before.web - 1 && after.throttles == before.throttles - 4)

            // The same answers for what was deleted …
            let expiredAfter = try await refresh(app, oldNext.refreshToken)
            #expect(expiredAfter.status == expiredBefore.status && expiredAfter.text == expiredBefore.text)
            #expect(try await refresh(app, old.refreshToken).status == .unauthorized)
            #expect(try await oldWeb.request(.GET, "/app/inventory").status == .seeOther)
            #expect(try await login(app, email: "ghost@example.com", password: "whatever1").status == .unauthorized)
            #expect(try await login(app, email: "locked@example.com", password: "whatever1").status == .unauthorized)
            // … and everything live still works: the sign-in, its refresh, the web session, the
            // recent failure still counting towards a lock, the fresh lock still holding.
            #expect(try await app.send(.GET, "/auth/me", token: liveNext.accessToken).status == .ok)
            #expect(try await refresh(app, liveNext.refreshToken).status == .ok)
            #expect(try await liveWeb.request(.GET, "/app/inventory").status == .ok)
            for _ in 0..<4 { #expect(try await login(app, email: "recent@example.com", password: "whatever1").status == .unauthorized) }
            #expect(try await login(app, email: "recent@example.com", password: "whatever1").status == .tooManyRequests)
            #expect(try await login(app, email: "fresh-lock@example.com", password: "whatever1").status == .tooManyRequests)

            // Nothing left to prune.
            #expect(try await Housekeeping.prune(now: clock.now, config: app.config, on: app.db) == Housekeeping.Pruned())
        }
    }

    @Test("A refresh token is kept until it has been expired for as long as an access token lives")
    func refreshTokensKeepAnAccessTokensMargin() async throws {
        try await withTestApp { app, clock in
            try await register(app)
            let lifetime = app.config.refreshTokenLifetime, margin = app.config.accessTokenLifetime
            clock.advance(by: lifetime + margin - 60)
            #expect(try await Housekeeping.prune(now: clock.now, config: app.config, on: app.db).refreshTokens == 0)
            clock.advance(by: 60)
            #expect(try await Housekeeping.prune(now: clock.now, config: app.config, on: app.db).refreshTokens == 1)
            #expect(try await RefreshTokenModel.query(on: app.db).count() == 0)
        }
    }

    @Test("The schedule prunes when the server boots and after every interval, and stops when it shuts down")
    func schedule() async throws {
        let schedule = HousekeepingSchedule(interval: .milliseconds(100))
        try await withTestApp { app, clock in
            app.lifecycle.use(schedule)
            try await app.asyncBoot()
            // A sign-in that then runs out, after the first round has run on empty tables.
            for _ in 0..<100 where schedule.completedRounds == 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(schedule.completedRounds >= 1)
            let auth = try await register(app)
            #expect(try await RefreshTokenModel.query(on: app.db).count() == 1)
            clock.advance(by: app.config.refreshTokenLifetime + app.config.accessTokenLifetime)
            var left = 1
            for _ in 0..<250 where left > 0 {
                try await Task.sleep(for: .milliseconds(20))
                left = try await RefreshTokenModel.query(on: app.db).count()
            }
            #expect(left == 0)
            #expect(try await refresh(app, auth.refreshToken).status == .unauthorized)
        }
        // Shutting down waited for the loop to return: no round can come after it.
        #expect(schedule.loopEnded)
    }
}
