import CGD
import CZBar
import Foundation
import StitchCore

/// Pictures read with libgd (scan-to-add's photos, patterns drawn from pictures).
enum Pictures {
    /// libgd prints a damaged file's complaint to standard error; the caller's 422 says it instead.
    private static let quietLibgd: Void = gdSetErrorMethod { _, _, _ in }

    /// A picture's pixels (libgd), nil when the bytes aren't a whole picture of `format`; the
    /// caller destroys the image.
    /// Nothing is decoded whose header doesn't state a size within `ImageFormat.maxPixels`
    /// (uploads were told why by `Images.check`; this is the last guard before the allocation).
    static func decode(_ data: Data, format: ImageFormat) -> gdImagePtr? {
        _ = quietLibgd
        guard data.count < Int(Int32.max), (try? ImageFormat.checkPixels(data, format: format, requireHeader: true)) != nil else { return nil }
        var bytes = data
        return bytes.withUnsafeMutableBytes { raw -> gdImagePtr? in
            guard let base = raw.baseAddress else { return nil }
            let size = Int32(raw.count)
            switch format {
            case .jpeg: return gdImageCreateFromJpegPtrEx(size, base, 1)
            case .png: return gdImageCreateFromPngPtr(size, base)
            case .webp: return gdImageCreateFromWebpPtr(size, base)
            case .heic: return gdImageCreateFromHeifPtr(size, base)
            case .pdf: return nil
            }
        }
    }

    /// A copy at most `size` pixels on its longest side (the caller destroys it), or nil when the
    /// picture is that small already.
    static func shrunk(_ image: gdImagePtr, toFit size: Int) -> gdImagePtr? {
        let (width, height) = (Int(image.pointee.sx), Int(image.pointee.sy))
        guard max(width, height) > size else { return nil }
        let scale = Double(size) / Double(max(width, height))
        return gdImageScale(image, UInt32(max(1, Double(width) * scale)), UInt32(max(1, Double(height) * scale)))
    }
}

/// Reads the retail barcodes (EAN-13, UPC-A, EAN-8) in a photo: libgd turns the JPEG, PNG, WebP
/// or HEIC bytes into pixels, ZBar finds the codes in their grey levels. Blocking C work: call it
/// on a thread pool.
enum BarcodeReader {
    struct Found: Sendable, Equatable {
        /// "EAN-13", "UPC-A" or "EAN-8".
        var symbology: String
        /// Normalised (`Barcodes.normalized`).
        var code: String
    }

    enum Failure: Error, Equatable {
        /// The bytes start like an image of `format` but libgd can't read them.
        case unreadable(ImageFormat)
    }

    /// Photos are scanned at most this wide or tall: a phone's 12-megapixel photo is scaled
    /// down first (a barcode filling a tenth of the frame keeps 2–3 pixels per bar), and scanned
    /// at full size only if nothing was found.
    static let scanSize = 1600

    static func read(_ data: Data, format: ImageFormat) throws -> [Found] {
        guard let image = Pictures.decode(data, format: format) else { throw Failure.unreadable(format) }
        defer { gdImageDestroy(image) }
        if let small = Pictures.shrunk(image, toFit: scanSize) {
            defer { gdImageDestroy(small) }
            let found = scan(small)
            if !found.isEmpty { return found }
        }
        return scan(image)
    }

    /// The image's grey levels (transparent parts count as white paper), then ZBar over them.
    private static func scan(_ image: gdImagePtr) -> [Found] {
        if image.pointee.trueColor == 0 { _ = gdImagePaletteToTrueColor(image) }
        let width = Int(image.pointee.sx), height = Int(image.pointee.sy)
        guard width > 0, height > 0, let rows = image.pointee.tpixels else { return [] }
        let grey = UnsafeMutablePointer<UInt8>.allocate(capacity: width * height)
        defer { grey.deallocate() }
        for y in 0..<height {
            guard let row = rows[y] else { continue }
            for x in 0..<width {
                let pixel = UInt32(bitPattern: row[x])
                let alpha = Int((pixel >> 24) & 0x7F)  // 0 opaque … 127 transparent
                let r = Int((pixel >> 16) & 0xFF), g = Int((pixel >> 8) & 0xFF), b = Int(pixel & 0xFF)
                let luma = (r * 299 + g * 587 + b * 114) / 1000
                grey[y * width + x] = UInt8((luma * (127 - alpha) + 255 * alpha) / 127)
            }
        }

        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        _ = zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in [ZBAR_EAN13, ZBAR_UPCA, ZBAR_EAN8] {
            _ = zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, 1)
        }
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, 0x3030_3859)  // fourcc "Y800": 8-bit grey
        zbar_image_set_size(zimage, UInt32(width), UInt32(height))
        zbar_image_set_data(zimage, grey, UInt(width * height), nil)
        guard zbar_scan_image(scanner, zimage) > 0 else { return [] }

        var found: [Found] = []
        var symbol = zbar_image_first_symbol(zimage)
        while let current = symbol {
            defer { symbol = zbar_symbol_next(current) }
            guard let text = zbar_symbol_get_data(current), let code = Barcodes.normalized(String(cString: text)) else { continue }
            let name = switch zbar_symbol_get_type(current) {
            case ZBAR_UPCA: "UPC-A"
            case ZBAR_EAN8: "EAN-8"
            default: code.hasPrefix("0") && code.count == 13 ? "UPC-A" : "EAN-13"
            }
            let item = Found(symbology: name, code: code)
            if !found.contains(item) { found.append(item) }
        }
        return found
    }
}
