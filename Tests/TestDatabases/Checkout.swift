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
