import Foundation

/// The commit of the checkout these tests were built from, read with git itself (so a test can
/// check that a build's stamp is the real one, not a word written into the code). Nil outside a
/// Git checkout.
public func checkoutCommit(file: String = #filePath) -> String? {
    let root = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let git = Process()
    git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    git.arguments = ["git", "-C", root.path, "rev-parse", "--short=12", "HEAD"]
    let out = Pipe()
    git.standardOutput = out
    git.standardError = FileHandle.nullDevice
    guard (try? git.run()) != nil else { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    git.waitUntilExit()
    guard git.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A built executable of this package (`stitchuation`, `stitch`, `selene`, …): the one beside the
/// running test bundle, else the debug build's; nil when neither is there. The one way the Swift
/// suites find a binary (the Python tiers' is `harness.binary`, which also reads `BIN_PATH`).
public func builtProduct(_ name: String, file: String = #filePath) -> String? {
    let root = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var candidates: [String] = []
    if let folder = ProcessInfo.processInfo.environment["BIN_PATH"], !folder.isEmpty {
        candidates.append(URL(fileURLWithPath: folder).appendingPathComponent(name).path)
    }
    if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent(name).path) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path)
    candidates.append(root.appendingPathComponent(".build/debug/" + name).path)
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}
