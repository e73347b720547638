import Crypto
import Foundation
import Vapor

/// `stitchuation storage to-bucket` / `to-folder`: every stored file (pictures, their sizes,
/// pattern files and drawn pages) copied between the data folder (`DATA_DIR/images`) and the
/// bucket of `STORAGE_URL`, under the same names (`<key>`, `<key>.drawn/<name>`: both stores
/// keep them so). Resumable: a file already there with the same bytes is skipped, so a copy cut
/// short is run again. Verified: each copy is read back and compared by SHA-256. The source is
/// never changed; nothing that isn't a stored file's name is copied (it is named instead).
public enum StorageCopy {
    public struct Summary: Equatable, Sendable {
        public var copied = 0
        public var skipped = 0
        public var bytes = 0
        /// Names in the source that aren't a stored file's (left where they are).
        public var ignored: [String] = []
    }

    /// A stored file's name in either store: an upload's key, or `<key>.drawn/<name>`.
    static func isStoredName(_ name: String) -> Bool {
        if ImageKeys.isWellFormed(name) { return true }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].hasSuffix(".drawn") else { return false }
        return ImageKeys.isWellFormedUnder("\(parts[0].dropLast(".drawn".count))/\(parts[1])")
    }

    /// Every file under `folder`, by its name relative to it.
    static func folderNames(_ folder: String) -> [String] {
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walk.compactMap { item -> String? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { return nil }
            return String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
        }.sorted()
    }

    static func toBucket(folder: String, client: S3Client, log: (String) -> Void) async throws -> Summary {
        var summary = Summary()
        let present = Dictionary(try await client.listDetailed(under: "").map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        for name in folderNames(folder) {
            guard isStoredName(name) else { summary.ignored.append(name); continue }
            guard let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)) else {
                throw StorageCopyError(description: "\(name) could not be read from \(folder)")
            }
            if let there = present[name], there.size == data.count, try await same(data, as: there, client: client) {
                summary.skipped += 1
                continue
            }
            try await client.put(data, key: name)
            guard try await client.get(name).map({ SHA256.hash(data: $0) == SHA256.hash(data: data) }) == true else {
                throw StorageCopyError(description: "\(name) reads back from the bucket other than it was sent; run the copy again")
            }
            summary.copied += 1
            summary.bytes += data.count
            log("copied \(name) (\(data.count) bytes)")
        }
        return summary
    }

    static func toFolder(client: S3Client, folder: String, log: (String) -> Void) async throws -> Summary {
        var summary = Summary()
        for object in try await client.listDetailed(under: "") {
            guard isStoredName(object.key) else { summary.ignored.append(object.key); continue }
            let path = (folder as NSString).appendingPathComponent(object.key)
            if let here = FileManager.default.contents(atPath: path), here.count == object.size, try await same(here, as: object, client: client) {
                summary.skipped += 1
                continue
            }
            guard let data = try await client.get(object.key) else { continue }  // deleted meanwhile
            guard data.count == object.size else {
                throw StorageCopyError(description: "\(object.key) came \(data.count) bytes long, the bucket lists \(object.size); run the copy again")
            }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            guard FileManager.default.contents(atPath: path).map({ SHA256.hash(data: $0) == SHA256.hash(data: data) }) == true else {
                throw StorageCopyError(description: "\(path) reads back other than it was written; run the copy again")
            }
            summary.copied += 1
            summary.bytes += data.count
            log("copied \(object.key) (\(data.count) bytes)")
        }
        return summary
    }

    /// Whether the stored object holds `data`: by its ETag when that is the bytes' MD5 (a plain
    /// upload's), else by reading it.
    static func same(_ data: Data, as object: S3Client.Listed, client: S3Client) async throws -> Bool {
        let etag = object.etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if etag.count == 32, etag.allSatisfy(\.isHexDigit) { return etag.lowercased() == Insecure.MD5.hash(data: data).hex }
        return try await client.get(object.key).map { SHA256.hash(data: $0) == SHA256.hash(data: data) } ?? false
    }
}

struct StorageCopyError: Error, CustomStringConvertible {
    var description: String
}

/// `stitchuation storage to-bucket|to-folder`.
struct StorageCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "direction", help: "to-bucket (DATA_DIR/images into STORAGE_URL's bucket) or to-folder (back)")
        var direction: String
    }

    var help: String { "Copies stored files between DATA_DIR/images and STORAGE_URL's bucket (resumable, verified)" }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        guard let settings = app.config.objectStorage else {
            throw StorageCopyError(description: "STORAGE_URL is not set: it names the bucket to copy to or from")
        }
        let client = S3Client(settings: settings, http: app.http.client.shared)
        try await client.check()
        let folder = (app.config.dataDirectory as NSString).appendingPathComponent("images")
        let summary: StorageCopy.Summary
        switch signature.direction {
        case "to-bucket":
            summary = try await StorageCopy.toBucket(folder: folder, client: client) { context.console.print($0) }
        case "to-folder":
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            summary = try await StorageCopy.toFolder(client: client, folder: folder) { context.console.print($0) }
        default:
            throw StorageCopyError(description: "storage takes to-bucket or to-folder (got \(signature.direction))")
        }
        context.console.print("\(summary.copied) copied (\(summary.bytes) bytes), \(summary.skipped) already there")
        for name in summary.ignored { context.console.warning("left alone (not a stored file's name): \(name)") }
    }
}
