import Foundation

/// A photo's pixels as the palette reader takes them: sRGB, row by row, three bytes a pixel.
public struct RGBPixels: Sendable {
    public var width: Int
    public var height: Int
    /// `width × height × 3` bytes: red, green, blue.
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height * 3, "RGBPixels needs width × height × 3 bytes")
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// The colours painted on a canvas, read from its photo (`CanvasPalette.read`): the bare canvas
/// and its mesh left out, the photo's colour cast corrected against that bare canvas, similar
/// colours merged, each with its share of the painted area.
public struct CanvasPalette: Codable, Sendable, Hashable {
    /// One painted colour.
    public struct Colour: Codable, Sendable, Hashable {
        /// `#RRGGBB` as it would look under even white light.
        public var hex: String
        /// Its share of the painted area, 0…1 (the colours' shares add up to 1).
        public var share: Double
        public init(hex: String, share: Double) { self.hex = hex; self.share = share }
    }

    /// Most area first.
    public var colours: [Colour]
    /// The share of the photo taken for bare canvas (border and unpainted mesh), 0…1.
    public var bareShare: Double
    /// The bare canvas as photographed (`#RRGGBB`): the white the colours were corrected against;
    /// nil when none was found (the colours are as photographed).
    public var reference: String?
    /// How far apart (ΔE₀₀) two colours had to be to stay two (`Detail`).
    public var mergeDistance: Double
    /// Where each colour is on the photo, so a page can light one colour's region up.
    public var map: Map?

    public init(colours: [Colour], bareShare: Double, reference: String?, mergeDistance: Double, map: Map? = nil) {
        self.colours = colours
        self.bareShare = bareShare
        self.reference = reference
        self.mergeDistance = mergeDistance
        self.map = map
    }

    /// The photo on a coarse grid (at most `Map.size` cells a side, covering the photo),
    /// each cell the colour it shows: row by row, one character a cell — `Map.symbols`' n-th
    /// for `colours[n]`, `.` for bare canvas.
    public struct Map: Codable, Sendable, Hashable {
        public var width: Int
        public var height: Int
        public var cells: String
        public static let size = 120
        /// One symbol a colour (there are at most 40).
        public static let symbols = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        public init(width: Int, height: Int, cells: String) { self.width = width; self.height = height; self.cells = cells }

        /// The colour shown at cell (x, y): an index into `colours`, nil for bare canvas.
        public func colour(x: Int, y: Int) -> Int? {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
            let symbol = cells[cells.index(cells.startIndex, offsetBy: y * width + x)]
            return Self.symbols.firstIndex(of: symbol)
        }
    }

    /// How finely colours are told apart: "fewer colours" merges more, "more colours" less.
    public enum Detail: Int, Codable, Sendable, CaseIterable {
        case fewest = 1, fewer, usual, more, most
        /// ΔE₀₀ under which two colours are one.
        public var mergeDistance: Double { [14, 10, 7, 5, 3.5][rawValue - 1] }
        /// What a reading starts at: chosen on the tuning half of the canvas-palette benchmark
        /// (`stitch-bench --only palette`; docs/stitchuation/canvas-palette.md), held on the other.
        public static let standard: Detail = .more
    }

    /// The canvas's own colour, which its unpainted border shows.
    public enum Ground: String, Codable, Sendable, CaseIterable {
        case white, ecru
        /// Mono canvas as it looks under even daylight (sRGB approximations).
        public var hex: String { self == .white ? "#F2F0EA" : "#E6DCC4" }
    }

    /// What the reader is told besides the photo.
    public struct Options: Sendable, Hashable {
        public var detail: Detail = .standard
        public var ground: Ground = .white
        /// A spot of bare canvas the person tapped (pixel coordinates), used as the white
        /// reference instead of the border.
        public var bareSpot: (x: Int, y: Int)? {
            get { bareX.flatMap { x in bareY.map { (x, $0) } } }
            set { bareX = newValue?.x; bareY = newValue?.y }
        }
        private var bareX: Int?, bareY: Int?
        /// At most this many colours (the closest are merged beyond it).
        public var maxColours = 40
        /// A colour with less of the painted area than this is merged into its nearest.
        public var minShare = 0.004
        public init(detail: Detail = .standard, ground: Ground = .white, bareSpot: (x: Int, y: Int)? = nil) {
            self.detail = detail
            self.ground = ground
            self.bareSpot = bareSpot
        }
    }

    /// The photo is read on a grid at most this many cells on its longest side, each cell the
    /// median of its pixels (a cell spans a few mesh threads on a phone's photo, so the mesh's
    /// holes and shadows don't become colours of their own).
    public static let gridSize = 240

    /// The palette of `pixels`.
    public static func read(_ pixels: RGBPixels, options: Options = Options()) -> CanvasPalette {
        let grid = Grid(pixels, size: gridSize)
        let reference = whiteReference(grid, spot: options.bareSpot.map { grid.cell(ofPixel: $0, in: pixels) })
        let ground = Lab(hex: options.ground.hex)!
        let target = Lab.rgb(hex: options.ground.hex)
        let labs = grid.cells.indices.map { i -> Lab in
            guard let reference else { return grid.cells[i].lab }
            // Light falling off across the canvas: the cell as if lit like the reference.
            let light = reference.light.map { $0.relative(x: i % grid.width, y: i / grid.width) } ?? 1
            return RGB.balanced(grid.cells[i], reference: reference.colour, ground: target, light: light).lab
        }
        let notBare = labs.indices.filter { ColorDifference.ciede2000(labs[$0], ground) >= bareDistance }
        // A cell across the edge of two colours has a median of neither: the painted area's
        // colours are read from the cells of one (unless nearly none are, as in pure noise).
        let even = notBare.filter { !grid.mixed[$0] }
        let painted = (even.count * 4 >= notBare.count ? even : notBare).map { labs[$0] }
        let distance = options.detail.mergeDistance
        let clusters = Clusters.of(painted, mergeDistance: distance, minShare: options.minShare, maxCount: options.maxColours)
        let total = Double(max(1, painted.count))
        return CanvasPalette(colours: clusters.map { Colour(hex: $0.centre.hex, share: Double($0.count) / total) },
                             bareShare: labs.isEmpty ? 0 : Double(labs.count - notBare.count) / Double(labs.count),
                             reference: reference?.colour.hex, mergeDistance: distance,
                             map: map(grid, labs: labs, notBare: notBare, centres: clusters.map(\.centre)))
    }

    /// Each painted cell (every `step`-th of the grid) as its nearest colour, bare cells as `.`.
    static func map(_ grid: Grid, labs: [Lab], notBare: [Int], centres: [Lab]) -> Map? {
        guard !centres.isEmpty, centres.count <= Map.symbols.count else { return nil }
        let step = max(1, Int((Double(max(grid.width, grid.height)) / Double(Map.size)).rounded(.up)))
        let width = max(1, grid.width / step), height = max(1, grid.height / step)
        var painted = [Bool](repeating: false, count: labs.count)
        for i in notBare { painted[i] = true }
        var cells = ""
        cells.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * step + step / 2) * grid.width + x * step + step / 2
                guard i < labs.count, painted[i] else { cells.append("."); continue }
                let nearest = centres.indices.min { Clusters.euclid(centres[$0], labs[i]) < Clusters.euclid(centres[$1], labs[i]) }!
                cells.append(Map.symbols[nearest])
            }
        }
        return Map(width: width, height: height, cells: cells)
    }

    /// ΔE₀₀ within which a corrected cell is taken for bare canvas.
    static let bareDistance = 9.0

    /// How the light falls across the photo: the bare border's brightness fitted as a plane.
    struct Light {
        var mean: Double, dx: Double, dy: Double, cx: Double, cy: Double
        /// The brightness the reference was seen at.
        var norm: Double
        func value(x: Double, y: Double) -> Double { mean + dx * (x - cx) + dy * (y - cy) }
        /// The light at a cell against the reference's (1: as bright).
        func relative(x: Int, y: Int) -> Double { max(0.2, value(x: Double(x), y: Double(y)) / norm) }

        /// The least-squares plane through `points` (cell x, y, linear luminance); nil with too few.
        static func fitted(_ points: [(x: Double, y: Double, value: Double)]) -> Light? {
            guard points.count >= 8 else { return nil }
            let n = Double(points.count)
            let cx = points.map(\.x).reduce(0, +) / n, cy = points.map(\.y).reduce(0, +) / n, mean = points.map(\.value).reduce(0, +) / n
            var sxx = 0.0, syy = 0.0, sxy = 0.0, sxv = 0.0, syv = 0.0
            for p in points {
                let (x, y, v) = (p.x - cx, p.y - cy, p.value - mean)
                sxx += x * x; syy += y * y; sxy += x * y; sxv += x * v; syv += y * v
            }
            let det = sxx * syy - sxy * sxy
            guard det > 1e-9, mean > 0 else { return nil }
            return Light(mean: mean, dx: (sxv * syy - syv * sxy) / det, dy: (syv * sxx - sxv * sxy) / det, cx: cx, cy: cy, norm: mean)
        }
    }

    /// The bare canvas as photographed: the tapped spot's cells, or the light, nearly grey cells
    /// of the photo's outer band (a painted canvas's unpainted border, as tinted as a photo's cast
    /// makes it), with how the light falls across them; nil when there are too few.
    static func whiteReference(_ grid: Grid, spot: Int?) -> (colour: RGB, light: Light?)? {
        let band = max(1, min(grid.width, grid.height) / 10)
        var candidates: [(cell: RGB, l: Double, x: Int, y: Int)] = []
        var border = 0
        for y in 0..<grid.height {
            for x in 0..<grid.width where x < band || y < band || x >= grid.width - band || y >= grid.height - band {
                border += 1
                let cell = grid.cells[y * grid.width + x], lab = cell.lab
                if lab.l > 55, hypot(lab.a, lab.b) < 30 { candidates.append((cell, lab.l, x, y)) }
            }
        }
        let found = candidates.count >= max(4, border / 20)
        // The lighter half: shadows at the edge of the photo are not the canvas's colour.
        let lighter = candidates.sorted { $0.l > $1.l }.prefix(max(1, candidates.count / 2))
        let bordered = found ? RGB.median(lighter.map(\.cell)) : nil
        let plane = bordered.flatMap { colour in
            Light.fitted(candidates.filter { abs($0.l - colour.lab.l) < 25 }.map { (Double($0.x), Double($0.y), $0.cell.luminance) })
        }
        if let spot {
            // The tapped spot is the white; the border, when there is one, still says how the light falls.
            let colour = RGB.median(grid.neighbours(of: spot, radius: 2).map { grid.cells[$0] })
            let light = plane.map { p in Light(mean: p.mean, dx: p.dx, dy: p.dy, cx: p.cx, cy: p.cy,
                                               norm: p.value(x: Double(spot % grid.width), y: Double(spot / grid.width))) }
            return (colour, light)
        }
        guard let bordered else { return nil }
        return (bordered, plane.map { p in Light(mean: p.mean, dx: p.dx, dy: p.dy, cx: p.cx, cy: p.cy, norm: bordered.luminance) })
    }
}

/// An sRGB colour, 0…255 a channel.
struct RGB: Sendable, Hashable {
    var r: Double, g: Double, b: Double

    var hex: String {
        func byte(_ v: Double) -> Int { Int(min(255, max(0, v.rounded()))) }
        return String(format: "#%02X%02X%02X", byte(r), byte(g), byte(b))
    }

    var lab: Lab { Lab(red: r, green: g, blue: b) }

    static func median(_ colours: [RGB]) -> RGB {
        func mid(_ values: [Double]) -> Double { let s = values.sorted(); return s[s.count / 2] }
        return RGB(r: mid(colours.map(\.r)), g: mid(colours.map(\.g)), b: mid(colours.map(\.b)))
    }

    static func linear(_ v: Double) -> Double { let c = v / 255; return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    static func encoded(_ v: Double) -> Double {
        let c = max(0, min(1, v))
        return 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055)
    }

    /// Linear-light luminance (Y), 0…1.
    var luminance: Double { 0.2126729 * RGB.linear(r) + 0.7151522 * RGB.linear(g) + 0.0721750 * RGB.linear(b) }

    /// The colour with the photo's cast taken out: each channel scaled (in linear light) so the
    /// reference becomes the canvas's own colour (von Kries), and brightened or darkened by
    /// `light`, how lit its place was against the reference's.
    static func balanced(_ colour: RGB, reference: RGB, ground target: RGB, light: Double = 1) -> RGB {
        func channel(_ v: Double, _ ref: Double, _ want: Double) -> Double {
            encoded(linear(v) / light * linear(want) / max(linear(ref), 1e-4))
        }
        return RGB(r: channel(colour.r, reference.r, target.r), g: channel(colour.g, reference.g, target.g), b: channel(colour.b, reference.b, target.b))
    }
}

extension Lab {
    /// The sRGB colour of `#RRGGBB` as channels.
    static func rgb(hex: String) -> RGB {
        let v = UInt32(hex.dropFirst(), radix: 16) ?? 0
        return RGB(r: Double(v >> 16 & 0xFF), g: Double(v >> 8 & 0xFF), b: Double(v & 0xFF))
    }

    /// The nearest sRGB colour, `#RRGGBB` (D65).
    public var hex: String {
        func finv(_ t: Double) -> Double { let t3 = t * t * t; return t3 > 216.0 / 24389 ? t3 : (116 * t - 16) / (24389.0 / 27) }
        let fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
        let x = finv(fx) * 0.95047, y = finv(fy), z = finv(fz) * 1.08883
        let r = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
        let g = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
        let bl = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
        return RGB(r: RGB.encoded(r), g: RGB.encoded(g), b: RGB.encoded(bl)).hex
    }
}

/// The photo on a coarse grid: each cell the per-channel median of its pixels.
struct Grid {
    let width: Int, height: Int, step: Int
    let cells: [RGB]
    /// Cells whose middle half of pixels spans more than `mixedSpread` in a channel: across an edge.
    let mixed: [Bool]
    static let mixedSpread: UInt8 = 48

    init(_ pixels: RGBPixels, size: Int) {
        step = max(1, Int((Double(max(pixels.width, pixels.height)) / Double(size)).rounded(.up)))
        width = max(1, pixels.width / step)
        height = max(1, pixels.height / step)
        var cells: [RGB] = [], mixed: [Bool] = []
        cells.reserveCapacity(width * height)
        mixed.reserveCapacity(width * height)
        // At most 15 × 15 pixels of a cell are read (evenly spread): a median of a large cell needs no more.
        let stride = max(1, step / 15)
        var rs: [UInt8] = [], gs: [UInt8] = [], bs: [UInt8] = []
        for cy in 0..<height {
            for cx in 0..<width {
                rs.removeAll(keepingCapacity: true); gs.removeAll(keepingCapacity: true); bs.removeAll(keepingCapacity: true)
                for y in Swift.stride(from: cy * step, to: min(pixels.height, cy * step + step), by: stride) {
                    for x in Swift.stride(from: cx * step, to: min(pixels.width, cx * step + step), by: stride) {
                        let i = (y * pixels.width + x) * 3
                        rs.append(pixels.bytes[i]); gs.append(pixels.bytes[i + 1]); bs.append(pixels.bytes[i + 2])
                    }
                }
                rs.sort(); gs.sort(); bs.sort()
                cells.append(RGB(r: Double(rs[rs.count / 2]), g: Double(gs[gs.count / 2]), b: Double(bs[bs.count / 2])))
                let (lo, hi) = (rs.count / 4, rs.count * 3 / 4)
                mixed.append(rs[hi] - rs[lo] > Self.mixedSpread || gs[hi] - gs[lo] > Self.mixedSpread || bs[hi] - bs[lo] > Self.mixedSpread)
            }
        }
        self.cells = cells
        self.mixed = mixed
    }

    func cell(ofPixel point: (x: Int, y: Int), in pixels: RGBPixels) -> Int {
        let x = min(width - 1, max(0, point.x / step)), y = min(height - 1, max(0, point.y / step))
        return y * width + x
    }

    func neighbours(of index: Int, radius: Int) -> [Int] {
        let (cx, cy) = (index % width, index / width)
        var found: [Int] = []
        for y in max(0, cy - radius)...min(height - 1, cy + radius) {
            for x in max(0, cx - radius)...min(width - 1, cx + radius) { found.append(y * width + x) }
        }
        return found
    }
}

/// Painted cells grouped into colours: cells binned in L*a*b*, bins gathered greedily around the
/// fullest (a bin within `mergeDistance` of a colour joins it), then refined (k-means on the
/// bins), the closest colours merged until every two are `mergeDistance` apart and there are at
/// most `maxCount`, and colours with less than `minShare` merged into their nearest.
enum Clusters {
    struct Cluster { var centre: Lab; var count: Int }

    static func of(_ labs: [Lab], mergeDistance: Double, minShare: Double, maxCount: Int) -> [Cluster] {
        guard !labs.isEmpty else { return [] }
        let bins = binned(labs)
        // Gathered around the fullest bins (Euclidean ΔE, cheap, for the many bins); a bin too
        // small to be a colour's seed joins its nearest.
        let seedMinimum = max(2, Int(Double(labs.count) * minShare / 10))
        var clusters: [Cluster] = []
        for bin in bins {
            let nearest = clusters.indices.min { euclid(clusters[$0].centre, bin.centre) < euclid(clusters[$1].centre, bin.centre) }
            if let i = nearest, euclid(clusters[i].centre, bin.centre) < mergeDistance || bin.count < seedMinimum {
                clusters[i].count += bin.count
            } else {
                clusters.append(bin)
            }
        }
        for _ in 0..<4 { clusters = refined(clusters, bins: bins) }
        let minimum = max(1, Int((minShare * Double(labs.count)).rounded(.up)))
        while clusters.count > 1 {
            let (i, j, d) = closestPair(clusters)
            let smallest = clusters.indices.min { clusters[$0].count < clusters[$1].count }!
            if d < mergeDistance || clusters.count > maxCount {
                clusters = merged(clusters, i, j)
            } else if clusters[smallest].count < minimum {
                let nearest = clusters.indices.filter { $0 != smallest }
                    .min { ColorDifference.ciede2000(clusters[$0].centre, clusters[smallest].centre) < ColorDifference.ciede2000(clusters[$1].centre, clusters[smallest].centre) }!
                clusters = merged(clusters, nearest, smallest, keepFirst: true)
            } else {
                break
            }
        }
        return clusters.sorted { $0.count > $1.count }
    }

    /// ΔE*ab (1976): the straight distance in L*a*b*.
    static func euclid(_ x: Lab, _ y: Lab) -> Double { ((x.l - y.l) * (x.l - y.l) + (x.a - y.a) * (x.a - y.a) + (x.b - y.b) * (x.b - y.b)).squareRoot() }

    /// Cells in bins of 3 units of L*a*b*, fullest first, each at its cells' mean.
    static func binned(_ labs: [Lab]) -> [Cluster] {
        struct Key: Hashable { var l: Int, a: Int, b: Int }
        var sums: [Key: (l: Double, a: Double, b: Double, n: Int)] = [:]
        for lab in labs {
            let key = Key(l: Int((lab.l / 3).rounded()), a: Int((lab.a / 3).rounded()), b: Int((lab.b / 3).rounded()))
            let s = sums[key] ?? (0, 0, 0, 0)
            sums[key] = (s.l + lab.l, s.a + lab.a, s.b + lab.b, s.n + 1)
        }
        return sums.values.map { Cluster(centre: Lab(l: $0.l / Double($0.n), a: $0.a / Double($0.n), b: $0.b / Double($0.n)), count: $0.n) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : ($0.centre.l, $0.centre.a, $0.centre.b) < ($1.centre.l, $1.centre.a, $1.centre.b) }
    }

    /// Each bin to its nearest centre, each centre moved to its bins' weighted mean.
    static func refined(_ clusters: [Cluster], bins: [Cluster]) -> [Cluster] {
        var sums = Array(repeating: (l: 0.0, a: 0.0, b: 0.0, n: 0), count: clusters.count)
        for bin in bins {
            let i = clusters.indices.min { euclid(clusters[$0].centre, bin.centre) < euclid(clusters[$1].centre, bin.centre) }!
            let w = Double(bin.count)
            sums[i] = (sums[i].l + bin.centre.l * w, sums[i].a + bin.centre.a * w, sums[i].b + bin.centre.b * w, sums[i].n + bin.count)
        }
        return sums.compactMap { s in
            s.n == 0 ? nil : Cluster(centre: Lab(l: s.l / Double(s.n), a: s.a / Double(s.n), b: s.b / Double(s.n)), count: s.n)
        }
    }

    static func closestPair(_ clusters: [Cluster]) -> (Int, Int, Double) {
        var best = (0, 1, Double.infinity)
        for i in clusters.indices {
            for j in clusters.indices where j > i {
                let d = ColorDifference.ciede2000(clusters[i].centre, clusters[j].centre)
                if d < best.2 { best = (i, j, d) }
            }
        }
        return best
    }

    /// `i` and `j` as one: at their weighted mean, or (`keepFirst`) at `i`'s colour.
    static func merged(_ clusters: [Cluster], _ i: Int, _ j: Int, keepFirst: Bool = false) -> [Cluster] {
        let a = clusters[i], b = clusters[j], n = a.count + b.count
        let centre = keepFirst ? a.centre : Lab(l: (a.centre.l * Double(a.count) + b.centre.l * Double(b.count)) / Double(n),
                                                a: (a.centre.a * Double(a.count) + b.centre.a * Double(b.count)) / Double(n),
                                                b: (a.centre.b * Double(a.count) + b.centre.b * Double(b.count)) / Double(n))
        var rest = clusters.enumerated().filter { $0.offset != i && $0.offset != j }.map(\.element)
        rest.append(Cluster(centre: centre, count: n))
        return rest
    }
}

/// A canvas's colours as threads to stitch them with (`CanvasPalette.threads`): each colour's
/// nearest threads in every catalog with colours, the one to use (a thread the stitcher owns when
/// it is about as close), and — with the design's size and mesh — its stitches and skeins.
public struct PaletteThreads: Codable, Sendable, Hashable {
    /// One thread for a colour.
    public struct Choice: Codable, Sendable, Hashable {
        public var brand: String
        public var number: String
        public var name: String
        public var hex: String
        /// ΔE₀₀ to the painted colour.
        public var deltaE: Double
        /// "very close", "close" or "noticeably different".
        public var closeness: String
        /// The stitcher has it (live, with skeins).
        public var owned: Bool
        /// Skeins the stitcher has of it.
        public var ownedQuantity: Int
    }

    /// One painted colour and its threads.
    public struct Row: Codable, Sendable, Hashable {
        public var hex: String
        public var share: Double
        /// The thread to use.
        public var choice: Choice?
        /// The nearest of each catalog, closest first.
        public var nearest: [Choice]
        /// Other rows (their colours) that land on the same thread.
        public var sameThreadAs: [String]
        /// Tent stitches of this colour, when the design's size and mesh are known.
        public var stitches: Int?
        /// Skeins to stitch them (`Amounts`), and how many more than owned to buy.
        public var skeins: Int?
        public var toBuy: Int?
    }

    public var rows: [Row]
    /// Why amounts are missing ("the canvas's size and mesh are needed"), when they are.
    public var amountsNote: String?
}

/// How much thread a painted area takes: the rule of thumb needlepoint shops give — two yards of
/// thread (at the weight the mesh takes) a square inch in basketweave; continental uses a third
/// less (Quail Run Needlework, "How much thread do I need"; docs/stitchuation). A six-strand floss
/// skein is 8 m (8.7 yd) of six strands (DMC's and Anchor's labels).
public enum Amounts {
    /// The tent stitch the amounts are for.
    public enum Stitch: String, Codable, Sendable, CaseIterable {
        case basketweave, continental
        /// Yards of working thread a square inch.
        public var yardsPerSquareInch: Double { self == .basketweave ? 2.0 : 1.5 }
    }

    public static let skeinYards = 8.7
    public static let skeinStrands = 6

    /// Skeins for `squareInches` stitched with `strands` strands of six-strand floss.
    public static func skeins(squareInches: Double, stitch: Stitch, strands: Int) -> Int {
        let yards = squareInches * stitch.yardsPerSquareInch
        let perSkein = skeinYards * Double(skeinStrands) / Double(max(1, min(skeinStrands * 4, strands)))
        return max(1, Int((yards / perSkein).rounded(.up)))
    }

    /// The design's size in inches from a canvas's size as stitchers write it ("10 x 12",
    /// "10\" × 12\"", "25 x 30 cm"); nil when it says no two numbers.
    public static func inches(_ size: String?) -> (width: Double, height: Double)? {
        guard let size else { return nil }
        let numbers = size.replacingOccurrences(of: ",", with: ".").split { !("0123456789.".contains($0)) }.compactMap { Double($0) }.filter { $0 > 0 }
        guard numbers.count >= 2 else { return nil }
        let cm = size.lowercased().contains("cm")
        return cm ? (numbers[0] / 2.54, numbers[1] / 2.54) : (numbers[0], numbers[1])
    }
}

extension CanvasPalette {
    /// The colours as threads: the nearest of each catalog brand, an owned thread preferred when
    /// it is within `ownedSlack` ΔE₀₀ of the nearest (and still close), and amounts when
    /// `size` (inches) and `mesh` are known.
    public func threads(catalog: ThreadCatalog, owned: [InventoryThread], size: (width: Double, height: Double)?, mesh: Int?,
                        stitch: Amounts.Stitch = .basketweave, strands: Int = 6, ownedSlack: Double = 1.5) -> PaletteThreads {
        let have = owned.filter { $0.deletedAt == nil && $0.quantity > 0 }
        func quantity(_ brand: String, _ number: String) -> Int {
            have.filter { $0.brand.caseInsensitiveCompare(brand) == .orderedSame && $0.number.caseInsensitiveCompare(number) == .orderedSame }
                .map(\.quantity).reduce(0, +)
        }
        func choice(_ n: CatalogNeighbour) -> PaletteThreads.Choice {
            let q = quantity(n.entry.brand, n.entry.number)
            return .init(brand: n.entry.brand, number: n.entry.number, name: n.entry.name, hex: n.entry.hex, deltaE: n.deltaE,
                         closeness: Self.closeness(n.deltaE), owned: q > 0, ownedQuantity: q)
        }
        var rows: [PaletteThreads.Row] = colours.map { colour in
            let nearest = catalog.brands.compactMap { catalog.nearest(toHex: colour.hex, brand: $0, limit: 1).first }.sorted { $0.deltaE < $1.deltaE }
            // Owned threads with a colour, scored the same way.
            let ownedNear = have.compactMap { t -> CatalogNeighbour? in
                guard let hex = t.colorHex ?? catalog.entry(brand: t.brand, number: t.number)?.hex, let a = Lab(hex: hex), let b = Lab(hex: colour.hex) else { return nil }
                let entry = catalog.entry(brand: t.brand, number: t.number)
                    ?? CatalogEntry(brand: t.brand, line: "", number: t.number, name: t.colorName ?? "", hex: hex, fiberType: t.fiberType)
                return CatalogNeighbour(entry: entry, deltaE: (ColorDifference.ciede2000(a, b) * 100).rounded() / 100)
            }.min { $0.deltaE < $1.deltaE }
            var pick = nearest.first
            if let ownedNear, let best = pick, ownedNear.deltaE <= best.deltaE + ownedSlack, ownedNear.deltaE < 6 { pick = ownedNear }
            return PaletteThreads.Row(hex: colour.hex, share: colour.share, choice: pick.map(choice), nearest: nearest.map(choice), sameThreadAs: [])
        }
        // Colours that land on one thread are said to.
        for i in rows.indices {
            guard let c = rows[i].choice else { continue }
            rows[i].sameThreadAs = rows.indices.filter { $0 != i && rows[$0].choice?.brand == c.brand && rows[$0].choice?.number == c.number }.map { rows[$0].hex }
        }
        guard let size, let mesh, mesh > 0 else {
            return PaletteThreads(rows: rows, amountsNote: "Amounts need the canvas's size (inches or cm) and its mesh")
        }
        for i in rows.indices {
            let area = rows[i].share * size.width * size.height
            rows[i].stitches = Int((area * Double(mesh * mesh)).rounded())
            let skeins = Amounts.skeins(squareInches: area, stitch: stitch, strands: strands)
            rows[i].skeins = skeins
            rows[i].toBuy = max(0, skeins - (rows[i].choice?.ownedQuantity ?? 0))
        }
        return PaletteThreads(rows: rows, amountsNote: nil)
    }

    /// ΔE₀₀ in a stitcher's words.
    public static func closeness(_ deltaE: Double) -> String {
        switch deltaE {
        case ..<3: "very close"
        case ..<6: "close"
        default: "noticeably different"
        }
    }
}

/// `GET /canvases/{id}/palette`: the canvas's painted colours read from its photo, and the threads
/// and amounts they come to.
public struct CanvasPaletteAnswer: Codable, Sendable, Hashable {
    public var canvasId: UUID
    /// The photo read (an image key), so a page can show it beside the rows.
    public var imageKey: String
    public var palette: CanvasPalette
    public var threads: PaletteThreads
    public var stitch: Amounts.Stitch
    public var strands: Int
    public var detail: CanvasPalette.Detail
    public var ground: CanvasPalette.Ground
    /// The photo's size in pixels, the frame a tapped bare spot (`spot=x,y`) is given in.
    public var photoWidth: Int?
    public var photoHeight: Int?

    public init(canvasId: UUID, imageKey: String, palette: CanvasPalette, threads: PaletteThreads, stitch: Amounts.Stitch, strands: Int,
                detail: CanvasPalette.Detail, ground: CanvasPalette.Ground, photoWidth: Int? = nil, photoHeight: Int? = nil) {
        self.canvasId = canvasId; self.imageKey = imageKey; self.palette = palette; self.threads = threads
        self.stitch = stitch; self.strands = strands; self.detail = detail; self.ground = ground
        self.photoWidth = photoWidth; self.photoHeight = photoHeight
    }
}

/// `POST /canvases/{id}/palette/project`: the reviewed colours' threads as a project's
/// requirements — the canvas's project or another of the stitcher's, or (no `projectId`) a new
/// project from the canvas, all in one sync change.
public struct CanvasPaletteConfirmation: Codable, Sendable, Hashable {
    /// One thread to stitch one or more of the painted colours with.
    public struct Row: Codable, Sendable, Hashable {
        public var brand: String
        public var number: String
        public var quantityNeeded: Int
        /// The painted colours (`#RRGGBB`) it stitches, for the requirement's note.
        public var colours: [String]?

        public init(brand: String, number: String, quantityNeeded: Int, colours: [String]? = nil) {
            self.brand = brand; self.number = number; self.quantityNeeded = quantityNeeded; self.colours = colours
        }
    }

    /// The project to add to; nil starts a project from the canvas.
    public var projectId: UUID?
    /// A section of that project, when the threads are for one part of it.
    public var sectionId: UUID?
    public var rows: [Row]

    public init(projectId: UUID? = nil, sectionId: UUID? = nil, rows: [Row]) {
        self.projectId = projectId; self.sectionId = sectionId; self.rows = rows
    }
}

/// What adding a palette did: the project (new or not), the requirements added at one sync
/// version, and the threads left out because the project (section) already needs them.
public struct CanvasPaletteResult: Codable, Sendable, Hashable {
    public var projectId: UUID
    /// The project was started from the canvas by this change.
    public var createdProject: Bool
    public var added: [ProjectThread]
    public var alreadyRequired: [String]

    public init(projectId: UUID, createdProject: Bool, added: [ProjectThread], alreadyRequired: [String]) {
        self.projectId = projectId; self.createdProject = createdProject; self.added = added; self.alreadyRequired = alreadyRequired
    }
}
