import Foundation
import SeleneShared

/// Everything Selene reads from its environment, as one typed value. Tests build one directly.
public struct SeleneConfig: Sendable {
    public enum Database: Sendable, Equatable {
        case sqliteFile(path: String)
        case sqliteMemory
        case postgres(url: String)

        public var isPostgres: Bool { if case .postgres = self { true } else { false } }
    }

    /// How Selene talks to Ollama (SELENE.md §9 for why `numCtx` is always sent).
    public struct Ollama: Sendable, Equatable {
        public var baseURL: String
        public var chatModel: String
        public var embeddingModel: String
        /// Context window sent with every request (`options.num_ctx`).
        public var numCtx: Int
        /// How long Ollama keeps a model loaded after a request (`keep_alive`, e.g. "5m", "-1").
        public var keepAlive: String
        /// Longest wait for a whole non-streamed answer.
        public var requestTimeout: TimeInterval
        /// Longest wait to connect.
        public var connectTimeout: TimeInterval
        /// How many times an answer that isn't valid JSON for its schema is asked for again.
        public var structuredRetries: Int

        public init(baseURL: String = "http://127.0.0.1:11434", chatModel: String = "llama3.2", embeddingModel: String = "nomic-embed-text",
                    numCtx: Int = 8192, keepAlive: String = "5m", requestTimeout: TimeInterval = 120, connectTimeout: TimeInterval = 5,
                    structuredRetries: Int = 2) {
            self.baseURL = baseURL
            self.chatModel = chatModel
            self.embeddingModel = embeddingModel
            self.numCtx = numCtx
            self.keepAlive = keepAlive
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.structuredRetries = structuredRetries
        }
    }

    /// The processing queue's pace and patience.
    public struct Processing: Sendable, Equatable {
        /// Whether this process works the queue (captured notes stay `pending` otherwise).
        public var enabled: Bool = true
        /// Notes claimed at a time by one worker.
        public var batchSize: Int = 4
        /// Attempts before a note is marked `failed` with its reason.
        public var maxAttempts: Int = 5
        /// First retry delay; doubled each attempt up to `maxBackoff`.
        public var baseBackoff: TimeInterval = 30
        public var maxBackoff: TimeInterval = 3600
        /// How long a claimed note stays claimed; a worker that died leaves it claimable after this.
        public var lease: TimeInterval = 300
        /// How often an idle worker looks for work (a capture also wakes it at once).
        public var pollInterval: TimeInterval = 5
        /// Associations kept per note, and the similarity they need.
        public var associationLimit: Int = 10
        public var associationThreshold: Double = 0.6
        public init() {}
    }

    /// Thread detection and momentum (README "Threads" documents the rules).
    public struct Threads: Sendable, Equatable {
        /// A note joins the thread whose centroid is at least this similar.
        public var joinThreshold: Double = 0.7
        /// Unassigned notes at least this similar to each other may start a thread.
        public var seedThreshold: Double = 0.7
        /// How many such notes it takes.
        public var minimumNotes: Int = 3
        /// Momentum's half-life: a note's weight halves every this many seconds.
        public var halfLife: TimeInterval = 7 * 86_400
        /// No activity for this long: dormant; for `archiveAfter`: archived.
        public var dormantAfter: TimeInterval = 14 * 86_400
        public var archiveAfter: TimeInterval = 60 * 86_400
        public init() {}
    }

    public struct APNs: Sendable, Equatable {
        /// The `.p8` signing key's PEM text.
        public var privateKeyPEM: String
        public var keyId: String
        public var teamId: String
        /// The app's bundle id: the `apns-topic`.
        public var topic: String
        /// `https://api.push.apple.com` or `https://api.sandbox.push.apple.com` (or a test server).
        public var host: String
        /// A provider token is reused for this long (APNs wants 20–60 minutes).
        public var tokenLifetime: TimeInterval = 40 * 60
        /// Accept this certificate authority (PEM) besides the system's: for a test server only.
        public var extraRootCertificatePEM: String?

        public static let production = "https://api.push.apple.com"
        public static let sandbox = "https://api.sandbox.push.apple.com"

        public init(privateKeyPEM: String, keyId: String, teamId: String, topic: String, host: String = APNs.production,
                    extraRootCertificatePEM: String? = nil) {
            self.privateKeyPEM = privateKeyPEM
            self.keyId = keyId
            self.teamId = teamId
            self.topic = topic
            self.host = host
            self.extraRootCertificatePEM = extraRootCertificatePEM
        }
    }

    public var database: Database
    public var dataDirectory: String
    /// Accepted bearer tokens; empty means no authentication (and loopback only).
    public var apiTokens: [String]
    public var obsidianVault: String?
    /// nil when Selene is told to run without an LLM (`SELENE_OLLAMA_URL=off`).
    public var ollama: Ollama?
    public var processing = Processing()
    public var threads = Threads()
    /// Hour of the day (0–23, the server's time zone `SELENE_TIMEZONE`, UTC by default) when the
    /// morning briefing is written; nil turns the schedule off (on demand still works).
    public var briefingHour: Int? = 7
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    public var apns: APNs?
    /// A request body larger than this is refused (413) before it is read; notes themselves are
    /// limited to `SeleneLimits.maxContentBytes`.
    public var maxBodySize = 4 * 1024 * 1024

    public init(database: Database, dataDirectory: String, apiTokens: [String] = [], ollama: Ollama? = nil) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.apiTokens = apiTokens
        self.ollama = ollama
    }

    public static let minimumTokenLength = 32

    /// Reads the process environment (the README's table).
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> SeleneConfig {
        func value(_ key: String) -> String? { env[key].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        let dataDirectory = value("SELENE_DATA_DIR") ?? "./data/selene"
        let database: Database
        if let url = value("SELENE_DATABASE_URL") {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw SeleneConfigError("SELENE_DATABASE_URL must be a postgres:// URL (leave it unset to use SQLite in SELENE_DATA_DIR)")
            }
            database = .postgres(url: url)
        } else {
            database = .sqliteFile(path: (dataDirectory as NSString).appendingPathComponent("selene.sqlite"))
        }
        var config = SeleneConfig(database: database, dataDirectory: dataDirectory,
                                  apiTokens: try parseTokens(value("SELENE_API_TOKEN")))
        config.obsidianVault = value("SELENE_OBSIDIAN_VAULT")

        let ollamaURL = value("SELENE_OLLAMA_URL") ?? "http://127.0.0.1:11434"
        if !["off", "none", "false"].contains(ollamaURL.lowercased()) {
            guard let url = URL(string: ollamaURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw SeleneConfigError("SELENE_OLLAMA_URL must be an http(s) URL such as http://127.0.0.1:11434, or off")
            }
            var ollama = Ollama(baseURL: ollamaURL.hasSuffix("/") ? String(ollamaURL.dropLast()) : ollamaURL)
            if let model = value("SELENE_CHAT_MODEL") { ollama.chatModel = model }
            if let model = value("SELENE_EMBED_MODEL") { ollama.embeddingModel = model }
            if let raw = value("SELENE_NUM_CTX") {
                guard let n = Int(raw), (512...1_048_576).contains(n) else { throw SeleneConfigError("SELENE_NUM_CTX must be a whole number of tokens between 512 and 1048576") }
                ollama.numCtx = n
            }
            if let keep = value("SELENE_KEEP_ALIVE") { ollama.keepAlive = keep }
            if let raw = value("SELENE_OLLAMA_TIMEOUT") {
                guard let seconds = TimeInterval(raw), seconds > 0, seconds <= 3600 else { throw SeleneConfigError("SELENE_OLLAMA_TIMEOUT must be seconds between 1 and 3600") }
                ollama.requestTimeout = seconds
            }
            config.ollama = ollama
        }
        if let raw = value("SELENE_PROCESSING") {
            guard let on = ["on": true, "true": true, "1": true, "off": false, "false": false, "0": false][raw.lowercased()] else {
                throw SeleneConfigError("SELENE_PROCESSING must be on or off")
            }
            config.processing.enabled = on
        }
        if let raw = value("SELENE_BRIEFING_HOUR") {
            if raw.lowercased() == "off" {
                config.briefingHour = nil
            } else {
                guard let hour = Int(raw), (0...23).contains(hour) else { throw SeleneConfigError("SELENE_BRIEFING_HOUR must be an hour from 0 to 23, or off") }
                config.briefingHour = hour
            }
        }
        if let raw = value("SELENE_TIMEZONE") {
            guard let zone = TimeZone(identifier: raw) else { throw SeleneConfigError("SELENE_TIMEZONE must be a time zone name such as Europe/Berlin") }
            config.timeZone = zone
        }
        config.apns = try apnsSettings(value)
        return config
    }

    /// `SELENE_API_TOKEN`: one or more tokens, comma-separated, each at least 32 characters.
    static func parseTokens(_ raw: String?) throws -> [String] {
        guard let raw else { return [] }
        let tokens = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for token in tokens where token.count < minimumTokenLength {
            throw SeleneConfigError("Each SELENE_API_TOKEN must be at least \(minimumTokenLength) characters (run `selene token new` for one); one has \(token.count)")
        }
        for token in tokens where token.contains(where: { $0.isWhitespace || !$0.isASCII }) {
            throw SeleneConfigError("SELENE_API_TOKEN values must be printable ASCII without spaces")
        }
        return tokens
    }

    private static func apnsSettings(_ value: (String) -> String?) throws -> APNs? {
        let keys = ["SELENE_APNS_KEY_FILE", "SELENE_APNS_KEY_ID", "SELENE_APNS_TEAM_ID", "SELENE_APNS_TOPIC"]
        let given = keys.filter { value($0) != nil }
        guard !given.isEmpty else { return nil }
        guard given.count == keys.count else {
            let missing = keys.filter { value($0) == nil }
            throw SeleneConfigError("Push needs all of \(keys.joined(separator: ", ")); missing: \(missing.joined(separator: ", "))")
        }
        let path = value("SELENE_APNS_KEY_FILE")!
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SeleneConfigError("SELENE_APNS_KEY_FILE \(path) can't be read (the .p8 key downloaded from Apple)")
        }
        var apns = APNs(privateKeyPEM: pem, keyId: value("SELENE_APNS_KEY_ID")!, teamId: value("SELENE_APNS_TEAM_ID")!,
                        topic: value("SELENE_APNS_TOPIC")!)
        switch value("SELENE_APNS_ENVIRONMENT")?.lowercased() ?? "production" {
        case "production": apns.host = APNs.production
        case "sandbox", "development": apns.host = APNs.sandbox
        default: throw SeleneConfigError("SELENE_APNS_ENVIRONMENT must be production or sandbox")
        }
        if let host = value("SELENE_APNS_HOST") { apns.host = host }
        if let ca = value("SELENE_APNS_CA_FILE") {
            guard let text = try? String(contentsOfFile: ca, encoding: .utf8) else { throw SeleneConfigError("SELENE_APNS_CA_FILE \(ca) can't be read") }
            apns.extraRootCertificatePEM = text
        }
        return apns
    }
}

public struct SeleneConfigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
