import Foundation
import SeleneShared
import Vapor

/// `GET/POST/DELETE /api/hosted/consent`: whether requests with something from the person's notes
/// may go to the hosted model (`HostedConsentStore`), the held request word for word, and the answer.
struct HostedConsentController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let consent = routes.grouped("hosted", "consent")
        consent.get(use: current)
        consent.post(use: answer)
        consent.delete(use: askAgain)
    }

    private func store(_ req: Request, writing: Bool = false) -> HostedConsentStore {
        HostedConsentStore(db: writing ? req.writeDB : req.db, hosted: req.selene.config.hosted)
    }

    @Sendable func current(req: Request) async throws -> Response { try json(try await store(req).current()) }

    @Sendable func answer(req: Request) async throws -> Response {
        let body = try req.decodeBody(HostedConsentAnswer.self)
        return try json(try await store(req, writing: true).answer(allow: body.allow, now: req.now))
    }

    @Sendable func askAgain(req: Request) async throws -> Response { try json(try await store(req, writing: true).askAgain()) }
}
