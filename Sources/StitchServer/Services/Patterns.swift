import CGD
import Fluent
import Foundation
import Metrics
import NIOConcurrencyHelpers
import SQLKit
import StitchCore
import Vapor

/// How far a pattern file's pages have been drawn: one row per file (`images.key`), so every
/// instance's viewers see the same progress and a restarted server finishes what it began.
final class PatternRenderModel: Model, @unchecked Sendable {
    static let schema = "pattern_renders"

    @ID(custom: "key", generatedBy: .user) var id: String?
    @Field(key: "user_id") var userId: UUID
    @Field(key: "status") var status: String
    @Field(key: "page_count") var pageCount: Int
    @Field(key: "rendered") var rendered: Int
    @OptionalField(key: "message") var message: String?
    @Field(key: "updated_at") var updatedAt: Date
    /// The instance drawing the pages, and until when its claim holds (renewed after each batch).
    @OptionalField(key: "claimed_by") var claimedBy: String?
    @OptionalField(key: "claimed_until") var claimedUntil: Date?

    init() {}

    init(key: String, userId: UUID, status: PatternPages.Status, pageCount: Int, rendered: Int, now: Date) {
        self.id = key
        self.userId = userId
        self.status = status.rawValue
        self.pageCount = pageCount
        self.rendered = rendered
        self.updatedAt = now
    }

    var pages: PatternPages {
        PatternPages(status: PatternPages.Status(rawValue: status) ?? .failed, pageCount: pageCount, rendered: rendered, message: message)
    }
}

/// A command run to its end with a time limit (poppler's tools).
enum Subprocess {
    struct Result {
        var status: Int32
        var output: String
        var errors: String
        var timedOut: Bool
    }

    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin"] {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The most of a tool's output that is read (`pdftotext` of a huge PDF says megabytes).
    static let maxOutput = 8 * 1024 * 1024

    /// Blocking: call it on the tools' pool (`ToolWork`). The child runs under `ChildLimits`, its
    /// output read up to `maxOutput` bytes.
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> Result {
        let process = Process()
        let (command, commandArguments) = ChildLimits.wrap(executable, arguments, timeout: timeout)
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = commandArguments
        // Output goes to files, not pipes: nothing can fill up and stall the tool.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: scratch.path + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.path + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: scratch.path + ".out")
            try? FileManager.default.removeItem(atPath: scratch.path + ".err")
        }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + ".out"))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + ".err"))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            finished.wait()
        }
        try? out.close()
        try? err.close()
        let read = { (suffix: String) -> String in
            guard let handle = FileHandle(forReadingAtPath: scratch.path + suffix) else { return "" }
            defer { try? handle.close() }
            return String(decoding: (try? handle.read(upToCount: maxOutput)) ?? Data(), as: UTF8.self)
        }
        return Result(status: process.terminationStatus, output: read(".out"), errors: read(".err"), timedOut: timedOut)
    }
}

/// poppler-utils: `pdfinfo` tells a PDF's pages (or why it can't be opened), `pdftoppm` draws them.
enum Poppler {
    static let missing = APIError(.serviceUnavailable, "PDF patterns need poppler-utils on the server (apt-get install poppler-utils); pictures can be uploaded meanwhile")

    /// The number of pages, or a 422 saying what is wrong with the file.
    static func pageCount(ofPDFAt path: String, maxPages: Int) throws -> Int {
        guard let pdfinfo = Subprocess.find("pdfinfo") else { throw missing }
        let result = try Subprocess.run(pdfinfo, [path], timeout: 30)
        if result.timedOut {
            throw APIError(.unprocessableEntity, "This PDF took too long to open; it may be damaged", fields: ["file": "Can't be opened"])
        }
        guard result.status == 0 else {
            if result.errors.contains("Incorrect password") {
                throw APIError(.unprocessableEntity, "This PDF is password-protected (encrypted), so its pages can't be shown. Open it with its password, save or print a copy without one, and upload that.",
                               fields: ["file": "Password-protected PDF"])
            }
            let detail = result.errors.split(separator: "\n").first.map { " (\($0))" } ?? ""
            throw APIError(.unprocessableEntity, "This PDF can't be read: it is damaged or not a whole PDF\(detail).", fields: ["file": "Malformed PDF"])
        }
        let line = result.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        guard let count = line.flatMap({ Int($0.dropFirst("Pages:".count).trimmingCharacters(in: .whitespaces)) }), count > 0 else {
            throw APIError(.unprocessableEntity, "This PDF has no pages.", fields: ["file": "No pages"])
        }
        guard count <= maxPages else {
            throw APIError(.unprocessableEntity, "This PDF has \(count) pages; a pattern can have at most \(maxPages).", fields: ["file": "Too many pages"])
        }
        return count
    }

    /// Draws pages `first...last` of the PDF twice, for reading (longest side `size` px) and as
    /// thumbnails, into the scratch folder `directory`; answers each drawn file by the name it is
    /// kept under (`PageFiles.fileName`).
    static func render(pdfAt path: String, pages: ClosedRange<Int>, into directory: String) throws -> [(name: String, path: String)] {
        guard let pdftoppm = Subprocess.find("pdftoppm") else { throw missing }
        var drawnFiles: [(name: String, path: String)] = []
        for (prefix, size) in [("page", PageFiles.pageSize), ("thumb", PageFiles.thumbnailSize)] {
            let root = "\(directory)/draw-\(prefix)"
            let result = try Subprocess.run(pdftoppm, ["-png", "-scale-to", String(size), "-f", String(pages.lowerBound), "-l", String(pages.upperBound), path, root],
                                            timeout: 120)
            guard result.status == 0, !result.timedOut else {
                throw RenderFailure(message: result.timedOut ? "Drawing pages \(pages) took too long" : "Pages \(pages) could not be drawn: \(result.errors.split(separator: "\n").first ?? "")")
            }
            // pdftoppm names them …-page-7.png, -07 or -007 (as many digits as the PDF's page count has).
            let drawn = "draw-\(prefix)-"
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(drawn) && name.hasSuffix(".png") {
                guard let number = Int(name.dropFirst(drawn.count).dropLast(4)), pages.contains(number) else { continue }
                drawnFiles.append((PageFiles.fileName(prefix, number), "\(directory)/\(name)"))
            }
        }
        return drawnFiles
    }

    struct RenderFailure: Error { var message: String }
}

/// A pattern file's drawn pages, kept beside the file in the shared storage
/// (`app.imageStorage`) as `<file key>/page-0001.png` and `<file key>/thumb-0001.png`: every
/// instance reads what any instance drew. Drawing happens in a scratch folder of the instance's
/// own (`scratch`), from which each page goes to the storage whole.
enum PageFiles {
    /// Longest side of a page drawn for reading (zoom goes to 3×), and of a thumbnail.
    static let pageSize = 1600
    static let thumbnailSize = 240

    /// A folder of this instance's for drawing one file's pages, removed by the caller.
    static func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stitch-pages-\(UUID().uuidString.lowercased())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func fileName(_ prefix: String, _ number: Int) -> String {
        "\(prefix)-\(String(repeating: "0", count: max(0, 4 - String(number).count)))\(number).png"
    }

    /// The storage key of a file's page or thumbnail.
    static func key(_ fileKey: String, _ prefix: String, _ number: Int) throws -> String {
        guard ImageKeys.isWellFormed(fileKey) else { throw APIError.notFound }
        return "\(fileKey)/\(fileName(prefix, number))"
    }

    /// A drawn page or thumbnail (PNG), nil when not there (yet).
    static func read(_ key: String, page: Int, thumbnail: Bool, app: Application) async throws -> Data? {
        try await app.imageStorage.get(try Self.key(key, thumbnail ? "thumb" : "page", page))
    }

    /// Puts drawn files (`Poppler.render`'s, `drawPicture`'s) into the storage, each whole.
    static func store(_ files: [(name: String, path: String)], of key: String, app: Application) async throws {
        guard ImageKeys.isWellFormed(key) else { throw APIError.notFound }
        for file in files {
            guard let data = try await app.threadPool.runIfActive({ FileManager.default.contents(atPath: file.path) }) else {
                throw Poppler.RenderFailure(message: "A drawn page went missing before it was kept")
            }
            try await app.imageStorage.put(data, key: "\(key)/\(file.name)")
        }
    }

    static func remove(_ key: String, app: Application) async throws {
        try await app.imageStorage.deleteAll(under: key)
    }

    /// A picture as a one-page pattern: itself, re-encoded by libgd (a HEIC becomes a PNG every
    /// browser shows; a huge photo is scaled to `pageSize`), and its thumbnail.
    static func drawPicture(_ data: Data, format: ImageFormat, into directory: String) throws -> [(name: String, path: String)] {
        var drawnFiles: [(name: String, path: String)] = []
        guard let image = Pictures.decode(data, format: format) else {
            throw APIError(.unprocessableEntity, "The picture can't be read: it starts like a \(format.rawValue.uppercased()) but isn't a whole one", fields: ["file": "Damaged picture"])
        }
        defer { gdImageDestroy(image) }
        for (prefix, size) in [("page", pageSize), ("thumb", thumbnailSize)] {
            let scaled = Pictures.shrunk(image, toFit: size)
            defer { if let scaled { gdImageDestroy(scaled) } }
            let drawn = scaled ?? image
            var length: Int32 = 0
            guard let png = gdImagePngPtr(drawn, &length) else { throw Poppler.RenderFailure(message: "The picture could not be drawn") }
            defer { gdFree(png) }
            let path = "\(directory)/\(fileName(prefix, 1))"
            try Data(bytes: png, count: Int(length)).write(to: URL(fileURLWithPath: path), options: .atomic)
            drawnFiles.append((fileName(prefix, 1), path))
        }
        return drawnFiles
    }
}

/// Draws PDF patterns' pages in the background, a few at a time, recording progress after each
/// batch; one job per file in this process, and one instance per file among all that share the
/// database: a job draws only while it holds the file's claim (`claim`), renewed after each batch,
/// so a status poll on another instance starts nothing, and an instance that stops mid-drawing
/// leaves a claim that runs out and is taken over where the drawing got to. Started at upload,
/// resumed at boot for files a stopped server left half done, and asked for again by a viewer
/// that finds a file without pages.
final class PatternRenderer: LifecycleHandler, Sendable {
    static let batch = 8
    /// This instance, as its claims name it.
    let instance = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
    private let jobs = NIOLockedValueBox<[String: Task<Void, Never>]>([:])
    /// How many times this instance has started drawing a file (also `stitch_pattern_drawings_total`
    /// on /metrics, which the cluster tier reads from each instance).
    let drawings = NIOLockedValueBox(0)

    /// Takes (or renews) the file's claim for this instance, if nobody else holds one: one
    /// conditional UPDATE, atomic on both databases. False: another instance is drawing it.
    func claim(_ key: String, app: Application) async throws -> Bool {
        let now = app.clock.now()
        let row = try await app.db.sql.raw("""
            UPDATE pattern_renders SET claimed_by = \(bind: instance), claimed_until = \(bind: now.addingTimeInterval(app.config.patternClaimLifetime)) \
            WHERE key = \(bind: key) AND status = \(bind: PatternPages.Status.rendering.rawValue) \
            AND (claimed_by IS NULL OR claimed_by = \(bind: instance) OR claimed_until IS NULL OR claimed_until <= \(bind: now)) \
            RETURNING key
            """).first()
        return row != nil
    }

    /// Starts every file a stopped server left half drawn (`serve` calls it at boot, after migrating).
    func resumeUnfinished(_ app: Application) async throws {
        let unfinished = try await PatternRenderModel.query(on: app.db).filter(\.$status == PatternPages.Status.rendering.rawValue).all()
        for row in unfinished { if let key = row.id { start(key, app: app) } }
    }

    func shutdownAsync(_ application: Application) async {
        let running = jobs.withLockedValue { jobs in defer { jobs = [:] }; return Array(jobs.values) }
        for job in running { job.cancel() }
        for job in running { await job.value }
    }

    /// Starts drawing the file's pages unless that is already under way here.
    func start(_ key: String, app: Application) {
        jobs.withLockedValue { jobs in
            guard jobs[key] == nil else { return }
            jobs[key] = Task { [jobs = self.jobs] in
                await self.render(key, app: app)
                _ = jobs.withLockedValue { $0.removeValue(forKey: key) }
            }
        }
    }

    /// Waits for the file's job in this process, if any (tests).
    func wait(_ key: String) async {
        await jobs.withLockedValue { $0[key] }?.value
    }

    /// Stops this process's drawing of the file, if any, and waits for it to end: the file is being
    /// deleted, and a page stored after its files were removed would outlive it. (Another instance
    /// drawing it finds its row gone after its next batch and removes what it kept.)
    func stop(_ key: String) async {
        guard let job = jobs.withLockedValue({ $0[key] }) else { return }
        job.cancel()
        await job.value
    }

    private func render(_ key: String, app: Application) async {
        let db = app.db, logger = app.logger
        do {
            guard try await claim(key, app: app) else { return }
            guard let row = try await PatternRenderModel.find(key, on: db), row.status == PatternPages.Status.rendering.rawValue else { return }
            drawings.withLockedValue { $0 += 1 }
            Counter(label: "stitch_pattern_drawings_total").increment()
            guard let data = try await app.imageStorage.get(key) else {
                row.status = PatternPages.Status.failed.rawValue
                row.message = "The pattern's file is missing"
                try await row.save(on: db)
                return
            }
            // Drawn in a scratch folder of this instance's; each page then goes to the shared storage.
            let dir = try await app.threadPool.runIfActive { try PageFiles.scratch() }
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let source = "\(dir)/source.pdf"
            try await app.threadPool.runIfActive { try data.write(to: URL(fileURLWithPath: source), options: .atomic) }
            var first = row.rendered + 1
            while first <= row.pageCount {
                if Task.isCancelled { return }  // resumed from here at the next boot
                let range = first...min(row.pageCount, first + Self.batch - 1), last = range.upperBound
                do {
                    let drawn = try await app.tools.run(for: nil, background: true) { try Poppler.render(pdfAt: source, pages: range, into: dir) }
                    try await PageFiles.store(drawn, of: key, app: app)
                    for file in drawn { try? FileManager.default.removeItem(atPath: file.path) }
                    // The file was deleted meanwhile (its row goes with it): what was just kept goes too.
                    guard try await PatternRenderModel.find(key, on: db) != nil else {
                        try await PageFiles.remove(key, app: app)
                        return
                    }
                } catch let failure as Poppler.RenderFailure {
                    row.status = PatternPages.Status.failed.rawValue
                    row.message = failure.message
                    row.updatedAt = app.clock.now()
                    try await row.save(on: db)
                    logger.warning("Pattern \(key): \(failure.message)")
                    return
                }
                // Progress only goes forward, whoever else is drawing the same file.
                try await PatternRenderModel.query(on: db).filter(\._$id == key).filter(\.$rendered < last)
                    .set(\.$rendered, to: last)
                    .set(\.$status, to: (last == row.pageCount ? PatternPages.Status.ready : .rendering).rawValue)
                    .set(\.$updatedAt, to: app.clock.now())
                    .update()
                first = last + 1
                // Still ours? (Renewed; a claim lost while paused means another instance took over.)
                if first <= row.pageCount, try await !claim(key, app: app) { return }
            }
        } catch {
            if !Task.isCancelled { logger.warning("Pattern \(key): drawing pages stopped: \(error)") }
        }
    }
}

/// `serve`'s: at boot, finish drawing what a stopped server left half done.
public struct PatternRenderResume: LifecycleHandler {
    public init() {}

    public func didBootAsync(_ application: Application) async throws {
        do {
            try await application.patternRenderer.resumeUnfinished(application)
        } catch {
            application.logger.warning("Unfinished pattern pages were not resumed: \(error)")
        }
    }
}

extension Application {
    private struct PatternRendererKey: StorageKey { typealias Value = PatternRenderer }

    var patternRenderer: PatternRenderer {
        get { storage[PatternRendererKey.self]! }
        set { storage[PatternRendererKey.self] = newValue }
    }
}

/// A project's patterns: upload, progress, pages.
enum Patterns {
    /// Checks and stores an uploaded pattern file for the user and records how its pages will be
    /// drawn: a PDF's page count (a damaged or password-protected one is a 422, and nothing is
    /// kept), a picture drawn at once. Answers the file's key, kind and pages.
    static func store(_ data: Data, userId: UUID, app: Application, db: any Database) async throws -> (key: String, format: ImageFormat, pages: PatternPages) {
        let format = try Images.check(data, maxBytes: app.config.maxPatternBytes, pdf: true, field: "file")
        let key = ImageKeys.make(for: format)
        let pages: PatternPages
        do {
            pages = try await prepare(data, format: format, key: key, userId: userId, app: app)
            _ = try await Images.store(data, format: format, key: key, userId: userId, app: app, db: db)
            try await PatternRenderModel(key: key, userId: userId, status: pages.status, pageCount: pages.pageCount, rendered: pages.rendered,
                                         now: app.clock.now()).create(on: db)
        } catch {
            try? await PageFiles.remove(key, app: app)
            throw error
        }
        if format == .pdf { app.patternRenderer.start(key, app: app) }
        return (key, format, pages)
    }

    /// The file's pages as far as they are, starting (or restarting here) the drawing of a file
    /// that arrived another way (a restore, a device's sync) or whose job stopped.
    static func pages(of key: String, userId: UUID, app: Application, db: any Database) async throws -> (contentType: String, pages: PatternPages) {
        guard let image = try await Images.owned(key, userId: userId, on: db) else {
            return ("application/octet-stream", PatternPages(status: .failed, pageCount: 0, rendered: 0, message: "The pattern's file is missing"))
        }
        if let row = try await PatternRenderModel.find(key, on: db) {
            if row.status == PatternPages.Status.rendering.rawValue { app.patternRenderer.start(key, app: app) }
            return (image.contentType, row.pages)
        }
        // First sight of a file stored without its pages: count them (or draw the picture) now.
        guard let data = try await app.imageStorage.get(key) else {
            return (image.contentType, PatternPages(status: .failed, pageCount: 0, rendered: 0, message: "The pattern's file is missing"))
        }
        var pages: PatternPages
        do {
            pages = try await prepare(data, format: ImageFormat.detect(data) ?? .pdf, key: key, userId: userId, app: app)
        } catch let error as APIError {
            pages = PatternPages(status: .failed, pageCount: 0, rendered: 0, message: error.reason)
        }
        let row = PatternRenderModel(key: key, userId: userId, status: pages.status, pageCount: pages.pageCount, rendered: pages.rendered, now: app.clock.now())
        row.message = pages.message
        try? await row.create(on: db)  // another request may have got there first: either row says the same
        if pages.status == .rendering { app.patternRenderer.start(key, app: app) }
        return (image.contentType, pages)
    }

    /// A PDF's pages counted (a 422 if it can't be opened), or a picture drawn as its one page.
    private static func prepare(_ data: Data, format: ImageFormat, key: String, userId: UUID, app: Application) async throws -> PatternPages {
        guard ImageKeys.isWellFormed(key) else { throw APIError.notFound }
        let dir = try await app.threadPool.runIfActive { try PageFiles.scratch() }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard format == .pdf else {
            let drawn = try await app.tools.run(for: userId) { try PageFiles.drawPicture(data, format: format, into: dir) }
            try await PageFiles.store(drawn, of: key, app: app)
            return PatternPages(status: .ready, pageCount: 1, rendered: 1)
        }
        let count = try await app.tools.run(for: userId) {
            let probe = "\(dir)/probe.pdf"
            try data.write(to: URL(fileURLWithPath: probe))
            defer { try? FileManager.default.removeItem(atPath: probe) }
            return try Poppler.pageCount(ofPDFAt: probe, maxPages: Limits.maxPatternPages)
        }
        return PatternPages(status: .rendering, pageCount: count, rendered: 0)
    }

    static func detail(_ pattern: Pattern, userId: UUID, app: Application, db: any Database) async throws -> PatternDetail {
        let (type, pages) = try await pages(of: pattern.fileKey, userId: userId, app: app, db: db)
        return PatternDetail(pattern: pattern, contentType: type, pages: pages)
    }

    /// A page's (or its thumbnail's) drawn bytes: 404 outside the pattern, 409 while it is still being drawn.
    static func page(_ pattern: Pattern, number: Int, thumbnail: Bool, userId: UUID, app: Application, db: any Database) async throws -> Data {
        var (_, pages) = try await Self.pages(of: pattern.fileKey, userId: userId, app: app, db: db)
        guard number >= 1, number <= pages.pageCount else {
            throw APIError(.notFound, "This pattern has \(pages.pageCount) page\(pages.pageCount == 1 ? "" : "s")")
        }
        var found = number <= pages.rendered ? try await PageFiles.read(pattern.fileKey, page: number, thumbnail: thumbnail, app: app) : nil
        if found == nil, number <= pages.rendered, pages.status == .ready {
            // Drawn once but not in the storage (drawn before pages were kept there, or lost): the
            // file is taken as newly arrived and drawn again, rather than "being drawn" forever.
            app.logger.warning("Pattern \(pattern.fileKey): page \(number) is missing from storage; drawing the pages again")
            try await PatternRenderModel.query(on: db).filter(\._$id == pattern.fileKey).delete()
            pages = try await Self.pages(of: pattern.fileKey, userId: userId, app: app, db: db).pages
            if number <= pages.rendered { found = try await PageFiles.read(pattern.fileKey, page: number, thumbnail: thumbnail, app: app) }
        }
        guard let data = found else {
            if pages.status == .failed { throw APIError(.unprocessableEntity, pages.message ?? "The pages could not be drawn") }
            throw APIError(.conflict, "Page \(number) is still being drawn (\(pages.rendered) of \(pages.pageCount) ready)", headers: ["Retry-After": "1"])
        }
        return data
    }
}
