import Foundation
import SeleneShared
import Vapor

struct DeviceController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let devices = routes.grouped("devices")
        devices.get(use: list)
        devices.post("register", use: register)
        devices.post("unregister", use: unregister)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        try json(DeviceList(devices: try await ConversationStore(db: req.db).devices()))
    }

    /// 201 for a new device; registering again refreshes its last-seen time (200).
    @Sendable
    func register(req: Request) async throws -> Response {
        let request = try req.decodeBody(DeviceRequest.self).validated()
        let (device, created) = try await ConversationStore(db: req.writeDB).register(request, now: req.now)
        return try json(device, status: created ? .created : .ok)
    }

    @Sendable
    func unregister(req: Request) async throws -> Response {
        let request = try req.decodeBody(DeviceRequest.self).validated()
        return try json(Unregistered(removed: try await ConversationStore(db: req.writeDB).unregister(token: request.token)))
    }
}
