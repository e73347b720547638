import CGD
import Foundation
import StitchCore

/// Photos of barcodes for the scan tests, drawn here: an EAN-13 (a UPC-A is one with a leading
/// 0) rendered module by module, turned by any angle, at any contrast, with sensor-like noise,
/// on a page of any size, encoded by libgd as PNG or JPEG.
enum BarcodeImages {
    enum Format { case png, jpeg }

    /// A valid EAN-13 from its first 12 digits.
    static func ean13(_ payload: String) -> String { payload + String(Barcodes.checkDigit(of: payload)) }

    /// The 95 modules of an EAN-13 (true = bar).
    static func modules(_ code: String) -> [Bool] {
        precondition(code.count == 13)
        let digits = code.map { Int($0.asciiValue! - 48) }
        let l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
        let r = l.map { String($0.map { $0 == "0" ? "1" : "0" }) }
        let g = r.map { String($0.reversed()) }
        let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLG", "LGLGGL", "LGLGLL", "LGGLGL"][digits[0]]
        var bits = "101"
        for (i, p) in parity.enumerated() { bits += p == "L" ? l[digits[i + 1]] : g[digits[i + 1]] }
        bits += "01010"
        for i in 7...12 { bits += r[digits[i]] }
        bits += "101"
        return bits.map { $0 == "1" }
    }

    /// A picture of `code`: `module` pixels per bar width, turned `degrees`, bars of grey `ink` on
    /// `paper`, ± `noise` grey levels at random, centred on a `width`×`height` page (big enough by default).
    static func photo(_ code: String, module: Int = 3, degrees: Double = 0, ink: Int = 20, paper: Int = 235, noise: Int = 0,
                      width: Int? = nil, height: Int? = nil, format: Format = .png) -> Data {
        let bars = modules(code)
        let codeWidth = Double((bars.count + 20) * module)  // with a quiet zone of 10 modules a side
        let codeHeight = Double(60 * module)
        let side = Int((codeWidth * codeWidth + codeHeight * codeHeight).squareRoot()) + 20
        let w = width ?? side, h = height ?? side
        let radians = degrees * .pi / 180
        let (cosA, sinA) = (cos(radians), sin(radians))
        return encode(width: w, height: h, format: format) { x, y in
            // Back from the page to the unturned barcode, centred at the origin.
            let dx = Double(x) - Double(w) / 2, dy = Double(y) - Double(h) / 2
            let u = dx * cosA + dy * sinA + codeWidth / 2, v = -dx * sinA + dy * cosA + codeHeight / 2
            var grey = paper
            if u >= 0, v >= 0, u < codeWidth, v < codeHeight {
                let index = Int(u) / module - 10
                if index >= 0, index < bars.count, bars[index] { grey = ink }
            }
            if noise > 0 { grey += grain(x, y, amplitude: noise) }
            return max(0, min(255, grey))
        }
    }

    /// A photo of something with no barcode: soft gradients and blobs of colour.
    static func noBarcode(width: Int = 480, height: Int = 360, format: Format = .jpeg) -> Data {
        encode(width: width, height: height, format: format) { x, y in
            let blob = ((x / 40 + y / 30) % 3) * 30
            return 90 + (x * 60 / width) + (y * 40 / height) + blob
        }
    }

    private static func encode(width: Int, height: Int, format: Format, grey: (Int, Int) -> Int) -> Data {
        let image = gdImageCreateTrueColor(Int32(width), Int32(height))!
        defer { gdImageDestroy(image) }
        for y in 0..<height {
            let row = image.pointee.tpixels[y]!
            for x in 0..<width {
                let g = Int32(grey(x, y))
                row[x] = (g << 16) | (g << 8) | g
            }
        }
        var size: Int32 = 0
        let bytes = format == .png ? gdImagePngPtr(image, &size) : gdImageJpegPtr(image, &size, 85)
        defer { gdFree(bytes) }
        return Data(bytes: bytes!, count: Int(size))
    }
}

/// Sensor-like grain: the same for a pixel on every run, in -amplitude...amplitude.
func grain(_ x: Int, _ y: Int, amplitude: Int) -> Int {
    var h = UInt32(truncatingIfNeeded: x &* 73_856_093) ^ UInt32(truncatingIfNeeded: y &* 19_349_663)
    h = (h ^ (h >> 13)) &* 0x5bd1_e995
    h ^= h >> 15
    return Int(h % UInt32(2 * amplitude + 1)) - amplitude
}
