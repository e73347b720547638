import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The morning briefing.
extension WebController {
    @Sendable func briefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return try await Self.briefingPage(req, regenerate: false)
    }

    @Sendable func regenerateBriefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        return try await Self.briefingPage(req, regenerate: true)
    }

    /// The briefing as written this morning, its tasks as they are now (one ticked off since shows ticked).
    static func briefingPage(_ req: Request, regenerate: Bool) async throws -> Response {
        var result = await ChatRun.briefing(data: data(req), now: clock(req), regenerate: regenerate)
        if var briefing = result.briefing, !briefing.tasks.isEmpty {
            let now = Dictionary(try await ThreadStore(db: req.db).allTasks(status: nil, limit: 1000).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            briefing.tasks = briefing.tasks.map { now[$0.id] ?? $0 }
            result.briefing = briefing
        }
        return render(req, Pages.briefing(result.briefing, cards: result.cards, error: result.error, context: context(req)))
    }
}
