import ArgumentParser
import Foundation
import StitchCore
import StitchKit

/// A project's patterns, and a PDF chart's colour key read into the project's thread list.
struct Patterns: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A project's patterns (PDF charts and pictures, added in the app or the web app); read a chart's colour key into its thread list.",
        subcommands: [List.self, Key.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The patterns of a project.")
        @Argument(help: "The project: its title or id prefix") var project: String
        @OptionGroup var output: JSONFlag
        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let p = try resolveProject(project, in: ctx.store)
                let patterns = try ctx.store.all(Pattern.self).filter { $0.projectId == p.id && $0.deletedAt == nil }
                    .sorted { ($0.createdAt, $0.id.text) < ($1.createdAt, $1.id.text) }
                if output.json { return print(try Output.json(patterns)) }
                guard !patterns.isEmpty else { return print("No patterns yet. Add a PDF chart or a picture in the app or the web app.") }
                print(Output.table(["id", "title", "last page read"], patterns.map { [Output.short($0.id), $0.title, String($0.lastPage)] }))
            }
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a PDF chart's colour key (needs the server): the threads it names, what you have, what to buy.",
            discussion: """
                With --add the threads are added to the pattern's project (all but those it already needs and those --skip names), \
                quantities as read unless --quantity says otherwise, in a section if --section says so. Threads are named as \
                BRAND NUMBER: --skip "DMC 310" --quantity "DMC 3865=4" --section "DMC 321=Border".
                """)
        @Argument(help: "The pattern: its title or id prefix") var pattern: String
        @Flag(help: "Add the key's threads to the project's thread list") var add = false
        @Option(help: "A thread not to add, as \"BRAND NUMBER\" (repeatable)") var skip: [String] = []
        @Option(help: "Skeins for a thread, as \"BRAND NUMBER=N\" (repeatable)") var quantity: [String] = []
        @Option(help: "The project's section for a thread, as \"BRAND NUMBER=SECTION\" (repeatable)") var section: [String] = []
        @OptionGroup var output: JSONFlag

        func run() async throws {
            try await Stitch.run {
                let ctx = try Context.open()
                let chart = try Patterns.find(pattern, in: ctx.store)
                let proposal = try await ctx.api.chartKey(patternId: chart.id)
                guard add else {
                    if output.json { return print(try Output.json(proposal)) }
                    return print(Patterns.describe(proposal))
                }
                let confirmation = try Patterns.confirmation(proposal, skip: skip, quantity: quantity, section: section, store: ctx.store)
                guard !confirmation.rows.isEmpty else {
                    throw CLIError("Nothing to add: the project already needs every thread of the key, or --skip left none", code: .invalid)
                }
                let result = try await ctx.api.confirmChartKey(patternId: chart.id, confirmation)
                if output.json { return print(try Output.json(result)) }
                var said = "Added \(result.added.count) thread\(result.added.count == 1 ? "" : "s") to the project: "
                    + result.added.map { "\($0.brand) \($0.number) × \($0.quantityNeeded)" }.joined(separator: ", ") + "."
                if !result.alreadyRequired.isEmpty { said += " Already on its list: \(result.alreadyRequired.joined(separator: ", "))." }
                print("\(said) \(await ctx.syncSoon())")
            }
        }
    }

    /// A pattern by title or id prefix.
    static func find(_ reference: String, in store: LocalStore) throws -> Pattern {
        let live = try store.all(Pattern.self).filter { $0.deletedAt == nil }
        let byTitle = live.filter { $0.title.caseInsensitiveCompare(reference) == .orderedSame }
        if byTitle.count == 1 { return byTitle[0] }
        return try resolve(Pattern.self, reference, in: store) { "\($0.title) (\(Output.short($0.id)))" }
    }

    /// The key as a table, with what couldn't be read.
    static func describe(_ proposal: ChartKeyProposal) -> String {
        var lines = [proposal.message]
        if !proposal.rows.isEmpty {
            lines.append("")
            lines.append(Output.table(["thread", "name", "skeins", "how", "you have", "note"], proposal.rows.map { row in
                let t = row.thread
                var notes: [String] = []
                if row.alreadyRequired { notes.append("already on the project's list") }
                if t.nameDisagrees { notes.append("the chart says \(t.printedName ?? ""): check the number") }
                if !t.blendedWith.isEmpty { notes.append("blended with " + t.blendedWith.joined(separator: " and ")) }
                if row.owned < t.quantity, let s = row.substitutes.first(where: { $0.owned > 0 }) ?? row.substitutes.first {
                    notes.append("nearest \(s.brand) \(s.number)" + (s.owned > 0 ? " (you have \(s.owned))" : ""))
                }
                let how = switch t.rule {
                case .key: "key"
                case .stitches: "\(t.stitches ?? 0) stitches"
                case .guess: "guess"
                }
                return [t.label, t.catalogName ?? t.printedName ?? "", String(t.quantity), how, String(row.owned), notes.joined(separator: "; ")]
            }))
            if proposal.rows.contains(where: { $0.thread.rule == .stitches }) {
                lines.append("Skeins from stitch counts are estimated for \(proposal.count) count (\(proposal.countSource)).")
            }
        }
        if !proposal.unread.isEmpty {
            lines.append("")
            lines.append("Not read (add them by hand if the project needs them):")
            lines += proposal.unread.map { "  page \($0.page): \($0.text) — \($0.reason)" }
        }
        return lines.joined(separator: "\n")
    }

    /// The rows to add: every thread the project doesn't already need, less --skip, with
    /// --quantity and --section applied. A name that isn't a thread of the key is an error.
    static func confirmation(_ proposal: ChartKeyProposal, skip: [String], quantity: [String], section: [String],
                             store: LocalStore) throws -> ChartKeyConfirmation {
        func row(_ words: String, option: String) throws -> ChartKeyProposal.Row {
            let parts = words.split(separator: " ").map(String.init)
            guard parts.count >= 2, let match = proposal.rows.first(where: {
                $0.thread.brand.caseInsensitiveCompare(parts.dropLast().joined(separator: " ")) == .orderedSame
                    && $0.thread.number.caseInsensitiveCompare(parts.last!) == .orderedSame
            }) else { throw CLIError("--\(option) \"\(words)\": not a thread of this chart's key", code: .invalid) }
            return match
        }
        func pairs(_ values: [String], option: String) throws -> [(ChartKeyProposal.Row, String)] {
            try values.map { value in
                let parts = value.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[1].isEmpty else { throw CLIError("--\(option) takes \"BRAND NUMBER=VALUE\", not \"\(value)\"", code: .usage) }
                return (try row(parts[0], option: option), parts[1])
            }
        }
        let skipped = Set(try skip.map { try row($0, option: "skip").thread.label })
        var quantities: [String: Int] = [:]
        for (match, value) in try pairs(quantity, option: "quantity") {
            guard let n = Int(value), n >= 1 else { throw CLIError("--quantity \(match.thread.label): skeins are a whole number from 1", code: .invalid) }
            quantities[match.thread.label] = n
        }
        let sections = try store.all(ProjectSection.self).filter { $0.projectId == proposal.projectId && $0.deletedAt == nil }
        var sectionOf: [String: UUID] = [:]
        for (match, name) in try pairs(section, option: "section") {
            guard let found = sections.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw CLIError("No section \(name) in this project (it has: \(sections.map(\.name).joined(separator: ", ")))", code: .notFound)
            }
            sectionOf[match.thread.label] = found.id
        }
        return ChartKeyConfirmation(rows: proposal.rows.filter { !$0.alreadyRequired && !skipped.contains($0.thread.label) }.map { row in
            .init(brand: row.thread.brand, number: row.thread.number, quantityNeeded: quantities[row.thread.label] ?? row.thread.quantity,
                  sectionId: sectionOf[row.thread.label])
        })
    }
}
