import Foundation
import SeleneShared

/// The briefing's sentence check (`BriefingContextBuilder.supported`) measured on a second set,
/// without a model (`--only briefings`): `Benchmarks/selene-briefings` holds six mornings of
/// notes, threads and tasks with briefing sentences labelled by hand — supported (every claim is
/// in what the briefing was given) or invented (the kind of sentence a small model adds). The set
/// was written after the rule and never tuned on. Each morning's sentences go through the check
/// as one briefing (a sentence a line, as models write them); the figures are how many supported
/// sentences it keeps and how many invented ones it takes out, and how often a briefing made only
/// of invented sentences falls back to the one written from the data (as it should, every time).
enum BriefingBench {
    struct Morning: Decodable {
        struct Written: Decodable { var title: String?; var content: String }
        struct Thread: Decodable { var name: String; var summary: String }
        struct Sentence: Decodable { var text: String; var label: String }
        var name: String
        var notes: [Written]
        var threads: [Thread]
        var tasks: [String]
        var sentences: [Sentence]

        var context: BriefingContext {
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let notes = notes.enumerated().map { i, note in
                Note(id: Int64(i + 1), title: note.title, content: note.content, createdAt: now, source: .web, contentHash: "h\(i)")
            }
            let threads = threads.enumerated().map { i, thread in
                NoteThread(id: Int64(i + 1), name: thread.name, summary: thread.summary, status: .active, momentum: 1,
                           lastActivityAt: now, createdAt: now, noteCount: notes.count)
            }
            let tasks = tasks.enumerated().map { i, title in
                ThreadTask(id: Int64(i + 1), threadId: 1, title: title, status: .open, sourceNoteId: nil, createdAt: now, completedAt: nil)
            }
            return BriefingContext(date: "2026-09-21", newNotes: notes, threads: threads, associations: [], tasks: tasks)
        }
    }
    struct Set: Decodable { var mornings: [Morning] }

    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        let set = try JSONDecoder().decode(Set.self, from: Data(contentsOf: URL(fileURLWithPath: "Benchmarks/selene-briefings/briefings.json")))
        var supported = 0, kept = 0, invented = 0, removed = 0, fellBack = 0
        print("== The briefing's sentence check on a second set (Benchmarks/selene-briefings; model-free, never tuned on)")
        for morning in set.mornings {
            let context = morning.context
            let text = morning.sentences.map(\.text).joined(separator: "\n")
            let out = BriefingContextBuilder.supported(text, in: context)
            let taken = Swift.Set((out?.removed ?? []).map { $0.trimmingCharacters(in: .whitespaces) })
            var s = 0, k = 0, i = 0, r = 0
            for sentence in morning.sentences {
                // A briefing the check gave up on keeps nothing of the model's: the data's briefing is shown.
                let gone = out == nil || taken.contains(sentence.text)
                if sentence.label == "supported" { s += 1; if !gone { k += 1 } } else { i += 1; if gone { r += 1 } }
                if gone != (sentence.label == "invented") { print("     misjudged (\(sentence.label), \(gone ? "taken out" : "kept")): \(sentence.text)") }
            }
            let onlyInvented = morning.sentences.filter { $0.label == "invented" }.map(\.text).joined(separator: "\n")
            let fallback = BriefingContextBuilder.supported(onlyInvented, in: context) == nil
            if fallback { fellBack += 1 }
            supported += s; kept += k; invented += i; removed += r
            print("   \(morning.name): supported kept \(k) of \(s), invented taken out \(r) of \(i)\(out == nil ? " (whole briefing fell back)" : ""); invented alone \(fallback ? "falls back" : "is kept")")
        }
        let keptShare = Double(kept) / Double(max(supported, 1)), removedShare = Double(removed) / Double(max(invented, 1))
        print(String(format: "   all: supported sentences kept %d of %d (%.2f), invented taken out %d of %d (%.2f); briefings of invented sentences alone falling back %d of %d",
                     kept, supported, keptShare, removed, invented, removedShare, fellBack, set.mornings.count))
        print("   without the check every sentence is shown: supported kept 1.00, invented taken out 0.00")
        report.add("briefing check: supported sentences kept", database: nil, value: keptShare, unit: "share", baseline: 1, baselineName: "no check")
        report.add("briefing check: invented sentences taken out (none without the check)", database: nil, value: removedShare, unit: "share")
        report.add("briefing check: invented-only briefings falling back", database: nil, value: Double(fellBack), unit: "of \(set.mornings.count)")
    }
}
