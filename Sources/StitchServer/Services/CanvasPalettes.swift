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
        var detail: CanvasPalette.Detail = .usual
        var ground: CanvasPalette.Ground = .white
        /// A bare spot tapped on the photo, in its pixels.
        var spot: (x: Int, y: Int)?
        var stitch: Amounts.Stitch = .basketweave
        var strands = 6
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
        let palette = try await app.tools.run(for: userId) { () throws -> CanvasPalette in
            var options = CanvasPalette.Options(detail: asked.detail, ground: asked.ground)
            guard let pixels = pixels(data, format: format, spot: asked.spot, options: &options) else {
                throw APIError(.unprocessableEntity, "The canvas's photo can't be read as a picture", fields: ["imageKey": "Damaged picture"])
            }
            return CanvasPalette.read(pixels, options: options)
        }
        let owned = try await Records.list(ThreadModel.self, userId: userId, on: db)
        let threads = palette.threads(catalog: try app.threadCatalog, owned: owned, size: Amounts.inches(canvas.size), mesh: canvas.meshCount,
                                      stitch: asked.stitch, strands: asked.strands)
        return CanvasPaletteAnswer(canvasId: canvas.id, imageKey: key, palette: palette, threads: threads, stitch: asked.stitch,
                                   strands: asked.strands, detail: asked.detail, ground: asked.ground)
    }

    /// The photo's pixels (at most `readSize` on a side), the tapped spot scaled with it.
    static func pixels(_ data: Data, format: ImageFormat, spot: (x: Int, y: Int)?, options: inout CanvasPalette.Options) -> RGBPixels? {
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
        return RGBPixels(width: width, height: height, bytes: bytes)
    }
}
