import CGD
import Fluent
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import StitchCore
import Vapor

/// Pictures as pages show them: the original is kept as uploaded (backups and restores carry it),
/// and at upload JPEGs are made at a few widths — a list thumbnail, a card, a full phone screen,
/// each at 3× density — turned upright as the photo's EXIF says, with no metadata (no location),
/// and a HEIC made into what every browser shows. They live beside the original in the storage
/// (`KEY/w192.jpg`), are made once by the instance that stored it (`images.widths` says which
/// exist; a restart makes any missing, `backfill`), and go with it (`Images.deleteFiles`).
enum PictureSizes {
    /// 64 pt list thumbnails, ~240 pt cards, a 430 pt phone screen, each at 3×.
    static let widths = [192, 720, 1290]
    static let quality: Int32 = 82

    static func storageKey(_ key: String, width: Int) -> String { "\(key)/w\(width).jpg" }

    /// The JPEGs of a picture at each of `widths` it is wider than, or at its own width when it
    /// is narrower than all of them; nil when libgd can't read it. Blocking: a thread pool's.
    static func make(_ data: Data, format: ImageFormat) -> [(width: Int, data: Data)]? {
        guard format.isPicture, let decoded = Pictures.decode(data, format: format) else { return nil }
        defer { gdImageDestroy(decoded) }
        if decoded.pointee.trueColor == 0 { _ = gdImagePaletteToTrueColor(decoded) }
        let orientation = format == .jpeg ? ExifOrientation.read(data) : 1
        // The width a person sees: a photo taken sideways is as wide as it is tall in the file.
        let sideways = orientation >= 5
        let seenWidth = Int(sideways ? decoded.pointee.sy : decoded.pointee.sx)
        let targets = Array(Set(widths.map { min($0, seenWidth) })).sorted()
        var out: [(width: Int, data: Data)] = []
        for width in targets {
            let scale = Double(width) / Double(seenWidth)
            let (fileWidth, fileHeight) = (Double(decoded.pointee.sx), Double(decoded.pointee.sy))
            let scaled = scale < 1 ? gdImageScale(decoded, UInt32(max(1, (fileWidth * scale).rounded())), UInt32(max(1, (fileHeight * scale).rounded()))) : nil
            defer { if let scaled { gdImageDestroy(scaled) } }
            let upright = ExifOrientation.apply(orientation, to: scaled ?? decoded)
            defer { if let upright { gdImageDestroy(upright) } }
            var length: Int32 = 0
            guard let jpeg = gdImageJpegPtr(upright ?? scaled ?? decoded, &length, quality) else { return nil }
            defer { gdFree(jpeg) }
            out.append((width, Data(bytes: jpeg, count: Int(length))))
        }
        return out
    }

    /// The longest side a photo made smaller keeps: 16 megapixels at 4:3, more than any page
    /// shows at 3× and enough to zoom into a canvas's stitches.
    static let shrunkLongestSide = 4096

    /// A photo too large to keep made into a JPEG under `maxBytes`: upright as its EXIF says, at
    /// most `shrunkLongestSide` on its longest side, at quality 85 and lower (then smaller) until
    /// it fits; no metadata. Nil when it can't be read or made to fit. Blocking: a pool's thread.
    static func shrunk(_ data: Data, format: ImageFormat, maxBytes: Int) -> Data? {
        guard format.isPicture, let decoded = Pictures.decode(data, format: format) else { return nil }
        defer { gdImageDestroy(decoded) }
        if decoded.pointee.trueColor == 0 { _ = gdImagePaletteToTrueColor(decoded) }
        let orientation = format == .jpeg ? ExifOrientation.read(data) : 1
        var longest = min(shrunkLongestSide, Int(max(decoded.pointee.sx, decoded.pointee.sy)))
        while longest >= 256 {
            let scale = Double(longest) / Double(max(decoded.pointee.sx, decoded.pointee.sy))
            let scaled = scale < 1 ? gdImageScale(decoded, UInt32(max(1, (Double(decoded.pointee.sx) * scale).rounded())),
                                                  UInt32(max(1, (Double(decoded.pointee.sy) * scale).rounded()))) : nil
            defer { if let scaled { gdImageDestroy(scaled) } }
            let upright = ExifOrientation.apply(orientation, to: scaled ?? decoded)
            defer { if let upright { gdImageDestroy(upright) } }
            for quality: Int32 in [85, 70, 55] {
                var length: Int32 = 0
                guard let jpeg = gdImageJpegPtr(upright ?? scaled ?? decoded, &length, quality) else { return nil }
                defer { gdFree(jpeg) }
                if Int(length) <= maxBytes { return Data(bytes: jpeg, count: Int(length)) }
            }
            longest = longest * 3 / 4
        }
        return nil
    }

    /// Makes a picture's sizes on the tools' pool (`ToolWork`), counted against `account`'s share
    /// there: decoding a 50-megapixel photo takes some 200 MB, so only as many are decoded at once
    /// as the pool has threads, and one account's uploads past its share are refused (429,
    /// Retry-After) before anything is stored. `background` work (a page asking for a picture
    /// stored before sizes existed, the backfill) waits for its turn instead.
    static func make(_ data: Data, format: ImageFormat, account: UUID?, background: Bool, app: Application) async throws -> [(width: Int, data: Data)] {
        try await app.tools.run(for: account, background: background) { make(data, format: format) } ?? []
    }

    /// Stores the sizes made of a picture and records which exist ("" when it couldn't be read:
    /// the original is served). Returns the widths.
    @discardableResult
    static func store(_ made: [(width: Int, data: Data)], key: String, app: Application, db: any Database) async throws -> [Int] {
        for size in made { try await app.imageStorage.put(size.data, key: storageKey(key, width: size.width)) }
        let widths = made.map(\.width)
        try await db.sql.update(ImageModel.schema).set("widths", to: SQLBind(widths.map(String.init).joined(separator: ",")))
            .where("key", .equal, SQLBind(key)).run()
        return widths
    }

    static func widths(of image: ImageModel) -> [Int]? {
        image.widths.map { $0.split(separator: ",").compactMap { Int($0) } }
    }

    /// The width to send for a request of `requested` pixels (nil: the largest): the smallest
    /// made that is as wide, else the largest.
    static func pick(_ requested: Int?, from made: [Int]) -> Int? {
        guard let largest = made.max() else { return nil }
        guard let requested else { return largest }
        return made.filter { $0 >= requested }.min() ?? largest
    }

    enum ByteRange: Equatable { case whole, unsatisfiable, part(ClosedRange<Int>) }

    /// One `Range: bytes=…` of a file of `total` bytes (RFC 9110 §14.1.2): `a-b`, `a-` or `-n`.
    /// Anything else — several ranges, another unit, nonsense — is answered whole, as the RFC allows.
    static func byteRange(_ header: String?, total: Int) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), total > 0 else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        let digits = { (text: Substring) in !text.isEmpty && text.count <= 18 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        if first.isEmpty {
            guard digits(last), let suffix = Int(last) else { return .whole }
            return suffix == 0 ? .unsatisfiable : .part(max(0, total - suffix)...(total - 1))
        }
        guard digits(first), let start = Int(first), last.isEmpty || digits(last), let end = last.isEmpty ? Int.max : Int(last), end >= start else { return .whole }
        return start >= total ? .unsatisfiable : .part(start...min(end, total - 1))
    }

    /// Makes the sizes of pictures stored before they were made (or by an instance that stopped
    /// first), a few at a time, after boot.
    static func backfill(_ app: Application) async {
        let pictureTypes = ImageFormat.allCases.filter(\.isPicture).map(\.contentType)
        do {
            while !Task.isCancelled {
                let batch = try await ImageModel.query(on: app.db).filter(\.$widths == nil).filter(\.$contentType ~~ pictureTypes).limit(20).all()
                if batch.isEmpty { return }
                for image in batch {
                    let key = try image.requireID()
                    guard let format = ImageFormat.allCases.first(where: { $0.contentType == image.contentType }),
                          let data = try await app.imageStorage.get(key) else {
                        try await app.db.sql.update(ImageModel.schema).set("widths", to: SQLBind("")).where("key", .equal, SQLBind(key)).run()
                        continue
                    }
                    _ = try await app.pictureDerivations.once(key) {
                        try await store(try await make(data, format: format, account: image.userId, background: true, app: app), key: key, app: app, db: app.db)
                    }
                }
            }
        } catch {
            app.logger.warning("Making picture sizes for older pictures stopped: \(error)")
        }
    }
}

/// One derivation per picture at a time in this process: requests for a picture whose sizes are
/// being made wait for that work instead of decoding it again beside it.
final class PictureDerivations: Sendable {
    private let running = NIOLockedValueBox<[String: Task<[Int], any Error>]>([:])

    func once(_ key: String, _ work: @escaping @Sendable () async throws -> [Int]) async throws -> [Int] {
        let task = running.withLockedValue { running -> Task<[Int], any Error> in
            if let existing = running[key] { return existing }
            let task = Task { try await work() }
            running[key] = task
            return task
        }
        defer { running.withLockedValue { running in if running[key] == task { running[key] = nil } } }
        return try await task.value
    }

    /// How many pictures are having their sizes made now.
    var count: Int { running.withLockedValue { $0.count } }
}

extension Application {
    struct PictureDerivationsKey: StorageKey { typealias Value = PictureDerivations }

    /// Set by `configure`.
    var pictureDerivations: PictureDerivations {
        guard let existing = storage[PictureDerivationsKey.self] else { fatalError("configure sets app.pictureDerivations") }
        return existing
    }
}

/// `serve`'s: after boot, the sizes of pictures that have none yet; stopped at shutdown.
public final class PictureSizesBackfill: LifecycleHandler, Sendable {
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    public init() {}

    public func didBootAsync(_ application: Application) async throws {
        task.withLockedValue { $0 = Task { await PictureSizes.backfill(application) } }
    }

    public func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { $0 }
        running?.cancel()
        await running?.value
    }
}

/// A JPEG's EXIF orientation (1–8, 1 when absent) and turning pixels upright by it.
enum ExifOrientation {
    static func read(_ data: Data) -> Int {
        let bytes = [UInt8](data.prefix(128 * 1024))
        var i = 2
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 1 }
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA || length < 2 { return 1 }
            let start = i + 4, end = min(bytes.count, i + 2 + length)
            if marker == 0xE1, end - start > 14, Array(bytes[start..<start + 6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return orientation(inTIFF: Array(bytes[(start + 6)..<end])) ?? 1
            }
            i += 2 + length
        }
        return 1
    }

    private static func orientation(inTIFF tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let little = tiff[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(little ? at + 2 : at), let low = u16(little ? at : at + 2) else { return nil }
            return high << 16 | low
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<min(count, 64) {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8), (1...8).contains(value) { return value }
        }
        return nil
    }

    /// A new image turned and mirrored as `orientation` says (the caller destroys it), or nil
    /// for 1 (already upright).
    static func apply(_ orientation: Int, to image: gdImagePtr) -> gdImagePtr? {
        guard (2...8).contains(orientation), image.pointee.trueColor != 0, let source = image.pointee.tpixels else { return nil }
        let w = Int(image.pointee.sx), h = Int(image.pointee.sy)
        let swaps = orientation >= 5
        guard let out = gdImageCreateTrueColor(Int32(swaps ? h : w), Int32(swaps ? w : h)), let target = out.pointee.tpixels else { return nil }
        for y in 0..<h {
            let row = source[y]!
            for x in 0..<w {
                let (tx, ty): (Int, Int) = switch orientation {
                case 2: (w - 1 - x, y)
                case 3: (w - 1 - x, h - 1 - y)
                case 4: (x, h - 1 - y)
                case 5: (y, x)
                case 6: (h - 1 - y, x)
                case 7: (h - 1 - y, w - 1 - x)
                default: (y, w - 1 - x)  // 8
                }
                target[ty]![tx] = row[x]
            }
        }
        return out
    }
}
