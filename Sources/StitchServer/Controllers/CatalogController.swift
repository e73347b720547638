import Foundation
import StitchCore
import Vapor

/// The thread catalogs shipped with the server (Resources/catalogs, sources in its SOURCES.md):
/// public facts, the same for everyone, so the routes need no sign-in.
struct CatalogController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let catalog = routes.grouped("catalog")
        catalog.get("search", use: search)
        catalog.get("nearest", use: nearestToColour)
        catalog.get(":brand", ":number", "nearest", use: nearestToEntry)
    }

    /// `GET /catalog/search?q=310&limit=10`: entries for what a person has typed so far
    /// (brand, number or colour name; a word's start, or a typo or two in a longer word).
    @Sendable
    func search(req: Request) async throws -> Response {
        let query = req.queryText("q") ?? ""
        guard query.unicodeScalars.count <= 100 else { throw APIError.validation(["q": "At most 100 characters"]) }
        let limit = try Self.limit(req, default: 10, max: 50)
        return try jsonResponse(try req.application.threadCatalog.search(query, limit: limit))
    }

    /// `GET /catalog/nearest?hex=%23112233&in=DMC`: the catalog's colours closest to a colour,
    /// by CIEDE2000, optionally within one brand.
    @Sendable
    func nearestToColour(req: Request) async throws -> Response {
        guard let hex = req.queryText("hex") else { throw APIError.validation(["hex": "Give a colour like #1A2B3C"]) }
        guard Rules.isHexColor(hex) else { throw APIError.validation(["hex": "Colour must be a hex value like #1A2B3C"]) }
        return try await nearest(req, hex: hex.uppercased(), from: nil)
    }

    /// `GET /catalog/DMC/310/nearest?in=DMC`: the catalog's colours closest to a catalog
    /// colour's (itself left out), e.g. the nearest of another brand to a thread a pattern asks for.
    @Sendable
    func nearestToEntry(req: Request) async throws -> Response {
        let brand = req.parameters.get("brand") ?? "", number = req.parameters.get("number") ?? ""
        guard let entry = try req.application.threadCatalog.entry(brand: brand, number: number) else {
            throw APIError(.notFound, "\(brand) \(number) is not in the catalog")
        }
        return try await nearest(req, hex: entry.hex, from: entry)
    }

    private func nearest(_ req: Request, hex: String, from source: CatalogEntry?) async throws -> Response {
        let catalog = try req.application.threadCatalog
        let limit = try Self.limit(req, default: 3, max: 20)
        let within = req.queryText("in")
        if let within, !catalog.brands.contains(within) {
            throw APIError.validation(["in": "No catalog for “\(within)”; there are: \(catalog.brands.joined(separator: ", "))"])
        }
        return try jsonResponse(NearestColours(hex: hex, from: source,
                                               nearest: catalog.nearest(toHex: hex, brand: within, limit: limit, excluding: source)))
    }

    /// `limit`: digits only, from 1 to `max`.
    private static func limit(_ req: Request, default value: Int, max: Int) throws -> Int {
        guard let text = req.queryText("limit") else { return value }
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let limit = Int(text), (1...max).contains(limit) else {
            throw APIError.validation(["limit": "A whole number from 1 to \(max)"])
        }
        return limit
    }
}

/// The answer of `GET /catalog/nearest`.
struct NearestColours: Content {
    var hex: String
    var from: CatalogEntry?
    var nearest: [CatalogNeighbour]
}

/// The catalogs, read from the bundle once.
enum Catalogs {
    /// Each file of Resources/catalogs: its brand, line and fibre, and the brand's other lines
    /// numbered the same (DMC pearl cotton shares the floss numbers and colours).
    static let files: [(file: String, brand: String, line: String, fiber: FiberType, variants: [String])] = [
        ("dmc-floss", "DMC", "Six-strand floss", .cotton, ["Pearl cotton #3", "Pearl cotton #5", "Pearl cotton #8", "Pearl cotton #12"]),
        ("anchor-floss", "Anchor", "Stranded cotton", .cotton, []),
    ]

    static func shared() throws -> ThreadCatalog {
        switch loaded {
        case .success(let catalog): return catalog
        case .failure(let error): throw APIError(.internalServerError, "The thread catalogs could not be read: \(error.description)")
        }
    }

    private static let loaded: Result<ThreadCatalog, ValidationError> = {
        var entries: [CatalogEntry] = []
        for file in files {
            guard let url = Bundle.module.url(forResource: file.file, withExtension: "csv", subdirectory: "catalogs"),
                  let text = try? String(contentsOf: url, encoding: .utf8) else {
                return .failure(ValidationError("catalog", "\(file.file).csv is missing from the build"))
            }
            do throws(ValidationError) {
                entries += try ThreadCatalog.entries(csv: text, brand: file.brand, line: file.line, fiberType: file.fiber, variants: file.variants)
            } catch {
                return .failure(error)
            }
        }
        return .success(ThreadCatalog(entries: entries))
    }()
}

extension Application {
    private struct CatalogKey: StorageKey { typealias Value = ThreadCatalog }

    /// The catalog this server answers from: the shipped one, unless a test gave its own.
    var threadCatalog: ThreadCatalog {
        get throws { try storage[CatalogKey.self] ?? Catalogs.shared() }
    }

    func useCatalog(_ catalog: ThreadCatalog) { storage[CatalogKey.self] = catalog }
}
