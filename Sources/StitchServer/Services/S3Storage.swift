import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import StitchCore
import Vapor

/// `STORAGE_URL=s3://BUCKET/PREFIX` and its companions: an S3-compatible bucket (AWS, R2, B2,
/// Tigris, MinIO…) in place of the data folder, for several instances that share no disk.
public struct S3Settings: Sendable, Equatable {
    /// `S3_ENDPOINT`: `https://…`, or `http://…` for a server on this machine or network.
    public var endpoint: String
    public var region: String
    public var bucket: String
    /// Every object's key starts with this (no leading `/`; `""` or ending in `/`).
    public var prefix: String
    public var accessKeyId: String
    public var secretAccessKey: String
    /// `S3_PATH_STYLE=true`: `endpoint/bucket/key` (MinIO-likes) instead of `bucket.endpoint/key`.
    public var pathStyle: Bool

    public init(endpoint: String, region: String, bucket: String, prefix: String, accessKeyId: String, secretAccessKey: String, pathStyle: Bool) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = prefix
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.pathStyle = pathStyle
    }

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// nil without `STORAGE_URL` (the data folder); an error naming the setting that is wrong.
    public static func fromEnvironment(_ env: [String: String]) throws -> S3Settings? {
        guard let url = env["STORAGE_URL"], !url.isEmpty else { return nil }
        guard url.hasPrefix("s3://") else { throw Invalid(description: "STORAGE_URL must be s3://BUCKET/PREFIX (got \(url))") }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard !bucket.isEmpty, bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw Invalid(description: "STORAGE_URL's bucket must be a bucket name (lower-case letters, digits, - and .): \(url)")
        }
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        guard let key = env["AWS_ACCESS_KEY_ID"], !key.isEmpty, let secret = env["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw Invalid(description: "STORAGE_URL is set: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are needed with it")
        }
        let region = env["S3_REGION"].flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        let endpoint = (env["S3_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://s3.\(region).amazonaws.com")
            .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let parsed = URLComponents(string: endpoint), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host?.isEmpty == false,
              parsed.path.isEmpty else {
            throw Invalid(description: "S3_ENDPOINT must be http(s)://HOST[:PORT] (got \(endpoint))")
        }
        let pathStyle = ["1", "true", "yes"].contains((env["S3_PATH_STYLE"] ?? "").lowercased())
        return S3Settings(endpoint: endpoint, region: region, bucket: bucket, prefix: prefix, accessKeyId: key, secretAccessKey: secret, pathStyle: pathStyle)
    }

    /// Where the bucket is, told without the credentials (for logs and `/health`).
    public var display: String { "s3://\(bucket)/\(prefix) at \(endpoint)" }
}

/// AWS Signature Version 4 for S3 (there is no AWS SDK for Swift here): headers for a request,
/// or a presigned URL. https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
struct S3Signer: Sendable {
    var accessKeyId: String
    var secretAccessKey: String
    var region: String

    static let emptyPayload = SHA256.hash(data: Data()).hex

    /// RFC 3986's unreserved characters stay; everything else is %XX (upper-case). `/` too unless a path's.
    static func encode(_ text: String, slash: Bool = true) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-_.~".contains(c)) || (!slash && c == "/") {
                out.append(c)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    static func timestamps(_ date: Date) -> (day: String, time: String) {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let time = f.string(from: date)
        return (String(time.prefix(8)), time)
    }

    func scope(_ day: String) -> String { "\(day)/\(region)/s3/aws4_request" }

    func signature(_ stringToSign: String, day: String) -> String {
        func hmac(_ key: [UInt8], _ text: String) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key)))
        }
        var key = hmac(Array("AWS4\(secretAccessKey)".utf8), day)
        for part in [region, "s3", "aws4_request"] { key = hmac(key, part) }
        return hmac(key, stringToSign).hex
    }

    /// The canonical request's signature over `headers` (names lower-case; `host` among them).
    func sign(method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, time: String) -> (signature: String, signedHeaders: String) {
        let canonicalQuery = query.map { (Self.encode($0.0), Self.encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let sortedHeaders = headers.map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: .whitespaces)) }.sorted { $0.0 < $1.0 }
        let signedHeaders = sortedHeaders.map(\.0).joined(separator: ";")
        let canonical = [method, Self.encode(path, slash: false), canonicalQuery,
                         sortedHeaders.map { "\($0.0):\($0.1)\n" }.joined(), signedHeaders, payloadHash].joined(separator: "\n")
        let day = String(time.prefix(8))
        let stringToSign = ["AWS4-HMAC-SHA256", time, scope(day), SHA256.hash(data: Data(canonical.utf8)).hex].joined(separator: "\n")
        return (signature(stringToSign, day: day), signedHeaders)
    }

    /// The headers to send (with `Authorization`), for `headers` (host included) and a payload's hash.
    func authorize(method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, date: Date) -> [(String, String)] {
        let (day, time) = Self.timestamps(date)
        let all = headers + [("x-amz-content-sha256", payloadHash), ("x-amz-date", time)]
        let (signature, signed) = sign(method: method, path: path, query: query, headers: all, payloadHash: payloadHash, time: time)
        return all + [("Authorization", "AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(scope(day)),SignedHeaders=\(signed),Signature=\(signature)")]
    }

    /// A presigned URL's query (the signature last): the URL works without credentials for `expires` seconds.
    func presign(method: String, path: String, host: String, expires: Int, date: Date) -> [(String, String)] {
        let (day, time) = Self.timestamps(date)
        let query = [("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(accessKeyId)/\(scope(day))"), ("X-Amz-Date", time),
                     ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", "host")]
        let (signature, _) = sign(method: method, path: path, query: query, headers: [("host", host)], payloadHash: "UNSIGNED-PAYLOAD", time: time)
        return query + [("X-Amz-Signature", signature)]
    }
}

/// What an S3 server answered that isn't what was asked for: its status and its own words.
struct S3Error: Error, CustomStringConvertible {
    var status: Int
    var code: String
    var message: String
    var description: String { "S3 answered \(status) \(code)\(message.isEmpty ? "" : ": \(message)")" }
}

/// Objects in a bucket over S3's REST API (path-style or virtual-hosted), signed with SigV4, over
/// AsyncHTTPClient. Large objects go up in parts (multipart upload).
struct S3Client: Sendable {
    let settings: S3Settings
    let http: HTTPClient
    let signer: S3Signer
    /// Objects larger than this go up in parts of this size (S3's smallest part is 5 MiB).
    var partSize = 8 * 1024 * 1024
    /// The largest object read whole into memory (a pattern's file, with room).
    var maxObjectBytes = 256 * 1024 * 1024
    var timeout: TimeAmount = .seconds(60)

    init(settings: S3Settings, http: HTTPClient) {
        self.settings = settings
        self.http = http
        self.signer = S3Signer(accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, region: settings.region)
    }

    private var endpoint: URLComponents { URLComponents(string: settings.endpoint)! }

    /// The Host header and the path for an object's key (nil: the bucket itself).
    func location(_ key: String?) -> (host: String, path: String) {
        let e = endpoint
        var host = e.host ?? ""
        if let port = e.port { host += ":\(port)" }
        let object = key.map { "/" + $0 } ?? "/"
        if settings.pathStyle { return (host, "/\(settings.bucket)\(key == nil ? "" : object)") }
        return ("\(settings.bucket).\(host)", object)
    }

    /// A full key: the prefix, then `key`.
    func objectKey(_ key: String) -> String { settings.prefix + key }

    func send(_ method: HTTPMethod, key: String?, query: [(String, String)] = [], body: [UInt8] = [], headers extra: [(String, String)] = [],
              accept: Set<Int> = [200]) async throws -> (status: Int, headers: HTTPHeaders, body: ByteBuffer) {
        let (host, path) = location(key)
        let hash = body.isEmpty ? S3Signer.emptyPayload : SHA256.hash(data: body).hex
        let signed = signer.authorize(method: method.rawValue, path: path, query: query, headers: [("host", host)] + extra, payloadHash: hash, date: Date())
        let queryText = query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: "\(endpoint.scheme!)://\(host)\(S3Signer.encode(path, slash: false))\(queryText.isEmpty ? "" : "?" + queryText)")
        request.method = method
        for (name, value) in signed where name != "host" { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == .PUT || method == .POST { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await http.execute(request, timeout: timeout)
        let bytes = try await response.body.collect(upTo: method == .GET ? maxObjectBytes : 1024 * 1024)
        let status = Int(response.status.code)
        guard accept.contains(status) else { throw Self.error(status: status, body: bytes) }
        return (status, response.headers, bytes)
    }

    static func error(status: Int, body: ByteBuffer) -> S3Error {
        let text = String(buffer: body)
        return S3Error(status: status, code: xmlValues("Code", in: text).first ?? "", message: xmlValues("Message", in: text).first ?? "")
    }

    /// The text of every `<name>` element (S3's answers are flat enough for this), entities read.
    static func xmlValues(_ name: String, in xml: String) -> [String] {
        var values: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) {
            values.append(String(rest[open.upperBound..<close.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[close.upperBound...]
        }
        return values
    }

    /// Whether the bucket answers these credentials: a clear sentence when it doesn't.
    func check() async throws {
        do {
            _ = try await send(.GET, key: nil, query: [("list-type", "2"), ("max-keys", "1"), ("prefix", settings.prefix)])
        } catch let error as S3Error {
            switch (error.status, error.code) {
            case (404, _), (_, "NoSuchBucket"):
                throw S3Settings.Invalid(description: "S3 storage: the bucket \(settings.bucket) does not exist at \(settings.endpoint) (\(error))")
            case (401, _), (403, _):
                throw S3Settings.Invalid(description: "S3 storage: \(settings.endpoint) refused the credentials AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY for bucket \(settings.bucket) (\(error))")
            default:
                throw S3Settings.Invalid(description: "S3 storage: \(settings.display) answered \(error)")
            }
        } catch let error as S3Settings.Invalid {
            throw error
        } catch {
            throw S3Settings.Invalid(description: "S3 storage: can't reach \(settings.endpoint) (\(error))")
        }
    }

    func put(_ data: Data, key: String, contentType: String = "application/octet-stream") async throws {
        let bytes = [UInt8](data)
        guard bytes.count > partSize else {
            _ = try await send(.PUT, key: objectKey(key), body: bytes, headers: [("content-type", contentType)])
            return
        }
        // In parts: nothing is visible under the key until the last part is in and the upload completed.
        let created = try await send(.POST, key: objectKey(key), query: [("uploads", "")], headers: [("content-type", contentType)])
        guard let uploadId = Self.xmlValues("UploadId", in: String(buffer: created.body)).first else {
            throw S3Error(status: created.status, code: "NoUploadId", message: "CreateMultipartUpload answered no UploadId")
        }
        do {
            var parts: [String] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + partSize)
                let part = try await send(.PUT, key: objectKey(key), query: [("partNumber", String(parts.count + 1)), ("uploadId", uploadId)],
                                          body: Array(bytes[offset..<end]))
                parts.append(part.headers.first(name: "ETag") ?? "")
                offset = end
            }
            let list = parts.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\($0.element)</ETag></Part>" }.joined()
            let done = try await send(.POST, key: objectKey(key), query: [("uploadId", uploadId)],
                                      body: Array("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8))
            // S3 may answer 200 with an error in the body when completing.
            if String(buffer: done.body).contains("<Error>") { throw Self.error(status: 200, body: done.body) }
        } catch {
            _ = try? await send(.DELETE, key: objectKey(key), query: [("uploadId", uploadId)], accept: [200, 204, 404])
            throw error
        }
    }

    func get(_ key: String) async throws -> Data? {
        let answer = try await send(.GET, key: objectKey(key), accept: [200, 404])
        return answer.status == 404 ? nil : Data(buffer: answer.body)
    }

    /// Only the bytes of `range` (S3's ranged GET).
    func get(_ key: String, range: ClosedRange<Int>) async throws -> Data? {
        let answer = try await send(.GET, key: objectKey(key), headers: [("range", "bytes=\(range.lowerBound)-\(range.upperBound)")], accept: [200, 206, 404])
        if answer.status == 404 { return nil }
        let data = Data(buffer: answer.body)
        // The part, said by Content-Range (rclone's answers it with 200, not 206); a server that
        // ignored Range answers the whole object, and the range is cut from it.
        if answer.status == 206 || answer.headers.first(name: "Content-Range") != nil { return data }
        return data.count > range.lowerBound ? Data(data[range.clamped(to: 0...(data.count - 1))]) : Data()
    }

    func delete(_ key: String) async throws {
        _ = try await send(.DELETE, key: objectKey(key), accept: [200, 204, 404])
    }

    /// An object as a listing names it.
    struct Listed: Equatable, Sendable {
        var key: String
        var size: Int
        var etag: String
        var modified: Date?
    }

    /// Every object (its key without the prefix, size and ETag) under `prefix`, page by page.
    func listDetailed(under prefix: String) async throws -> [Listed] {
        var objects: [Listed] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", objectKey(prefix))]
            if let token { query.append(("continuation-token", token)) }
            let page = String(buffer: try await send(.GET, key: nil, query: query).body)
            for entry in Self.xmlValues("Contents", in: page) {
                guard let key = Self.xmlValues("Key", in: entry).first else { continue }
                objects.append(Listed(key: String(key.dropFirst(settings.prefix.count)), size: Int(Self.xmlValues("Size", in: entry).first ?? "") ?? -1,
                                      etag: Self.xmlValues("ETag", in: entry).first ?? "",
                                      modified: Self.xmlValues("LastModified", in: entry).first.flatMap(Self.isoDate)))
            }
            token = Self.xmlValues("IsTruncated", in: page).first == "true" ? Self.xmlValues("NextContinuationToken", in: page).first : nil
        } while token != nil
        return objects
    }

    /// S3's `LastModified` (ISO 8601, with or without fractional seconds).
    static func isoDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = f.date(from: text) { return date }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    /// Every key (without the prefix) under `prefix`.
    func list(under prefix: String) async throws -> [String] { try await listDetailed(under: prefix).map(\.key) }

    /// A URL that reads the object without credentials for `expires` seconds.
    func presignedURL(_ key: String, expires: Int, date: Date = Date()) -> String {
        let (host, path) = location(objectKey(key))
        let query = signer.presign(method: "GET", path: path, host: host, expires: expires, date: date)
        return "\(endpoint.scheme!)://\(host)\(S3Signer.encode(path, slash: false))?" + query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&")
    }
}

/// Uploads and what is drawn from them as objects: `<prefix><key>`, and `<prefix><key>.drawn/<name>`
/// for `<key>/<name>` (as the folder keeps them: a server that keeps objects as files — rclone's,
/// MinIO's — can't hold both `<key>` and `<key>/…`).
struct S3ImageStorage: ImageStorage {
    let client: S3Client

    /// The object's name (under the prefix) for a key of the server's own; any other is refused
    /// before anything is sent.
    static func object(_ key: String) throws -> String {
        if ImageKeys.isWellFormed(key) { return key }
        guard ImageKeys.isWellFormedUnder(key) else { throw APIError.notFound }
        let parts = key.split(separator: "/")
        return "\(parts[0]).drawn/\(parts[1])"
    }

    func put(_ data: Data, key: String) async throws {
        // Typed by its extension, so a presigned read comes with the right Content-Type.
        let type = ImageFormat.allCases.first { key.hasSuffix("." + $0.fileExtension) }?.contentType ?? "application/octet-stream"
        try await client.put(data, key: Self.object(key), contentType: type)
    }

    /// A URL that reads `key` without credentials, handed out after the app's ownership check
    /// (`S3_PRESIGNED_URLS`). Signed at the start of a window half its lifetime long, so the same
    /// picture has the same URL (and the phone's cache holds) for that long; and how many seconds
    /// more the URL may be handed out.
    func presigned(_ key: String, lifetime: Int, now: Date) throws -> (url: String, fresh: Int) {
        let window = max(1, lifetime / 2)
        let start = (Int(now.timeIntervalSince1970) / window) * window
        let url = client.presignedURL(try Self.object(key), expires: lifetime, date: Date(timeIntervalSince1970: Double(start)))
        return (url, max(0, start + window - Int(now.timeIntervalSince1970)))
    }

    func get(_ key: String) async throws -> Data? {
        try await client.get(Self.object(key))
    }

    func get(_ key: String, range: ClosedRange<Int>) async throws -> Data? {
        try await client.get(Self.object(key), range: range)
    }

    func delete(_ key: String) async throws {
        try await client.delete(Self.object(key))
    }

    func deleteAll(under key: String) async throws {
        guard ImageKeys.isWellFormed(key) else { throw APIError.notFound }
        for name in try await client.list(under: key + ".drawn/") { try await client.delete(name) }
    }

    func storedKeys() async throws -> [(key: String, modified: Date)] {
        var found: [String: Date] = [:]
        for object in try await client.listDetailed(under: "") {
            let first = String(object.key.prefix { $0 != "/" })
            let key = first.hasSuffix(".drawn") ? String(first.dropLast(".drawn".count)) : first
            guard ImageKeys.isWellFormed(key) else { continue }
            found[key] = max(found[key] ?? .distantPast, object.modified ?? Date())
        }
        return found.map { ($0.key, $0.value) }
    }
}

/// The bucket checked as the server starts: it doesn't listen without its storage.
struct ObjectStorageCheck: LifecycleHandler {
    let client: S3Client

    func willBootAsync(_ application: Application) async throws {
        try await client.check()
        application.logger.notice("Storing files in \(client.settings.display)")
    }
}
