import Foundation
import ServerCommon
import StitchCore
import TestDatabases
@testable import StitchServer
import Testing
import VaporTesting

/// Attacks on everyone else's share of the server: a stranger's huge upload, a picture whose
/// header asks for gigabytes of pixels. What a person would check: the answer comes, memory stays
/// where it was, nothing is kept.
@Suite("Resource limits: bodies read only for someone known, pixel bombs refused by their header")
struct ResourceLimitTests {
    /// This process's resident memory (Linux's /proc; nil elsewhere).
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    /// A PNG of `width` × `height` one-bit pixels, all white, compressed as zlib does best (the
    /// 40,000 × 40,000 one is about 200 KB and decodes to gigabytes). python3's zlib writes it.
    static func bomb(width: Int, height: Int) throws -> Data {
        let script = """
            import struct, sys, zlib
            w, h = int(sys.argv[1]), int(sys.argv[2])
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            row = b'\\x00' + b'\\xff' * ((w + 7) // 8)
            c = zlib.compressobj(9)
            data = b''.join(c.compress(row * 1000) for _ in range(h // 1000)) + c.compress(row * (h % 1000)) + c.flush()
            sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 1, 0, 0, 0, 0)) + chunk(b'IDAT', data) + chunk(b'IEND', b''))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, "\(width)", "\(height)"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    @Test("A 40,000 × 40,000 PNG of a few hundred KB is refused by its header on every picture path; memory stays put")
    func pixelBomb() async throws {
        let bomb = try Self.bomb(width: 40_000, height: 40_000)
        #expect(bomb.count < 400_000 && ImageDimensions.read(bomb, format: .png) == ImageDimensions(width: 40_000, height: 40_000))
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let project = try await ann.project(canvas: canvas)
            let before = Self.residentBytes()
            let file = { (name: String) in (name: name, filename: "bomb.png", type: "image/png", data: bomb) }
            for (path, field) in [("/threads/scan", "image"), ("/canvases/\(canvas.id)/image", "image"), ("/images", "image"),
                                  ("/projects/\(project.project.id)/patterns", "file")] {
                let res = try await ann.upload(path, files: [file(field)])
                #expect(res.status == .payloadTooLarge, "\(path): \(res.status) \(res.text)")
                #expect(res.text.contains("megapixels"), "\(res.text)")
            }
            if let before, let after = Self.residentBytes() {
                #expect(after - before < 1_000_000_000, "resident memory grew by \((after - before) / 1_000_000) MB")
            }
            #expect(try await ImageModel.query(on: app.db).count() == 0)
            // A picture within the limit still goes through.
            let fine = try Self.bomb(width: 2_000, height: 1_500)
            #expect(try await ann.upload("/images", files: [(name: "image", filename: "fine.png", type: "image/png", data: fine)]).status == .created)
        }
    }

    @Test("Headers are read for every format: PNG, JPEG (baseline and progressive), WebP (lossy, lossless, extended), HEIC's largest ispe")
    func headers() throws {
        func bytes(_ list: [UInt8]) -> Data { Data(list) }
        let jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC2, 0x00, 0x11, 0x08, 0x9C, 0x40, 0x75, 0x30, 0x03])
        #expect(ImageDimensions.read(jpeg, format: .jpeg) == ImageDimensions(width: 30_000, height: 40_000))
        var webpX = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
        webpX += [0x3F, 0x9C, 0x00, 0x3F, 0x9C, 0x00]  // 40,000 − 1 twice
        #expect(ImageDimensions.read(Data(webpX), format: .webp) == ImageDimensions(width: 40_000, height: 40_000))
        let lossless = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8L".utf8) + [5, 0, 0, 0, 0x2F, 0xFF, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 8)
        #expect(ImageDimensions.read(Data(lossless), format: .webp) == ImageDimensions(width: 16_384, height: 16_384))
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(payload.count + 8)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        func ispe(_ w: UInt32, _ h: UInt32) -> [UInt8] { box("ispe", [0, 0, 0, 0] + withUnsafeBytes(of: w.bigEndian, Array.init) + withUnsafeBytes(of: h.bigEndian, Array.init)) }
        let heic = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe(512, 512) + ispe(60_000, 60_000))))
        #expect(ImageDimensions.read(Data(heic), format: .heic) == ImageDimensions(width: 60_000, height: 60_000))
        #expect(throws: PictureLimitError.self) { try ImageFormat.checkPixels(Data(heic), format: .heic, requireHeader: true) }
        #expect(throws: PictureLimitError.unreadable(.jpeg)) { try ImageFormat.checkPixels(Data([0xFF, 0xD8, 0xFF, 0xDA]), format: .jpeg, requireHeader: true) }
        #expect(throws: Never.self) { try ImageFormat.checkPixels(Data([0xFF, 0xD8, 0xFF, 0xDA]), format: .jpeg, requireHeader: false) }
    }

    /// Sends a request head announcing `length` bytes and a few of them over a real socket, and
    /// reads the answer: the server answering before the body is there shows it didn't wait to read it.
    static func answerBeforeBody(port: Int, head: String) throws -> String {
        guard let fd = connectLoopback(port) else { throw TestFailure("could not connect") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array((head + (head.hasPrefix("GET") ? "" : "--x\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n")).utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }

    /// `answerBeforeBody` on a thread of its own: a blocking read on Swift's cooperative pool (two
    /// threads on a 2-core machine) can starve the very server it waits for while other suites run.
    static func answer(port: Int, head: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.answerBeforeBody(port: port, head: head) })
            }
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("A stranger's 300 MB form post or API upload is answered before its body arrives: nothing is read for nobody")
    func anonymousBodies() async throws {
        try await withTestApp { app, _ in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            let length = 300 * 1024 * 1024
            for path in ["/app/settings/restore", "/app/stash/new", "/app/inventory/scan"] {
                let answer = try await Self.answer(port: port, head: "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: \(length)\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 303") && answer.contains("location: /app/signin"), "\(path): \(answer.prefix(200))")
            }
            for path in ["/threads/scan", "/images", "/account/restore"] {
                let answer = try await Self.answer(port: port, head: "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: \(length)\r\n\r\n")
                #expect(answer.hasPrefix("HTTP/1.1 401"), "\(path): \(answer.prefix(200))")
            }
            // A stranger's sign-in form is read only up to a small limit.
            let signIn = try await app.send(.POST, "/app/signin", rawBody: "email=a&password=" + String(repeating: "x", count: 200_000),
                                            headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(signIn.status == .payloadTooLarge, "\(signIn.status)")
            await app.server.shutdown()
        }
    }

    @Test("Pictures and PDF tools run on a pool of their own: another account's queries answer while they are busy; one account's share is bounded (429, Retry-After)")
    func toolPool() async throws {
        try await withTestApp(adjust: { $0.toolThreads = 1; $0.toolJobsPerAccount = 1 }) { app, _ in
            let ann = try await TestUser.make(app)
            let bob = try await TestUser.make(app, email: "bob@example.com", name: "Bob")
            _ = try await bob.thread("DMC", "310")
            // Ann's heavy PDF, as far as the server can tell: the tools' only thread is hers until
            // the test lets it go (not for a fixed time: on a loaded machine the requests below
            // took longer than a 3-second job, which then ended before her next picture came).
            let started = AsyncStream<Void>.makeStream()
            let release = DispatchSemaphore(value: 0)
            defer { release.signal() }
            let busy = Task {
                try await app.tools.run(for: ann.id) { () -> Void in
                    started.continuation.yield()
                    _ = release.wait(timeout: .now() + 120)
                }
            }
            for await _ in started.stream { break }
            #expect(app.tools.load(of: ann.id) == 1)
            // Bob's queries don't wait for Ann's tools.
            let list = try await bob.send(.GET, "/threads")
            #expect(list.status == .ok && list.text.contains("310"))
            #expect(try await bob.send(.POST, "/threads", json: ["brand": "DMC", "number": "321"]).status == .created)
            // Ann's next picture is refused until hers are done.
            let photo = BarcodeImages.noBarcode()
            let refused = try await ann.upload("/threads/scan", files: [(name: "image", filename: "p.jpg", type: "image/jpeg", data: photo)])
            #expect(refused.status == .tooManyRequests && refused.headers.first(name: "Retry-After") == "5", "\(refused.status)")
            release.signal()
            try await busy.value
            #expect(app.tools.load(of: ann.id) == 0)
            let later = try await ann.upload("/threads/scan", files: [(name: "image", filename: "p.jpg", type: "image/jpeg", data: photo)])
            #expect(later.status == .unprocessableEntity && later.text.contains("No barcode"), "\(later.status) \(later.text)")
        }
    }

    @Test("Child processes run under prlimit (address space, CPU); their output is read up to a cap; a file's key text is kept by its key")
    func childLimits() throws {
        if ChildLimits.prlimit != nil {
            let run = try Subprocess.run("/bin/sh", ["-c", "ulimit -v; ulimit -t"], timeout: 10)
            let lines = run.output.split(separator: "\n")
            #expect(lines.first == "\(ChildLimits.addressSpace / 1024)" && lines.last == "15", "\(run.output)")
        }
        let flood = try Subprocess.run("/bin/sh", ["-c", "head -c 20000000 /dev/zero"], timeout: 10)
        #expect(flood.output.utf8.count == Subprocess.maxOutput)
        let cache = KeyTextCache(capacity: 10)
        cache.keep("12345", for: "a")
        cache.keep("67890", for: "b")
        #expect(cache.text(for: "a") == "12345")
        cache.keep("abc", for: "c")  // over 10 characters: the least lately read goes
        #expect(cache.text(for: "b") == nil && cache.text(for: "a") == "12345" && cache.text(for: "c") == "abc")
        cache.forget("a")
        #expect(cache.text(for: "a") == nil)
    }

    @Test("Text answers are Brotli- or gzip-compressed as the client accepts them (pages, JSON; not small ones); the script and stylesheet are compressed once, Brotli first, and named by their content (immutable)")
    func compression() async throws {
        try await withTestApp { app, _ in
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            func head(_ path: String, _ extra: String = "") async throws -> String {
                try await Self.answer(port: port, head: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)Connection: close\r\n\r\n").lowercased()
            }
            for path in ["/app/signin", "/catalog/search?q=blue"] {
                let answer = try await head(path, "Accept-Encoding: gzip\r\n")
                #expect(answer.contains("content-encoding: gzip"), "\(path): \(answer.prefix(400))")
                let brotli = try await head(path, "Accept-Encoding: gzip, deflate, br\r\n")
                #expect(brotli.contains("content-encoding: br") && brotli.contains("vary: accept-encoding"), "\(path): \(brotli.prefix(400))")
            }
            // The same answer, read back by another implementation (Google's brotli module).
            let identity = try await app.send(.GET, "/catalog/search?q=blue")
            let packed = try await app.send(.GET, "/catalog/search?q=blue", headers: ["Accept-Encoding": "br"])
            #expect(packed.headers.first(name: .contentEncoding) == "br" && packed.body.readableBytes < identity.body.readableBytes / 2)
            #expect(try Self.decode(Array(buffer: packed.body), "brotli") == Array(buffer: identity.body))
            // Small answers and event streams are left to the server (gzip or nothing).
            let small = try await app.send(.GET, "/health", headers: ["Accept-Encoding": "br"])
            #expect(small.headers.first(name: .contentEncoding) == nil)
            // The page names the script and stylesheet by their content; those names are kept for a year.
            let page = try await app.send(.GET, "/app/signin").text
            for (asset, name) in [(WebAssets.script, "app.js"), (WebAssets.stylesheet, "app.css")] {
                let hashed = "/app/static/" + asset.hashedName(name)
                #expect(page.contains(hashed) && asset.hash.count == 10)
                let brotli = try await head(hashed, "Accept-Encoding: gzip, deflate, br, zstd\r\n")
                #expect(brotli.hasPrefix("http/1.1 200") && brotli.contains("content-encoding: br") && brotli.contains("immutable")
                        && brotli.contains("content-length: \(asset.brotli.count)"), "\(brotli.prefix(400))")
                let gzip = try await head(hashed, "Accept-Encoding: gzip, br;q=0\r\n")
                #expect(gzip.contains("content-encoding: gzip") && gzip.contains("content-length: \(asset.gzip.count)"), "\(gzip.prefix(400))")
                // The plain name answers the same file, asked for again each time; unchanged, a 304.
                let plain = try await head("/app/static/" + name)
                #expect(plain.contains("cache-control: no-cache") && !plain.contains("content-encoding") && plain.contains("content-length: \(asset.plain.count)"))
                #expect(try await head("/app/static/" + name, "If-None-Match: \"\(asset.hash)\"\r\n").hasPrefix("http/1.1 304"))
                // Both compressed forms are smaller and say the same as the plain one.
                #expect(asset.brotli.count < asset.gzip.count && asset.gzip.count < asset.plain.count / 2)
                #expect(try Self.decode(asset.gzip, "gzip") == asset.plain && Self.decode(asset.brotli, "brotli") == asset.plain)
            }
            let plain = try await head("/app/signin")
            #expect(!plain.contains("content-encoding"))
            await app.server.shutdown()
        }
        #expect(Compression.accepted("gzip;q=1.0, br;q=0, identity") == ["gzip", "identity"])
        // Reading gzip back (stitch-bench's first sync): the same bytes, a bound kept, garbage refused.
        let text = Array(String(repeating: "DMC 310 Black, 2 skeins. ", count: 4_000).utf8)
        let packed = try #require(Compression.gzip(text))
        #expect(Compression.gunzip(packed) == text)
        #expect(Compression.gunzip(packed, limit: text.count - 1) == nil)
        #expect(Compression.gunzip(Array(packed.dropLast(20))) == nil && Compression.gunzip(text) == nil)
    }

    /// Another implementation's reading of a compressed file: python3's gzip, or Google's brotli
    /// module (PyPI, installed by scripts/test).
    static func decode(_ bytes: [UInt8], _ module: String) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("asset-\(UUID().uuidString).gz")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(module), sys; sys.stdout.buffer.write(\(module).decompress(open(sys.argv[1], 'rb').read()))", file.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }
}
