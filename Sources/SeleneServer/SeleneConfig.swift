import Foundation
import SeleneShared
import ServerCommon

/// Everything Selene reads from its environment, as one typed value. Tests build one directly.
public struct SeleneConfig: Sendable {
    /// SQLite (the default) or PostgreSQL: the choice both servers share (ServerCommon).
    public typealias Database = ServerDatabase

    /// How Selene talks to its model server(s): Ollama's API or an OpenAI-compatible one
    /// (SELENE.md §9 for why `numCtx` is always sent to Ollama, §11 for the OpenAI protocol).
    public struct LLM: Sendable, Equatable {
        /// A second server for embeddings (llama-server serves one model per process).
        public struct Endpoint: Sendable, Equatable {
            public var provider: LLMProviderKind
            public var baseURL: String
            public var apiKey: String?
            public init(provider: LLMProviderKind, baseURL: String, apiKey: String? = nil) {
                self.provider = provider
                self.baseURL = baseURL
                self.apiKey = apiKey
            }
        }

        public var provider: LLMProviderKind
        public var baseURL: String
        /// Sent as `Authorization: Bearer` when set.
        public var apiKey: String?
        public var chatModel: String
        public var embeddingModel: String
        /// nil: embeddings come from the chat server.
        public var embedding: Endpoint?
        /// Context window sent with every Ollama request (`options.num_ctx`); the prompt budget.
        public var numCtx: Int
        /// How long Ollama keeps a model loaded after a request (`keep_alive`, e.g. "5m", "-1").
        public var keepAlive: String
        /// Longest wait for a whole non-streamed answer (and between streamed pieces).
        public var requestTimeout: TimeInterval
        /// Longest wait to connect.
        public var connectTimeout: TimeInterval
        /// How many times an answer that isn't valid JSON for its schema is asked for again.
        public var structuredRetries: Int
        /// Most tokens one answer may generate (`max_tokens`, Ollama's `num_predict`); nil: the
        /// server's. 1,024 unless set: a small model that loops stops there, not at its context's end.
        public var maxTokens: Int?
        /// Sent with every chat, answer and briefing that names none (analyses set their own):
        /// low, so answers keep to the notes, above 0 so a small model doesn't loop.
        public var chatTemperature: Double
        /// The repetition penalty of structured answers (analyses, thread names, memories) —
        /// Ollama's and llama.cpp's `repeat_penalty`; nil sends none. 1.1 unless set: greedy, a
        /// small model filled all five concepts with one ("The Roofer" ×5) and copied the prompt;
        /// with it the concepts are distinct (README, "Analyses at the first try"). Chat answers
        /// get none: measured, it lost as many facts as it saved from loops.
        public var repeatPenalty: Double?

        public init(provider: LLMProviderKind = .ollama, baseURL: String = "http://127.0.0.1:11434", apiKey: String? = nil,
                    chatModel: String = "llama3.2", embeddingModel: String = "nomic-embed-text", embedding: Endpoint? = nil,
                    numCtx: Int = 8192, keepAlive: String = "5m", requestTimeout: TimeInterval = 120, connectTimeout: TimeInterval = 5,
                    structuredRetries: Int = 2, maxTokens: Int? = 1024, chatTemperature: Double = 0.2, repeatPenalty: Double? = 1.1) {
            self.provider = provider
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.chatModel = chatModel
            self.embeddingModel = embeddingModel
            self.embedding = embedding
            self.numCtx = numCtx
            self.keepAlive = keepAlive
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.structuredRetries = structuredRetries
            self.maxTokens = maxTokens
            self.chatTemperature = chatTemperature
            self.repeatPenalty = repeatPenalty
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
        /// While the model server is down the worker pauses and probes its model list, first
        /// after `probeInterval`, doubling up to `maxProbeInterval` (so it resumes within 10 s of the server's return).
        public var probeInterval: TimeInterval = 2
        public var maxProbeInterval: TimeInterval = 8
        /// Associations kept per note, and the similarity they need.
        public var associationLimit: Int = 10
        /// Chosen like the thread thresholds (held-out precision 0.85, recall 0.44; 0.60: 1.00, 0.18).
        public var associationThreshold: Double = 0.35
        public init() {}
    }

    /// Thread detection and momentum (README "Threads" documents the rules).
    public struct Threads: Sendable, Equatable {
        /// A note joins the thread whose centroid is at least this similar. 0.40 and the seed's
        /// 0.40 were chosen on labelled notes with all-MiniLM-L6-v2 (`selene-bench --only
        /// thresholds`: held-out pair precision 1.00, recall 0.49; 0.70 formed 3 threads of 10).
        public var joinThreshold: Double = 0.40
        /// Unassigned notes at least this similar to each other may start a thread.
        public var seedThreshold: Double = 0.40
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
    /// Accepted bearer tokens; empty means no authentication (and loopback only), which only
    /// `SELENE_API_TOKEN=off` asks for.
    public var apiTokens: [String]
    /// With no `SELENE_API_TOKEN`, the token Selene made on its first start is kept here (0600)
    /// and read at every start: `loadTokenFile()`.
    public var tokenFile: String?
    /// Names the server answers to besides loopback's and IP addresses (`SELENE_ALLOWED_HOSTS`,
    /// the host of `SELENE_PUBLIC_URL`): a request for any other name is refused, so a web page
    /// whose own name was re-pointed at this machine (DNS rebinding) can't read the notes.
    public var allowedHosts = AllowedHosts()
    public var obsidianVault: String?
    /// nil when Selene is told to run without an LLM (`SELENE_LLM_URL=off`).
    public var llm: LLM?
    public var processing = Processing()
    public var threads = Threads()
    /// Hour of the day (0–23, the server's time zone `SELENE_TIMEZONE`, UTC by default) when the
    /// morning briefing is written; nil turns the schedule off (on demand still works).
    public var briefingHour: Int? = 7
    /// The minute of that hour (`SELENE_BRIEFING_HOUR=6:30`).
    public var briefingMinute: Int = 0
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    public var apns: APNs?
    /// A request body larger than this is refused (413) before it is read; notes themselves are
    /// limited to `SeleneLimits.maxContentBytes`.
    public var maxBodySize = 4 * 1024 * 1024
    /// `SELENE_METRICS_TOKEN`: lets `/metrics` be read from beyond loopback (as a Bearer token).
    public var metricsToken: String?
    /// A Drafts draft sent again with the same uuid and new words: `update` the note (the
    /// default) or `keep` the first version (`SELENE_DRAFTS_RESEND`).
    public enum DraftsResend: String, Sendable, CaseIterable { case update, keep }
    /// An optional hosted model (OpenAI-compatible) behind the privacy router; off unless
    /// `SELENE_HOSTED_URL` is set. Nothing personal goes to it unless `personal`.
    public struct Hosted: Sendable, Equatable {
        public var url: String
        public var model: String
        public var apiKey: String?
        public var personal: Bool
        public init(url: String, model: String, apiKey: String? = nil, personal: Bool = false) {
            self.url = url
            self.model = model
            self.apiKey = apiKey
            self.personal = personal
        }
    }
    public var hosted: Hosted?
    /// A local speech-to-text server (OpenAI's `/v1/audio/transcriptions`: whisper.cpp's server,
    /// faster-whisper-server): the web app's dictation goes there, never to a browser vendor.
    public struct Speech: Sendable, Equatable {
        public var url: String
        public var model: String
        public var apiKey: String?
        public var timeout: TimeInterval
        public init(url: String, model: String = "whisper-1", apiKey: String? = nil, timeout: TimeInterval = 120) {
            self.url = url
            self.model = model
            self.apiKey = apiKey
            self.timeout = timeout
        }
    }
    public var speech: Speech?
    /// Web Push (VAPID): the key file (made on first start, 0600) and the contact push services
    /// may write to. `allowHTTP` lets tests' push services on loopback be plain HTTP.
    public struct WebPush: Sendable, Equatable {
        public var keyFile: String
        public var subject: String
        public var allowHTTP = false
        /// Names looked up here before the system's resolver (as /etc/hosts would): the tests'
        /// push-service names that point inside the network.
        public var hosts: [String: String] = [:]
        public init(keyFile: String, subject: String = "mailto:selene@localhost", allowHTTP: Bool = false) {
            self.keyFile = keyFile
            self.subject = subject
            self.allowHTTP = allowHTTP
        }
    }
    /// nil: no Web Push (`SELENE_WEBPUSH=off`).
    public var webPush: WebPush?
    public var draftsResend = DraftsResend.update

    /// `SELENE_BACKUP_DIR`, `SELENE_BACKUP_EVERY_HOURS` (24: nightly), `SELENE_BACKUP_KEEP` (7):
    /// scheduled backups of the whole second brain (`SeleneBackup`); off when the folder is unset.
    public var backups: BackupSettings?
    /// `SELENE_OUTBOUND_DAYS` (30): how long the ledger of what left the machine keeps an entry.
    public var outboundDays = 30
    /// `SELENE_LOCAL_ONLY=on`: the model and speech servers must be on this machine or the private
    /// network (checked at start and before every request), no hosted model, and pushes carry no
    /// words from the notes ("Selene has something new").
    public var localOnly = false

    public init(database: Database, dataDirectory: String, apiTokens: [String] = [], llm: LLM? = nil) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.apiTokens = apiTokens
        self.llm = llm
    }

    public static let minimumTokenLength = 32

    /// A switch as people write it: on/true/1 or off/false/0 (nil for anything else).
    static func onOff(_ raw: String) -> Bool? {
        ["on": true, "true": true, "1": true, "off": false, "false": false, "0": false][raw.lowercased()]
    }

    /// An http(s) address with a host (a server Selene talks to).
    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "") else { return false }
        return url.host != nil
    }

    /// Reads the process environment (the README's table).
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> SeleneConfig {
        func value(_ key: String) -> String? { env[key].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
        let dataDirectory = value("SELENE_DATA_DIR") ?? "./data/selene"
        let database: Database
        do {
            database = try .from(value("SELENE_DATABASE_URL"), urlVariable: "SELENE_DATABASE_URL", dataDirectory: dataDirectory, file: "selene.sqlite")
        } catch let error as ServerDatabaseError {
            throw SeleneConfigError(error.description)
        }
        let tokenSetting = value("SELENE_API_TOKEN")
        let tokensOff = tokenSetting.map { ["off", "none"].contains($0.lowercased()) } ?? false
        var config = SeleneConfig(database: database, dataDirectory: dataDirectory,
                                  apiTokens: tokensOff ? [] : try parseTokens(tokenSetting))
        if tokenSetting == nil { config.tokenFile = (dataDirectory as NSString).appendingPathComponent("api-token") }
        config.allowedHosts = try AllowedHosts.parse(value("SELENE_ALLOWED_HOSTS"), publicURL: value("SELENE_PUBLIC_URL"))
        config.obsidianVault = value("SELENE_OBSIDIAN_VAULT")
        try config.readOptionalServers(value, dataDirectory: dataDirectory)
        try config.readCapture(value)
        config.llm = try llmSettings(value)
        do { config.backups = try BackupSettings.fromEnvironment(env, prefix: "SELENE_") } catch let error as BackupError { throw SeleneConfigError(error.description) }
        try config.readPrivacy(value)
        try config.readProcessing(value)
        try config.readBriefing(value)
        config.apns = try apnsSettings(value)
        return config
    }

    /// The optional servers beside the model: a hosted model (SELENE_HOSTED_*), Web Push (SELENE_WEBPUSH, SELENE_VAPID_*), speech-to-text (SELENE_STT_*).
    mutating func readOptionalServers(_ value: (String) -> String?, dataDirectory: String) throws {
        if let url = value("SELENE_HOSTED_URL") {
            guard Self.isHTTPURL(url) else {
                throw SeleneConfigError("SELENE_HOSTED_URL must be an http(s) URL of an OpenAI-compatible API, with or without /v1")
            }
            guard let model = value("SELENE_HOSTED_MODEL") else {
                throw SeleneConfigError("SELENE_HOSTED_MODEL must name the hosted model when SELENE_HOSTED_URL is set")
            }
            var personal = false
            if let raw = value("SELENE_HOSTED_PERSONAL") {
                guard let on = Self.onOff(raw) else {
                    throw SeleneConfigError("SELENE_HOSTED_PERSONAL must be on or off (off: notes, memories and conversations never go to the hosted model)")
                }
                personal = on
            }
            self.hosted = Hosted(url: url, model: model, apiKey: value("SELENE_HOSTED_KEY"), personal: personal)
        }
        if value("SELENE_WEBPUSH")?.lowercased() != "off" {
            let subject = value("SELENE_VAPID_SUBJECT") ?? "mailto:selene@localhost"
            guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
                throw SeleneConfigError("SELENE_VAPID_SUBJECT must be a mailto: address or an https:// URL push services can reach you at")
            }
            self.webPush = WebPush(keyFile: value("SELENE_VAPID_KEY_FILE") ?? (dataDirectory as NSString).appendingPathComponent("vapid-key.pem"),
                                     subject: subject, allowHTTP: value("SELENE_WEBPUSH_LOOPBACK_HTTP") == "true")
        }
        if let url = value("SELENE_STT_URL") {
            guard Self.isHTTPURL(url) else {
                throw SeleneConfigError("SELENE_STT_URL must be the http(s) address of a speech-to-text server with /v1/audio/transcriptions (e.g. whisper.cpp's server)")
            }
            self.speech = Speech(url: url, model: value("SELENE_STT_MODEL") ?? "whisper-1", apiKey: value("SELENE_STT_KEY"))
        }
    }

    /// How notes arrive and who reads the metrics: SELENE_DRAFTS_RESEND, SELENE_METRICS_TOKEN.
    mutating func readCapture(_ value: (String) -> String?) throws {
        if let raw = value("SELENE_DRAFTS_RESEND") {
            guard let resend = DraftsResend(rawValue: raw.lowercased()) else {
                throw SeleneConfigError("SELENE_DRAFTS_RESEND must be update (a draft sent again replaces the note) or keep (the first version wins)")
            }
            self.draftsResend = resend
        }
        if let token = value("SELENE_METRICS_TOKEN") {
            guard token.count >= Self.minimumTokenLength else { throw SeleneConfigError("SELENE_METRICS_TOKEN must be at least \(Self.minimumTokenLength) characters") }
            self.metricsToken = token
        }
    }

    /// What may leave the machine: SELENE_LOCAL_ONLY (refused beside a hosted model), SELENE_OUTBOUND_DAYS.
    mutating func readPrivacy(_ value: (String) -> String?) throws {
        if let raw = value("SELENE_LOCAL_ONLY") {
            guard let on = Self.onOff(raw) else { throw SeleneConfigError("SELENE_LOCAL_ONLY must be on or off") }
            self.localOnly = on
            if on, self.hosted != nil {
                throw SeleneConfigError("SELENE_LOCAL_ONLY=on keeps everything on this machine: unset SELENE_HOSTED_URL (a hosted model is off in local-only mode)")
            }
        }
        if let raw = value("SELENE_OUTBOUND_DAYS") {
            guard let days = Int(raw), (1...3650).contains(days) else {
                throw SeleneConfigError("SELENE_OUTBOUND_DAYS must be a whole number of days from 1 to 3650 (how long the ledger of what left this machine keeps an entry)")
            }
            self.outboundDays = days
        }
    }

    /// The processing queue: SELENE_PROCESSING, the thread and association thresholds, SELENE_RETRY_BACKOFF.
    mutating func readProcessing(_ value: (String) -> String?) throws {
        if let raw = value("SELENE_PROCESSING") {
            guard let on = Self.onOff(raw) else {
                throw SeleneConfigError("SELENE_PROCESSING must be on or off")
            }
            self.processing.enabled = on
        }
        // Thread formation and association thresholds (cosine similarity), measured on the
        // development notes with all-MiniLM-L6-v2 (`selene-bench --only thresholds`, README).
        for (key, apply) in [("SELENE_THREAD_JOIN", { (c: inout SeleneConfig, v: Double) in c.threads.joinThreshold = v }),
                             ("SELENE_THREAD_SEED", { (c: inout SeleneConfig, v: Double) in c.threads.seedThreshold = v }),
                             ("SELENE_ASSOCIATION_THRESHOLD", { (c: inout SeleneConfig, v: Double) in c.processing.associationThreshold = v })] {
            guard let raw = value(key) else { continue }
            guard let v = Double(raw), v > 0, v < 1 else {
                throw SeleneConfigError("\(key) must be a cosine similarity between 0 and 1 (exclusive), such as 0.55")
            }
            apply(&self, v)
        }
        if let raw = value("SELENE_RETRY_BACKOFF") {
            guard let seconds = TimeInterval(raw), seconds >= 1, seconds <= 3600 else {
                throw SeleneConfigError("SELENE_RETRY_BACKOFF must be seconds between 1 and 3600 (the first retry of a note that failed; it doubles up to an hour)")
            }
            self.processing.baseBackoff = seconds
        }
    }

    /// The morning briefing: SELENE_BRIEFING_HOUR (or off) and SELENE_TIMEZONE.
    mutating func readBriefing(_ value: (String) -> String?) throws {
        if let raw = value("SELENE_BRIEFING_HOUR") {
            if raw.lowercased() == "off" {
                self.briefingHour = nil
            } else {
                let parts = raw.split(separator: ":", omittingEmptySubsequences: false)
                guard (1...2).contains(parts.count), let hour = Int(parts[0]), (0...23).contains(hour),
                      let minute = parts.count == 2 ? Int(parts[1]) : 0, (0...59).contains(minute), parts.count == 1 || parts[1].count == 2
                else { throw SeleneConfigError("SELENE_BRIEFING_HOUR must be an hour from 0 to 23 (or a time such as 6:30), or off") }
                self.briefingHour = hour
                self.briefingMinute = minute
            }
        }
        if let raw = value("SELENE_TIMEZONE") {
            guard let zone = TimeZone(identifier: raw) else { throw SeleneConfigError("SELENE_TIMEZONE must be a time zone name such as Europe/Berlin") }
            self.timeZone = zone
        }
    }

    /// The model servers: `SELENE_LLM_PROVIDER` (ollama, openai), `SELENE_LLM_URL` (or the older
    /// `SELENE_OLLAMA_URL`; `off` for none), `SELENE_LLM_API_KEY`, the models, and an optional
    /// second server for embeddings (`SELENE_EMBED_PROVIDER`, `SELENE_EMBED_URL`, `SELENE_EMBED_API_KEY`).
    public static func llmSettings(_ value: (String) -> String?) throws -> LLM? {
        func provider(_ key: String, default fallback: LLMProviderKind) throws -> LLMProviderKind {
            guard let raw = value(key) else { return fallback }
            guard let kind = LLMProviderKind(rawValue: raw.lowercased()) else {
                throw SeleneConfigError("\(key) must be one of \(LLMProviderKind.allCases.map(\.rawValue).joined(separator: ", ")) (ollama: Ollama's API; openai: any OpenAI-compatible server such as llama-server, LM Studio, vLLM); it is \(raw)")
            }
            return kind
        }
        func url(_ key: String, _ raw: String) throws -> String {
            guard let url = URL(string: raw), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw SeleneConfigError("\(key) must be an http(s) URL such as http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080/v1 (llama-server), or off")
            }
            var text = raw
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        let kind = try provider("SELENE_LLM_PROVIDER", default: .ollama)
        let urlKey = value("SELENE_LLM_URL") != nil ? "SELENE_LLM_URL" : "SELENE_OLLAMA_URL"
        let rawURL = value(urlKey) ?? (kind == .ollama ? "http://127.0.0.1:11434" : "http://127.0.0.1:8080/v1")
        guard !["off", "none", "false"].contains(rawURL.lowercased()) else { return nil }
        var llm = LLM(provider: kind, baseURL: try url(urlKey, rawURL), apiKey: value("SELENE_LLM_API_KEY"))
        if kind == .openai {
            // An OpenAI-compatible server has no model names everyone shares.
            for key in ["SELENE_CHAT_MODEL", "SELENE_EMBED_MODEL"] where value(key) == nil {
                throw SeleneConfigError("SELENE_LLM_PROVIDER=openai needs \(key): a model id the server lists at GET /v1/models (llama-server: its --alias)")
            }
        }
        if let model = value("SELENE_CHAT_MODEL") { llm.chatModel = model }
        if let model = value("SELENE_EMBED_MODEL") { llm.embeddingModel = model }
        if value("SELENE_EMBED_URL") != nil || value("SELENE_EMBED_PROVIDER") != nil {
            let embedKind = try provider("SELENE_EMBED_PROVIDER", default: kind)
            let embedURL = try value("SELENE_EMBED_URL").map { try url("SELENE_EMBED_URL", $0) } ?? llm.baseURL
            llm.embedding = LLM.Endpoint(provider: embedKind, baseURL: embedURL, apiKey: value("SELENE_EMBED_API_KEY") ?? llm.apiKey)
        }
        if let raw = value("SELENE_NUM_CTX") {
            guard let n = Int(raw), (512...1_048_576).contains(n) else { throw SeleneConfigError("SELENE_NUM_CTX must be a whole number of tokens between 512 and 1048576") }
            llm.numCtx = n
        }
        if let keep = value("SELENE_KEEP_ALIVE") { llm.keepAlive = keep }
        if let raw = value("SELENE_LLM_TIMEOUT") ?? value("SELENE_OLLAMA_TIMEOUT") {
            guard let seconds = TimeInterval(raw), seconds > 0, seconds <= 3600 else { throw SeleneConfigError("SELENE_LLM_TIMEOUT must be seconds between 1 and 3600") }
            llm.requestTimeout = seconds
        }
        if let raw = value("SELENE_MAX_TOKENS") {
            guard let n = Int(raw), (1...1_000_000).contains(n) else { throw SeleneConfigError("SELENE_MAX_TOKENS must be a whole number of tokens from 1") }
            llm.maxTokens = n
        }
        if let raw = value("SELENE_CHAT_TEMPERATURE") {
            guard let t = Double(raw), (0...2).contains(t) else { throw SeleneConfigError("SELENE_CHAT_TEMPERATURE must be a number from 0 to 2") }
            llm.chatTemperature = t
        }
        if let raw = value("SELENE_REPEAT_PENALTY") {
            if raw.lowercased() == "off" {
                llm.repeatPenalty = nil
            } else {
                guard let p = Double(raw), (1...2).contains(p) else { throw SeleneConfigError("SELENE_REPEAT_PENALTY must be a number from 1 to 2, or off") }
                llm.repeatPenalty = p
            }
        }
        return llm
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
