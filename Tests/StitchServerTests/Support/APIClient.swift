import Foundation
import NIOCore
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// A signed-in user driving the API in a test.
struct TestUser {
    let app: Application
    let auth: AuthResponse
    var token: String { auth.accessToken }
    var id: UUID { auth.user.id }

    static func make(_ app: Application, email: String = "ann@example.com", name: String = "Ann") async throws -> TestUser {
        TestUser(app: app, auth: try await register(app, email: email, name: name))
    }

    func send(_ method: HTTPMethod, _ path: String, json: (any Encodable)? = nil, raw: String? = nil, headers: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        try await app.send(method, path, token: token, json: json, rawBody: raw, headers: headers)
    }

    /// Sends a JSON object given as a dictionary literal (partial bodies, nulls, wrong types).
    func sendObject(_ method: HTTPMethod, _ path: String, _ object: [String: Any?]) async throws -> TestingHTTPResponse {
        let cleaned = object.mapValues { $0 ?? NSNull() }
        let data = try JSONSerialization.data(withJSONObject: cleaned)
        return try await app.send(method, path, token: token, rawBody: String(decoding: data, as: UTF8.self))
    }

    func get<T: Decodable>(_ path: String, as type: T.Type = T.self) async throws -> T {
        let res = try await send(.GET, path)
        try #require(res.status == .ok, "GET \(path): \(res.status) \(res.text)")
        return try res.decode(T.self)
    }

    @discardableResult
    func create<T: Decodable>(_ path: String, _ object: [String: Any?], as type: T.Type = T.self) async throws -> T {
        let res = try await sendObject(.POST, path, object)
        try #require(res.status == .created, "POST \(path): \(res.status) \(res.text)")
        return try res.decode(T.self)
    }

    @discardableResult
    func thread(_ brand: String = "DMC", _ number: String = "310", quantity: Int = 0, extra: [String: Any?] = [:]) async throws -> InventoryThread {
        var body: [String: Any?] = ["brand": brand, "number": number, "quantity": quantity]
        body.merge(extra) { _, new in new }
        return try await create("/threads", body)
    }

    func canvas(_ name: String = "Nutcracker", designer: String = "Melissa Shirley") async throws -> Canvas {
        try await create("/canvases", ["designer": designer, "designName": name, "meshCount": 18])
    }

    func project(canvas: Canvas) async throws -> ProjectDetail {
        try await create("/projects", ["canvasId": canvas.id.uuidString])
    }

    func upload(_ path: String, files: [(name: String, filename: String, type: String, data: Data)]) async throws -> TestingHTTPResponse {
        let boundary = "----stitch-\(UUID().uuidString)"
        var body = Data()
        for file in files {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: \(file.type)\r\n\r\n".utf8))
            body.append(file.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await sendMultipart(path, boundary: boundary, body: [UInt8](body))
    }

    /// POSTs `body` as multipart/form-data with `boundary`, as is (malformed bodies included).
    func sendMultipart(_ path: String, boundary: String, body: [UInt8]) async throws -> TestingHTTPResponse {
        var headers = HTTPHeaders()
        headers.bearerAuthorization = BearerAuthorization(token: token)
        headers.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
        return try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(bytes: body))
    }

    func syncVersion() async throws -> Int64 {
        try await SyncVersion.current(for: id, on: app.db)
    }
}

enum Fixtures {
    /// A real 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!
    /// A real 1×1 JPEG.
    static let jpeg = Data(base64Encoded: "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=")!
    static let text = Data("This is not a picture, just a renamed text file.\n".utf8)

    static func file(_ data: Data, name: String = "image", filename: String = "photo.jpg", type: String = "image/jpeg")
        -> (name: String, filename: String, type: String, data: Data) {
        (name, filename, type, data)
    }
}
