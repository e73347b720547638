import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import NIOPosix
import Vapor

/// A consistent copy of a server's database taken while the server runs, and putting one back —
/// the same for both products. SQLite: `VACUUM INTO` (one read transaction, so the copy is the
/// database as of one moment, whatever is written meanwhile; compacted and checked). PostgreSQL:
/// `pg_dump --format=custom` (one snapshot, likewise) and `pg_restore` in one transaction.
/// The password of a PostgreSQL URL reaches the tools in their environment, never on a command
/// line another user of the machine could read.
public enum DatabaseBackup {
    /// The copy's file name in a backup folder, by the kind of database it came from.
    public static func fileName(for database: ServerDatabase) -> String {
        database.isPostgres ? "database.pgdump" : "database.sqlite"
    }

    /// Writes the copy of `database` (reached through `db`, an open pool of the running
    /// application) to `folder/fileName(for:)`.
    public static func take(_ database: ServerDatabase, db: any SQLDatabase, into folder: String) async throws {
        let path = (folder as NSString).appendingPathComponent(fileName(for: database))
        switch database {
        case .sqliteFile, .sqliteMemory:
            try await db.raw("VACUUM INTO \(bind: path)").run()
        case .postgres(let url):
            try await PostgresTools.run("pg_dump", ["--format=custom", "--no-owner", "--no-privileges", "--file", path], url: url)
        }
    }

    /// Puts the copy in `folder` in place of `database`. Refuses (changing nothing) when
    /// `occupiedBy` — a table holding the product's people or notes — has rows there, unless
    /// `replace`. A copy of one kind of database can't go into the other kind (the per-person
    /// export moves data between them).
    public static func restore(from folder: String, into database: ServerDatabase, occupiedBy table: String, replace: Bool) async throws {
        let sqliteCopy = (folder as NSString).appendingPathComponent("database.sqlite")
        let postgresCopy = (folder as NSString).appendingPathComponent("database.pgdump")
        switch database {
        case .sqliteMemory:
            throw BackupError("There is no database file to restore into")
        case .sqliteFile(let path):
            guard FileManager.default.fileExists(atPath: sqliteCopy) else {
                throw BackupError(FileManager.default.fileExists(atPath: postgresCopy)
                    ? "This backup holds a PostgreSQL database; set DATABASE_URL to a PostgreSQL database to restore it there"
                    : "\(folder) holds no database copy (database.sqlite)")
            }
            try await checkSQLite(sqliteCopy)
            if FileManager.default.fileExists(atPath: path), let rows = try await sqliteRows(in: table, path: path), rows > 0, !replace {
                throw BackupError("\(path) already holds data (\(rows) in \(table)); stop the server and restore with --replace to overwrite it")
            }
            // Copied beside the target, then renamed over it: the file is either the old or the whole copy.
            let incoming = path + ".restoring"
            try? FileManager.default.removeItem(atPath: incoming)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sqliteCopy, toPath: incoming)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            guard rename(incoming, path) == 0 else { throw BackupError("Could not move the copy into \(path): \(String(cString: strerror(errno)))") }
        case .postgres(let url):
            guard FileManager.default.fileExists(atPath: postgresCopy) else {
                throw BackupError(FileManager.default.fileExists(atPath: sqliteCopy)
                    ? "This backup holds an SQLite database; leave DATABASE_URL unset to restore it into DATA_DIR"
                    : "\(folder) holds no database copy (database.pgdump)")
            }
            let (tables, rows) = try await postgresState(url: url, table: table)
            if rows > 0, !replace {
                throw BackupError("The database of DATABASE_URL already holds data (\(rows) in \(table)); stop the servers and restore with --replace to overwrite it")
            }
            // Tables already there (a database migrated but empty, or one being replaced) are
            // dropped first; in one transaction, so a failure leaves the database as it was.
            let clean = tables > 0 ? ["--clean", "--if-exists"] : []
            try await PostgresTools.run("pg_restore", ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error"] + clean + [postgresCopy], url: url, database: true)
        }
    }

    /// `PRAGMA integrity_check` on a copy before it replaces anything.
    static func checkSQLite(_ path: String) async throws {
        let verdict = try await withSQLite(path) { connection in
            try await connection.query("PRAGMA integrity_check", []).first?.columns.first?.data.string ?? "no answer"
        }
        guard verdict == "ok" else { throw BackupError("The backup's database fails SQLite's integrity check: \(verdict)") }
    }

    /// Rows of `table` in the SQLite file (nil when it has no such table).
    static func sqliteRows(in table: String, path: String) async throws -> Int? {
        try await withSQLite(path) { connection in
            let exists = try await connection.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
            guard exists.first?.columns.first?.data.integer ?? 0 > 0 else { return nil }
            return try await connection.query("SELECT count(*) FROM \"\(table)\"", []).first?.columns.first?.data.integer ?? 0
        }
    }

    /// A connection of its own to an SQLite file for `body`, closed after.
    private static func withSQLite<T>(_ path: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await withClosing(try await SQLiteConnection.open(storage: .file(path: path)), close: { try await $0.close() }, body)
    }

    /// Tables in the public schema, and rows of `table` (0 when it isn't there).
    static func postgresState(url: String, table: String) async throws -> (tables: Int, rows: Int) {
        let config = try SQLPostgresConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: config.coreConfiguration, id: 1, logger: Logger(label: "restore"))
        return try await withClosing(connection, close: { try await $0.close() }) { connection in
            let sql = connection.sql()
            struct Count: Decodable { var n: Int }
            let tables = try await sql.raw("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'").first(decoding: Count.self)?.n ?? 0
            let present = try await sql.raw("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = \(bind: table)").first(decoding: Count.self)?.n ?? 0
            let rows = present > 0 ? try await sql.raw("SELECT count(*)::int AS n FROM \(ident: table)").first(decoding: Count.self)?.n ?? 0 : 0
            return (tables, rows)
        }
    }
}

/// PostgreSQL's own tools (`pg_dump`, `pg_restore`): from `PG_BIN` when set, else the PATH.
enum PostgresTools {
    static func executable(_ name: String) throws -> String {
        let env = ProcessInfo.processInfo.environment
        var places = [String]()
        if let bin = env["PG_BIN"], !bin.isEmpty { places.append(bin) }
        places += (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for place in places {
            let path = (place as NSString).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BackupError("\(name) was not found (install PostgreSQL's client tools, e.g. the Debian package postgresql-client, or set PG_BIN to their folder)")
    }

    /// The URL's parts as libpq's variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE,
    /// PGSSLMODE), so nothing secret is on the command line.
    static func environment(url: String) throws -> [String: String] {
        guard let parts = URLComponents(string: url), let host = parts.host else { throw BackupError("DATABASE_URL is not a URL PostgreSQL's tools can use") }
        var env = ["PGHOST": host, "PGPORT": String(parts.port ?? 5432)]
        if let user = parts.user { env["PGUSER"] = user.removingPercentEncoding ?? user }
        if let password = parts.password { env["PGPASSWORD"] = password.removingPercentEncoding ?? password }
        let name = String(parts.path.drop { $0 == "/" })
        if !name.isEmpty { env["PGDATABASE"] = name }
        if let mode = parts.queryItems?.first(where: { $0.name == "sslmode" })?.value { env["PGSSLMODE"] = mode }
        else if let tls = parts.queryItems?.first(where: { $0.name == "tlsmode" })?.value { env["PGSSLMODE"] = tls == "disable" ? "disable" : "require" }
        return env
    }

    /// Runs the tool and waits; its error output becomes the error when it fails.
    static func run(_ tool: String, _ arguments: [String], url: String, database: Bool = false) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable(tool))
        let env = try environment(url: url)
        // pg_restore connects only when told which database (else it prints a script).
        process.arguments = database ? ["--dbname", env["PGDATABASE"] ?? "postgres"] + arguments : arguments
        process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { process.terminationHandler = nil; continuation.resume(throwing: error) }
        }
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else { throw BackupError("\(tool) failed (\(status)): \(said.trimmingCharacters(in: .whitespacesAndNewlines))") }
    }
}

/// What a backup or restore can't do, in a sentence.
public struct BackupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `manifest.json`, written last into a backup folder (a folder without one is an unfinished
/// backup and is never restored).
public struct BackupManifest: Codable, Sendable, Equatable {
    /// "stitchuation" or "selene".
    public var product: String
    public var version: String
    public var commit: String
    /// When the copy of the database was begun: everything acknowledged before it is in.
    public var began: Date
    public var finished: Date
    /// "sqlite" or "postgresql".
    public var database: String
    /// Files copied beside the database (a product's pictures), if any.
    public var files: Int
    /// Objects of a bucket listed for copying (`bucket-objects.tsv`) instead of copied, if any.
    public var bucketObjects: Int?

    public init(product: String, version: String, commit: String, began: Date, finished: Date, database: String, files: Int, bucketObjects: Int? = nil) {
        self.product = product; self.version = version; self.commit = commit; self.began = began
        self.finished = finished; self.database = database; self.files = files; self.bucketObjects = bucketObjects
    }

    public static let fileName = "manifest.json"

    public func write(into folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(Self.fileName)), options: .atomic)
    }

    /// The manifest of the backup in `folder`, which must be `product`'s.
    public static func read(from folder: String, product: String) throws -> BackupManifest {
        let path = (folder as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BackupError("\(folder) is not a finished backup (no \(fileName))")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let manifest: BackupManifest
        do { manifest = try decoder.decode(BackupManifest.self, from: data) } catch { throw BackupError("\(path) can't be read: \(error)") }
        guard manifest.product == product else { throw BackupError("\(folder) is a backup of \(manifest.product), not \(product)") }
        return manifest
    }
}

/// Backup folders: a new one's name, taking one atomically (written as `NAME.partial`, renamed
/// when finished), and keeping the newest `keep` of a schedule's.
public enum BackupFolders {
    /// `<product>-20261202-074512` in UTC: sorts by time.
    public static func name(product: String, at date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMdd-HHmmss"
        return "\(product)-\(format.string(from: date))"
    }

    /// Makes `folder` (refusing one that exists and isn't empty), runs `fill` on a `.partial`
    /// folder beside it and renames it into place only when `fill` finished.
    public static func writing<T>(_ folder: String, _ fill: (String) async throws -> T) async throws -> T {
        let manager = FileManager.default
        if let inside = try? manager.contentsOfDirectory(atPath: folder), !inside.isEmpty {
            throw BackupError("\(folder) exists and isn't empty; name a new folder for the backup")
        }
        let partial = folder + ".partial"
        try? manager.removeItem(atPath: partial)
        // As private as the data in it: only the operator's account reads a backup.
        try manager.createDirectory(atPath: partial, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let result = try await fill(partial)
            try? manager.removeItem(atPath: folder)  // an empty folder the operator made
            try manager.moveItem(atPath: partial, toPath: folder)
            return result
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
    }

    /// Removes all but the newest `keep` finished backups of `product` in `directory`; returns their names.
    @discardableResult
    public static func prune(_ directory: String, product: String, keep: Int) throws -> [String] {
        let mine = (try FileManager.default.contentsOfDirectory(atPath: directory))
            .filter { $0.hasPrefix(product + "-") && !$0.hasSuffix(".partial") }
            .filter { FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("\($0)/\(BackupManifest.fileName)")) }
            .sorted()
        let old = Array(mine.dropLast(max(keep, 1)))
        for name in old { try FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name)) }
        return old
    }

    /// The newest finished backup of `product` in `directory`.
    public static func newest(_ directory: String, product: String) -> String? {
        (try? FileManager.default.contentsOfDirectory(atPath: directory))?
            .filter { $0.hasPrefix(product + "-") && !$0.hasSuffix(".partial") }
            .filter { FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("\($0)/\(BackupManifest.fileName)")) }
            .sorted().last.map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Copies every file under `source` into `target` (same relative names). A file the
    /// `previous` backup holds with the same name and size is hard-linked from it instead
    /// (stored files never change under a name), falling back to a copy across disks.
    public static func copyFiles(from source: String, to target: String, linkingFrom previous: String? = nil) throws -> Int {
        let manager = FileManager.default
        let root = URL(fileURLWithPath: source).standardizedFileURL
        guard let walk = manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else { return 0 }
        var count = 0
        for case let url as URL in walk {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            let destination = (target as NSString).appendingPathComponent(relative)
            try manager.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if let there = try? manager.attributesOfItem(atPath: destination) {
                // Restoring over files already in place: the same name and size is the same file.
                if (there[.size] as? Int) == (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) { count += 1; continue }
                try manager.removeItem(atPath: destination)
            }
            if let previous {
                let earlier = (previous as NSString).appendingPathComponent(relative)
                let size = try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize
                if let attributes = try? manager.attributesOfItem(atPath: earlier), (attributes[.size] as? Int) == size,
                   (try? manager.linkItem(atPath: earlier, toPath: destination)) != nil {
                    count += 1
                    continue
                }
            }
            do {
                try manager.copyItem(atPath: url.path, toPath: destination)
            } catch where !manager.fileExists(atPath: url.path) {
                continue  // removed meanwhile (an unnamed file's cleanup): nothing in the copy names it
            }
            count += 1
        }
        return count
    }
}

/// A whole server's backup, the same steps for both products: the database copied as of one
/// moment, then the product's files, then the manifest, into a folder that appears only when all
/// of it is there; and restoring one, the database first.
public enum WholeBackup {
    /// What a product copies beside its database: files copied, or objects listed instead.
    public struct Files: Sendable {
        public var copied: Int
        public var bucketObjects: Int?
        public init(copied: Int, bucketObjects: Int? = nil) { self.copied = copied; self.bucketObjects = bucketObjects }
    }

    /// Takes the backup into `folder` (new or empty); `files` copies the product's files into
    /// the unfinished folder it is given, after the database.
    public static func take(
        product: String, version: String, commit: String, database: ServerDatabase, db: any SQLDatabase, to folder: String,
        files: (_ into: String) async throws -> Files
    ) async throws -> BackupManifest {
        try await BackupFolders.writing(folder) { partial in
            let began = Date()
            try await DatabaseBackup.take(database, db: db, into: partial)
            let copied = try await files(partial)
            let manifest = BackupManifest(
                product: product, version: version, commit: commit, began: began, finished: Date(),
                database: database.isPostgres ? "postgresql" : "sqlite", files: copied.copied, bucketObjects: copied.bucketObjects)
            try manifest.write(into: partial)
            return manifest
        }
    }

    /// Reads the manifest (refusing another product's or an unfinished backup) and restores the
    /// database; the product then puts its files back.
    public static func restore(product: String, from folder: String, into database: ServerDatabase, occupiedBy table: String, replace: Bool) async throws -> BackupManifest {
        let manifest = try BackupManifest.read(from: folder, product: product)
        try await DatabaseBackup.restore(from: folder, into: database, occupiedBy: table, replace: replace)
        return manifest
    }
}
