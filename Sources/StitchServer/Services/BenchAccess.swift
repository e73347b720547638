import CGD
import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The server's own operations that `stitch-bench` times beside its HTTP figures (its baseline
/// and `--stages`), open to it alone through `@_spi(Bench)`: the benchmark's code lives in its
/// target; these only forward to what the server does anyway.
@_spi(Bench) public enum BenchAccess {
    /// The thread catalogs the server searches as a person types.
    public static func catalog() throws -> ThreadCatalog { try Catalogs.shared() }

    /// A canvas photo's pixels as `GET /canvases/{id}/palette` reads them (decoded, at most
    /// `CanvasPalettes.readSize` a side); nil when the bytes aren't a picture.
    public static func palettePixels(_ data: Data) -> RGBPixels? {
        guard let format = ImageFormat.detect([UInt8](data.prefix(64))), format.isPicture else { return nil }
        var options = CanvasPalette.Options()
        return CanvasPalettes.pixels(data, format: format, spot: nil, options: &options)?.0
    }

    /// Only decoding the photo (libgd), the baseline of the palette's time; true when it decoded.
    public static func decodeOnly(_ data: Data) -> Bool {
        guard let format = ImageFormat.detect([UInt8](data.prefix(64))), let image = Pictures.decode(data, format: format) else { return false }
        gdImageDestroy(image)
        return true
    }

    /// `data` scaled to `width` × `height` and written as a JPEG (a phone's 12-megapixel photo of a made canvas).
    public static func enlargedJPEG(_ data: Data, width: Int, height: Int) -> Data? {
        guard let format = ImageFormat.detect([UInt8](data.prefix(64))), let image = Pictures.decode(data, format: format) else { return nil }
        defer { gdImageDestroy(image) }
        guard let big = gdImageScale(image, UInt32(width), UInt32(height)) else { return nil }
        defer { gdImageDestroy(big) }
        var length: Int32 = 0
        guard let jpeg = gdImageJpegPtr(big, &length, 90) else { return nil }
        defer { gdFree(jpeg) }
        return Data(bytes: jpeg, count: Int(length))
    }

    /// The sign-in every API route sits behind.
    public static var requireUser: any Middleware { RequireUser() }

    public static func createUser(_ id: UUID, email: String, on db: any Database) async throws {
        try await UserModel(id: id, email: email, displayName: "Baseline", passwordHash: nil, now: Date()).create(on: db)
    }

    /// The threads table and its columns, in the order the server reads them.
    public static var threadTable: String { ThreadModel.schema }
    public static var threadColumns: [String] { ThreadModel.columns }

    /// A push's batched multi-row upsert, in one write transaction.
    public static func upsertThreads(_ records: [InventoryThread], userId: UUID, version: Int64, on db: any Database) async throws {
        try await db.writeTransaction { db in
            try await BatchWriter.upsert(records, as: ThreadModel.self, userId: userId, version: version, on: db)
        }
    }

    /// A push's read of the current rows of the threads with these ids; answers how many.
    public static func readThreads(ids: [UUID], on db: any Database) async throws -> Int {
        try await db.selectRecords(ThreadModel.self, ThreadModel.select(on: db).where(SQLUUIDIn("id", ids))).count
    }

    /// The user's threads read into records, as list pages read them; answers how many.
    public static func readThreads(userId: UUID, on db: any Database) async throws -> Int {
        try await db.selectRecords(ThreadModel.self, ThreadModel.select(on: db).where("user_id", .equal, SQLUUID(userId))).count
    }

    /// One page of a pull, without HTTP.
    public static func pull(userId: UUID, after cursor: SyncCursor, limit: Int, on db: any Database)
        async throws -> (changes: [SyncChange], cursor: SyncCursor, hasMore: Bool) {
        let page = try await SyncService.pull(userId: userId, after: cursor, limit: limit, skipVersion: nil, db: db)
        return (page.changes, page.cursor, page.hasMore)
    }

    /// The statement every pull starts with.
    public static func probe(userId: UUID, from version: Int64, on db: any Database) async throws {
        _ = try await SyncService.probe(userId: userId, from: version, db: db)
    }

    /// A whole `POST /sync` answered in-process.
    public static func sync(_ request: SyncRequest, userId: UUID, app: Application) async throws -> SyncResponse {
        try await SyncService.sync(request, userId: userId, app: app, db: app.db)
    }
}
