import Foundation
import SeleneShared
import Vapor

struct BriefingController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let briefing = routes.grouped("briefing")
        briefing.get(use: today)
        briefing.post(use: generate)
        briefing.get("associations", use: associations)
    }

    /// Today's briefing, written now if there is none yet today.
    @Sendable
    func today(req: Request) async throws -> Response {
        try json(try await BriefingService(db: req.db, services: req.selene, logger: req.logger).today())
    }

    /// Writes today's briefing again, now.
    @Sendable
    func generate(req: Request) async throws -> Response {
        try json(try await BriefingService(db: req.writeDB, services: req.selene, logger: req.logger).generate(), status: .created)
    }

    @Sendable
    func associations(req: Request) async throws -> Response {
        let minSimilarity = try req.doubleQuery("minSimilarity", default: 0.7, range: 0...1)
        let recentDays = try req.intQuery("recentDays", default: 7, range: 1...3650)
        let limit = try req.intQuery("limit", default: 10)
        let list = try await BriefingService(db: req.db, services: req.selene, logger: req.logger)
            .associations(minSimilarity: minSimilarity, recentDays: recentDays, limit: limit)
        return try json(AssociationList(associations: list))
    }
}
