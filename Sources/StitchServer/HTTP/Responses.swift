import Foundation
import StitchCore
import Vapor

// Responses shaped by what a request asks (its `If-None-Match`, `Range` and `?w=`): a list page
// from the cache or a 304, a picture at a size or a range of a file. The services make the bytes.

/// A JSON list page for the signed-in user, from the cache when the user's data has not changed
/// since it was rendered. Answers `304 Not Modified` to a matching `If-None-Match`, so clients
/// that keep the page skip the transfer too. A cached page (or a 304) is answered on the request's
/// event loop; only a page that must be rendered runs `render` in a Swift task.
func cachedList(_ req: Request, kind: String, render: @escaping @Sendable () async throws -> [UInt8]) throws -> EventLoopFuture<Response> {
    let user = try req.user
    guard let version = user.syncVersion else {
        return req.eventLoop.makeFutureWithTask { listResponse(try await render(), etag: nil) }
    }
    // The query's part is a fixed hash (FNV-1a), not Swift's per-process `hashValue`: the same
    // page must have the same tag after a restart and on every instance behind a load balancer.
    let query = req.url.query ?? ""
    let etag = "\"\(kind)-\(version)-\(user.id.text.prefix(8).lowercased())-\(fnv1a(query))\""
    if let match = req.headers.first(name: .ifNoneMatch), ifNoneMatch(match, contains: etag) {
        let response = Response(status: .notModified)
        response.headers.replaceOrAdd(name: .eTag, value: etag)
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, no-cache")
        return req.eventLoop.makeSucceededFuture(response)
    }
    let cache = req.application.responseCache
    let key = "\(user.id.text)|\(kind)|\(query)"
    if let body = cache.get(key, version: version) {
        return req.eventLoop.makeSucceededFuture(listResponse(body, etag: etag))
    }
    return req.eventLoop.makeFutureWithTask {
        let body = ByteBuffer(bytes: try await render())
        cache.put(key, version: version, body: body)
        return listResponse(body, etag: etag)
    }
}

private func listResponse(_ bytes: [UInt8], etag: String?) -> Response {
    listResponse(ByteBuffer(bytes: bytes), etag: etag)
}

private func listResponse(_ body: ByteBuffer, etag: String?) -> Response {
    let response = Response(status: .ok, body: .init(buffer: body))
    response.headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
    if let etag {
        response.headers.replaceOrAdd(name: .eTag, value: etag)
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, no-cache")
    }
    return response
}

/// Encodes records with the wire encoder; `status` for creations.
func respond<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok) throws -> Response {
    try jsonResponse(value, status: status)
}

/// A pattern's drawn page (`Patterns.page`): kept by the browser, never sniffed.
func pageResponse(_ data: Data) -> Response {
    Response(status: .ok, headers: ["Content-Type": ImageFormat.detect(data)?.contentType ?? "image/png",
                                    "Cache-Control": "private, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"],
             body: .init(data: data))
}

extension PictureSizes {
    /// What a page or the API sends for `key` at `?w=`: a made size (JPEG) when there is one —
    /// always for a page (`derived: true`), whose pictures carry no metadata — else the original.
    /// A picture stored before sizes were made gets them now.
    static func response(for image: ImageModel, derived: Bool, req: Request) async throws -> Response {
        let (app, db) = (req.application, req.db)
        let requested = (try? req.query.get(Int.self, at: "w")).map { max(1, min($0, 10_000)) }
        let key = try image.requireID()
        let format = ImageFormat.allCases.first { $0.contentType == image.contentType }
        var made = widths(of: image)
        let wantsSize = derived || requested != nil
        if made == nil, wantsSize, let format, format.isPicture {
            made = try await app.pictureDerivations.once(key) {
                guard let original = try await app.imageStorage.get(key) else { return [] }
                return try await store(try await make(original, format: format, account: image.userId, background: true, app: app), key: key, app: app, db: db)
            }
        }
        let width = wantsSize ? pick(requested, from: made ?? []) : nil
        let etag = "\"\(image.sha256)\(width.map { "-w\($0)" } ?? "")\""
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "private, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"]
        if req.headers.first(name: .ifNoneMatch) == etag { return Response(status: .notModified, headers: headers) }
        // The API's reader (a device), with S3_PRESIGNED_URLS: after the ownership check, the
        // bucket serves the bytes. Pages keep theirs on this origin (the offline copy, the CSP).
        if !derived, let lifetime = app.config.presignedURLSeconds, let bucket = app.imageStorage as? S3ImageStorage {
            let (url, fresh) = try bucket.presigned(width.map { storageKey(key, width: $0) } ?? key, lifetime: lifetime, now: req.now)
            return Response(status: .temporaryRedirect, headers: ["Location": url, "Cache-Control": "private, max-age=\(fresh)"])
        }
        headers.replaceOrAdd(name: .contentType, value: width == nil ? image.contentType : "image/jpeg")
        // A file as uploaded (a pattern's PDF, say) is read in ranges when asked: only those bytes
        // are read from the storage.
        if width == nil {
            headers.replaceOrAdd(name: "Accept-Ranges", value: "bytes")
            switch byteRange(req.headers.first(name: .range), total: image.byteSize) {
            case .whole:
                break
            case .unsatisfiable:
                headers.replaceOrAdd(name: "Content-Range", value: "bytes */\(image.byteSize)")
                return Response(status: .rangeNotSatisfiable, headers: headers)
            case .part(let range):
                guard let part = try await app.imageStorage.get(key, range: range) else { throw APIError.notFound }
                headers.replaceOrAdd(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(image.byteSize)")
                return Response(status: .partialContent, headers: headers, body: .init(data: part))
            }
        }
        guard let data = try await app.imageStorage.get(width.map { storageKey(key, width: $0) } ?? key) else { throw APIError.notFound }
        return Response(status: .ok, headers: headers, body: .init(data: data))
    }
}
