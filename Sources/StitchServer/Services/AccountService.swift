import Crypto
import Fluent
import Foundation
import SQLKit
import StitchCore
import Vapor

/// The account as a whole: its backup and restore, its password, its end.
enum AccountService {
    // MARK: Backup

    /// Every live record of the account, and with `pictures` every picture they show.
    static func backup(userId: UUID, pictures: Bool, app: Application, db: any Database) async throws -> AccountBackup {
        var backup = AccountBackup(
            exportedAt: app.clock.now(),
            threads: try await Records.list(ThreadModel.self, userId: userId, on: db),
            canvases: try await Records.list(CanvasModel.self, userId: userId, on: db),
            projects: try await Records.list(ProjectModel.self, userId: userId, on: db),
            sections: try await Records.list(SectionModel.self, userId: userId, on: db),
            requirements: try await Records.list(RequirementModel.self, userId: userId, on: db),
            journalEntries: try await Records.list(JournalEntryModel.self, userId: userId, on: db),
            journalImages: try await Records.list(JournalImageModel.self, userId: userId, on: db),
            patterns: try await Records.list(PatternModel.self, userId: userId, on: db),
            shoppingLines: try await Records.list(ShoppingLineModel.self, userId: userId, on: db)).inCanonicalOrder()
        guard pictures else { return backup }
        for key in backup.imageKeys.sorted() {
            guard let image = try await Images.owned(key, userId: userId, on: db), let data = try await app.imageStorage.get(key) else {
                throw APIError(.internalServerError, "The picture \(key) is missing from this server's storage; the backup would be incomplete")
            }
            backup.pictures.append(AccountBackup.Picture(key: key, contentType: image.contentType, bytes: data))
        }
        return backup
    }

    // MARK: Restore

    static let maxRestoreRecords = 200_000

    /// Restores a backup into the account through the same rules as a sync push (last write wins,
    /// every record checked on its own, references checked, the account's version bumped so every
    /// device pulls the result): pictures first (the same picture twice is stored once), then
    /// every record in one transaction. Ids another account on this server holds are replaced,
    /// with every reference to them. Nothing is left out without an entry in the summary.
    static func restore(_ document: BackupDocument, userId: UUID, app: Application, db: any Database) async throws -> RestoreSummary {
        guard document.recordCount <= maxRestoreRecords else {
            throw APIError(.payloadTooLarge, "A restore can hold at most \(maxRestoreRecords) records")
        }
        var summary = RestoreSummary()
        var stored: [String] = []
        do {
            summary.pictureKeys = try await storePictures(document.pictures, userId: userId, app: app, db: db, summary: &summary, stored: &stored)
            var records = document
            records.replaceImageKeys(summary.pictureKeys)
            var plan = RestorePlan(records: records.records)
            try await plan.dropMissingPictures(userId: userId, db: db, summary: &summary)
            try await plan.renumber(userId: userId, db: db, summary: &summary)
            try await apply(plan.changes(summary: &summary), userId: userId, app: app, db: db, summary: &summary)
        } catch {
            // Nothing of a failed restore stays: not even its pictures.
            for key in stored { try? await Images.removeIfUnreferenced(key, app: app, db: db) }
            throw error
        }
        return summary
    }

    /// Stores the backup's pictures for the user; answers each file key's key here.
    private static func storePictures(_ pictures: [AccountBackup.Picture], userId: UUID, app: Application, db: any Database,
                                      summary: inout RestoreSummary, stored: inout [String]) async throws -> [String: String] {
        guard !pictures.isEmpty else { return [:] }
        var bySHA: [String: String] = [:]
        for image in try await ImageModel.query(on: db).filter(\.$userId == userId).all() { bySHA[image.sha256] = image.id! }
        var keys: [String: String] = [:]
        for picture in pictures {
            guard let bytes = picture.bytes else {
                summary.issues.append(.init(type: nil, id: nil, message: "Picture \(picture.key) is not base64 data: not restored"))
                continue
            }
            let format: ImageFormat
            do {
                // A pattern's PDF travels with the pictures.
                let isPDF = ImageFormat.detect(bytes) == .pdf
                format = try Images.check(bytes, maxBytes: isPDF ? app.config.maxPatternBytes : app.config.maxImageBytes, pdf: isPDF)
            } catch let error as APIError {
                summary.issues.append(.init(type: nil, id: nil, message: "Picture \(picture.key): \(error.reason); not restored"))
                continue
            }
            let sha = SHA256.hash(data: bytes).hex
            if let existing = bySHA[sha] {
                keys[picture.key] = existing
                summary.pictures.alreadyHere += 1
                continue
            }
            // A key this server made and nobody holds stays as it is (restoring on the server the
            // backup came from changes nothing); anything else gets a new one.
            var key = ImageKeys.make(for: format)
            if ImageKeys.isWellFormed(picture.key), picture.key.hasSuffix("." + format.fileExtension),
               try await ImageModel.find(picture.key, on: db) == nil {
                key = picture.key
            }
            _ = try await Images.store(bytes, format: format, key: key, userId: userId, app: app, db: db)
            stored.append(key)
            bySHA[sha] = key
            keys[picture.key] = key
            summary.pictures.stored += 1
        }
        return keys
    }

    /// Writes the records as one push, and counts what became of each.
    private static func apply(_ changes: [SyncChange], userId: UUID, app: Application, db: any Database, summary: inout RestoreSummary) async throws {
        guard !changes.isEmpty else { return }
        // The account's own copies before the restore, and the file's: what tells "added" from
        // "updated" from "already here".
        var before: [EntityType: [UUID: ConflictRule.Stamp]] = [:]
        var incoming: [EntityType: [UUID: ConflictRule.Stamp]] = [:]
        for (type, group) in Dictionary(grouping: changes, by: \.type) {
            try await SyncService.withModel(type) { model in
                before[type] = try await stamps(model, ids: group.map(\.id), userId: userId, db: db)
                incoming[type] = stamps(model, of: group)
            }
        }
        let outcome = try await db.writeTransaction { db in try await SyncService.apply(changes, userId: userId, app: app, db: db) }
        app.tableStatistics.refresh(afterWriting: outcome.rowsWritten, on: app.db)
        for (change, result) in zip(changes, outcome.results) {
            var counts = summary.records[change.type.rawValue] ?? .init()
            switch result.status {
            case .rejected:
                counts.refused += 1
                let fields = (result.error?.fields ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                summary.issues.append(.init(type: change.type, id: change.id,
                                            message: ([result.error?.error ?? "refused"] + fields).joined(separator: "; ")))
            case .stale:
                counts.keptNewer += 1
            case .applied:
                if let current = before[change.type]?[change.id] {
                    let same = incoming[change.type]?[change.id].map { ConflictRule.resolve(incoming: $0, current: current) == .same } ?? false
                    if same { counts.unchanged += 1 } else { counts.updated += 1 }
                } else {
                    counts.added += 1
                }
            }
            summary.records[change.type.rawValue] = counts
        }
    }

    /// The user's own records among `ids`, stamped.
    private static func stamps<M: RecordModel>(_ type: M.Type, ids: [UUID], userId: UUID, db: any Database) async throws -> [UUID: ConflictRule.Stamp] {
        var out: [UUID: ConflictRule.Stamp] = [:]
        for start in stride(from: 0, to: ids.count, by: 5000) {
            let chunk = Array(ids[start..<min(start + 5000, ids.count)])
            for stored in try await db.selectRecords(M.self, M.select(on: db).where(SQLUUIDIn("id", chunk)).where("user_id", .equal, SQLUUID(userId))) {
                out[stored.record.id] = ConflictRule.Stamp(stored.record)
            }
        }
        return out
    }

    /// The changes' records as the server would store them, stamped (those that decode).
    private static func stamps<M: RecordModel>(_ type: M.Type, of changes: [SyncChange]) -> [UUID: ConflictRule.Stamp] {
        var out: [UUID: ConflictRule.Stamp] = [:]
        for change in changes {
            if let record = try? change.record(as: M.Record.self) { out[change.id] = ConflictRule.Stamp(record.normalized) }
        }
        return out
    }

    // MARK: Import

    /// Saves what a CSV import plan writes, as one push (so every device pulls it); answers the
    /// records the push refused, with why.
    static func saveImported<R: SyncRecord>(_ records: [R], userId: UUID, app: Application, db: any Database) async throws -> [SyncResult] {
        guard !records.isEmpty else { return [] }
        let changes = try records.map { try SyncChange(record: $0) }
        let outcome = try await db.writeTransaction { db in try await SyncService.apply(changes, userId: userId, app: app, db: db) }
        app.tableStatistics.refresh(afterWriting: outcome.rowsWritten, on: app.db)
        return outcome.results.filter { $0.status == .rejected }
    }

    // MARK: Password

    /// Checks the current password, stores the new one and ends every other sign-in of the
    /// account (API sessions and browsers alike); the one that asked stays signed in.
    static func changePassword(_ body: ChangePasswordRequest, user: AuthenticatedUser, caller: Caller) async throws {
        do { _ = try body.validated() } catch { throw APIError.validation(error.fields) }
        guard let model = try await UserModel.find(user.id, on: caller.db) else { throw APIError.unauthorized }
        guard let hash = model.passwordHash else {
            throw APIError(.conflict, "This account signs in with \(try await providerNames(user.id, db: caller.db)) and has no password to change")
        }
        // Counted as a sign-in is: a stolen session can't be used to guess the password quickly.
        let attempt = try await PasswordAttempts.admit(email: model.email ?? "user:\(user.id)", user: model, caller: caller)
        guard try await caller.application.passwords.verify(body.currentPassword, hash: hash) else {
            throw APIError(.forbidden, "The current password is not right", fields: ["currentPassword": "Not your current password"])
        }
        try await attempt.succeeded(on: caller.db)
        let newHash = try await caller.application.passwords.hash(body.newPassword)
        let now = caller.now
        try await caller.db.writeTransaction { db in
            model.passwordHash = newHash
            model.updatedAt = now
            try await model.save(on: db)
            try await endSessions(userId: user.id, except: user.sessionId, now: now, on: db)
        }
    }

    /// Signs the account out everywhere but `except` (the sign-in making the change, an app's
    /// token family or a browser's session): every other refresh token is revoked and every
    /// other web session deleted.
    static func endSessions(userId: UUID, except: UUID?, now: Date, on db: any Database) async throws {
        var tokens = RefreshTokenModel.query(on: db).set(\.$revokedAt, to: now).filter(\.$user.$id == userId).filter(\.$revokedAt == nil)
        var sessions = WebSessionModel.query(on: db).filter(\.$owner == userId)
        if let except {
            tokens = tokens.filter(\.$familyId != except)
            sessions = sessions.filter(\._$id != except)
        }
        try await tokens.update()
        try await sessions.delete()
    }

    static func providerNames(_ userId: UUID, db: any Database) async throws -> String {
        let names = try await IdentityModel.query(on: db).filter(\.$user.$id == userId).all().map { $0.provider.capitalized }
        return Set(names).sorted().joined(separator: " and ")
    }

    // MARK: Deletion

    /// Checks the request against the account: its password, or for an account without one the
    /// word DELETE. Anything else is a 403: the request is understood, the proof is missing.
    static func confirmDeletion(_ body: DeleteAccountRequest, user: UserModel, caller: Caller) async throws {
        if let hash = user.passwordHash {
            guard let password = body.password, !password.isEmpty else {
                throw APIError(.forbidden, "Enter your password to delete your account", fields: ["password": "Enter your password"])
            }
            // Counted as a sign-in is (see changePassword).
            let attempt = try await PasswordAttempts.admit(email: user.email ?? "user:\(user.id.map { "\($0)" } ?? "")", user: user, caller: caller)
            guard try await caller.application.passwords.verify(password, hash: hash) else {
                throw APIError(.forbidden, "The password is not right", fields: ["password": "Not your password"])
            }
            try await attempt.succeeded(on: caller.db)
        } else if body.confirm != DeleteAccountRequest.confirmation {
            throw APIError(.forbidden, "Type \(DeleteAccountRequest.confirmation) to delete your account",
                           fields: ["confirm": "Type \(DeleteAccountRequest.confirmation)"])
        }
    }

    /// Every row of the user's, in every table, in one transaction; then every picture file.
    static func deleteAccount(_ userId: UUID, app: Application, db: any Database) async throws {
        let keys = try await ImageModel.query(on: db).filter(\.$userId == userId).all().compactMap(\.id)
        try await db.writeTransaction { db in
            let email = try await UserModel.find(userId, on: db)?.email
            for table in [PatternRenderModel.schema, ShoppingLineModel.schema, PatternModel.schema, JournalImageModel.schema, JournalEntryModel.schema, RequirementModel.schema, SectionModel.schema,
                          ProjectModel.schema, CanvasModel.schema, ThreadModel.schema, ImageModel.schema, WebSessionModel.schema,
                          RefreshTokenModel.schema, IdentityModel.schema, PasswordResetModel.schema, AppliedChanges.table] {
                try await db.sql.delete(from: table).where("user_id", .equal, SQLUUID(userId)).run()
            }
            if let email { try await PasswordAttempts.clear(email: email, on: db) }
            try await db.sql.delete(from: UserModel.schema).where("id", .equal, SQLUUID(userId)).run()
        }
        for key in keys { try await Images.deleteFiles(key, app: app) }
        app.responseCache.forget(userId: userId)
    }

    /// A whole account's backup with its pictures inline (base64: a third larger than the files).
    static let maxRestoreBody: ByteCount = "300mb"
}
