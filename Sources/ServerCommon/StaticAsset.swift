import CSystemBrotli
import CSystemZlib
import Crypto
import Foundation
import Vapor

/// A file both web apps serve as it is (a script, a stylesheet): compressed once, when it is
/// made, as gzip and as Brotli; named by its content (`app.1a2b3c4d5e.js`) so a page can ask for
/// it with `Cache-Control: immutable` and a browser never asks again until it changes.
public struct StaticAsset: Sendable {
    public let contentType: String
    public let plain: [UInt8]
    public let gzip: [UInt8]
    public let brotli: [UInt8]
    /// The first 10 hex digits of the content's SHA-256.
    public let hash: String

    public init(_ text: String, contentType: String) {
        let bytes = Array(text.utf8)
        self.contentType = contentType
        plain = bytes
        // A compressor that fails (it doesn't, on memory this size) leaves the plain bytes.
        gzip = Compression.gzip(bytes) ?? bytes
        brotli = Compression.brotli(bytes) ?? bytes
        hash = String(SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined().prefix(10))
    }

    /// A file of a bundle's `web` folder (a target's Resources/web).
    public init(resource name: String, _ ext: String, in bundle: Bundle, contentType: String) {
        guard let url = bundle.url(forResource: name, withExtension: ext, subdirectory: "web"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            fatalError("Resources/web/\(name).\(ext) is missing from the build")
        }
        self.init(text, contentType: contentType)
    }

    /// Serves each file under `folder` by both its names: the hashed one immutable, the plain one
    /// (a page cached before it changed, a script of one's own) asked for again each time.
    public static func serve(_ files: [(name: String, asset: StaticAsset)], under folder: [String], on routes: any RoutesBuilder) {
        let base = folder.map { PathComponent(stringLiteral: $0) }
        for (name, asset) in files {
            routes.get(base + [PathComponent(stringLiteral: asset.hashedName(name))]) { req in asset.response(to: req, immutable: true) }
            routes.get(base + [PathComponent(stringLiteral: name)]) { req in asset.response(to: req, immutable: false) }
        }
    }

    /// `name` with the content's hash before its extension: "app.js" → "app.1a2b3c4d5e.js".
    public func hashedName(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "\(name).\(hash)" }
        return "\(name[..<dot]).\(hash)\(name[dot...])"
    }

    /// The answer to a request for it: Brotli or gzip when the browser takes them (Brotli first),
    /// plain otherwise; `immutable` for the hashed name, `no-cache` (ask again, 304 while unchanged)
    /// for the plain one; 304 when the browser has it.
    public func response(to req: Request, immutable: Bool) -> Response {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Vary", "Accept-Encoding"), ("ETag", "\"\(hash)\""),
                                   ("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache")])
        // Already compressed here: the server's own compressor leaves it alone.
        headers.responseCompression = .disable
        if let tags = req.headers.first(name: .ifNoneMatch), tags.contains("\"\(hash)\"") {
            return Response(status: .notModified, headers: headers)
        }
        let accepted = Compression.accepted(req.headers.first(name: .acceptEncoding) ?? "")
        let body: [UInt8]
        if accepted.contains("br"), brotli.count < plain.count {
            headers.add(name: .contentEncoding, value: "br")
            body = brotli
        } else if accepted.contains("gzip"), gzip.count < plain.count {
            headers.add(name: .contentEncoding, value: "gzip")
            body = gzip
        } else {
            body = plain
        }
        return Response(status: .ok, headers: headers, body: .init(buffer: ByteBuffer(bytes: body)))
    }
}

/// gzip and Brotli over whole buffers (zlib and libbrotlienc), and what a request's
/// `Accept-Encoding` takes.
public enum Compression {
    /// The codings named with a non-zero weight ("gzip, br;q=0" takes gzip only), lowercased.
    public static func accepted(_ header: String) -> Set<String> {
        var names = Set<String>()
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = pieces.first, !name.isEmpty else { continue }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if weight > 0 { names.insert(name) }
        }
        return names
    }

    /// A gzip member of `bytes` at zlib's best compression; nil if zlib fails.
    public static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // 15 window bits + 16: a gzip header and trailer rather than zlib's.
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        return Array(out.prefix(Int(stream.total_out)))
    }

    /// The bytes a gzip member holds, at most `limit` of them; nil if it isn't one (or holds more).
    public static func gunzip(_ bytes: [UInt8], limit: Int = 1 << 30) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = bytes
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let done: Bool = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int) in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, outBuffer.count - Int(stream.avail_out))
                }
                out += chunk.prefix(produced)
                if status == Z_STREAM_END { return true }
                guard status == Z_OK, out.count <= limit, produced > 0 || stream.avail_in > 0 else { return false }
            }
        }
        return done && out.count <= limit ? out : nil
    }

    /// `bytes` as Brotli text at `quality` (the best by default: files compressed once); nil if
    /// the encoder fails.
    public static func brotli(_ bytes: [UInt8], quality: Int32 = BROTLI_MAX_QUALITY) -> [UInt8]? {
        var size = BrotliEncoderMaxCompressedSize(bytes.count)
        guard size > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, inBuffer.count, inBuffer.baseAddress, &size, outBuffer.baseAddress)
            }
        }
        guard ok == BROTLI_TRUE else { return nil }
        return Array(out.prefix(size))
    }
}
