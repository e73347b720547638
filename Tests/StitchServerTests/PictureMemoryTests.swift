import AsyncHTTPClient
import CGD
import Foundation
import NIOCore
import NIOHTTP1
import StitchCore
@testable import StitchServer
import TestDatabases
import Testing

/// One account sending a phone's biggest photos all at once: each decodes to some 200 MB, and
/// only as many are decoded at once as the tools' pool allows. Played against the real binary,
/// whose peak memory (`VmHWM`) is its own, whatever else the test process runs.
@Suite("Picture sizes under one account's burst of 50-megapixel photos", .serialized)
struct PictureMemoryTests {
    /// An 8,160 × 6,120 photo (49.9 megapixels, just within `ImageFormat.maxPixels`): bands of
    /// colour, so it is a few hundred KB as JPEG and 200 MB decoded.
    static func bigPhoto() -> Data {
        let (width, height): (Int32, Int32) = (8160, 6120)
        let image = gdImageCreateTrueColor(width, height)!
        defer { gdImageDestroy(image) }
        for band in 0..<16 {
            let colour = Int32(band * 15) << 16 | Int32(200 - band * 10) << 8 | 90
            gdImageFilledRectangle(image, 0, Int32(band) * height / 16, width - 1, Int32(band + 1) * height / 16, colour)
        }
        var length: Int32 = 0
        let jpeg = gdImageJpegPtr(image, &length, 85)!
        defer { gdFree(jpeg) }
        return Data(bytes: jpeg, count: Int(length))
    }

    /// A process's peak resident memory, from Linux's /proc.
    static func peakBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    @Test("Eight 50-megapixel photos sent at once from one account: at most the account's share is decoded at once (the rest answered 429 with Retry-After before anything is stored), the server's peak memory grows by far less than eight decodes, and a refused photo goes in when sent again")
    func burstOfBigPhotos() async throws {
        guard let binary = ServerProcess.binary() else {
            Issue.record("the stitchuation binary is not built (swift build --build-tests builds it)")
            return
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-burst-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try ServerProcess(binary: binary, dataDir: root + "/server", databaseURL: nil)
        server.environment.merge(["TOOL_THREADS": "2", "TOOL_JOBS_PER_ACCOUNT": "2", "CLIENT_ATTEMPT_LIMIT": "1000"]) { _, set in set }
        try await server.start()
        defer { server.stop() }
        let http = HTTPClient.shared
        struct Answer: Sendable { var status: UInt; var headers: HTTPHeaders; var body: Data }

        @Sendable func send(_ method: HTTPMethod, _ path: String, token: String? = nil, type: String = "application/json", body: Data) async throws -> Answer {
            var request = HTTPClientRequest(url: server.base + path)
            request.method = method
            request.headers.add(name: "Content-Type", value: type)
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            request.body = .bytes(ByteBuffer(data: body))
            let response = try await http.execute(request, timeout: .seconds(300))
            let data = try await response.body.collect(upTo: 1 << 20)
            return Answer(status: response.status.code, headers: response.headers, body: Data(buffer: data))
        }
        let registered = try await send(.POST, "/auth/register", body: try JSONEncoder().encode(RegisterRequest(email: "ann@example.com", password: "correct horse", displayName: "Ann")))
        try #require(registered.status == 201, "\(String(decoding: registered.body, as: UTF8.self))")
        let token = try StitchJSON.makeDecoder().decode(AuthResponse.self, from: registered.body).accessToken
        let boundary = "burst-\(UUID().uuidString)"
        let photo = Self.bigPhoto()
        var form = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"big.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        form.append(photo)
        form.append(Data("\r\n--\(boundary)--\r\n".utf8))
        let upload: @Sendable () async throws -> Answer = { [form] in
            try await send(.POST, "/images", token: token, type: "multipart/form-data; boundary=\(boundary)", body: form)
        }

        let pid = try #require(server.pid)
        let before = try #require(Self.peakBytes(of: pid))
        let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
            for _ in 0..<8 { group.addTask { try await upload() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let after = try #require(Self.peakBytes(of: pid))
        let statuses = answers.map(\.status)
        let stored = answers.filter { $0.status == 201 }, refused = answers.filter { $0.status == 429 }
        #expect(stored.count + refused.count == 8, "\(statuses)")
        #expect(stored.count >= 1 && refused.allSatisfy { $0.headers.first(name: "Retry-After") == "5" }, "\(statuses)")
        // Eight decodes at once would be 1.6 GB and more; two at a time some 0.5 GB.
        let grown = after - before
        #expect(grown < 1_000_000_000, "the server's peak memory grew by \(grown / 1_000_000) MB")
        // Nothing of a refused photo was kept: the stored ones are all there is.
        let images = try stored.map { try StitchJSON.makeDecoder().decode(ImageUploadResponse.self, from: $0.body) }
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/server/images").filter { !$0.hasPrefix(".") && !$0.hasSuffix(".drawn") }
        #expect(files.count == images.count, "\(files) for \(images.map(\.key))")
        // Sent again once the others are done, a refused photo goes in, with its sizes.
        if !refused.isEmpty {
            let again = try await upload()
            #expect(again.status == 201, "\(again.status) \(String(decoding: again.body, as: UTF8.self))")
            let key = try StitchJSON.makeDecoder().decode(ImageUploadResponse.self, from: again.body).key
            let small = try await send(.GET, "/images/\(key)?w=192", token: token, body: Data())
            #expect(small.status == 200 && small.headers.first(name: "Content-Type") == "image/jpeg")
        }
    }
}
