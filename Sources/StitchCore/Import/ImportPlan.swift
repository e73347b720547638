import Foundation

/// What an import would do, row by row, and the records it would save.
public struct ImportPlan<Record: Importable>: Sendable {
    /// What an import will do with one row.
    public enum Action: String, Sendable, Codable { case add, merge, unchanged, skip }

    /// One row of an import and what will be done with it.
    public struct Entry: Sendable, Equatable, Codable {
        public var action: Action
        /// The file's lines this entry comes from.
        public var lines: [Int]
        public var title: String
        public var detail: String?
    }

    public var entries: [Entry]
    /// New records (fresh ids) and merged ones (their own ids), stamped `now`.
    public var writes: [Record]
    public var rule: DuplicateRule

    public func count(_ action: Action) -> Int { entries.filter { $0.action == action }.count }

    /// "Would add 3 threads, merge 1 into ones you have (…), skip 1." or, once done, "Added 3 threads, …".
    public func summary(done: Bool, noun: String) -> String {
        var parts = [(done ? "added" : "would add") + " \(count(.add)) \(noun)"]
        if count(.merge) > 0 { parts.append((done ? "merged" : "merge") + " \(count(.merge)) into ones you have (\(rule.explanation))") }
        if count(.unchanged) > 0 { parts.append((done ? "found" : "find") + " \(count(.unchanged)) already as in the file") }
        if count(.skip) > 0 { parts.append((done ? "skipped" : "skip") + " \(count(.skip))") }
        let text = parts.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    /// Every entry as a line for a terminal: `+` added, `~` merged, `=` unchanged, `-` skipped.
    public var lines: [String] {
        entries.map { entry in
            let mark = switch entry.action { case .add: "+"; case .merge: "~"; case .unchanged: "="; case .skip: "-" }
            let where_ = entry.lines.count == 1 ? "line \(entry.lines[0])" : "lines " + entry.lines.map(String.init).joined(separator: ", ")
            return "  \(mark) \(entry.title) (\(where_))\(entry.detail.map { ": \($0)" } ?? "")"
        }
    }

    /// Merges the file's rows into `existing` (live records; deleted ones don't count) by `rule`.
    public static func make(_ rows: [ImportRow<Record>], existing: [Record], rule: DuplicateRule, now: Date) -> ImportPlan {
        // Rows with the same key become one, by the same rule, in the order they first appear.
        var combined: [(key: String, lines: [Int], record: Record, given: Set<String>)] = []
        var index: [String: Int] = [:]
        var entries: [Entry] = []
        for row in rows {
            let key = row.record.importKey
            if let at = index[key] {
                if rule == .skip {
                    entries.append(Entry(action: .skip, lines: [row.line], title: row.record.importTitle,
                                         detail: "the same as line \(combined[at].lines[0]) of this file"))
                    continue
                }
                combined[at].record = combined[at].record.merging(row.record, given: row.given, rule: rule).0
                combined[at].lines.append(row.line)
                combined[at].given.formUnion(row.given)
            } else {
                index[key] = combined.count
                combined.append((key, [row.line], row.record, row.given))
            }
        }
        var stored: [String: Record] = [:]
        for record in existing.filter({ $0.deletedAt == nil }).sorted(by: { $0.createdAt < $1.createdAt }) where stored[record.importKey] == nil {
            stored[record.importKey] = record
        }
        var writes: [Record] = []
        for item in combined {
            var result: Record
            let action: Action
            var detail: String?
            if let current = stored[item.key] {
                guard rule != .skip else {
                    entries.append(Entry(action: .skip, lines: item.lines, title: current.importTitle, detail: "already there; left as it is"))
                    continue
                }
                let (merged, changes) = current.merging(item.record, given: item.given, rule: rule)
                guard merged != current else {
                    entries.append(Entry(action: .unchanged, lines: item.lines, title: current.importTitle, detail: "already as in the file"))
                    continue
                }
                result = merged
                // Later than the stored change, whatever the clocks say, or last-write-wins would keep it.
                result.updatedAt = current.updatedAt >= now ? Date(millisecondsSince1970: current.updatedAt.millisecondsSince1970 + 1) : now
                action = .merge
                detail = changes.joined(separator: "; ")
            } else {
                result = item.record
                result.id = UUID()
                result.createdAt = now
                result.updatedAt = now
                action = .add
                if item.lines.count > 1 { detail = "\(item.lines.count) rows combined (\(rule.explanation))" }
            }
            let problems = result.validationErrors
            if !problems.isEmpty {
                entries.append(Entry(action: .skip, lines: item.lines, title: result.importTitle,
                                     detail: problems.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")))
                continue
            }
            entries.append(Entry(action: action, lines: item.lines, title: result.importTitle, detail: detail))
            writes.append(result)
        }
        entries.sort { ($0.lines.first ?? 0) < ($1.lines.first ?? 0) }
        return ImportPlan(entries: entries, writes: writes, rule: rule)
    }
}
