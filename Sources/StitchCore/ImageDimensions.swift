import Foundation

/// A picture's width and height as its header states them, read without decoding a pixel.
///
/// A decoder allocates width × height × 4 bytes before it reads the first pixel, so a few hundred
/// kilobytes of a one-bit 40,000 × 40,000 PNG ask for 6.4 GB. The header is checked against a
/// limit first (`ImageFormat.maxPixels`), by every path that decodes or keeps a picture.
public struct ImageDimensions: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixels: Int { width.multipliedReportingOverflow(by: height).overflow ? .max : width * height }
    public var description: String { "\(width) × \(height)" }

    /// The dimensions stated by a JPEG, PNG, WebP or HEIC header; nil when the bytes don't hold
    /// a header of `format` that says them (a damaged or truncated file).
    public static func read(_ data: Data, format: ImageFormat) -> ImageDimensions? {
        let bytes = [UInt8](data.prefix(format == .heic ? 4 * 1024 * 1024 : 2 * 1024 * 1024))
        switch format {
        case .png: return png(bytes)
        case .jpeg: return jpeg(bytes)
        case .webp: return webp(bytes)
        case .heic: return heic(bytes)
        case .pdf: return nil
        }
    }

    static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        return b[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    static func littleEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= b.count else { return nil }
        return b[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// The IHDR chunk, which must come first.
    static func png(_ b: [UInt8]) -> ImageDimensions? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8),
              let w = bigEndian(b, 16, 4), let h = bigEndian(b, 20, 4) else { return nil }
        return ImageDimensions(width: w, height: h)
    }

    /// The first start-of-frame segment (baseline, progressive, lossless, arithmetic).
    static func jpeg(_ b: [UInt8]) -> ImageDimensions? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if (0xD0...0xD9).contains(marker) || marker == 0x01 { i += 2; continue }
            guard let length = bigEndian(b, i + 2, 2), length >= 2 else { return nil }
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker) {
                guard let h = bigEndian(b, i + 5, 2), let w = bigEndian(b, i + 7, 2) else { return nil }
                return ImageDimensions(width: w, height: h)
            }
            if marker == 0xDA { return nil }  // image data before any frame header
            i += 2 + length
        }
        return nil
    }

    /// The first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X, the canvas).
    static func webp(_ b: [UInt8]) -> ImageDimensions? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A, let w = littleEndian(b, 26, 2), let h = littleEndian(b, 28, 2) else { return nil }
            return ImageDimensions(width: w & 0x3FFF, height: h & 0x3FFF)
        case "VP8L":
            guard b[20] == 0x2F, let bits = littleEndian(b, 21, 4) else { return nil }
            return ImageDimensions(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            guard let w = littleEndian(b, 24, 3), let h = littleEndian(b, 27, 3) else { return nil }
            return ImageDimensions(width: w + 1, height: h + 1)
        default:
            return nil
        }
    }

    /// HEIF: every image's `ispe` property (in meta → iprp → ipco); the largest, so a grid's whole
    /// size counts and not only a tile's or the thumbnail's.
    static func heic(_ b: [UInt8]) -> ImageDimensions? {
        var largest: ImageDimensions?
        func walk(_ start: Int, _ end: Int) {
            var i = start
            while i + 8 <= end {
                guard var size = bigEndian(b, i, 4) else { return }
                let type = String(decoding: b[i + 4..<i + 8], as: UTF8.self)
                var header = 8
                if size == 1 {
                    guard let large = bigEndian(b, i + 8, 8) else { return }
                    size = large
                    header = 16
                } else if size == 0 {
                    size = end - i
                }
                guard size >= header, i + size <= end || type == "mdat" else { return }
                let boxEnd = min(i + size, end)
                switch type {
                case "meta": walk(i + header + 4, boxEnd)  // a full box: version and flags first
                case "iprp", "ipco": walk(i + header, boxEnd)
                case "ispe":
                    if let w = bigEndian(b, i + header + 4, 4), let h = bigEndian(b, i + header + 8, 4) {
                        let found = ImageDimensions(width: w, height: h)
                        if found.pixels > largest?.pixels ?? -1 { largest = found }
                    }
                default: break
                }
                i += size
            }
        }
        walk(0, b.count)
        return largest
    }
}

extension ImageFormat {
    /// The most pixels a picture may have (50 megapixels: a 48-MP phone camera's photo fits; a
    /// decoder holds about 200 MB for it). `PictureLimitError` above it.
    public static let maxPixels = 50_000_000

    /// Refuses a picture whose header asks for more than `maxPixels`, or (when `requireHeader`,
    /// as before decoding) states no size at all.
    public static func checkPixels(_ data: Data, format: ImageFormat, requireHeader: Bool) throws {
        guard format.isPicture else { return }
        guard let size = ImageDimensions.read(data, format: format) else {
            if requireHeader { throw PictureLimitError.unreadable(format) }
            return
        }
        guard size.width > 0, size.height > 0 else { throw PictureLimitError.unreadable(format) }
        if size.pixels > maxPixels { throw PictureLimitError.tooManyPixels(size) }
    }
}

/// Why a picture was refused before it was decoded: too many pixels, or not readable as its format.
public enum PictureLimitError: Error, Equatable, CustomStringConvertible {
    case tooManyPixels(ImageDimensions)
    case unreadable(ImageFormat)

    public var description: String {
        switch self {
        case .tooManyPixels(let size):
            "The picture is \(size) pixels (\(size.pixels / 1_000_000) megapixels); at most \(ImageFormat.maxPixels / 1_000_000) megapixels can be used"
        case .unreadable(let format):
            "The picture can't be read: it starts like a \(format.rawValue.uppercased()) but its header doesn't say its size"
        }
    }
}
