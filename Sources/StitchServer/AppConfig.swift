import Foundation
import ServerCommon
import StitchCore
import Vapor

/// Everything the server reads from its environment, in one typed value. Tests build one directly.
public struct AppConfig: Sendable {
    /// SQLite (the default) or PostgreSQL: the choice both servers share (ServerCommon).
    public typealias Database = ServerDatabase

    public struct OAuthProvider: Sendable {
        public var clientId: String
        public var clientSecret: String
        public var redirectURI: String
        public var tokenURL: String
        public var userInfoURL: String
        /// The provider's page the browser is sent to for the web sign-in.
        public var authorizeURL: String
        /// Where the provider sends the browser back (`.../app/signin/PROVIDER/callback`); set to
        /// offer the provider's button on the web sign-in page.
        public var webRedirectURI: String?

        public init(clientId: String, clientSecret: String, redirectURI: String, tokenURL: String, userInfoURL: String,
                    authorizeURL: String = "", webRedirectURI: String? = nil) {
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.redirectURI = redirectURI
            self.tokenURL = tokenURL
            self.userInfoURL = userInfoURL
            self.authorizeURL = authorizeURL
            self.webRedirectURI = webRedirectURI
        }
    }

    public struct Apple: Sendable {
        /// The app's bundle id or Services ID: the `aud` Apple puts in identity tokens.
        public var clientId: String
        public var jwksURL: String
        public var keyCacheLifetime: TimeInterval
        /// Where Apple sends the browser back (`.../app/signin/apple/callback`); set to offer
        /// "Sign in with Apple" on the web sign-in page.
        public var webRedirectURI: String?
        public var authorizeURL: String

        public init(clientId: String, jwksURL: String = Apple.defaultJWKSURL, keyCacheLifetime: TimeInterval = 3600,
                    webRedirectURI: String? = nil, authorizeURL: String = "https://appleid.apple.com/auth/authorize") {
            self.clientId = clientId
            self.jwksURL = jwksURL
            self.keyCacheLifetime = keyCacheLifetime
            self.webRedirectURI = webRedirectURI
            self.authorizeURL = authorizeURL
        }

        public static let defaultJWKSURL = "https://appleid.apple.com/auth/keys"
        public static let issuer = "https://appleid.apple.com"
    }

    public var database: Database
    /// Where the SQLite file (by default), uploaded images and a generated development secret live.
    public var dataDirectory: String
    public var jwtSecret: String
    public var jwtIssuer: String = "stitchuation"
    public var jwtAudience: String = "stitchuation-api"
    public var accessTokenLifetime: TimeInterval = 15 * 60
    public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// A refresh token presented again this soon after it was rotated gets the same successor
    /// instead of revoking the family: the client most likely lost the first response.
    public var refreshGraceWindow: TimeInterval = 30
    public var bcryptCost: Int = 12
    public var loginMaxFailures: Int = 5
    public var loginFailureWindow: TimeInterval = 15 * 60
    /// Sign-ins, sign-ups and token refreshes one client address may send in `clientAttemptWindow`
    /// (over every account: the per-account limit alone lets one address try many accounts).
    public var clientAttemptLimit: Int = 60
    public var clientAttemptWindow: TimeInterval = 10 * 60
    /// `TRUSTED_PROXIES`: the addresses or ranges (`10.0.0.0/8`, `fdaa::/16`) of the load
    /// balancers in front (comma-separated). Only a request from one of them has its
    /// `X-Forwarded-For` (or `clientIPHeader`) read for the client's address.
    public var trustedProxies: Set<String> = []
    /// `CLIENT_IP_HEADER`: a header the trusted proxy always sets to the client's address (Fly's
    /// `Fly-Client-IP`), read instead of `X-Forwarded-For`.
    public var clientIPHeader: String?
    public var apple: Apple?
    public var instagram: OAuthProvider?
    public var tiktok: OAuthProvider?
    /// How long a request waits for a database connection before it fails (Fluent's default).
    public var databasePoolTimeout: TimeInterval = 10
    /// Largest request body accepted (image uploads included).
    public var maxBodySize: Int = 12 * 1024 * 1024
    /// Threads for decoding pictures and running PDF tools (`ToolWork`), apart from the
    /// database's; and how many of one account's jobs may run or wait at once (`TOOL_THREADS`,
    /// `TOOL_JOBS_PER_ACCOUNT`).
    public var toolThreads = max(1, System.coreCount)
    public var toolJobsPerAccount = 2
    /// Memory for rendered list pages (`GET /threads`, `/canvases`), reused until the user's data
    /// changes; 0 turns the cache off. `LIST_CACHE_MB`.
    public var listCacheBytes: Int = 32 * 1024 * 1024
    /// The most a stored picture takes (the plan's 10 MB).
    public var maxImageBytes: Int = 10 * 1024 * 1024
    /// The most a photo may be when it arrives: a 48-megapixel phone photo (12–25 MB) is taken
    /// and kept made smaller, under `maxImageBytes` (`PictureSizes.shrunk`).
    public var maxPhotoUploadBytes: Int = 40 * 1024 * 1024
    /// A pattern's file (a PDF chart book, or a picture).
    public var maxPatternBytes: Int = 50 * 1024 * 1024
    /// `METRICS_TOKEN`: lets `/metrics` be read from beyond loopback (as a Bearer token).
    public var metricsToken: String?
    /// `STORAGE_URL=s3://…` and its companions (`S3Settings`): photos, patterns and their drawn
    /// pages in an S3-compatible bucket instead of `<DATA_DIR>/images`.
    public var objectStorage: S3Settings?
    /// `S3_PRESIGNED_URLS=true` (with a bucket): `GET /images/{key}` answers the owner with a 307
    /// to a presigned URL valid this long (`S3_PRESIGNED_SECONDS`, 3600) instead of the bytes.
    public var presignedURLSeconds: Int?
    /// `SMTP_URL` …: where password-reset mail goes. Without it a reset is refused, saying so.
    public var smtp: SMTPSettings?
    /// `PUBLIC_URL`: the web app's address as people reach it (`https://stitch.example.com`), for
    /// links in mail. Never taken from a request's Host header, which whoever asks chooses.
    public var publicURL: String?
    /// Password-reset requests one address may cause in `resetRequestWindow`, and how long a link lasts.
    public var resetRequestLimit: Int = 3
    public var resetRequestWindow: TimeInterval = 3600
    public var resetLinkLifetime: TimeInterval = 3600
    /// `PATTERN_CLAIM_SECONDS`: how long an instance's claim on drawing a PDF's pages holds without
    /// being renewed (after each batch of pages); an instance that stops mid-drawing is taken over
    /// this long after its last batch. Far longer than a batch takes.
    public var patternClaimLifetime: TimeInterval = 90
    /// `TOMBSTONE_DAYS`: how long a deleted record's tombstone stays for devices to pull, in days
    /// from its delete (90; at least `RecentlyDeleted.days`). A device that last synced before the
    /// tombstones it missed were removed syncs from the start, keeping what it hasn't sent.
    public var tombstoneDays = 90
    /// `BACKUP_DIR`, `BACKUP_EVERY_HOURS` (24), `BACKUP_KEEP` (7): scheduled backups of the whole
    /// server (`ServerBackup`), off when `BACKUP_DIR` is unset.
    public var backups: BackupSettings?

    public init(database: Database, dataDirectory: String, jwtSecret: String) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.jwtSecret = jwtSecret
    }

    public static let minimumSecretBytes = 32

    /// Reads the process environment. In development a missing `JWT_SECRET` is generated once
    /// and kept in the data directory; in production it is a startup error.
    public static func fromEnvironment(
        _ environment: Environment, variables env: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) throws -> AppConfig {
        let dataDirectory = env["DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "./data"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)

        let database: Database
        do {
            database = try .from(env["DATABASE_URL"], urlVariable: "DATABASE_URL", dataDirectory: dataDirectory, file: "stitchuation.sqlite")
        } catch let error as ServerDatabaseError {
            throw ConfigError(error.description)
        }

        var config = AppConfig(database: database, dataDirectory: dataDirectory,
                               jwtSecret: try jwtSecret(env, environment: environment, dataDirectory: dataDirectory, logger: logger))
        try config.readLimits(env)
        try config.readNetwork(env)
        try config.readStorage(env)
        try config.readMail(env)
        config.readSignIn(env)
        return config
    }

    /// JWT_SECRET: given (required in production), or this development machine's own, kept in the data folder.
    static func jwtSecret(_ env: [String: String], environment: Environment, dataDirectory: String, logger: Logger) throws -> String {
        let secret: String
        if let given = env["JWT_SECRET"], !given.isEmpty {
            secret = given
        } else if environment == .production {
            throw ConfigError("JWT_SECRET must be set in production (at least \(minimumSecretBytes) bytes)")
        } else {
            secret = try developmentSecret(in: dataDirectory, logger: logger)
        }
        guard secret.utf8.count >= minimumSecretBytes else {
            throw ConfigError("JWT_SECRET must be at least \(minimumSecretBytes) bytes long")
        }
        return secret
    }

    /// Costs and limits: BCRYPT_COST, LIST_CACHE_MB, CLIENT_ATTEMPT_LIMIT, PATTERN_CLAIM_SECONDS, TOMBSTONE_DAYS, TOOL_THREADS, TOOL_JOBS_PER_ACCOUNT.
    mutating func readLimits(_ env: [String: String]) throws {
        if let cost = env["BCRYPT_COST"].flatMap(Int.init) {
            guard (12...16).contains(cost) else { throw ConfigError("BCRYPT_COST must be between 12 and 16") }
            self.bcryptCost = cost
        }
        if let raw = env["LIST_CACHE_MB"], !raw.isEmpty {
            guard let mb = Int(raw), mb >= 0, mb <= 4096 else { throw ConfigError("LIST_CACHE_MB must be a whole number of megabytes (0 turns the cache off)") }
            self.listCacheBytes = mb * 1024 * 1024
        }
        if let raw = env["CLIENT_ATTEMPT_LIMIT"], !raw.isEmpty {
            guard let n = Int(raw), n >= 1 else { throw ConfigError("CLIENT_ATTEMPT_LIMIT must be a whole number from 1") }
            self.clientAttemptLimit = n
        }
        if let raw = env["PATTERN_CLAIM_SECONDS"], !raw.isEmpty {
            guard let n = Int(raw), n >= 5 else { throw ConfigError("PATTERN_CLAIM_SECONDS must be a whole number of seconds from 5") }
            self.patternClaimLifetime = TimeInterval(n)
        }
        if let raw = env["TOMBSTONE_DAYS"], !raw.isEmpty {
            guard let n = Int(raw), (RecentlyDeleted.days...36_500).contains(n) else {
                throw ConfigError("TOMBSTONE_DAYS must be a whole number of days from \(RecentlyDeleted.days) (the days a delete can be undone) to 36500")
            }
            self.tombstoneDays = n
        }
        for (key, apply) in [("TOOL_THREADS", { (c: inout AppConfig, n: Int) in c.toolThreads = n }),
                             ("TOOL_JOBS_PER_ACCOUNT", { (c: inout AppConfig, n: Int) in c.toolJobsPerAccount = n })] {
            guard let raw = env[key], !raw.isEmpty else { continue }
            guard let n = Int(raw), (1...64).contains(n) else { throw ConfigError("\(key) must be a whole number from 1 to 64") }
            apply(&self, n)
        }
    }

    /// Who is in front and where the web app is: TRUSTED_PROXIES, CLIENT_IP_HEADER, METRICS_TOKEN, PUBLIC_URL.
    mutating func readNetwork(_ env: [String: String]) throws {
        if let raw = env["TRUSTED_PROXIES"], !raw.isEmpty {
            self.trustedProxies = Set(raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            if let wrong = self.trustedProxies.first(where: { !TrustedProxies.isValid($0) }) {
                throw ConfigError("TRUSTED_PROXIES holds addresses and ranges (10.0.0.0/8, fdaa::/16), comma-separated: '\(wrong)' is neither")
            }
        }
        if let raw = env["CLIENT_IP_HEADER"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard !self.trustedProxies.isEmpty else { throw ConfigError("CLIENT_IP_HEADER is read only from TRUSTED_PROXIES: set those too") }
            self.clientIPHeader = raw
        }
        if let token = env["METRICS_TOKEN"], !token.isEmpty {
            guard token.utf8.count >= Self.minimumSecretBytes else { throw ConfigError("METRICS_TOKEN must be at least \(Self.minimumSecretBytes) characters") }
            self.metricsToken = token
        }
        if let raw = env["PUBLIC_URL"], !raw.isEmpty {
            guard let url = URL(string: raw), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigError("PUBLIC_URL must be the web app's address, like https://stitch.example.com")
            }
            self.publicURL = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
        }
    }

    /// Backups and where files live: BACKUP_*, STORAGE_URL, S3_PRESIGNED_*.
    mutating func readStorage(_ env: [String: String]) throws {
        do { self.backups = try BackupSettings.fromEnvironment(env) } catch let error as BackupError { throw ConfigError(error.description) }
        do { self.objectStorage = try S3Settings.fromEnvironment(env) } catch let error as S3Settings.Invalid { throw ConfigError(error.description) }
        if ["1", "true", "yes"].contains((env["S3_PRESIGNED_URLS"] ?? "").lowercased()) {
            guard self.objectStorage != nil else { throw ConfigError("S3_PRESIGNED_URLS needs STORAGE_URL (a bucket to presign URLs of)") }
            let seconds = env["S3_PRESIGNED_SECONDS"].flatMap { $0.isEmpty ? nil : $0 }
            guard let lifetime = Int(seconds ?? "3600"), (60...604_800).contains(lifetime) else {
                throw ConfigError("S3_PRESIGNED_SECONDS must be a whole number of seconds from 60 to 604800 (seven days, S3's longest)")
            }
            self.presignedURLSeconds = lifetime
        }
    }

    /// Mail (SMTP_URL), which needs PUBLIC_URL for its links.
    mutating func readMail(_ env: [String: String]) throws {
        self.smtp = try SMTPSettings.fromEnvironment(env)
        if self.smtp != nil, self.publicURL == nil {
            throw ConfigError("SMTP_URL is set but PUBLIC_URL is not: mail needs the web app's address for its links (e.g. PUBLIC_URL=https://stitch.example.com)")
        }
    }

    /// Sign in with Apple, Instagram and TikTok (each on when its client id is set).
    mutating func readSignIn(_ env: [String: String]) {
        if let clientId = env["APPLE_CLIENT_ID"], !clientId.isEmpty {
            self.apple = Apple(clientId: clientId, jwksURL: env["APPLE_JWKS_URL"] ?? Apple.defaultJWKSURL,
                                 webRedirectURI: env["APPLE_WEB_REDIRECT_URI"].flatMap { $0.isEmpty ? nil : $0 },
                                 authorizeURL: env["APPLE_AUTHORIZE_URL"] ?? "https://appleid.apple.com/auth/authorize")
        }
        self.instagram = Self.oauth(prefix: "INSTAGRAM", env: env,
                                 tokenURL: "https://api.instagram.com/oauth/access_token",
                                 userInfoURL: "https://graph.instagram.com/me?fields=id,username",
                                 authorizeURL: "https://www.instagram.com/oauth/authorize")
        self.tiktok = Self.oauth(prefix: "TIKTOK", env: env,
                              tokenURL: "https://open.tiktokapis.com/v2/oauth/token/",
                              userInfoURL: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,union_id,display_name",
                              authorizeURL: "https://www.tiktok.com/v2/auth/authorize/")
    }

    private static func oauth(prefix: String, env: [String: String], tokenURL: String, userInfoURL: String, authorizeURL: String) -> OAuthProvider? {
        guard let id = env["\(prefix)_CLIENT_ID"], !id.isEmpty, let secret = env["\(prefix)_CLIENT_SECRET"] else { return nil }
        return OAuthProvider(
            clientId: id, clientSecret: secret, redirectURI: env["\(prefix)_REDIRECT_URI"] ?? "",
            tokenURL: env["\(prefix)_TOKEN_URL"] ?? tokenURL, userInfoURL: env["\(prefix)_USERINFO_URL"] ?? userInfoURL,
            authorizeURL: env["\(prefix)_AUTHORIZE_URL"] ?? authorizeURL,
            webRedirectURI: env["\(prefix)_WEB_REDIRECT_URI"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The development secret kept in the data folder. Created atomically: the new secret is
    /// written whole to a file of this process's own, then hard-linked to its name, which fails if
    /// the name exists; whoever loses the race reads the winner's. So instances starting at once on
    /// one data folder end with one secret and accept each other's tokens (a plain write let each
    /// keep its own, and a refresh retried on the other instance looked like reuse).
    static func developmentSecret(in directory: String, logger: Logger) throws -> String {
        let path = (directory as NSString).appendingPathComponent("jwt-secret")
        func existing() -> String? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
                  text.utf8.count >= minimumSecretBytes else { return nil }
            return text
        }
        if let existing = existing() { return existing }
        let secret = [UInt8].random(count: 48).hex
        let scratch = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Kept, or every restart would sign everybody out with a new secret.
        guard FileManager.default.createFile(atPath: scratch, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ConfigError("JWT_SECRET not set and a development secret could not be stored in \(path): set JWT_SECRET or fix that path")
        }
        if link(scratch, path) == 0 {
            logger.notice("JWT_SECRET not set: generated a development secret and stored it in \(path)")
            return secret
        }
        guard errno == EEXIST, let theirs = existing() else {
            throw ConfigError("JWT_SECRET not set and a development secret could not be stored in \(path) (\(String(cString: strerror(errno)))): set JWT_SECRET or fix that path")
        }
        return theirs
    }
}

public struct ConfigError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
