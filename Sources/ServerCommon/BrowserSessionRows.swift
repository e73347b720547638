import Fluent
import Foundation
import Vapor

/// The columns of an app's `web_sessions` table beyond those every session has: what the cookie's
/// hash is called, and what the session opens to (its owner: Stitchuation's user, the API token
/// Selene's was opened with).
public protocol BrowserSessionTable: Sendable {
    associatedtype Owner: Codable & Sendable
    static var cookieHashColumn: FieldKey { get }
    static var ownerColumn: FieldKey { get }
}

/// The stored side of a browser session: a row per signed-in browser holding the SHA-256 of its
/// cookie (never the value itself), what it opens to, and when it ends, so any instance can serve
/// any request.
public final class BrowserSessionRow<Table: BrowserSessionTable>: Model, @unchecked Sendable {
    public static var schema: String { "web_sessions" }
    @ID(key: .id) public var id: UUID?
    @Field(key: Table.cookieHashColumn) public var cookieHash: String
    @Field(key: Table.ownerColumn) public var owner: Table.Owner
    @Field(key: "created_at") public var createdAt: Date
    @Field(key: "expires_at") public var expiresAt: Date
    public init() {}
    public init(owner: Table.Owner) { self.owner = owner }
}

extension BrowserSession {
    /// Opens a session: stores `row` (its app's own fields already set) for a new cookie, which
    /// goes out on `response`, ending `lifetime` from `now`.
    public func open<Table>(_ row: BrowserSessionRow<Table>, lifetime: TimeInterval, now: Date, req: Request, on response: Response) async throws {
        let value = Self.randomValue()
        row.cookieHash = Self.hash(value)
        row.createdAt = now
        row.expiresAt = now.addingTimeInterval(lifetime)
        try await row.create(on: req.db)
        setSession(value, expires: row.expiresAt, now: now, req: req, on: response)
    }

    /// The row this browser's cookie names while it lasts; nil with no cookie, an unknown one or an ended one.
    public func liveRow<Table>(_ type: BrowserSessionRow<Table>.Type, now: Date, req: Request) async throws -> BrowserSessionRow<Table>? {
        guard let value = session(req),
              let row = try await type.query(on: req.db).filter(\.$cookieHash == Self.hash(value)).first(),
              row.expiresAt > now else { return nil }
        return row
    }

    /// Ends this browser's session: its row deleted, its cookie cleared.
    public func close<Table>(_ type: BrowserSessionRow<Table>.Type, req: Request, on response: Response) async throws {
        if let value = session(req) {
            try await type.query(on: req.db).filter(\.$cookieHash == Self.hash(value)).delete()
        }
        clearSession(req: req, on: response)
    }
}
