import Foundation

/// A whole account in one JSON file: every live record, and every picture those records show,
/// inline (base64), so the file alone restores the account on any server. Version 1 files
/// (`stitchuation-export-v1`, before pictures were included) restore too, without pictures.
public struct AccountBackup: Codable, Sendable, Equatable {
    public static let currentFormat = "stitchuation-export-v2"
    public static let formats = ["stitchuation-export-v1", currentFormat]

    /// A picture and the key records know it by in the file.
    public struct Picture: Codable, Sendable, Equatable {
        public var key: String
        public var contentType: String
        /// The picture's bytes, base64.
        public var data: String

        public init(key: String, contentType: String, bytes: Data) {
            self.key = key
            self.contentType = contentType
            self.data = bytes.base64EncodedString()
        }

        public var bytes: Data? { Data(base64Encoded: data) }
    }

    public var format: String
    public var exportedAt: Date?
    public var threads: [InventoryThread]
    public var canvases: [Canvas]
    public var projects: [Project]
    public var sections: [ProjectSection]
    public var requirements: [ProjectThread]
    public var journalEntries: [JournalEntry]
    public var journalImages: [JournalImage]
    /// Projects' patterns; their files travel in `pictures` like pictures do.
    public var patterns: [Pattern]
    /// Lines of the shopping list written by hand (or set aside).
    public var shoppingLines: [ShoppingLine]
    public var pictures: [Picture]

    public init(format: String = AccountBackup.currentFormat, exportedAt: Date?, threads: [InventoryThread] = [], canvases: [Canvas] = [],
                projects: [Project] = [], sections: [ProjectSection] = [], requirements: [ProjectThread] = [],
                journalEntries: [JournalEntry] = [], journalImages: [JournalImage] = [], patterns: [Pattern] = [], shoppingLines: [ShoppingLine] = [], pictures: [Picture] = []) {
        self.format = format
        self.exportedAt = exportedAt
        self.threads = threads
        self.canvases = canvases
        self.projects = projects
        self.sections = sections
        self.requirements = requirements
        self.journalEntries = journalEntries
        self.journalImages = journalImages
        self.patterns = patterns
        self.shoppingLines = shoppingLines
        self.pictures = pictures
    }

    /// Every list may be missing from a file (an account without projects, a file without pictures).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(String.self, forKey: .format)
        exportedAt = try c.decodeIfPresent(Date.self, forKey: .exportedAt)
        threads = try c.decodeIfPresent([InventoryThread].self, forKey: .threads) ?? []
        canvases = try c.decodeIfPresent([Canvas].self, forKey: .canvases) ?? []
        projects = try c.decodeIfPresent([Project].self, forKey: .projects) ?? []
        sections = try c.decodeIfPresent([ProjectSection].self, forKey: .sections) ?? []
        requirements = try c.decodeIfPresent([ProjectThread].self, forKey: .requirements) ?? []
        journalEntries = try c.decodeIfPresent([JournalEntry].self, forKey: .journalEntries) ?? []
        journalImages = try c.decodeIfPresent([JournalImage].self, forKey: .journalImages) ?? []
        patterns = try c.decodeIfPresent([Pattern].self, forKey: .patterns) ?? []
        shoppingLines = try c.decodeIfPresent([ShoppingLine].self, forKey: .shoppingLines) ?? []
        pictures = try c.decodeIfPresent([Picture].self, forKey: .pictures) ?? []
    }

    /// The same backup with every list in one order, whoever made it (a device, a server): threads
    /// as the inventory lists them, pictures of an entry and sections of a project by their
    /// position, everything else oldest first; ties by id. Two backups of the same account compare equal.
    public func inCanonicalOrder() -> AccountBackup {
        func byAge<R: SyncRecord>(_ records: [R]) -> [R] { records.sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) } }
        var copy = self
        copy.threads = InventoryThread.sortedInInventoryOrder(threads)
        copy.canvases = byAge(canvases)
        copy.projects = byAge(projects)
        copy.sections = sections.sorted { ($0.projectId.text, $0.sortOrder, $0.id.text) < ($1.projectId.text, $1.sortOrder, $1.id.text) }
        copy.requirements = byAge(requirements)
        copy.journalEntries = byAge(journalEntries)
        copy.journalImages = journalImages.sorted { ($0.entryId.text, $0.sortOrder, $0.id.text) < ($1.entryId.text, $1.sortOrder, $1.id.text) }
        copy.patterns = byAge(patterns)
        copy.shoppingLines = byAge(shoppingLines)
        copy.pictures = pictures.sorted { $0.key < $1.key }
        return copy
    }

    /// Every record, in the order a restore writes them (what a record refers to comes first).
    public var changes: [SyncChange] {
        get throws {
            var out: [SyncChange] = []
            out.reserveCapacity(recordCount)
            for record in threads { out.append(try SyncChange(record: record)) }
            for record in canvases { out.append(try SyncChange(record: record)) }
            for record in projects { out.append(try SyncChange(record: record)) }
            for record in sections { out.append(try SyncChange(record: record)) }
            for record in requirements { out.append(try SyncChange(record: record)) }
            for record in journalEntries { out.append(try SyncChange(record: record)) }
            for record in journalImages { out.append(try SyncChange(record: record)) }
            for record in patterns { out.append(try SyncChange(record: record)) }
            for record in shoppingLines { out.append(try SyncChange(record: record)) }
            return out
        }
    }

    public var recordCount: Int {
        threads.count + canvases.count + projects.count + sections.count + requirements.count + journalEntries.count + journalImages.count + patterns.count
            + shoppingLines.count
    }

    /// Every picture key a record of the file shows.
    public var imageKeys: Set<String> {
        Set(canvases.compactMap { $0.deletedAt == nil ? $0.imageKey : nil } + journalImages.compactMap { $0.deletedAt == nil ? $0.imageKey : nil }
            + patterns.compactMap { $0.deletedAt == nil ? $0.fileKey : nil } + projects.compactMap { $0.deletedAt == nil ? $0.imageKey : nil })
    }

    /// The same file with picture keys swapped (`keys[old] = new`), as after uploading them.
    public func replacingImageKeys(_ keys: [String: String]) -> AccountBackup {
        var copy = self
        for i in copy.canvases.indices { if let old = copy.canvases[i].imageKey, let new = keys[old] { copy.canvases[i].imageKey = new } }
        for i in copy.journalImages.indices { if let new = keys[copy.journalImages[i].imageKey] { copy.journalImages[i].imageKey = new } }
        for i in copy.patterns.indices { if let new = keys[copy.patterns[i].fileKey] { copy.patterns[i].fileKey = new } }
        for i in copy.projects.indices { if let old = copy.projects[i].imageKey, let new = keys[old] { copy.projects[i].imageKey = new } }
        return copy
    }

    /// Refuses a file that isn't a Stitchuation export.
    public func checkFormat() throws(ValidationError) {
        guard Self.formats.contains(format) else {
            throw ValidationError("format", "Not a Stitchuation backup (format is “\(format)”; expected \(Self.formats.joined(separator: " or ")))")
        }
    }
}

/// A backup file read as JSON, leniently: each record stays as the file has it, so one record a
/// restore can't use is refused on its own (and named) instead of failing the whole file. Only
/// what makes the file unreadable as a backup is an error: not JSON, an unknown format, a list
/// that isn't a list of objects, a picture without its key, type or data.
public struct BackupDocument: Sendable, Equatable {
    /// Each kind of record and its list's key in the file, in the order a restore writes them.
    public static let lists: [(type: EntityType, key: String)] = [
        (.thread, "threads"), (.canvas, "canvases"), (.project, "projects"), (.projectSection, "sections"),
        (.projectThread, "requirements"), (.journalEntry, "journalEntries"), (.journalImage, "journalImages"),
        (.pattern, "patterns"), (.shoppingLine, "shoppingLines"),
    ]

    public var format: String
    public var exportedAt: Date?
    public var records: [EntityType: [[String: JSONValue]]]
    public var pictures: [AccountBackup.Picture]

    public init(json data: Data) throws(ValidationError) {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch { throw ValidationError("body", "The file is not JSON") }
        guard case .object(let top) = value else { throw ValidationError("body", "A backup is a JSON object") }
        guard case .string(let format)? = top["format"] else { throw ValidationError("format", "A backup names its format") }
        self.format = format
        switch top["exportedAt"] {
        case nil, .null?: exportedAt = nil
        case .string(let text)?:
            guard let date = Timestamp.date(from: text) else { throw ValidationError("exportedAt", "Not a date-time") }
            exportedAt = date
        default: throw ValidationError("exportedAt", "Not a date-time")
        }
        records = [:]
        for (type, key) in Self.lists {
            switch top[key] {
            case nil, .null?: records[type] = []
            case .array(let items)?:
                records[type] = try items.enumerated().map { (i, item) throws(ValidationError) in
                    guard case .object(let fields) = item else { throw ValidationError("\(key)[\(i)]", "Each record is a JSON object") }
                    return fields
                }
            default: throw ValidationError(key, "A list of records")
            }
        }
        switch top["pictures"] {
        case nil, .null?: pictures = []
        case .array(let items)?:
            pictures = try items.enumerated().map { (i, item) throws(ValidationError) in
                guard case .string(let key)? = item["key"], case .string(let type)? = item["contentType"], case .string(let data)? = item["data"] else {
                    throw ValidationError("pictures[\(i)]", "A picture has a key, a contentType and its data (base64)")
                }
                var picture = AccountBackup.Picture(key: key, contentType: type, bytes: Data())
                picture.data = data
                return picture
            }
        default: throw ValidationError("pictures", "A list of pictures")
        }
        try AccountBackup(format: format, exportedAt: nil).checkFormat()
    }

    public var recordCount: Int { records.values.map(\.count).reduce(0, +) }

    /// Every record's picture key swapped (`keys[old] = new`), as after uploading the pictures.
    public mutating func replaceImageKeys(_ keys: [String: String]) {
        for (type, field) in [(EntityType.canvas, "imageKey"), (.journalImage, "imageKey"), (.pattern, "fileKey"), (.project, "imageKey")] {
            records[type] = records[type]?.map { fields in
                guard case .string(let old)? = fields[field], let new = keys[old] else { return fields }
                var copy = fields
                copy[field] = .string(new)
                return copy
            }
        }
    }

    /// The file as JSON again: with `pictures` only those, with `records` false none of them.
    public func json(pictures: [AccountBackup.Picture], records includeRecords: Bool) -> Data {
        var top: [String: JSONValue] = ["format": .string(format)]
        if let exportedAt { top["exportedAt"] = .string(Timestamp.string(from: exportedAt)) }
        if includeRecords {
            for (type, key) in Self.lists { top[key] = .array((records[type] ?? []).map(JSONValue.object)) }
        }
        top["pictures"] = .array(pictures.map { .object(["key": .string($0.key), "contentType": .string($0.contentType), "data": .string($0.data)]) })
        return Data(JSONValue.object(top).serialized)
    }
}

/// What a restore did, record by record kind.
public struct RestoreSummary: Codable, Sendable, Equatable {
    /// How many records of each kind a restore added, updated or left.
    public struct Counts: Codable, Sendable, Equatable {
        /// Not in the account before.
        public var added = 0
        /// In the account, and the file's copy was newer.
        public var updated = 0
        /// In the account exactly as in the file.
        public var unchanged = 0
        /// In the account with a newer change than the file's: kept (last write wins).
        public var keptNewer = 0
        /// Refused; each is in `issues`.
        public var refused = 0

        public init() {}
        public var total: Int { added + updated + unchanged + keptNewer + refused }
    }

    /// A record of the backup that wasn't restored, with where it was and why.
    public struct Issue: Codable, Sendable, Equatable, CustomStringConvertible {
        public var type: EntityType?
        public var id: UUID?
        public var message: String

        public init(type: EntityType?, id: UUID?, message: String) {
            self.type = type
            self.id = id
            self.message = message
        }

        public var description: String { [type?.rawValue, id?.wireText].compactMap { $0 }.joined(separator: " ") + (type == nil ? "" : ": ") + message }
    }

    /// What a restore did with the backup's pictures.
    public struct Pictures: Codable, Sendable, Equatable {
        /// Stored from the file.
        public var stored = 0
        /// The account already had the very same picture.
        public var alreadyHere = 0
        /// Shown by a record but neither in the file nor on this server.
        public var missing = 0
        public init() {}
    }

    /// Counts by entity type (`thread`, `canvas`, …).
    public var records: [String: Counts] = [:]
    /// Records whose id another account on this server already uses: restored under a new id
    /// (and every reference to them with it).
    public var renumbered = 0
    public var pictures = Pictures()
    /// Each picture key of the request and the key it has on this server now.
    public var pictureKeys: [String: String] = [:]
    public var issues: [Issue] = []

    public init() {}

    public func count(_ type: EntityType) -> Counts { records[type.rawValue] ?? Counts() }

    /// The summary as lines for a terminal or a page.
    public var lines: [String] {
        var out: [String] = []
        for type in EntityType.allCases.sorted(by: { $0.dependencyRank < $1.dependencyRank }) {
            let c = count(type)
            guard c.total > 0 else { continue }
            var parts = ["\(c.added) added"]
            if c.updated > 0 { parts.append("\(c.updated) updated") }
            if c.unchanged > 0 { parts.append("\(c.unchanged) already here") }
            if c.keptNewer > 0 { parts.append("\(c.keptNewer) kept (changed here since the backup)") }
            if c.refused > 0 { parts.append("\(c.refused) refused") }
            out.append("\(type.pluralLabel.prefix(1).uppercased() + type.pluralLabel.dropFirst()): " + parts.joined(separator: ", "))
        }
        if pictures.stored + pictures.alreadyHere + pictures.missing > 0 {
            out.append("Pictures: \(pictures.stored) stored, \(pictures.alreadyHere) already here\(pictures.missing > 0 ? ", \(pictures.missing) missing" : "")")
        }
        if renumbered > 0 { out.append("\(renumbered) record(s) got a new id (another account on this server uses theirs)") }
        out += issues.map { "  \($0)" }
        return out
    }
}

extension EntityType {
    /// "threads", "journal entries": how summaries name a kind of record.
    public var pluralLabel: String {
        switch self {
        case .thread: "threads"
        case .canvas: "canvases"
        case .project: "projects"
        case .projectSection: "sections"
        case .projectThread: "thread requirements"
        case .journalEntry: "journal entries"
        case .journalImage: "journal pictures"
        case .pattern: "patterns"
        case .shoppingLine: "shopping list lines"
        }
    }
}

// MARK: - Account

/// `POST /auth/password`.
public struct ChangePasswordRequest: Codable, Sendable {
    public var currentPassword: String
    public var newPassword: String

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

extension ChangePasswordRequest: Validatable {
    public func validate(into v: inout Validator) {
        if currentPassword.isEmpty { v.fail("currentPassword", "Enter your current password") }
        Rules.validatePassword(newPassword, field: "newPassword", into: &v)
    }
}

/// `DELETE /auth/account`: the password again, or for an account without one (signed in with
/// Apple, Instagram or TikTok) the word DELETE typed out.
public struct DeleteAccountRequest: Codable, Sendable {
    public static let confirmation = "DELETE"
    public var password: String?
    public var confirm: String?

    public init(password: String? = nil, confirm: String? = nil) {
        self.password = password
        self.confirm = confirm
    }
}
