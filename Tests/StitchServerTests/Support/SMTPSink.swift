import Foundation
@testable import StitchServer
import Testing

/// A real SMTP server (aiosmtpd, `Tests/support/smtp_sink.py`) on a loopback port, and the
/// messages it received, decoded.
final class SMTPSink: @unchecked Sendable {
    struct Message: Decodable {
        var mail_from: String
        var rcpt_tos: [String]
        var from: String
        var to: String
        var subject: String
        var body: String
        var tls: Bool
        var user: String?

        /// The reset link's token in the body.
        var token: String? {
            guard let range = body.range(of: "reset-password?token=") else { return nil }
            return String(body[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    enum Security: String { case starttls, implicit, none }

    let folder: URL
    let port: Int
    let security: Security
    private let process: Process
    private let input = Pipe()

    static let user = "stitch-mailer", password = "mail-secret-1"

    init(security: Security = .starttls, auth: Bool = true) throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-sink-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", tests.appendingPathComponent("support/smtp_sink.py").path, folder.path, "--tls", security.rawValue]
            + (auth ? ["--user", "\(Self.user):\(Self.password)"] : []) + ["--until-stdin-closes"]
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // "port N" once it listens; nothing (the pipe closes) if aiosmtpd is missing.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)) else {
            try? input.fileHandleForWriting.close()
            throw SinkError(description: "the SMTP server (Tests/support/smtp_sink.py) did not start: \(text.isEmpty ? "is aiosmtpd installed? python3 -m pip install aiosmtpd (scripts/test does)" : text)")
        }
        self.port = port
        self.security = security
        self.process = process
    }

    struct SinkError: Error, CustomStringConvertible { var description: String }

    /// Settings that reach this server, trusting its certificate.
    func settings(auth: Bool = true) -> SMTPSettings {
        SMTPSettings(host: "localhost", port: port, security: security == .implicit ? .tls : security == .starttls ? .startTLS : .none,
                     username: auth ? Self.user : nil, password: auth ? Self.password : nil,
                     from: "Stitchuation <no-reply@stitch.test>", caFile: security == .none ? nil : folder.appendingPathComponent("cert.pem").path)
    }

    var messages: [Message] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).flatMap { try? JSONDecoder().decode(Message.self, from: $0) }
        }
    }

    /// The subject of the confirmation every new email account is mailed (`AddressProof`).
    static let confirmationSubject = "Confirm your Stitchuation address"

    /// Waits (up to 30 s) until `count` messages have arrived, in the order they came. The
    /// confirmations mailed at registration are left out unless `confirmations` (they come in the
    /// background beside whatever a test is about; `SomeoneElseTests` reads them).
    func waitFor(_ count: Int, confirmations: Bool = false) async throws -> [Message] {
        for _ in 0..<300 {
            let messages = self.messages.filter { confirmations || $0.subject != Self.confirmationSubject }
            if messages.count >= count { return messages }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SinkError(description: "\(count) message(s) expected, \(messages.count) arrived")
    }

    /// Closes its standard input, which ends it (also when this process dies first).
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
