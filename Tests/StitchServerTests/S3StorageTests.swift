import AsyncHTTPClient
import Foundation
import NIOCore
import StitchCore
@testable import StitchServer
import Testing
import TestDatabases
import VaporTesting

/// Photos, patterns and drawn pages in an S3-compatible bucket (`STORAGE_URL`): SigV4 against
/// AWS's published example, then a real S3 server (`rclone serve s3`, which checks signatures).
@Suite("Object storage: S3 (SigV4) against a real S3 server", .serialized)
struct S3StorageTests {
    func withS3(_ body: (RcloneS3, HTTPClient) async throws -> Void) async throws {
        let s3 = try RcloneS3()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await body(s3, http)
        } catch {
            try? await http.shutdown()
            s3.stop()
            throw error
        }
        try await http.shutdown()
        s3.stop()
    }

    @Test("SigV4 as AWS's documentation signs its examples: a GET with a Range header, and a presigned URL")
    func awsExamples() {
        let signer = S3Signer(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let time = "20130524T000000Z"
        let (signature, signed) = signer.sign(
            method: "GET", path: "/test.txt", query: [],
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"), ("x-amz-content-sha256", S3Signer.emptyPayload), ("x-amz-date", time)],
            payloadHash: S3Signer.emptyPayload, time: time)
        #expect(signed == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        let query = signer.presign(method: "GET", path: "/test.txt", host: "examplebucket.s3.amazonaws.com", expires: 86400,
                                   date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(query.last?.1 == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(S3Signer.encode("a b/c~d") == "a%20b%2Fc~d" && S3Signer.encode("/x y/z", slash: false) == "/x%20y/z")
    }

    @Test("A file asked for in ranges (a pattern's PDF): 206 with only those bytes, read as a range from the folder and from the bucket; a range past the end is a 416; several ranges, or nonsense, the whole file")
    func rangedReads() async throws {
        #expect(PictureSizes.byteRange("bytes=0-9", total: 100) == .part(0...9))
        #expect(PictureSizes.byteRange("bytes=90-", total: 100) == .part(90...99))
        #expect(PictureSizes.byteRange("bytes=-10", total: 100) == .part(90...99))
        #expect(PictureSizes.byteRange("bytes=95-200", total: 100) == .part(95...99))
        #expect(PictureSizes.byteRange("bytes=100-", total: 100) == .unsatisfiable)
        for whole in [nil, "bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=x-", "bytes=-", "bytes=99999999999999999999-"] {
            #expect(PictureSizes.byteRange(whole, total: 100) == .whole, "\(whole ?? "nil")")
        }
        let s3 = try RcloneS3()
        defer { s3.stop() }
        for bucket in [false, true] {
            try await withTestApp(adjust: { if bucket { $0.objectStorage = s3.settings() } }) { app, _ in
                let ann = try await TestUser.make(app)
                let project = try await ann.create("/projects", ["name": "Fox"], as: ProjectDetail.self).project
                let pdf = TestPDF.make(pages: 2)
                let chart = try await ann.upload("/projects/\(project.id)/patterns", files: [Fixtures.file(pdf, name: "file", filename: "Fox.pdf", type: "application/pdf")])
                let key = try chart.decode(PatternDetail.self).pattern.fileKey
                let part = try await ann.send(.GET, "/images/\(key)", headers: ["Range": "bytes=100-199"])
                #expect(part.status == .partialContent && part.headers.first(name: "Content-Range") == "bytes 100-199/\(pdf.count)")
                #expect(Data(buffer: part.body) == pdf[100...199], "bucket: \(bucket)")
                let tail = try await ann.send(.GET, "/images/\(key)", headers: ["Range": "bytes=-5"])
                #expect(Data(buffer: tail.body) == pdf.suffix(5))
                let beyond = try await ann.send(.GET, "/images/\(key)", headers: ["Range": "bytes=\(pdf.count)-"])
                #expect(beyond.status == .rangeNotSatisfiable && beyond.headers.first(name: "Content-Range") == "bytes */\(pdf.count)")
                let whole = try await ann.send(.GET, "/images/\(key)")
                #expect(whole.status == .ok && Data(buffer: whole.body) == pdf && whole.headers.first(name: "Accept-Ranges") == "bytes")
            }
        }
    }

    @Test("Housekeeping deletes files no row names (with what was drawn from them) once a day old, in the folder and in the bucket; a picture with its row stays")
    func orphanFiles() async throws {
        let s3 = try RcloneS3()
        defer { s3.stop() }
        for bucket in [false, true] {
            try await withTestApp(adjust: { if bucket { $0.objectStorage = s3.settings() } }) { app, _ in
                let ann = try await TestUser.make(app)
                let canvas = try await ann.canvas()
                let kept = try #require(try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(PictureSizeTests.photo(width: 300, height: 200))])
                    .decode(Canvas.self).imageKey)
                // What an instance stopped between file and row leaves: a file, and a page drawn from it.
                let orphan = ImageKeys.make(for: .pdf)
                try await app.imageStorage.put(Data("%PDF-1.4 cut short".utf8), key: orphan)
                try await app.imageStorage.put(Data("page".utf8), key: "\(orphan)/page-0001.png")
                #expect(Set(try await app.imageStorage.storedKeys().map(\.key)) == [kept, orphan])
                #expect(try await Housekeeping.removeOrphanFiles(now: Date(), app: app) == 0, "not a day old yet: an upload may be between its file and its row")
                #expect(try await Housekeeping.removeOrphanFiles(now: Date().addingTimeInterval(25 * 3600), app: app) == 1, "bucket: \(bucket)")
                let file = try await app.imageStorage.get(orphan), page = try await app.imageStorage.get("\(orphan)/page-0001.png")
                #expect(file == nil && page == nil)
                #expect(try await app.imageStorage.storedKeys().map(\.key) == [kept])
                #expect(try await ann.send(.GET, "/images/\(kept)?w=192").status == .ok)
            }
        }
    }

    @Test("A backup of a server on a folder restored onto one on a bucket: the picture is in the bucket and served, and a backup from there carries it")
    func backupBetweenStores() async throws {
        let s3 = try RcloneS3()
        defer { s3.stop() }
        let original = PictureSizeTests.photo(width: 300, height: 200)
        var json = ""
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            _ = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(original)])
            json = try await ann.export().json
        }
        try await withTestApp(adjust: { $0.objectStorage = s3.settings() }) { app, _ in
            let ann = try await TestUser.make(app)
            _ = try await ann.restore(json)
            let key = try #require(try await ann.get("/canvases", as: [Canvas].self).first?.imageKey)
            #expect(s3.files().contains("photos/\(key)"))
            #expect(Data(buffer: try await ann.send(.GET, "/images/\(key)").body) == original)
            #expect(try await ann.export().backup.pictures.map(\.bytes) == [original])
        }
    }

    @Test("STORAGE_URL and its companions: read, defaulted, and refused with the setting named")
    func settings() throws {
        let env = ["STORAGE_URL": "s3://stitch-photos/prod/files/", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]
        let aws = try #require(try S3Settings.fromEnvironment(env))
        #expect(aws.bucket == "stitch-photos" && aws.prefix == "prod/files/" && aws.endpoint == "https://s3.us-east-1.amazonaws.com" && !aws.pathStyle)
        var local = env
        local["S3_ENDPOINT"] = "http://127.0.0.1:9000/"
        local["S3_PATH_STYLE"] = "true"
        local["S3_REGION"] = "auto"
        let minio = try #require(try S3Settings.fromEnvironment(local))
        #expect(minio.endpoint == "http://127.0.0.1:9000" && minio.pathStyle && minio.region == "auto")
        #expect(try S3Settings.fromEnvironment([:]) == nil)
        for (bad, names) in [(["STORAGE_URL": "s3://b"], "AWS_ACCESS_KEY_ID"), (["STORAGE_URL": "/srv/files"], "STORAGE_URL"),
                             (["STORAGE_URL": "s3://Bad_Bucket", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"], "bucket"),
                             (env.merging(["S3_ENDPOINT": "ftp://x"]) { $1 }, "S3_ENDPOINT")] {
            #expect { try S3Settings.fromEnvironment(bad) } throws: { "\($0)".contains(names) }
        }
    }

    @Test("Against rclone serve s3: put, get, delete; everything under a key; a large file in parts; a presigned URL read without credentials")
    func objects() async throws {
        try await withS3 { s3, http in
            var client = S3Client(settings: s3.settings(), http: http)
            try await client.check()
            let key = ImageKeys.make(for: .png)
            try await client.put(Data("picture".utf8), key: key)
            #expect(try await client.get(key) == Data("picture".utf8))
            #expect(s3.files() == ["photos/\(key)"], "stored under the prefix")
            let storage = S3ImageStorage(client: client)
            try await storage.put(Data("page 1".utf8), key: "\(key)/page-0001.png")
            try await storage.put(Data("page 2".utf8), key: "\(key)/page-0002.png")
            #expect(try await storage.get("\(key)/page-0002.png") == Data("page 2".utf8))
            #expect(try await client.list(under: key + ".drawn/") == ["\(key).drawn/page-0001.png", "\(key).drawn/page-0002.png"])
            try await storage.deleteAll(under: key)
            let pagesLeft = try await client.list(under: key + ".drawn/"), fileLeft = try await client.get(key)
            #expect(pagesLeft.isEmpty && fileLeft != nil)
            try await storage.delete(key)
            #expect(try await client.get(key) == nil && s3.files().isEmpty)
            // A key that isn't the server's own is refused before anything is sent.
            await #expect(throws: APIError.self) { try await storage.put(Data("x".utf8), key: "../escape") }

            // Above the part size: several parts, one object, byte for byte.
            client.partSize = 5 * 1024 * 1024
            var random = SystemRandomNumberGenerator()
            let big = Data((0..<(12 * 1024 * 1024)).map { _ in UInt8.random(in: 0...255, using: &random) })
            let pdf = ImageKeys.make(for: .pdf)
            try await client.put(big, key: pdf)
            #expect(try await client.get(pdf) == big)

            // A presigned URL reads it with no credentials; changed by a byte, it doesn't.
            let url = client.presignedURL(pdf, expires: 60)
            let read = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let readBody = try await read.body.collect(upTo: 20 * 1024 * 1024)
            #expect(read.status == .ok && Data(buffer: readBody) == big)
            let forged = try await http.execute(HTTPClientRequest(url: String(url.dropLast()) + (url.hasSuffix("0") ? "1" : "0")), timeout: .seconds(30))
            #expect(forged.status.code == 403)
        }
    }

    @Test("storage to-bucket and to-folder: every stored file copied under its name and read back; run again, nothing copied; an object that differs copied again; anything else left alone and named")
    func copyBetweenFolderAndBucket() async throws {
        try await withS3 { s3, http in
            let client = S3Client(settings: s3.settings(prefix: ""), http: http)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
            let back = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder); try? FileManager.default.removeItem(at: back) }
            let key = ImageKeys.make(for: .png)
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("\(key).drawn"), withIntermediateDirectories: true)
            let files = [key: Data("original".utf8), "\(key).drawn/w192.jpg": Data("a size".utf8), "notes.txt": Data("mine".utf8)]
            for (name, data) in files { try data.write(to: folder.appendingPathComponent(name)) }

            let first = try await StorageCopy.toBucket(folder: folder.path, client: client) { _ in }
            #expect(first.copied == 2 && first.skipped == 0 && first.bytes == 14 && first.ignored == ["notes.txt"])
            #expect(s3.files() == [key, "\(key).drawn/w192.jpg"])
            let again = try await StorageCopy.toBucket(folder: folder.path, client: client) { _ in }
            #expect(again.copied == 0 && again.skipped == 2, "a copy run again sends nothing already there")
            // The same size, other bytes (a copy cut off, or changed): copied again.
            try await client.put(Data("0riginal".utf8), key: key)
            let repaired = try await StorageCopy.toBucket(folder: folder.path, client: client) { _ in }
            #expect(repaired.copied == 1 && repaired.skipped == 1)
            #expect(try await client.get(key) == Data("original".utf8))

            // And back into an empty folder, byte for byte; again, nothing.
            let home = try await StorageCopy.toFolder(client: client, folder: back.path) { _ in }
            #expect(home.copied == 2)
            for name in [key, "\(key).drawn/w192.jpg"] { #expect(FileManager.default.contents(atPath: back.appendingPathComponent(name).path) == files[name]) }
            #expect(try await StorageCopy.toFolder(client: client, folder: back.path) { _ in }.skipped == 2)
        }
    }

    @Test("Wrong credentials, a missing bucket and an endpoint out of reach: a sentence saying which, and nothing written")
    func failures() async throws {
        try await withS3 { s3, http in
            let wrongKey = S3Client(settings: s3.settings(secret: "not-the-secret-at-all"), http: http)
            await #expect { try await wrongKey.check() } throws: { "\($0)".contains("refused the credentials") }
            await #expect(throws: S3Error.self) { try await wrongKey.put(Data("x".utf8), key: ImageKeys.make(for: .png)) }
            let noBucket = S3Client(settings: s3.settings(bucket: "missing"), http: http)
            await #expect { try await noBucket.check() } throws: { "\($0)".contains("the bucket missing does not exist") }
            var away = s3.settings()
            away.endpoint = "http://127.0.0.1:\(try freeLoopbackPort())"
            await #expect { try await S3Client(settings: away, http: http).check() } throws: { "\($0)".contains("can't reach http://127.0.0.1") }
            #expect(s3.files().isEmpty)
        }
    }

    @Test("On a bucket, a project and its canvas deleted: their objects stay while they can be restored (served to nobody), and leave the bucket 30 days on — the photo, its sizes, the project's picture")
    func deletedRecordsLeaveTheBucket() async throws {
        let s3 = try RcloneS3()
        defer { s3.stop() }
        try await withTestApp(adjust: { $0.objectStorage = s3.settings() }) { app, clock in
            var ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let key = try #require(try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(PictureSizeTests.photo(width: 800, height: 600))])
                .decode(Canvas.self).imageKey)
            let project = try await ann.project(canvas: canvas).project
            let picture = try await ann.upload("/images", files: [Fixtures.file(Fixtures.png)]).decode(ImageUploadResponse.self).key
            let set = try await ann.sendObject(.PUT, "/projects/\(project.id)", ["imageKey": picture])
            #expect(set.status == .ok, "\(set.text)")
            let objects = s3.files().count
            #expect(objects >= 5 && s3.files().contains("photos/\(picture)"), "\(s3.files())")
            #expect(try await ann.send(.DELETE, "/projects/\(project.id)").status == .noContent)
            #expect(try await ann.send(.DELETE, "/canvases/\(canvas.id)").status == .noContent)
            #expect(try await ann.send(.GET, "/images/\(key)").status == .notFound)
            #expect(s3.files().count == objects, "kept while they can be restored")
            clock.advance(by: 31 * 86_400)
            ann = TestUser(app: app, auth: try await login(app).decode(AuthResponse.self))
            #expect(try await Deletions.removeFilesGoneForGood(now: clock.now, app: app, db: app.db) == 2)
            #expect(s3.files().isEmpty, "\(s3.files())")
        }
    }

    @Test("The server on a bucket: a photo uploaded through the API is kept as objects (the original and its sizes), served, replaced; a pattern's pages drawn into it; all gone with the account; /health checks the bucket and names it when it fails")
    func serverOnBucket() async throws {
        let s3 = try RcloneS3()
        defer { s3.stop() }
        try await withTestApp(adjust: { $0.objectStorage = s3.settings() }) { app, _ in
            #expect(try await app.send(.GET, "/health").status == .ok)
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let original = PictureSizeTests.photo(width: 1600, height: 1200)
            let res = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(original)])
            let key = try #require(try res.decode(Canvas.self).imageKey)
            #expect(s3.files() == ["photos/\(key)", "photos/\(key).drawn/w1290.jpg", "photos/\(key).drawn/w192.jpg", "photos/\(key).drawn/w720.jpg"])
            #expect(Data(buffer: try await ann.send(.GET, "/images/\(key)").body) == original)
            let thumb = try await ann.send(.GET, "/images/\(key)?w=192")
            #expect(thumb.status == .ok && thumb.headers.contentType == .jpeg)
            // Replaced: the first picture's objects go, the new one's are there.
            let second = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(PictureSizeTests.photo(width: 800, height: 600))])
            let newKey = try #require(try second.decode(Canvas.self).imageKey)
            #expect(s3.files() == ["photos/\(newKey)", "photos/\(newKey).drawn/w192.jpg", "photos/\(newKey).drawn/w720.jpg", "photos/\(newKey).drawn/w800.jpg"])
            // A pattern's PDF: kept in the bucket, its pages drawn into it and served from it.
            let project = try await ann.create("/projects", ["name": "Fox"], as: ProjectDetail.self).project
            let chart = try await ann.upload("/projects/\(project.id)/patterns",
                                             files: [Fixtures.file(TestPDF.make(pages: 2), name: "file", filename: "Fox.pdf", type: "application/pdf")])
            let pattern = try chart.decode(PatternDetail.self).pattern
            await app.patternRenderer.wait(pattern.fileKey)
            let page = try await ann.send(.GET, "/patterns/\(pattern.id.wireText)/pages/2")
            #expect(page.status == .ok && page.headers.contentType == .png)
            let drawn = s3.files().filter { $0.hasPrefix("photos/\(pattern.fileKey).drawn/") }
            #expect(s3.files().contains("photos/\(pattern.fileKey)") && drawn.count >= 2, "\(s3.files())")
            // The account deleted: nothing of it is left in the bucket.
            #expect(try await ann.send(.DELETE, "/auth/account", json: DeleteAccountRequest(password: "correct horse")).status == .noContent)
            #expect(s3.files().isEmpty)
        }
        // S3_PRESIGNED_URLS: the API's owner gets a 307 to the bucket (the same URL within half its
        // lifetime), which reads without credentials; pages still serve from this origin.
        try await withTestApp(adjust: { $0.objectStorage = s3.settings(); $0.presignedURLSeconds = 600 }) { app, clock in
            let ann = try await TestUser.make(app)
            let canvas = try await ann.canvas()
            let original = PictureSizeTests.photo(width: 800, height: 600)
            let key = try #require(try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(original)]).decode(Canvas.self).imageKey)
            let first = try await ann.send(.GET, "/images/\(key)?w=192")
            #expect(first.status == .temporaryRedirect && first.headers.first(name: "Cache-Control")?.hasPrefix("private, max-age=") == true)
            let location = try #require(first.headers.first(name: .location))
            #expect(location.hasPrefix("http://127.0.0.1:\(s3.port)/stitch/photos/\(key).drawn/w192.jpg?"))
            clock.advance(by: 1)
            #expect(try await ann.send(.GET, "/images/\(key)?w=192").headers.first(name: .location) == location, "one URL for a while: the phone's cache holds")
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            defer { _ = http.shutdown() }
            let read = try await http.execute(HTTPClientRequest(url: location), timeout: .seconds(30))
            let bytes = try await read.body.collect(upTo: 1 << 20)
            #expect(read.status == .ok && read.headers.first(name: "Content-Type") == "image/jpeg" && bytes.readableBytes > 0)
            let whole = try #require(try await ann.send(.GET, "/images/\(key)").headers.first(name: .location))
            let originalRead = try await http.execute(HTTPClientRequest(url: whole), timeout: .seconds(30))
            #expect(Data(buffer: try await originalRead.body.collect(upTo: 4 << 20)) == original)
            // Someone else's key: still 404, no URL.
            let bob = try await TestUser.make(app, email: "bob@example.com")
            #expect(try await bob.send(.GET, "/images/\(key)").status == .notFound)
            // A page's picture stays on this origin.
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            #expect(try await web.request(.GET, "/app/images/\(key)?w=192").status == .ok)
        }
        var wrong = s3.settings()
        wrong.secretAccessKey = "not-the-secret-at-all"
        try await withTestApp(adjust: { $0.objectStorage = wrong }) { app, _ in
            let health = try await app.send(.GET, "/health")
            let said = try health.decode(HealthResponse.self)
            #expect(health.status == .serviceUnavailable && said.failing == "storage")
            // Starting refuses, saying why.
            await #expect { try await ObjectStorageCheck(client: (app.imageStorage as! S3ImageStorage).client).willBootAsync(app) } throws: {
                "\($0)".contains("refused the credentials")
            }
        }
    }
}

