import Foundation
import SeleneShared
import Vapor

/// Capture from the Drafts app, and export to an Obsidian vault.
struct WebhookController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let webhook = routes.grouped("webhook", "api")
        webhook.post("drafts", use: drafts)
        webhook.post("export-obsidian", use: exportObsidian)
    }

    /// Idempotent: the Drafts uuid, or without one the content hash, names the note. 201 when
    /// new, 200 when sent again: a draft edited in Drafts and sent again (same uuid, new words,
    /// title or tags) updates the note and processes it again, unless SELENE_DRAFTS_RESEND=keep
    /// (the first version wins).
    @Sendable
    func drafts(req: Request) async throws -> Response {
        let capture = try req.decodeBody(DraftsCapture.self).input().validated()
        let (note, created) = try await NoteStore(db: req.writeDB).capture(capture, idempotent: true, now: req.now, waking: req.selene.queueSignal)
        if !created, capture.sourceUuid != nil, req.selene.config.draftsResend == .update,
                  note.content != capture.content || note.title != capture.title || note.tags != capture.tags,
                  let outcome = try await NoteEditor(db: req.writeDB, services: req.selene)
                      .update(id: Int(note.id), content: capture.content, title: capture.title, tags: capture.tags, now: req.now),
                  case .updated(let updated) = outcome {
            return try json(updated)
        }
        return try json(note, status: created ? .created : .ok)
    }

    /// Writes one note (`noteId`) or every note and thread into the vault as Markdown.
    @Sendable
    func exportObsidian(req: Request) async throws -> Response {
        var request = ExportRequest()
        if let body = req.body.data, body.readableBytes > 0 { request = try req.decodeBody(ExportRequest.self) }
        guard let vault = req.selene.config.obsidianVault else {
            throw SeleneError(.serviceUnavailable, "No Obsidian vault is configured: set SELENE_OBSIDIAN_VAULT to the vault's folder")
        }
        if let id = request.noteId, id < 1 { throw SeleneError.badInput(["noteId": "noteId must be a positive whole number"]) }
        let exporter = ObsidianExporter(db: req.db, vault: vault)
        let result: ExportResult
        if let id = request.noteId {
            guard let written = try await exporter.export(noteId: Int(id)) else { throw SeleneError.notFound("Note \(id)") }
            result = written
        } else {
            result = try await exporter.exportAll()
        }
        return try json(result)
    }
}
