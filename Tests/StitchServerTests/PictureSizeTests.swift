import CGD
import Fluent
import Foundation
import StitchCore
@testable import StitchServer
import Testing
import VaporTesting

/// Photos that load fast: sizes made at upload (JPEG, upright, no metadata, a HEIC made into
/// what a browser shows), pages asking for the size they show, older pictures caught up.
@Suite("Picture sizes: made once at upload, served by width, upright, without location")
struct PictureSizeTests {
    /// A photo of `width`×`height`: a gradient with noise (so it doesn't compress to nothing,
    /// as a photo doesn't) and a red top-left corner, as JPEG.
    static func photo(width: Int, height: Int, quality: Int32 = 90) -> Data {
        let image = gdImageCreateTrueColor(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        var random = SystemRandomNumberGenerator()
        for y in 0..<height {
            for x in 0..<width {
                let corner = x < width / 4 && y < height / 4
                let color: Int32 = corner ? 0xE0_20_20
                    : Int32(x * 255 / width) << 16 | Int32(y * 255 / height) << 8 | Int32.random(in: 0...96, using: &random)
                image.pointee.tpixels[y]![x] = Int32(color)
            }
        }
        var length: Int32 = 0
        let jpeg = gdImageJpegPtr(image, &length, quality)!
        defer { gdFree(jpeg) }
        return Data(bytes: jpeg, count: Int(length))
    }

    /// The JPEG with an EXIF block saying `orientation` and a GPS tag (a location) right after SOI.
    static func withExif(_ jpeg: Data, orientation: UInt16) -> Data {
        // Big-endian TIFF: IFD0 with Orientation and a GPS IFD pointer, then an empty GPS IFD.
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]
        tiff += [0, 2]                                                    // two entries
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0, 0]
        tiff += [0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 38]              // GPS IFD at 38
        tiff += [0, 0, 0, 0]                                              // no next IFD
        tiff += [0, 1, 0x00, 0x01, 0, 2, 0, 0, 0, 2] + Array("N\0".utf8) + [0, 0] + [0, 0, 0, 0]  // GPSLatitudeRef "N"
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        var out = Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(contentsOf: payload)
        out.append(jpeg.dropFirst(2))
        return out
    }

    static func size(of data: Data) throws -> (width: Int, height: Int) {
        let format = try #require(ImageFormat.detect(data))
        let image = try #require(Pictures.decode(data, format: format))
        defer { gdImageDestroy(image) }
        return (Int(image.pointee.sx), Int(image.pointee.sy))
    }

    @Test("A phone's photo: three JPEG sizes made at upload; ?w= picks the next one up; a 64 px list row moves under 30 KB; the original as it was; deleted with it")
    func sizesByWidth() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let original = Self.photo(width: 2400, height: 1800)
            let canvas = try await ann.canvas()
            let res = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(original)])
            let key = try #require(try res.decode(Canvas.self).imageKey)
            #expect(try await ImageModel.find(key, on: app.db)?.widths == "192,720,1290")
            for (asked, width) in [(64, 192), (192, 192), (500, 720), (1290, 1290), (4000, 1290)] {
                let sized = try await ann.send(.GET, "/images/\(key)?w=\(asked)")
                #expect(sized.status == .ok && sized.headers.contentType?.description == "image/jpeg")
                let data = Data(buffer: sized.body)
                #expect(try Self.size(of: data) == (width, Int((Double(width) * 0.75).rounded())), "w=\(asked)")
                #expect(sized.headers.first(name: .eTag) == "\"\(try #require(try await ImageModel.find(key, on: app.db)).sha256)-w\(width)\"")
            }
            let thumb = try await ann.send(.GET, "/images/\(key)?w=192")
            #expect(thumb.body.readableBytes < 30_000, "\(thumb.body.readableBytes) bytes for a list row")
            // The app without ?w= gets what it uploaded, byte for byte.
            #expect(Data(buffer: try await ann.send(.GET, "/images/\(key)").body) == original)

            // The web's list of canvases asks for the thumbnail, its page for a card with a srcset.
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let stash = try await web.request(.GET, "/app/stash").text
            #expect(stash.contains("src=\"/app/images/\(key)?w=192\""))
            let page = try await web.request(.GET, "/app/stash/\(canvas.id.wireText)").text
            #expect(page.contains("srcset=\"/app/images/\(key)?w=192 192w, /app/images/\(key)?w=720 720w, /app/images/\(key)?w=1290 1290w\""))
            let fromPage = try await web.request(.GET, "/app/images/\(key)?w=192")
            #expect(fromPage.status == .ok && fromPage.body.readableBytes < 30_000)

            // Replaced: the old picture and every size of it are gone.
            _ = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(Fixtures.png, filename: "p.png", type: "image/png")])
            #expect(try await app.imageStorage.get(key) == nil)
            for width in PictureSizes.widths { #expect(try await app.imageStorage.get(PictureSizes.storageKey(key, width: width)) == nil) }
        }
    }

    @Test("A photo taken sideways is served upright, and what pages are sent carries no EXIF (no location); a small one keeps its own size")
    func uprightWithoutLocation() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            // Stored 300×100, EXIF says "turn 90° clockwise": a person sees it 100 wide, 300 tall.
            let sideways = Self.withExif(Self.photo(width: 300, height: 100), orientation: 6)
            let key = try await ann.upload("/images", files: [Fixtures.file(sideways)]).decode(ImageUploadResponse.self).key
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let shown = Data(buffer: try await web.request(.GET, "/app/images/\(key)").body)
            #expect(try Self.size(of: shown) == (100, 300))
            #expect(shown.range(of: Data("Exif".utf8)) == nil && sideways.range(of: Data("Exif".utf8)) != nil)
            // The top-left corner of what a person sees is the stored bottom-left: red went right.
            let image = try #require(Pictures.decode(shown, format: .jpeg))
            defer { gdImageDestroy(image) }
            let corner = image.pointee.tpixels[10]![90]
            #expect((corner >> 16) & 0xFF > 150 && (corner >> 8) & 0xFF < 100, "the red corner is at the top right")
            #expect(try await ImageModel.find(key, on: app.db)?.widths == "100")
        }
    }

    @Test("An iPhone's HEIC (heif-enc) is kept as HEIC and shown to a browser as a JPEG")
    func heicForBrowsers() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("heic-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = dir.appendingPathComponent("photo.jpg"), heic = dir.appendingPathComponent("photo.heic")
        try Self.photo(width: 1600, height: 1200).write(to: jpeg)
        let encoder = Process()
        encoder.executableURL = URL(fileURLWithPath: "/usr/bin/heif-enc")
        encoder.arguments = ["-q", "60", "-o", heic.path, jpeg.path]
        encoder.standardOutput = FileHandle.nullDevice
        try encoder.run()
        encoder.waitUntilExit()
        try #require(encoder.terminationStatus == 0, "heif-enc (Debian libheif-examples, scripts/system-packages) failed")
        let photo = try Data(contentsOf: heic)
        try #require(ImageFormat.detect(photo) == .heic)

        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            let key = try await ann.upload("/images", files: [Fixtures.file(photo, filename: "IMG_0001.HEIC", type: "image/heic")])
                .decode(ImageUploadResponse.self).key
            let asUploaded = Data(buffer: try await ann.send(.GET, "/images/\(key)").body)
            #expect(key.hasSuffix(".heic") && asUploaded == photo)
            let web = WebClient(app: app)
            try await web.signIn("ann@example.com")
            let shown = try await web.request(.GET, "/app/images/\(key)")
            #expect(shown.headers.contentType?.description == "image/jpeg")
            #expect(try Self.size(of: Data(buffer: shown.body)) == (1290, 968))
        }
    }

    @Test("Pictures stored before sizes were made get them after a restart, and on first request meanwhile")
    func olderPictures() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            var keys: [String] = []
            for _ in 0..<3 {
                keys.append(try await ann.upload("/images", files: [Fixtures.file(Self.photo(width: 800, height: 600))]).decode(ImageUploadResponse.self).key)
            }
            // As if they were stored by an older server.
            for key in keys {
                for width in PictureSizes.widths { try await app.imageStorage.delete(PictureSizes.storageKey(key, width: width)) }
                let row = try #require(try await ImageModel.find(key, on: app.db))
                row.widths = nil
                try await row.save(on: app.db)
            }
            // Asked for before the catch-up: made then.
            #expect(try Self.size(of: Data(buffer: try await ann.send(.GET, "/images/\(keys[0])?w=192").body)) == (192, 144))
            await PictureSizes.backfill(app)
            for key in keys {
                #expect(try await ImageModel.find(key, on: app.db)?.widths == "192,720,800")
                #expect(try await app.imageStorage.get(PictureSizes.storageKey(key, width: 720)) != nil)
            }
        }
    }
}

/// A phone's 48-megapixel photo is 12–25 MB: over the 10 MB a stored picture may take. It goes
/// in from every client as it is, and the server keeps it made smaller (#81).
@Suite("Phone photos of any size: taken up to 40 MB, kept under 10 MB, upright")
struct BigPhotoTests {
    /// An 8,160 × 6,120 photo taken sideways (EXIF orientation 6), carrying `bytes` in all: its
    /// pixels (bands of colour, quick to make) and, as phones store them after the picture's end
    /// (MPF: a depth map, a second image), extras — random bytes here, which decoders never read.
    static func phonePhoto(bytes: Int) -> Data {
        var photo = PictureSizeTests.withExif(PictureMemoryTests.bigPhoto(), orientation: 6)
        var extras = Data()
        var random = SystemRandomNumberGenerator()
        while bytes - photo.count - extras.count > 4 {
            let length = min(65_532, bytes - photo.count - extras.count - 4)
            extras.append(contentsOf: [0xFF, 0xE9, UInt8((length + 2) >> 8), UInt8((length + 2) & 0xFF)])
            var chunk = [UInt8](repeating: 0, count: length)
            chunk.withUnsafeMutableBytes { raw in
                for i in stride(from: 0, to: raw.count - 7, by: 8) { raw.storeBytes(of: random.next(), toByteOffset: i, as: UInt64.self) }
            }
            extras.append(contentsOf: chunk)
        }
        photo.append(extras)
        return photo
    }

    @Test("A 12 MB photo for a canvas and a 25 MB one in a journal entry go in; each is kept as a JPEG under 10 MB, at most 4,096 px, upright and without EXIF; one over 40 MB is refused by name and leaves nothing")
    func bigPhotos() async throws {
        try await withTestApp { app, _ in
            let ann = try await TestUser.make(app)
            func kept(_ key: String) async throws -> Data {
                let model = try #require(try await ImageModel.find(key, on: app.db))
                let data = try #require(try await app.imageStorage.get(key))
                #expect(model.byteSize == data.count && data.count <= app.config.maxImageBytes && model.contentType == "image/jpeg")
                #expect(key.hasSuffix(".jpg") && data.range(of: Data("Exif".utf8)) == nil)
                // Seen upright: the stored 8,160 × 6,120 turned, so 3,072 wide and 4,096 tall.
                #expect(try PictureSizeTests.size(of: data) == (3072, 4096))
                return data
            }
            let twelve = Self.phonePhoto(bytes: 12 * 1024 * 1024), twentyFive = Self.phonePhoto(bytes: 25 * 1024 * 1024)
            #expect(twelve.count == 12 * 1024 * 1024 && ImageFormat.detect(twelve) == .jpeg)

            let canvas = try await ann.canvas()
            let res = try await ann.upload("/canvases/\(canvas.id)/image", files: [Fixtures.file(twelve)])
            #expect(res.status == .ok, "\(res.status) \(res.text.prefix(300))")
            let canvasKey = try #require(try res.decode(Canvas.self).imageKey)
            let stored = try await kept(canvasKey)
            #expect(Data(buffer: try await ann.send(.GET, "/images/\(canvasKey)").body) == stored)
            #expect(try await ImageModel.find(canvasKey, on: app.db)?.widths == "192,720,1290")

            let project = try await ann.project(canvas: canvas)
            let entry = try await ann.create("/projects/\(project.project.id.wireText)/entries", ["notes": "Day one"], as: JournalEntry.self)
            let added = try await ann.upload("/projects/\(project.project.id.wireText)/entries/\(entry.id.wireText)/images", files: [Fixtures.file(twentyFive)])
            #expect(added.status == .ok || added.status == .created, "\(added.text)")
            let images = try added.decode(JournalEntryDetail.self).images
            #expect(images.count == 1)
            _ = try await kept(try #require(images.first).imageKey)

            // Over 40 MB: refused by name, nothing stored.
            let before = try await ImageModel.query(on: app.db).count()
            let tooBig = try await ann.upload("/images", files: [Fixtures.file(Self.phonePhoto(bytes: 41 * 1024 * 1024))])
            #expect(tooBig.status == .payloadTooLarge && tooBig.text.contains("at most 40 MB"), "\(tooBig.status) \(tooBig.text)")
            #expect(try await ImageModel.query(on: app.db).count() == before)
        }
    }
}
