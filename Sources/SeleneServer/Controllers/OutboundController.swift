import Foundation
import SeleneShared
import Vapor

/// `GET /api/outbound`: the ledger of what left this machine, newest first (`?limit=`, 100;
/// `?purpose=` one of the ledger's purposes).
struct OutboundController: RouteCollection {
    static let purposes = ["chat", "embed", "analysis", "briefing", "model-check", "transcription", "apns", "web-push", "hosted"]

    func boot(routes: any RoutesBuilder) throws {
        routes.get("outbound", use: list)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        try json(try await Self.entries(req))
    }

    /// The request's page of the ledger (also the web page's).
    static func entries(_ req: Request) async throws -> OutboundList {
        let limit = try req.intQuery("limit", default: 100)
        // Absent: every purpose. Present, it must name one (an empty one too is refused).
        let purpose = req.url.query.flatMap { Request.queryValue("purpose", in: $0) }
        if let purpose, !purposes.contains(purpose) {
            let message = "must be one of \(purposes.joined(separator: ", "))"
            throw SeleneError(.badRequest, "purpose \(message)", fields: ["purpose": message])
        }
        let ledger = req.selene.outbound
        _ = try await ledger.prune(req.application.writeDB, now: req.selene.clock.now())
        return OutboundList(keptDays: ledger.keptDays, entries: try await OutboundLedger.list(req.db, limit: limit, purpose: purpose))
    }
}
