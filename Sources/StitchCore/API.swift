import Foundation

/// The body of every failed request: a sentence and, for validation failures, each field's message.
public struct APIErrorBody: Codable, Sendable, Hashable, Error {
    public var error: String
    public var fields: [String: String]?
    /// A 409 for a record you have already (a thread of the same brand and number): its id.
    public var existingId: UUID?
    /// A 409 for a provider sign-in whose verified address belongs to an account: what
    /// `POST /auth/provider/link` takes, with that account's password, to add the sign-in to it.
    public var linkToken: String?

    public init(error: String, fields: [String: String]? = nil, existingId: UUID? = nil, linkToken: String? = nil) {
        self.error = error
        self.fields = fields
        self.existingId = existingId
        self.linkToken = linkToken
    }

    private enum CodingKeys: String, CodingKey { case error, fields, existingId, linkToken }

    /// Ids on the wire are lower case, as in records.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(error, forKey: .error)
        try container.encodeIfPresent(fields, forKey: .fields)
        try container.encodeIfPresent(existingId?.wireText, forKey: .existingId)
        try container.encodeIfPresent(linkToken, forKey: .linkToken)
    }
}

/// `GET /health`: whether the server and its database answer, and what runs.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    /// When unavailable: which part failed, `database` or `storage` (the object store).
    public var failing: String?
    /// The server's version (`StitchVersion.current`).
    public var version: String?
    /// The commit the server was built from (12 hex digits, `-modified` or `unknown`).
    public var commit: String?
    public init(status: String, failing: String? = nil, version: String? = nil, commit: String? = nil) {
        self.status = status
        self.failing = failing
        self.version = version
        self.commit = commit
    }
}

// MARK: - Auth

/// `POST /auth/register`: a new account's email and password.
public struct RegisterRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public var displayName: String

    public init(email: String, password: String, displayName: String) {
        self.email = email
        self.password = password
        self.displayName = displayName
    }
}

extension RegisterRequest: Validatable {
    public func validate(into v: inout Validator) {
        Rules.validateEmail(email, into: &v)
        Rules.validatePassword(password, into: &v)
        Rules.validateDisplayName(displayName, into: &v)
    }
}

/// `POST /auth/login`: an email and password.
public struct LoginRequest: Codable, Sendable {
    public var email: String
    public var password: String

    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

/// `POST /auth/refresh`: a refresh token exchanged for a new pair of tokens.
public struct RefreshRequest: Codable, Sendable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// `POST /auth/password-reset`: mail a link to set a new password to this address, if an account
/// signs in with it. The answer is the same either way.
public struct PasswordResetRequest: Codable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }
}

extension PasswordResetRequest: Validatable {
    public func validate(into v: inout Validator) { Rules.validateEmail(email, into: &v) }
}

/// `POST /auth/password-reset/confirm`: the token from the mailed link and the new password.
public struct PasswordResetConfirmRequest: Codable, Sendable {
    /// Characters of a link's token (32 random bytes, base64url without padding).
    public static let tokenLength = 43
    public var token: String
    public var newPassword: String

    public init(token: String, newPassword: String) {
        self.token = token
        self.newPassword = newPassword
    }
}

extension PasswordResetConfirmRequest: Validatable {
    public func validate(into v: inout Validator) {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        if token.count != Self.tokenLength || !token.allSatisfy(alphabet.contains) {
            v.fail("token", "This is not a password-reset link's code; open the link from the email again")
        }
        Rules.validatePassword(newPassword, field: "newPassword", into: &v)
    }
}

/// The answer to a reset request, whether or not an account has the address.
public struct PasswordResetAccepted: Codable, Sendable, Hashable {
    public var message: String
    public init(message: String) { self.message = message }
}

/// `POST /auth/logout`: the refresh token to revoke.
public struct LogoutRequest: Codable, Sendable {
    public var refreshToken: String?
    public init(refreshToken: String? = nil) { self.refreshToken = refreshToken }
}

/// `POST /auth/provider`: a sign-in with Apple, Instagram or TikTok, carrying the provider's token or code.
public struct ProviderSignInRequest: Codable, Sendable {
    public var provider: IdentityProvider
    /// Sign in with Apple's identity token (a JWT).
    public var idToken: String?
    /// An OAuth authorization code (Instagram, TikTok).
    public var code: String?
    /// The nonce the app sent to Apple, checked against the token's `nonce` claim.
    public var nonce: String?
    /// The redirect URI the code was issued for, when it differs from the configured one.
    public var redirectUri: String?
    /// Apple sends the name only on the first sign-in, to the app, not in the token.
    public var displayName: String?

    public init(
        provider: IdentityProvider, idToken: String? = nil, code: String? = nil, nonce: String? = nil,
        redirectUri: String? = nil, displayName: String? = nil
    ) {
        self.provider = provider
        self.idToken = idToken
        self.code = code
        self.nonce = nonce
        self.redirectUri = redirectUri
        self.displayName = displayName
    }
}

/// Tokens and the account, answered by every sign-in.
public struct AuthResponse: Codable, Sendable {
    public var user: UserProfile
    public var accessToken: String
    public var refreshToken: String
    public var accessTokenExpiresAt: Date
    public var tokenType: String

    public init(user: UserProfile, accessToken: String, refreshToken: String, accessTokenExpiresAt: Date) {
        self.user = user
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.tokenType = "Bearer"
    }
}

// MARK: - Ways in

/// `POST /auth/provider/link`: adds a provider's sign-in to the account its verified address
/// belongs to, once the person proves the account with its password.
public struct ProviderLinkRequest: Codable, Sendable {
    public var linkToken: String
    public var password: String

    public init(linkToken: String, password: String) {
        self.linkToken = linkToken
        self.password = password
    }
}

/// `POST /auth/provider/link/mail`: the 409's sign-in added by a link mailed to the account's
/// address instead of its password (answered `PasswordResetAccepted`).
public struct ProviderLinkMailRequest: Codable, Sendable {
    public var linkToken: String

    public init(linkToken: String) { self.linkToken = linkToken }
}

/// One way into an account: a provider's sign-in, or `email` for its address and password.
public struct SignInMethod: Codable, Sendable, Hashable {
    public var provider: IdentityProvider
    public var linkedAt: Date
    /// The address, for `email`.
    public var detail: String?

    public init(provider: IdentityProvider, linkedAt: Date, detail: String? = nil) {
        self.provider = provider
        self.linkedAt = linkedAt
        self.detail = detail
    }
}

/// `GET /account/sign-in-methods`: every way into the account. The last one can't be removed.
public struct SignInMethods: Codable, Sendable, Hashable {
    public var methods: [SignInMethod]
    public var hasPassword: Bool

    public init(methods: [SignInMethod], hasPassword: Bool) {
        self.methods = methods
        self.hasPassword = hasPassword
    }
}

/// `POST /account/merge`: brings another account of this person's into the signed-in one. The
/// other account is proven by signing in to it: a provider's sign-in, or its email and password.
public struct AccountMergeRequest: Codable, Sendable {
    public var signIn: ProviderSignInRequest?
    public var email: String?
    public var password: String?

    public init(signIn: ProviderSignInRequest? = nil, email: String? = nil, password: String? = nil) {
        self.signIn = signIn
        self.email = email
        self.password = password
    }
}

/// What a merge moved: records by type (every device pulls them), and the other account's ways in
/// that now open this one. `droppedEmail`: the other account's address, which no longer signs in.
public struct AccountMergeSummary: Codable, Sendable, Hashable {
    public var records: [String: Int]
    public var pictures: Int
    public var signInMethods: [IdentityProvider]
    public var droppedEmail: String?

    public init(records: [String: Int], pictures: Int, signInMethods: [IdentityProvider], droppedEmail: String?) {
        self.records = records
        self.pictures = pictures
        self.signInMethods = signInMethods
        self.droppedEmail = droppedEmail
    }
}

// MARK: - Domain API

/// A project with the canvas it is stitched from (title and picture come from the canvas).
public struct ProjectDetail: Codable, Sendable, Hashable {
    public var project: Project
    public var canvas: Canvas?

    /// What shows the project: its canvas's picture, or for a project without one its own.
    public var pictureKey: String? { canvas?.imageKey ?? project.imageKey }

    public init(project: Project, canvas: Canvas?) {
        self.project = project
        self.canvas = canvas
    }

    /// The project's fields at the top level, plus `canvas`.
    public func encode(to encoder: any Encoder) throws {
        try project.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(canvas, forKey: .canvas)
    }

    public init(from decoder: any Decoder) throws {
        project = try Project(from: decoder)
        canvas = try decoder.container(keyedBy: Keys.self).decodeIfPresent(Canvas.self, forKey: .canvas)
    }

    private enum Keys: String, CodingKey { case canvas }

    public var title: String { project.title(canvas: canvas) }
}

/// A journal entry with its images in sort order.
public struct JournalEntryDetail: Codable, Sendable, Hashable {
    public var entry: JournalEntry
    public var images: [JournalImage]

    public init(entry: JournalEntry, images: [JournalImage]) {
        self.entry = entry
        self.images = images
    }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(images, forKey: .images)
    }

    public init(from decoder: any Decoder) throws {
        entry = try JournalEntry(from: decoder)
        images = try decoder.container(keyedBy: Keys.self).decodeIfPresent([JournalImage].self, forKey: .images) ?? []
    }

    private enum Keys: String, CodingKey { case images }
}

/// `GET /shopping-list`: the lines to buy, each with the projects that need it.
public struct ShoppingListResponse: Codable, Sendable, Hashable {
    public var items: [ShoppingItem]
    public var totalToBuy: Int

    public init(items: [ShoppingItem]) {
        self.items = items
        self.totalToBuy = items.reduce(0) { $0 + $1.toBuy }
    }
}

/// `POST /shopping-list/purchase`: skeins of a thread bought, added to the inventory (a new thread when none matches).
public struct PurchaseRequest: Codable, Sendable {
    public var brand: String
    public var number: String
    public var quantity: Int
    public var colorName: String?

    public init(brand: String, number: String, quantity: Int, colorName: String? = nil) {
        self.brand = brand
        self.number = number
        self.quantity = quantity
        self.colorName = colorName
    }
}

/// `POST /shopping-list/dismiss`: set a thread's line aside without buying it.
public struct DismissRequest: Codable, Sendable {
    public var brand: String
    public var number: String

    public init(brand: String, number: String) {
        self.brand = brand
        self.number = number
    }
}

extension DismissRequest: Validatable {
    public func validate(into v: inout Validator) {
        v.required(brand, "brand", label: "Brand", max: Limits.brand)
        v.required(number, "number", label: "Number", max: Limits.number)
    }
}

extension PurchaseRequest: Validatable {
    public func validate(into v: inout Validator) {
        v.required(brand, "brand", label: "Brand", max: Limits.brand)
        v.required(number, "number", label: "Number", max: Limits.number)
        if quantity < 1 { v.fail("quantity", "Buy at least 1") }
        else if quantity > Limits.maxQuantity { v.fail("quantity", "Quantity must be at most \(Limits.maxQuantity)") }
    }
}

/// The answer to an image upload: the key the picture is stored under, its type and size.
public struct ImageUploadResponse: Codable, Sendable, Hashable {
    public var key: String
    public var contentType: String
    public var byteSize: Int

    public init(key: String, contentType: String, byteSize: Int) {
        self.key = key
        self.contentType = contentType
        self.byteSize = byteSize
    }
}

/// Which picture formats are accepted, told by their first bytes rather than a declared type.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, heic, webp
    /// Only as a pattern's file: never a canvas's or a journal's picture (`isPicture`).
    case pdf

    /// A photo or picture (a canvas's, a journal's); a PDF is not.
    public var isPicture: Bool { self != .pdf }

    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .webp: "image/webp"
        case .pdf: "application/pdf"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heic: "heic"
        case .webp: "webp"
        case .pdf: "pdf"
        }
    }

    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(16))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return nil
    }
}

/// How far a pattern's pages are: a PDF's are drawn in the background after the upload, a
/// picture's at once.
public struct PatternPages: Codable, Sendable, Equatable {
    /// How far the server has drawn a pattern's pages: rendering, ready or failed.
    public enum Status: String, Codable, Sendable {
        case rendering, ready, failed
    }

    public var status: Status
    public var pageCount: Int
    /// Pages ready to show (1…rendered).
    public var rendered: Int
    /// Why rendering failed.
    public var message: String?

    public init(status: Status, pageCount: Int, rendered: Int, message: String? = nil) {
        self.status = status
        self.pageCount = pageCount
        self.rendered = rendered
        self.message = message
    }
}

/// A pattern with its file's kind and its pages' progress (`GET /patterns/{id}`).
public struct PatternDetail: Codable, Sendable, Equatable {
    public var pattern: Pattern
    /// application/pdf, image/jpeg…
    public var contentType: String
    public var pages: PatternPages

    public init(pattern: Pattern, contentType: String, pages: PatternPages) {
        self.pattern = pattern
        self.contentType = contentType
        self.pages = pages
    }
}

/// What a pattern's colour key proposes for its project (`GET /patterns/{id}/key`): each thread
/// the key names, matched to the catalogs and to the stitcher's inventory, and every line of the
/// key that couldn't be read.
public struct ChartKeyProposal: Codable, Sendable, Hashable {
    /// One thread of the key, beside what the stitcher has.
    public struct Row: Codable, Sendable, Hashable {
        public var thread: ChartKey.Thread
        /// Skeins of it in the inventory (0 when none).
        public var owned: Int
        /// The inventory thread a requirement will be linked to.
        public var threadId: UUID?
        /// The project already needs this brand and number: confirming adds nothing for it.
        public var alreadyRequired: Bool
        /// The nearest colours of other brands (or the brand's own), and how many of each the
        /// stitcher has.
        public var substitutes: [Substitute]

        public init(thread: ChartKey.Thread, owned: Int, threadId: UUID?, alreadyRequired: Bool, substitutes: [Substitute]) {
            self.thread = thread
            self.owned = owned
            self.threadId = threadId
            self.alreadyRequired = alreadyRequired
            self.substitutes = substitutes
        }
    }

    /// A thread the stitcher has that could stand in for one the key names.
    public struct Substitute: Codable, Sendable, Hashable {
        public var brand: String
        public var number: String
        public var name: String
        public var hex: String
        public var deltaE: Double
        public var owned: Int

        public init(brand: String, number: String, name: String, hex: String, deltaE: Double, owned: Int) {
            self.brand = brand
            self.number = number
            self.name = name
            self.hex = hex
            self.deltaE = deltaE
            self.owned = owned
        }
    }

    public var patternId: UUID
    public var projectId: UUID
    /// What was read, in a sentence ("No colour key found", "This chart has no text…").
    public var message: String
    public var hasText: Bool
    /// The fabric or canvas count stitch counts were turned into skeins with, and its source.
    public var count: Int
    public var countSource: String
    public var rows: [Row]
    public var unread: [ChartKey.Unread]

    public init(patternId: UUID, projectId: UUID, message: String, hasText: Bool, count: Int, countSource: String, rows: [Row],
                unread: [ChartKey.Unread]) {
        self.patternId = patternId
        self.projectId = projectId
        self.message = message
        self.hasText = hasText
        self.count = count
        self.countSource = countSource
        self.rows = rows
        self.unread = unread
    }
}

/// The key's threads a stitcher confirms (`POST /patterns/{id}/key`): each becomes a requirement.
public struct ChartKeyConfirmation: Codable, Sendable, Hashable {
    /// One thread of the key as confirmed: it becomes a requirement of the project.
    public struct Row: Codable, Sendable, Hashable {
        public var brand: String
        public var number: String
        public var quantityNeeded: Int
        public var sectionId: UUID?

        public init(brand: String, number: String, quantityNeeded: Int, sectionId: UUID? = nil) {
            self.brand = brand
            self.number = number
            self.quantityNeeded = quantityNeeded
            self.sectionId = sectionId
        }
    }

    public var rows: [Row]

    public init(rows: [Row]) { self.rows = rows }
}

/// What confirming a key did: the requirements added (one sync version) and the threads left
/// out because the project already needs them.
public struct ChartKeyResult: Codable, Sendable, Hashable {
    public var added: [ProjectThread]
    public var alreadyRequired: [String]

    public init(added: [ProjectThread], alreadyRequired: [String]) {
        self.added = added
        self.alreadyRequired = alreadyRequired
    }
}

/// "Recently deleted": what was deleted in the last `RecentlyDeleted.days` days, newest first, to
/// be restored — threads, canvases, projects (with their journal, sections, requirements and
/// patterns) and journal entries of live projects. After that they are gone for good.
public struct RecentlyDeleted: Codable, Sendable, Hashable {
    public static let days = 30

    /// One deleted record: its kind, id and title, when it was deleted and until when it can be restored.
    public struct Item: Codable, Sendable, Hashable, Identifiable {
        public var type: EntityType
        public var id: UUID
        /// How the person names it: "DMC 310", a canvas's design, a project's title, a journal
        /// entry's first words.
        public var title: String
        public var deletedAt: Date
        /// Until when it can be restored.
        public var restorableUntil: Date
        /// True for a canvas or a project that had a photo: `GET /deleted/{type}/{id}/photo`
        /// serves it while the record is listed here (nowhere else serves a deleted record's photo).
        public var hasPhoto: Bool?

        public init(type: EntityType, id: UUID, title: String, deletedAt: Date, restorableUntil: Date, hasPhoto: Bool? = nil) {
            self.type = type
            self.id = id
            self.title = title
            self.deletedAt = deletedAt
            self.restorableUntil = restorableUntil
            self.hasPhoto = hasPhoto
        }
    }

    public var items: [Item]

    public init(items: [Item]) { self.items = items }

    /// The kinds of record listed and restored.
    public static let kinds: [EntityType] = [.thread, .canvas, .project, .journalEntry]
}
