import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Vapor

/// Where the server's mail goes: `SMTP_URL` (with `SMTP_FROM`, and `SMTP_CA_FILE` for a server
/// whose certificate a private authority signed).
///
/// - `smtps://USER:PASSWORD@HOST[:465]`: TLS from the first byte.
/// - `smtp://USER:PASSWORD@HOST[:587]`: STARTTLS, required: a server that doesn't offer it gets
///   neither the password nor the mail.
/// - `smtp://HOST:25?tls=none`: no encryption, for a relay on the same machine only.
public struct SMTPSettings: Sendable, Equatable {
    public enum Security: String, Sendable { case tls, startTLS = "starttls", none }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// The sender's address, as `From:` and in `MAIL FROM`.
    public var from: String
    /// A PEM file of the authorities to trust instead of the system's.
    public var caFile: String?
    /// The longest a whole conversation with the server may take.
    public var timeout: TimeAmount = .seconds(30)

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, from: String, caFile: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.caFile = caFile
    }

    /// Reads `SMTP_URL` and its companions; nil when no URL is set.
    public static func fromEnvironment(_ env: [String: String]) throws -> SMTPSettings? {
        guard let raw = env["SMTP_URL"], !raw.isEmpty else { return nil }
        let problem = "SMTP_URL must look like smtp://USER:PASSWORD@HOST:587 (STARTTLS), smtps://USER:PASSWORD@HOST:465 (TLS) or smtp://HOST:25?tls=none"
        guard let url = URLComponents(string: raw), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw ConfigError(problem)
        }
        let plain = url.queryItems?.first { $0.name == "tls" }?.value
        let security: Security
        switch (scheme, plain) {
        case ("smtps", nil): security = .tls
        case ("smtp", nil): security = .startTLS
        case ("smtp", "none"): security = .none
        default: throw ConfigError(problem)
        }
        let user = url.user.flatMap { $0.isEmpty ? nil : $0 }
        guard let from = env["SMTP_FROM"].flatMap({ $0.isEmpty ? nil : $0 }) ?? user.flatMap({ $0.contains("@") ? $0 : nil }) else {
            throw ConfigError("SMTP_FROM must name the address mail is sent from (e.g. Stitchuation <no-reply@example.com>)")
        }
        guard MailMessage.address(in: from) != nil else { throw ConfigError("SMTP_FROM is not an email address: \(from)") }
        let caFile = env["SMTP_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { throw ConfigError("SMTP_CA_FILE can't be read: \(caFile)") }
        return SMTPSettings(host: host, port: url.port ?? (security == .tls ? 465 : security == .startTLS ? 587 : 25), security: security,
                            username: user, password: url.password, from: from, caFile: caFile)
    }
}

/// A plain-text message.
public struct MailMessage: Sendable {
    public var to: String
    public var subject: String
    public var body: String

    public init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }

    /// The bare address of "Name <a@b>" or "a@b"; nil when there is none or it could smuggle a
    /// command ("\r\n", "<", ">").
    static func address(in text: String) -> String? {
        var address = text.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        guard address.contains("@"), !address.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "<" || $0 == ">" || $0 == " " }) else { return nil }
        return address
    }

    /// RFC 5322 text: UTF-8 headers as encoded words, the body in base64, lines of at most 76.
    func rendered(from: String, date: Date, id: String) -> String {
        func header(_ value: String) -> String {
            value.allSatisfy { $0.isASCII && $0 != "\r" && $0 != "\n" } ? value : "=?UTF-8?B?\(Data(value.utf8).base64EncodedString())?="
        }
        func named(_ value: String) -> String {
            // "Name <address>": only the name may need encoding.
            guard let open = value.lastIndex(of: "<"), open > value.startIndex else { return value }
            let name = value[..<open].trimmingCharacters(in: .whitespaces)
            return "\(header(name)) \(value[open...])"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let text = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        let encoded = Data(text.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        return [
            "From: \(named(from))",
            "To: \(to)",
            "Subject: \(header(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(id)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "",
            encoded,
        ].joined(separator: "\r\n")
    }
}

/// Sends mail over SMTP (RFC 5321) with STARTTLS (RFC 3207) or TLS, and AUTH PLAIN or LOGIN.
public struct Mailer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let settings: SMTPSettings
    let group: any EventLoopGroup

    public init(settings: SMTPSettings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
    }

    public func send(_ message: MailMessage) async throws {
        guard let from = MailMessage.address(in: settings.from), let to = MailMessage.address(in: message.to) else {
            throw Failure(description: "not an address to send mail to: \(message.to)")
        }
        let tls = try settings.security == .none ? nil : NIOSSLContext(configuration: tlsConfiguration())
        let host = settings.host
        // No name to send in SNI nor to check the certificate by when the host is an address.
        let sni = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let (replies, sink) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if self.settings.security == .tls, let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: sni))
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPReplyReader(sink: sink))
                }
            }
            .connect(host: host, port: settings.port).get()
        // The whole conversation within the timeout: closing the channel ends the replies with an error.
        let deadline = channel.eventLoop.scheduleTask(in: settings.timeout) { channel.close(promise: nil) }
        defer { deadline.cancel(); channel.close(promise: nil) }

        var conversation = SMTPConversation(channel: channel, replies: replies.makeAsyncIterator(), server: "\(host):\(settings.port)")
        try await conversation.receive([220], after: "connecting")
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        var extensions = try await conversation.hello(domain)
        if settings.security == .startTLS {
            guard extensions.contains("STARTTLS"), let tls else {
                throw Failure(description: "\(conversation.server) doesn't offer STARTTLS; nothing was sent (use smtps:// for TLS, or ?tls=none for a relay on this machine)")
            }
            try await conversation.command("STARTTLS", expect: 220)
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: sni), position: .first)
            }.get()
            extensions = try await conversation.hello(domain)
        }
        if let user = settings.username {
            let password = settings.password ?? ""
            let mechanisms = extensions.first { $0.hasPrefix("AUTH ") || $0.hasPrefix("AUTH=") }?.dropFirst(5).split(separator: " ").map(String.init) ?? []
            if mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN") {
                let token = Data("\0\(user)\0\(password)".utf8).base64EncodedString()
                try await conversation.command("AUTH PLAIN \(token)", expect: 235, describe: "AUTH PLAIN")
            } else {
                try await conversation.command("AUTH LOGIN", expect: 334)
                try await conversation.command(Data(user.utf8).base64EncodedString(), expect: 334, describe: "the user name")
                try await conversation.command(Data(password.utf8).base64EncodedString(), expect: 235, describe: "the password")
            }
        }
        try await conversation.command("MAIL FROM:<\(from)>", expect: 250)
        try await conversation.command("RCPT TO:<\(to)>", expect: 250, 251)
        try await conversation.command("DATA", expect: 354)
        let text = message.rendered(from: settings.from, date: Date(), id: "\(UUID().uuidString.lowercased())@\(domain)")
        // Dot-stuffing: a line that starts with "." gets another (base64 never does; headers might).
        let stuffed = text.split(separator: "\r\n", omittingEmptySubsequences: false).map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        try await conversation.command(stuffed.joined(separator: "\r\n") + "\r\n.", expect: 250, describe: "the message")
        try? await conversation.command("QUIT", expect: 221)
    }

    private func tlsConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { configuration.trustRoots = .file(caFile) }
        return configuration
    }
}

/// One reply of the server: its code and its lines' text.
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]
}

/// Collects a server's lines into replies ("250-…" continues, "250 …" ends).
private final class SMTPReplyReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let sink: AsyncThrowingStream<SMTPReply, any Error>.Continuation
    private var pending = ""
    private var lines: [String] = []

    init(sink: AsyncThrowingStream<SMTPReply, any Error>.Continuation) { self.sink = sink }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readString(length: buffer.readableBytes) ?? ""
        while let end = pending.range(of: "\r\n") ?? pending.range(of: "\n") {
            let line = String(pending[..<end.lowerBound])
            pending.removeSubrange(..<end.upperBound)
            let code = Int(line.prefix(3))
            lines.append(line.count > 4 ? String(line.dropFirst(4)) : "")
            if let code, line.count == 3 || line.dropFirst(3).first == " " {
                sink.yield(SMTPReply(code: code, lines: lines))
                lines = []
            } else if code == nil {
                sink.finish(throwing: Mailer.Failure(description: "the server's reply is not SMTP: \(line.prefix(80))"))
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.finish(throwing: Mailer.Failure(description: "the server closed the connection"))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.finish(throwing: error)
        context.close(promise: nil)
    }
}

/// Commands and the replies they must get.
private struct SMTPConversation {
    let channel: any Channel
    var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator
    let server: String
    private(set) var last = SMTPReply(code: 0, lines: [])

    /// The server's next reply, which must have one of `codes`.
    mutating func receive(_ codes: [Int], after what: String) async throws {
        let reply: SMTPReply?
        do { reply = try await replies.next() } catch {
            throw Mailer.Failure(description: "\(server) after \(what): \(error)")
        }
        guard let reply else { throw Mailer.Failure(description: "\(server) closed the connection after \(what)") }
        guard codes.contains(reply.code) else {
            throw Mailer.Failure(description: "\(server) answered \(what) with \(reply.code) \(reply.lines.joined(separator: " "))")
        }
        last = reply
    }

    /// Sends one command (named in errors by its verb, or `what`) and checks its reply.
    mutating func command(_ line: String, expect codes: Int..., describe what: String? = nil) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: line + "\r\n")).get()
        try await receive(codes, after: what ?? String(line.prefix { $0 != " " && $0 != ":" }))
    }

    /// EHLO, and the extensions the server names (upper-cased).
    mutating func hello(_ domain: String) async throws -> [String] {
        try await command("EHLO \(domain)", expect: 250)
        return last.lines.dropFirst().map { $0.uppercased() }
    }
}
