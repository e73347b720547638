import Fluent
import Foundation
import SeleneShared
import SQLKit

/// The person's yes or no before anything from their notes goes to the hosted model
/// (`SELENE_HOSTED_PERSONAL=on`). The first request that would carry notes, memories or a
/// conversation is kept on their own model and held here word for word; the web app's "Hosted
/// model" page and `GET /api/hosted/consent` show it, and only a yes lets such requests go. One
/// row per hosted address: another address asks again.
struct HostedConsentStore {
    let db: any Database
    /// The hosted model switched on (nil: none).
    let hosted: SeleneConfig.Hosted?

    private struct Row: Decodable {
        var model: String, messages: String, asked_at: Date, decided_at: Date?, allowed: Bool?
    }

    private func row(_ url: String) async throws -> Row? {
        try await db.sql.raw("SELECT model, messages, asked_at, decided_at, allowed FROM hosted_consent WHERE url = \(bind: url)")
            .first(decoding: Row.self)
    }

    /// Where things stand for the hosted model switched on.
    func current() async throws -> HostedConsent {
        guard let hosted, hosted.personal else { return HostedConsent(state: .off, url: hosted?.url, model: hosted?.model) }
        guard let row = try await row(hosted.url) else { return HostedConsent(state: .notAsked, url: hosted.url, model: hosted.model) }
        let messages = (try? SeleneJSON.decode([LLMMessage].self, from: Data(row.messages.utf8))) ?? []
        let state: HostedConsent.State = switch row.allowed { case true?: .allowed; case false?: .refused; case nil: .waiting }
        return HostedConsent(state: state, url: hosted.url, model: row.model, askedAt: row.asked_at, decidedAt: row.decided_at, messages: messages)
    }

    /// Whether a request of `messages`, carrying something personal, may go: yes only after the
    /// person's yes. The first one asked is held for them to read (later ones while it waits are not).
    func allows(_ messages: [LLMMessage], now: Date) async throws -> Bool {
        guard let hosted, hosted.personal else { return false }
        if let row = try await row(hosted.url) { return row.allowed == true }
        let json = String(decoding: try SeleneJSON.encode(messages), as: UTF8.self)
        try await db.sql.raw("""
            INSERT INTO hosted_consent (url, model, messages, asked_at) VALUES (\(bind: hosted.url), \(bind: hosted.model), \(bind: json), \(bind: now))
            ON CONFLICT (url) DO NOTHING
            """).run()
        return false
    }

    /// The person's answer: to a held request, or a change of mind after one. A no also forgets
    /// the held request (the words from notes it kept were there only to be read before answering).
    func answer(allow: Bool, now: Date) async throws -> HostedConsent {
        let current = try await current()
        switch current.state {
        case .off: throw SeleneError(.conflict, "No hosted model may receive anything from your notes: set SELENE_HOSTED_URL and SELENE_HOSTED_PERSONAL=on first")
        case .notAsked: throw SeleneError(.conflict, "Nothing is waiting for your answer: the first request with something from your notes will be shown to you before it goes")
        case .waiting, .allowed, .refused: break
        }
        if allow {
            try await db.sql.raw("UPDATE hosted_consent SET allowed = TRUE, decided_at = \(bind: now) WHERE url = \(bind: current.url ?? "")").run()
        } else {
            try await db.sql.raw("UPDATE hosted_consent SET allowed = FALSE, decided_at = \(bind: now), messages = '[]' WHERE url = \(bind: current.url ?? "")").run()
        }
        return try await self.current()
    }

    /// Forget the answer: the next request with something from notes is held and shown again.
    func askAgain() async throws -> HostedConsent {
        if let url = hosted?.url { try await db.sql.raw("DELETE FROM hosted_consent WHERE url = \(bind: url)").run() }
        return try await current()
    }
}
