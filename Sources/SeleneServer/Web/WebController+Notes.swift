import Fluent
import Foundation
import SeleneShared
import ServerCommon
import Vapor

/// Notes: search, capture, reading, the list by day, editing and deleting; and the More tab with memories, devices and status.
extension WebController {
    @Sendable func more(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.more(context: Self.context(req)))
    }

    @Sendable func search(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let query = (req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var response: RetrieveResponse?
        var error: String?
        if !query.isEmpty {
            do {
                let checked = try RetrieveRequest(query: query, limit: 30).validated()
                response = try await Self.data(req).retrieveNotes(checked.query, limit: 30, noteType: nil, actionability: nil)
            } catch let e as FieldErrors {
                error = e.fields.values.sorted().joined(separator: "; ")
            }
        }
        return Self.render(req, Pages.search(query: query, response: response, error: error, context: Self.context(req)))
    }

    @Sendable func newNotePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.newNote(content: "", title: "", errors: [:], context: Self.context(req)))
    }

    @Sendable func createNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        struct Form: Decodable { var content: String?; var title: String?; var captureId: String? }
        let form = try Self.form(req, Form.self)
        do {
            let new = NewNote(content: form.content ?? "", title: form.title, source: .web)
            let note: Note
            if let id = form.captureId.flatMap(UUID.init(uuidString:)) {
                // The page's id for this capture: sent again after an answer that never arrived, it is stored once.
                var input = try new.input().validated()
                input.sourceUuid = id.uuidString
                note = try await NoteStore(db: req.writeDB).capture(input, idempotent: true, now: req.now, waking: req.selene.queueSignal).note
            } else {
                note = try await Self.data(req).createNote(new)
            }
            return Self.redirect(.note(String(note.id)), flash: "Saved. Selene will work out what it's about in a moment.")
        } catch let e as FieldErrors {
            return Self.render(req, Pages.newNote(content: form.content ?? "", title: form.title ?? "", errors: e.fields, context: Self.context(req)), status: .badRequest)
        } catch let e as NoteTooLarge {
            return Self.render(req, Pages.newNote(content: "", title: form.title ?? "", errors: ["content": e.description], context: Self.context(req)), status: .payloadTooLarge)
        }
    }

    @Sendable func note(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        let related = try await Retriever(db: req.db, services: req.selene).related(to: Int(id), limit: 8)
        return Self.render(req, Pages.note(note, related: related, context: Self.context(req)))
    }

    /// Newest first, 30 a page, filtered by thread, kind and the days written.
    @Sendable func notes(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        var filter = NoteStore.Browse()
        var problems: [String] = []
        if let raw = req.query[String.self, at: "thread"], !raw.isEmpty {
            if let id = Int(raw), id > 0 { filter.threadId = id } else { problems.append("thread must be a thread's number") }
        }
        if let raw = req.query[String.self, at: "type"], !raw.isEmpty {
            if let type = NoteType(rawValue: raw) { filter.noteType = type } else { problems.append("type must be one of " + NoteType.allCases.map(\.rawValue).joined(separator: ", ")) }
        }
        func day(_ key: String) -> Date? {
            guard let raw = req.query[String.self, at: key], !raw.isEmpty else { return nil }
            guard let date = WireDate.date(from: raw + "T00:00:00Z") else { problems.append("\(key) must be a day such as 2026-11-01"); return nil }
            return date
        }
        filter.from = day("from")
        filter.until = day("to").map { $0.addingTimeInterval(86_400) }
        let page = max(0, min(req.query[Int.self, at: "page"] ?? 0, 10_000))
        let notes = problems.isEmpty ? try await NoteStore(db: req.db).browse(filter, limit: Pages.notesPerPage + 1, offset: page * Pages.notesPerPage) : []
        let threads = try await ThreadStore(db: req.db).threads(status: nil, limit: 500)
        let query = req.url.query ?? ""
        return Self.render(req, Pages.notes(Array(notes.prefix(Pages.notesPerPage)), more: notes.count > Pages.notesPerPage, page: page,
                                            filter: filter, threads: threads, query: query, problems: problems, context: Self.context(req)),
                           status: problems.isEmpty ? .ok : .badRequest)
    }

    @Sendable func editNotePage(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        return Self.render(req, Pages.editNote(note, content: note.content, title: note.title ?? "", tags: note.tags.joined(separator: ", "),
                                               errors: [:], context: Self.context(req)))
    }

    @Sendable func editNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var content: String?; var title: String?; var tags: String? }
        let form = try Self.form(req, Form.self)
        guard let note = try await NoteStore(db: req.db).note(id: Int(id)) else { throw SeleneError.notFound("Note") }
        let tags = (form.tags ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        func again(_ errors: [String: String], _ status: HTTPResponseStatus) -> Response {
            Self.render(req, Pages.editNote(note, content: form.content ?? "", title: form.title ?? "", tags: form.tags ?? "", errors: errors,
                                            context: Self.context(req)), status: status)
        }
        do {
            let input = try NoteEdit(content: form.content ?? "", title: form.title ?? "", tags: tags).applied(to: note, whole: true)
            let outcome = try await NoteEditor(db: req.writeDB, services: req.selene)
                .update(id: Int(id), content: input.content, title: input.title, tags: input.tags, now: req.now)
            let flash: String
            switch outcome {
            case .updated? where input.content != note.content || input.title != note.title: flash = "Saved. Selene will work out what it's about again in a moment."
            case .updated?: flash = "Saved."
            case .unchanged?: flash = "Nothing changed."
            case nil: throw SeleneError.notFound("Note")
            }
            return Self.redirect(.note(String(id)), flash: flash)
        } catch let e as FieldErrors {
            return again(e.fields, .badRequest)
        } catch let e as NoteTooLarge {
            return again(["content": e.description], .payloadTooLarge)
        }
    }

    @Sendable func deleteNote(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        guard try await NoteEditor(db: req.writeDB, services: req.selene).delete(id: Int(id), now: req.now) else { throw SeleneError.notFound("Note") }
        return Self.redirect(.notes, flash: "Note deleted.")
    }

    @Sendable func memories(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let list = try await ConversationStore(db: req.db).memories(limit: 500, includeEmbeddings: false)
        return Self.render(req, Pages.memories(list, errors: [:], draft: try await Self.rememberDraft(req), context: Self.context(req)))
    }

    /// "Remember this" on an answer: the add form filled with the answer's words (citation
    /// numbers left out), to shorten before saving, and the conversation it came from.
    static func rememberDraft(_ req: Request) async throws -> Pages.MemoryDraft {
        guard let sessionId = req.query[String.self, at: "session"].flatMap(UUID.init(uuidString:)),
              let messageId = req.query[String.self, at: "message"].flatMap(UUID.init(uuidString:)),
              let session = try await ConversationStore(db: req.db).session(sessionId),
              let message = session.messages.first(where: { $0.id == messageId && $0.role == .assistant }) else { return Pages.MemoryDraft() }
        let words = message.content.replacing(/\s*\[\d+(?:\s*,\s*\d+)*\]/, with: "").trimmingCharacters(in: .whitespacesAndNewlines)
        return Pages.MemoryDraft(content: String(words.prefix(SeleneLimits.maxMemory)), sessionId: sessionId)
    }

    /// A memory written by hand (`MemoryService.remember`): merged into one that says the same.
    @Sendable func addMemory(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        struct Form: Decodable { var content: String?; var type: String?; var session: String? }
        let form = try Self.form(req, Form.self)
        let type = form.type.flatMap(MemoryType.init(rawValue:)) ?? .fact
        let sessionId = form.session.flatMap(UUID.init(uuidString:))
        do {
            let service = MemoryService(data: Self.data(req), llm: ServerLLMProvider(services: req.selene))
            let (_, created) = try await service.remember(form.content ?? "", type: type, sessionId: sessionId)
            return Self.redirect(.memories, flash: created ? "Remembered." : "Selene knew something like it: updated with your words.")
        } catch let e as FieldErrors {
            let list = try await ConversationStore(db: req.db).memories(limit: 500, includeEmbeddings: false)
            let draft = Pages.MemoryDraft(content: form.content ?? "", type: type, sessionId: sessionId)
            return Self.render(req, Pages.memories(list, errors: e.fields, draft: draft, context: Self.context(req)), status: .badRequest)
        }
    }

    @Sendable func updateMemory(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        struct Form: Decodable { var content: String?; var type: String?; var confidence: String? }
        let form = try Self.form(req, Form.self)
        var errors: [String: String] = [:]
        let confidence = form.confidence.flatMap(Double.init)
        if form.confidence != nil, confidence == nil { errors["confidence"] = "confidence must be a number between 0 and 1" }
        if errors.isEmpty {
            do {
                let update = MemoryUpdate(content: form.content, type: form.type.flatMap(MemoryType.init(rawValue:)), confidence: confidence)
                _ = try await Self.data(req).updateMemory(id: id, update)
                return Self.redirect(.memories, flash: "Memory saved.")
            } catch let e as FieldErrors {
                errors = e.fields
            }
        }
        let list = try await ConversationStore(db: req.db).memories(limit: 500, includeEmbeddings: false)
        return Self.render(req, Pages.memories(list, errors: errors, draft: Pages.MemoryDraft(), context: Self.context(req)), status: .badRequest)
    }

    @Sendable func deleteMemory(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        try await Self.data(req).deleteMemory(id: id)
        return Self.redirect(.memories, flash: "Forgotten.")
    }

    @Sendable func devices(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let list = try await ConversationStore(db: req.db).devices()
        return Self.render(req, Pages.devices(list, push: req.selene.pushStatus, context: Self.context(req)))
    }

    @Sendable func deleteDevice(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let id = try Self.intId(req)
        try Self.verify(req)
        if let device = try await DeviceModel.find(Int(id), on: req.writeDB) { try await device.delete(on: req.writeDB) }
        return Self.redirect(SiteURL.devices.path)
    }

    @Sendable func outbound(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        return Self.render(req, Pages.outbound(try await OutboundController.entries(req), context: Self.context(req)))
    }

    /// The hosted model: what it would receive from your notes, and your yes or no.
    @Sendable func hosted(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let consent = try await HostedConsentStore(db: req.db, hosted: req.selene.config.hosted).current()
        return Self.render(req, Pages.hosted(consent, context: Self.context(req)))
    }

    struct HostedAnswer: Decodable { var answer: String? }

    @Sendable func answerHosted(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let form = try Self.form(req, HostedAnswer.self)
        let store = HostedConsentStore(db: req.writeDB, hosted: req.selene.config.hosted)
        switch form.answer {
        case "yes": _ = try await store.answer(allow: true, now: req.now)
            return Self.redirect(.hosted, flash: "Requests with something from your notes now go to the hosted model.")
        case "no": _ = try await store.answer(allow: false, now: req.now)
            return Self.redirect(.hosted, flash: "Your notes stay on this machine: such requests are answered by your own model.")
        case "again": _ = try await store.askAgain()
            return Self.redirect(.hosted, flash: "The next request with something from your notes will be shown here before it goes.")
        default: throw SeleneError(.badRequest, "answer must be yes, no or again", fields: ["answer": "must be yes, no or again"])
        }
    }

    @Sendable func status(req: Request) async throws -> Response {
        try await Self.requireSignIn(req)
        let health = await req.selene.llmHealth()
        let counts = try await ProcessingQueue.status(on: req.db)
        return Self.render(req, Pages.status(llm: health, counts: counts, push: req.selene.pushStatus,
                                             backup: Pages.backupLine(req.selene.config.backups, last: SeleneBackup.lastScheduled(req.selene.config)),
                                             context: Self.context(req)))
    }
}
