import Fluent
import Foundation
import StitchCore

/// "Match my inventory to the catalog": every live thread the catalogs list gets the catalog's
/// name, and a swatch and colour name where it has none, in one write at one sync version (so
/// devices pull the changes); the report names every thread it couldn't match and why.
enum CatalogMatching {
    static func run(userId: UUID, now: Date, on db: any Database) async throws -> CatalogMatchReport {
        let catalog = try Catalogs.shared()
        return try await db.writeTransaction { db in
            let version = try await SyncVersion.next(for: userId, on: db)
            let threads = try await Records.list(ThreadModel.self, userId: userId, on: db)
            var (changed, report) = catalog.match(threads)
            guard !changed.isEmpty else { return report }
            for index in changed.indices {
                changed[index].updatedAt = writeTimestamp(now: now, after: changed[index].updatedAt)
                changed[index] = try changed[index].normalized.validated()
            }
            try await BatchWriter.upsert(changed, as: ThreadModel.self, userId: userId, version: version, on: db)
            return report
        }
    }

    /// The report in a sentence or two, for the web app's flash.
    static func summary(_ report: CatalogMatchReport) -> String {
        var parts: [String] = []
        parts.append(report.matched.isEmpty ? "No thread needed the catalog's colours."
                     : "Matched \(report.matched.count) thread\(report.matched.count == 1 ? "" : "s") to the catalog.")
        if !report.unmatched.isEmpty {
            let named = report.unmatched.prefix(10).map { "\($0.brand) \($0.number)" }.joined(separator: ", ")
            let more = report.unmatched.count > 10 ? " and \(report.unmatched.count - 10) more" : ""
            parts.append("Not in the catalog: \(named)\(more).")
        }
        return parts.joined(separator: " ")
    }
}
