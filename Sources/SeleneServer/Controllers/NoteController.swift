import Foundation
import SeleneShared
import Vapor

struct NoteController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let notes = routes.grouped("notes")
        notes.get(use: list)
        notes.post(use: create)
        notes.get("recent", use: recent)
        notes.get("since", ":date", use: since)
        notes.post("search", use: search)
        notes.post("retrieve", use: retrieve)
        notes.post("thread-assignments", use: assignments)
        notes.get(":id", use: show)
        notes.put(":id", use: replace)
        notes.patch(":id", use: patch)
        notes.delete(":id", use: delete)
        notes.get(":id", "related", use: related)
        // The earlier macOS app's two paths (LegacyAPI.swift).
        routes.post("search", use: legacySearch)
        routes.post("related-notes", use: legacyRelated)
        routes.get("processing", use: processing)
        routes.post("processing", "retry", use: retryFailed)
    }

    @Sendable
    func list(req: Request) async throws -> Response {
        let limit = try req.intQuery("limit", default: 100)
        return try json(NoteList(notes: try await NoteStore(db: req.db).newest(limit: limit)))
    }

    @Sendable
    func create(req: Request) async throws -> Response {
        let input = try req.decodeBody(NewNote.self).input().validated()
        let (note, _) = try await NoteStore(db: req.writeDB).capture(input, idempotent: false, now: req.now, waking: req.selene.queueSignal)
        return try json(note, status: .created)
    }

    @Sendable
    func show(req: Request) async throws -> Response {
        let id = try req.id("id")
        guard let note = try await NoteStore(db: req.db).note(id: id) else { throw SeleneError.notFound("Note \(id)") }
        return try json(note)
    }

    @Sendable
    func replace(req: Request) async throws -> Response { try await edit(req, whole: true) }

    @Sendable
    func patch(req: Request) async throws -> Response { try await edit(req, whole: false) }

    /// A correction: the note as it is afterwards (back to `pending` when its words changed).
    func edit(_ req: Request, whole: Bool) async throws -> Response {
        let id = try req.id("id")
        let edit = try req.decodeBody(NoteEdit.self)
        if !whole, let body = req.body.data, let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] {
            // In a PATCH, null could mean "clear it" or "leave it": refused, naming the field.
            let nulls = ["content", "title", "tags"].filter { object[$0] is NSNull }
            if !nulls.isEmpty {
                throw SeleneError.badInput(Dictionary(uniqueKeysWithValues: nulls.map { ($0, "\($0) must not be null in a PATCH: leave it out to keep it (\"title\": \"\" clears the title)") }))
            }
        }
        guard let note = try await NoteStore(db: req.db).note(id: id) else { throw SeleneError.notFound("Note \(id)") }
        let input = try edit.applied(to: note, whole: whole)
        guard let outcome = try await NoteEditor(db: req.writeDB, services: req.selene)
            .update(id: id, content: input.content, title: input.title, tags: input.tags, now: req.now) else { throw SeleneError.notFound("Note \(id)") }
        switch outcome {
        case .unchanged(let note), .updated(let note): return try json(note)
        }
    }

    @Sendable
    func delete(req: Request) async throws -> Response {
        let id = try req.id("id")
        guard try await NoteEditor(db: req.writeDB, services: req.selene).delete(id: id, now: req.now) else { throw SeleneError.notFound("Note \(id)") }
        return Response(status: .noContent)
    }

    @Sendable
    func recent(req: Request) async throws -> Response {
        let days = try req.intQuery("days", default: 7, range: 1...3650)
        let limit = try req.intQuery("limit", default: 10)
        let since = req.now.addingTimeInterval(-Double(days) * 86_400)
        return try json(RecentNotes(days: days, notes: try await NoteStore(db: req.db).created(since: since, limit: limit)))
    }

    /// `since/:date` takes an ISO-8601 date-time (`2026-11-01T00:00:00Z`) or a day (`2026-11-01`, UTC).
    @Sendable
    func since(req: Request) async throws -> Response {
        let raw = req.parameters.get("date") ?? ""
        guard let date = WireDate.date(from: raw) ?? WireDate.date(from: raw + "T00:00:00Z") else {
            throw SeleneError(.badRequest, "date must be an ISO-8601 date such as 2026-11-01 or 2026-11-01T08:00:00Z",
                              fields: ["date": "must be an ISO-8601 date"])
        }
        let limit = try req.intQuery("limit", default: 20)
        return try json(NotesSince(since: date, notes: try await NoteStore(db: req.db).created(since: date, limit: limit)))
    }

    @Sendable
    func search(req: Request) async throws -> Response {
        let request = try req.decodeBody(SearchRequest.self).validated()
        let ids = try await KeywordSearch(db: req.db).rank(request.query, limit: request.limit ?? 50)
        return try json(SearchResponse(query: request.query, notes: try await NoteStore(db: req.db).notes(ids: ids)))
    }

    @Sendable
    func retrieve(req: Request) async throws -> Response {
        let (request, results, source) = try await retrieved(req)
        return try json(RetrieveResponse(query: request.query, results: results, source: source))
    }

    /// The request's retrieval: `{query, limit (10), noteType?, actionability?}` answered.
    private func retrieved(_ req: Request) async throws -> (RetrieveRequest, [ScoredNote], RetrievalSource) {
        let request = try req.decodeBody(RetrieveRequest.self).validated()
        let (results, source) = try await Retriever(db: req.db, services: req.selene)
            .retrieve(request.query, limit: request.limit ?? 10,
                      filter: KeywordSearch.Filter(noteType: request.noteType, actionability: request.actionability))
        return (request, results, source)
    }

    @Sendable
    func related(req: Request) async throws -> Response {
        let id = try req.id("id")
        let limit = try req.intQuery("limit", default: 10)
        guard let related = try await Retriever(db: req.db, services: req.selene).related(to: id, limit: limit) else {
            throw SeleneError.notFound("Note \(id)")
        }
        return try json(related)
    }

    /// `POST /api/search` as the earlier macOS app calls it: the same retrieval as `retrieve`.
    @Sendable
    func legacySearch(req: Request) async throws -> Response {
        let (request, results, _) = try await retrieved(req)
        return try json(LegacySearchResponse(query: request.query, scored: results))
    }

    /// `POST /api/related-notes` as the earlier macOS app calls it: the same as `related`.
    @Sendable
    func legacyRelated(req: Request) async throws -> Response {
        let request = try req.decodeBody(LegacyRelatedRequest.self).validated()
        let retriever = Retriever(db: req.db, services: req.selene)
        let id = Int(request.noteId)
        guard let related = try await retriever.related(to: id, limit: request.limit ?? 10) else {
            throw SeleneError.notFound("Note \(id)")
        }
        let stored = Set(try await retriever.storedAssociations(of: id).keys.map(Int64.init))
        return try json(LegacyRelatedResponse(related, stored: stored, includeLive: request.includeLive ?? true))
    }

    @Sendable
    func assignments(req: Request) async throws -> Response {
        let request = try req.decodeBody(ThreadAssignmentsRequest.self).validated()
        let assignments = try await ThreadStore(db: req.db).assignments(noteIds: request.noteIds.map { Int($0) })
        return try json(ThreadAssignments(assignments: assignments))
    }

    /// How many notes wait, are being processed, are done or failed.
    @Sendable
    func processing(req: Request) async throws -> Response {
        try json(ProcessingStatusCounts(counts: try await ProcessingQueue.status(on: req.db)))
    }

    @Sendable
    func retryFailed(req: Request) async throws -> Response {
        let count = try await ProcessingQueue.retryFailed(on: req.writeDB, now: req.now)
        if count > 0 { req.selene.queueSignal.wake() }
        return try json(Touched(count: count))
    }
}

/// `{"pending": n, "processing": n, "done": n, "failed": n}`.
struct ProcessingStatusCounts: Encodable {
    var counts: [String: Int]
    func encode(to encoder: any Encoder) throws { try counts.encode(to: encoder) }
}
