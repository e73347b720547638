import Fluent
import Metrics
import StitchCore
import Vapor

struct SyncController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.on(.POST, "sync", body: .collect(maxSize: "64mb"), use: sync)
    }

    @Sendable
    func sync(req: Request) async throws -> Response {
        // The wire decoder, not Vapor's content decoder: a push of thousands of changes is
        // parsed straight into typed values (see StitchCore's FastJSON).
        let request = try req.decodeJSON(SyncRequest.self)
        let userId = try req.user.id
        Counter(label: "stitch_sync_pages_total", dimensions: [("kind", request.changes.isEmpty ? "pull" : "push")]).increment()
        if request.changes.isEmpty {
            switch try await SyncService.pullOnly(request, userId: userId, app: req.application, db: req.db) {
            case .planned(let plan):
                return streamed(plan, userId: userId, db: req.db, logger: req.logger, faults: req.application.syncFaults)
            case .page(let response):
                return try respond(response)
            }
        }
        let response = try await SyncService.sync(request, userId: userId, app: req.application, db: req.db)
        Counter(label: "stitch_sync_changes_pushed_total").increment(by: request.changes.count)
        return try respond(response)
    }

    /// The page's cursor where a client finds it before decoding the body: it can ask for the
    /// next page while it reads this one (StitchKit does).
    private func respond(_ response: SyncResponse) throws -> Response {
        let http = try jsonResponse(response)
        Self.page(cursor: response.cursor, hasMore: response.hasMore, into: &http.headers)
        return http
    }

    private static func page(cursor: String, hasMore: Bool, into result: inout HTTPHeaders) {
        result.replaceOrAdd(name: SyncPage.cursorHeader, value: cursor)
        result.replaceOrAdd(name: SyncPage.hasMoreHeader, value: hasMore ? "true" : "false")
    }

    /// A page bounded before it is read: the headers (its cursor, whether more follow) and the
    /// body's first bytes go out at once, the rows as soon as they are read. A client that reads
    /// headers as they come asks for the next page meanwhile, and the server reads both pages
    /// side by side. The body is byte for byte what `SyncResponse` encodes to (tested). Should
    /// the read fail part-way, the connection closes without the body's end, which no client
    /// takes for a page.
    private func streamed(_ plan: SyncService.PagePlan, userId: UUID, db: any Database, logger: Logger, faults: SyncFaults?) -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
        let cursor = plan.cursor.encoded
        Self.page(cursor: cursor, hasMore: plan.hasMore, into: &headers)
        let response = Response(status: .ok, headers: headers)
        response.body = .init(asyncStream: { writer in
            do {
                try await writer.write(.buffer(ByteBuffer(bytes: SyncResponse.jsonHead)))
                try await faults?.beforeBoundedRows?()
                var out = try await SyncService.encodedChanges(plan, userId: userId, db: db)
                try SyncResponse.writeJSONTail(cursor: cursor, hasMore: plan.hasMore, results: [], into: &out)
                try await writer.write(.buffer(ByteBuffer(bytes: out)))
                try await writer.write(.end)
            } catch {
                logger.error("A sync page failed after its headers were sent: \(String(reflecting: error))")
                try? await writer.write(.error(error))
            }
        })
        return response
    }
}
