import Foundation
import StitchCore
import Vapor

/// What the API's controllers and the web app's handlers read off a request before they call a
/// service: who is writing, the path's ids, the JSON body as a record patch, the query.
extension Request {
    var config: AppConfig { application.config }
    var now: Date { application.clock.now() }

    /// Who the sign-in and account services serve (see `Caller`): this request's database, the
    /// moment, the client's address and logger.
    var caller: Caller {
        Caller(application: application, db: db, now: now, client: ClientThrottle.clientKey(self), logger: logger)
    }

    /// The signed-in user writing now, through this request's database.
    var writer: Writer {
        get throws { Writer(userId: try user.id, now: now, db: db) }
    }

    /// The record of a kind nested under a project in the path (`/projects/{id}/…/{param}`): both
    /// the user's, the child of that project, or a 404 (`ProjectService.child`).
    func projectChild<M: RecordModel>(_ type: M.Type, _ param: String, _ projectColumn: KeyPath<M, UUID>) async throws -> (project: UUID, id: UUID) {
        try await ProjectService.child(type, uuid(param), of: uuid("id"), projectColumn: projectColumn, userId: user.id, db: db)
    }

    /// The JSON body as a record patch (see `RecordPatch`).
    func patch() throws -> RecordPatch {
        try RecordPatch(json: Data(buffer: try jsonBodyBuffer()))
    }

    /// A UUID path parameter; anything else is a 404 (it cannot name a record).
    func uuid(_ name: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(text: text) else { throw APIError.notFound }
        return id
    }

    /// A query parameter's text, nil when absent. A URL without a query answers at once: Vapor's
    /// `query[String.self, at:]` parses the whole query string with its form decoder on every
    /// call, even an empty one, which was ~8% of a cached `GET /threads` (three filters read).
    func queryText(_ name: String) -> String? {
        guard let text = url.query, !text.isEmpty else { return nil }
        return query[String.self, at: name]
    }
}
