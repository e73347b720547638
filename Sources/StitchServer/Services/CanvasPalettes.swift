import CGD
import Fluent
import Foundation
import StitchCore
import Vapor

/// A stash canvas's photo read into its painted colours and the threads they come to
/// (`CanvasPalette`): the photo decoded and read on the tools' pool under the account's share, the
/// threads matched against the catalogs and the stitcher's inventory, amounts from the canvas's
/// size and mesh.
enum CanvasPalettes {
    /// How the stitcher asked.
    struct Asked: Sendable {
        var detail: CanvasPalette.Detail = .standard
        var ground: CanvasPalette.Ground = .white
        /// A bare spot tapped on the photo, in its pixels.
        var spot: (x: Int, y: Int)?
        var stitch: Amounts.Stitch = .basketweave
        var strands = 6

        /// The reading asked in a request's query (`value` gives a name's text, nil when absent or
        /// empty); a wrong one is a 400 naming it.
        static func parse(_ value: (String) -> String?) throws -> Asked {
            var asked = Asked()
            var errors: [String: String] = [:]
            if let raw = value("detail") {
                if let n = Int(raw), let detail = CanvasPalette.Detail(rawValue: n) { asked.detail = detail } else { errors["detail"] = "From 1 (fewest colours) to 5 (most)" }
            }
            if let raw = value("ground") {
                if let ground = CanvasPalette.Ground(rawValue: raw) { asked.ground = ground } else { errors["ground"] = "white or ecru" }
            }
            if let raw = value("stitch") {
                if let stitch = Amounts.Stitch(rawValue: raw) { asked.stitch = stitch } else { errors["stitch"] = "basketweave or continental" }
            }
            if let raw = value("strands") {
                if let n = Int(raw), (1...24).contains(n) { asked.strands = n } else { errors["strands"] = "From 1 to 24" }
            }
            if let raw = value("spot") {
                let parts = raw.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                if parts.count == 2, let x = parts[0], let y = parts[1], (0...100_000).contains(x), (0...100_000).contains(y) {
                    asked.spot = (x, y)
                } else {
                    errors["spot"] = "A bare spot's pixel on the photo as x,y (for example 120,40)"
                }
            }
            if !errors.isEmpty { throw APIError.validation(errors) }
            return asked
        }
    }

    /// Photos are read at most this wide or tall (the palette's grid is far coarser).
    static let readSize = 1600

    static func answer(canvasId: UUID, userId: UUID, asked: Asked, app: Application, db: any Database) async throws -> CanvasPaletteAnswer {
        let canvas = try await Records.require(CanvasModel.self, canvasId, userId: userId, on: db).record
        guard let key = canvas.imageKey else {
            throw APIError(.conflict, "The canvas has no photo yet: add one, then its colours can be read", fields: ["imageKey": "Add a photo of the canvas"])
        }
        guard let image = try await Images.owned(key, userId: userId, on: db), let data = try await app.imageStorage.get(key),
              let format = ImageFormat.allCases.first(where: { $0.contentType == image.contentType && $0.isPicture }) else {
            throw APIError(.notFound, "The canvas's photo is missing")
        }
        let (palette, photo) = try await app.tools.run(for: userId) { () throws -> (CanvasPalette, (width: Int, height: Int)) in
            var options = CanvasPalette.Options(detail: asked.detail, ground: asked.ground)
            guard let (pixels, photo) = pixels(data, format: format, spot: asked.spot, options: &options) else {
                throw APIError(.unprocessableEntity, "The canvas's photo can't be read as a picture", fields: ["imageKey": "Damaged picture"])
            }
            return (CanvasPalette.read(pixels, options: options), photo)
        }
        let owned = try await Records.list(ThreadModel.self, userId: userId, on: db)
        let threads = palette.threads(catalog: try app.threadCatalog, owned: owned, size: Amounts.inches(canvas.size), mesh: canvas.meshCount,
                                      stitch: asked.stitch, strands: asked.strands)
        return CanvasPaletteAnswer(canvasId: canvas.id, imageKey: key, palette: palette, threads: threads, stitch: asked.stitch,
                                   strands: asked.strands, detail: asked.detail, ground: asked.ground, photoWidth: photo.width, photoHeight: photo.height)
    }

    /// The photo's pixels (at most `readSize` on a side), the tapped spot scaled with it, and the
    /// photo's own size.
    static func pixels(_ data: Data, format: ImageFormat, spot: (x: Int, y: Int)?,
                       options: inout CanvasPalette.Options) -> (RGBPixels, photo: (width: Int, height: Int))? {
        guard let decoded = Pictures.decode(data, format: format) else { return nil }
        defer { gdImageDestroy(decoded) }
        let small = Pictures.shrunk(decoded, toFit: readSize)
        defer { if let small { gdImageDestroy(small) } }
        let image = small ?? decoded
        if image.pointee.trueColor == 0 { _ = gdImagePaletteToTrueColor(image) }
        let width = Int(image.pointee.sx), height = Int(image.pointee.sy)
        guard width > 0, height > 0, let rows = image.pointee.tpixels else { return nil }
        if let spot {
            let scale = Double(width) / Double(max(1, decoded.pointee.sx))
            options.bareSpot = (Int(Double(spot.x) * scale), Int(Double(spot.y) * scale))
        }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            guard let row = rows[y] else { return nil }
            for x in 0..<width {
                let p = row[x], i = (y * width + x) * 3
                bytes[i] = UInt8(p >> 16 & 0xFF); bytes[i + 1] = UInt8(p >> 8 & 0xFF); bytes[i + 2] = UInt8(p & 0xFF)
            }
        }
        return (RGBPixels(width: width, height: height, bytes: bytes), (Int(decoded.pointee.sx), Int(decoded.pointee.sy)))
    }
}
