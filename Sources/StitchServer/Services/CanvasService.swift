import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A canvas's rules on the server, for the API (`CanvasController`) and the web app.
enum CanvasService {

    /// A canvas with a live project cannot be deleted: the project would lose its title and picture.
    static func delete(req: Request) async throws -> HTTPStatus {
        try await RecordWrites<CanvasModel>.delete(req, id: req.uuid("id"), guardDelete: { canvas, db in
            let live = try await Records.matching(ProjectModel.self, on: db) { $0.where("canvas_id", .equal, SQLUUID(canvas.id)) }
            if !live.isEmpty {
                throw APIError(.conflict, "This canvas has a project. Delete the project first.")
            }
        })
    }
}
