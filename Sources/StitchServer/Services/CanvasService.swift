import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// A canvas's rules on the server, for the API (`CanvasController`) and the web app.
enum CanvasService {
    static func create(_ writer: Writer, _ body: RecordPatch) async throws -> Canvas {
        try await RecordWrites<CanvasModel>.create(writer, body, defaults: ["designer": "", "designName": ""], check: { canvas, db in
            try await checkImage(canvas, userId: writer.userId, db: db)
        })
    }

    /// A partial update; a picture replaced (or cleared) is removed once nothing refers to it.
    static func update(_ writer: Writer, id: UUID, _ body: RecordPatch, app: Application) async throws -> Canvas {
        let before = try await Records.require(CanvasModel.self, id, userId: writer.userId, on: writer.db).record
        let record = try await RecordWrites<CanvasModel>.update(writer, id: id, body, check: { canvas, db in
            try await checkImage(canvas, userId: writer.userId, db: db)
        })
        if let old = before.imageKey, old != record.imageKey {
            try await Images.removeIfUnreferenced(old, app: app, db: writer.db)
        }
        return record
    }

    /// A canvas's picture, when it names one, is one of the user's pictures.
    static func checkImage(_ canvas: Canvas, userId: UUID, db: any Database) async throws {
        guard let key = canvas.imageKey else { return }
        guard try await Images.owned(key, userId: userId, on: db) != nil else {
            throw APIError.missingReference(["imageKey": "No such image"])
        }
    }

    /// A canvas with a live project cannot be deleted: the project would lose its title and picture.
    static func delete(_ writer: Writer, id: UUID) async throws {
        try await RecordWrites<CanvasModel>.delete(writer, id: id, guardDelete: { canvas, db in
            let live = try await Records.matching(ProjectModel.self, on: db) { $0.where("canvas_id", .equal, SQLUUID(canvas.id)) }
            if !live.isEmpty {
                throw APIError(.conflict, "This canvas has a project. Delete the project first.")
            }
        })
    }
}
