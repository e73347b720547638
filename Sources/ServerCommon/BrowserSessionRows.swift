import Fluent
import Foundation
import Vapor

/// The stored side of a browser session: a row per signed-in browser holding the SHA-256 of its
/// cookie (never the value itself) and when it ends, so any instance can serve any request. Each
/// app's row adds what the session opens to (Stitchuation: a user; Selene: which API token).
public protocol BrowserSessionRow: Model where IDValue == UUID {
    /// The field holding the hash of the session cookie's value.
    static var cookieHash: KeyPath<Self, FieldProperty<Self, String>> { get }
    var createdAt: Date { get set }
    var expiresAt: Date { get set }
}

extension BrowserSession {
    /// Opens a session: stores `row` (its app's own fields already set) for a new cookie, which
    /// goes out on `response`, ending `lifetime` from `now`.
    public func open<Row: BrowserSessionRow>(_ row: Row, lifetime: TimeInterval, now: Date, req: Request, on response: Response) async throws {
        let value = Self.randomValue()
        row[keyPath: Row.cookieHash].wrappedValue = Self.hash(value)
        row.createdAt = now
        row.expiresAt = now.addingTimeInterval(lifetime)
        try await row.create(on: req.db)
        setSession(value, expires: row.expiresAt, now: now, req: req, on: response)
    }

    /// The row this browser's cookie names while it lasts; nil with no cookie, an unknown one or an ended one.
    public func liveRow<Row: BrowserSessionRow>(_ type: Row.Type, now: Date, req: Request) async throws -> Row? {
        guard let value = session(req),
              let row = try await Row.query(on: req.db).filter(Row.cookieHash == Self.hash(value)).first(),
              row.expiresAt > now else { return nil }
        return row
    }

    /// Ends this browser's session: its row deleted, its cookie cleared.
    public func close<Row: BrowserSessionRow>(_ type: Row.Type, req: Request, on response: Response) async throws {
        if let value = session(req) {
            try await Row.query(on: req.db).filter(Row.cookieHash == Self.hash(value)).delete()
        }
        clearSession(req: req, on: response)
    }
}
