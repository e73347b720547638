import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// The morning briefing.
extension WebController {
    @Sendable func briefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let result = await ChatRun.briefing(data: Self.data(req), now: Self.clock(req), regenerate: false)
        return Self.render(req, Pages.briefing(result.briefing, resurfaced: result.resurfaced, error: result.error, context: Self.context(req)))
    }

    @Sendable func regenerateBriefing(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        try Self.verify(req)
        let result = await ChatRun.briefing(data: Self.data(req), now: Self.clock(req), regenerate: true)
        return Self.render(req, Pages.briefing(result.briefing, resurfaced: result.resurfaced, error: result.error, context: Self.context(req)))
    }
}
