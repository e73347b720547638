import Foundation

/// The upgrade fixtures (`Tests/Fixtures/upgrade/<product>-<version>-<commit>/`, made by
/// `scripts/make-upgrade-fixtures` with that version's own binaries), and how their recorded
/// answers are compared with today's.
public enum UpgradeFixtures {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade")

    /// Each fixture folder of `product`, oldest version first.
    public static func folders(_ product: String) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix(product + "-") }.sorted().map { root.appendingPathComponent($0) }
    }

    /// The JSON value in a file.
    public static func json(_ url: URL) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
    }

    /// Where `new` differs from `old` once fields a later version added are allowed: every key of
    /// every object in `old` (but `ignoring`) is in `new` with the same value, arrays have the same
    /// length and elements. Each difference by its path.
    public static func differences(old: Any, new: Any, ignoring: Set<String> = [], path: String = "$") -> [String] {
        switch (old, new) {
        case let (old as [String: Any], new as [String: Any]):
            return old.keys.sorted().filter { !ignoring.contains($0) }.flatMap { key -> [String] in
                guard let value = new[key] else { return ["\(path).\(key) is gone"] }
                return differences(old: old[key]!, new: value, ignoring: ignoring, path: "\(path).\(key)")
            }
        case let (old as [Any], new as [Any]):
            guard old.count == new.count else { return ["\(path) had \(old.count) elements, now \(new.count)"] }
            return zip(old, new).enumerated().flatMap { differences(old: $0.element.0, new: $0.element.1, ignoring: ignoring, path: "\(path)[\($0.offset)]") }
        case let (old as NSNumber, new as NSNumber):
            return old == new ? [] : ["\(path): \(old) became \(new)"]
        case let (old as String, new as String):
            return old == new ? [] : ["\(path): \"\(old.prefix(80))\" became \"\(new.prefix(80))\""]
        case (is NSNull, is NSNull):
            return []
        default:
            return ["\(path): \(type(of: old)) became \(type(of: new))"]
        }
    }
}
