import Foundation
import SeleneServer
import SeleneShared
import SQLKit
import Vapor

/// The model server as Selene uses it, whatever backend the environment configures
/// (`SELENE_LLM_PROVIDER`, `SELENE_LLM_URL`, `SELENE_CHAT_MODEL`, `SELENE_EMBED_*`; see README):
/// seconds per processed note through the real queue (median, p95) against the bare model calls
/// it makes (one analysis, one embedding) measured on the same notes; generated tokens per second;
/// a chat answer's time to its first piece and to its end through `LLMClient` against the
/// backend's own stream; the share of analyses valid at the first try; and what asking for a
/// note's people and places costs (#85): each note's bare analysis asked with, without them, and
/// as processing asks.
enum LLMBench {
    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        guard let settings = try SeleneConfig.llmSettings({ ProcessInfo.processInfo.environment[$0] }) else {
            throw SeleneConfigError("selene-bench --only llm needs a model server: set SELENE_LLM_URL (and SELENE_LLM_PROVIDER, the models)")
        }
        let corpus = try String(contentsOfFile: "Benchmarks/selene-notes/corpus.jsonl", encoding: .utf8).split(separator: "\n")
            .map { try SeleneJSON.decode(Document.self, from: Data($0.utf8)) }
        let notes = Array(corpus.prefix(options.llmNotes))
        print("== LLM: \(settings.provider.rawValue) at \(settings.baseURL), \(settings.chatModel) / \(settings.embeddingModel); \(notes.count) notes")

        try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = settings }) { app in
            let llm = app.selene.llm!
            let health = await llm.health()
            guard health.available else { throw SeleneConfigError("The model server isn't ready: \(health.reason ?? "unknown")") }

            let bare = await bareCalls(notes, llm: llm, settings: settings)
            let names = await namesCost(notes, llm: llm, settings: settings)
            let (processed, outcomes, indexing) = try await throughQueue(notes, app: app)
            let (selene, raw) = try await chatStreams(notes, llm: llm, settings: settings)

            let median = SeleneBench.median, p95 = { SeleneBench.percentile($0, 0.95) }
            report.add("seconds per processed note, median", database: nil, value: median(processed) / 1000, unit: "s",
                       baseline: median(bare.ms) / 1000, baselineName: "bare analysis + embedding")
            report.add("seconds per processed note, p95", database: nil, value: p95(processed) / 1000, unit: "s",
                       baseline: p95(bare.ms) / 1000, baselineName: "bare analysis + embedding")
            report.add("of which indexing what the model understood (facts), median", database: nil, value: median(indexing), unit: "ms",
                       baseline: median(processed), baselineName: "the whole of processing a note (ms)")
            report.add("notes processed / failed", database: nil, value: Double(outcomes.done), unit: "processed", baseline: Double(outcomes.failed),
                       baselineName: "failed", ratio: Double(outcomes.done) / Double(max(1, notes.count)))
            if bare.failedCalls > 0 { print("\(bare.failedCalls) bare embedding call(s) failed (see the figures' baseline with care)") }
            report.add("analyses valid at the first try", database: nil, value: Double(bare.firstTry) / Double(max(1, notes.count)), unit: "share")
            if bare.analyses > 0 {
                report.add("people and places in the model's analysis (characters of its JSON)", database: nil,
                           value: Double(bare.nameCharacters) / Double(bare.analyses), unit: "characters",
                           baseline: Double(bare.answerCharacters) / Double(bare.analyses), baselineName: "the whole analysis")
                report.add("notes it named a person or a place in", database: nil, value: Double(bare.naming) / Double(bare.analyses), unit: "share")
            }
            let mean = { (values: [Int]) in values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count) }
            let never = median(names.never) / 1000, neverName = "the same notes asked without people and places (the prompt before)"
            report.add("seconds per bare analysis, always asking for people and places", database: nil, value: median(names.asking) / 1000, unit: "s",
                       baseline: never, baselineName: neverName)
            report.add("seconds per analysis as processing asks (people and places where the note has a name: \(names.withNames) of \(notes.count))",
                       database: nil, value: median(names.processing) / 1000, unit: "s", baseline: never, baselineName: neverName)
            report.add("seconds per analysis as processing asks, mean", database: nil, value: names.processing.reduce(0, +) / Double(max(1, names.processing.count)) / 1000,
                       unit: "s", baseline: names.never.reduce(0, +) / Double(max(1, names.never.count)) / 1000, baselineName: "without people and places, mean")
            report.add("tokens the model writes per analysis, always asking for people and places", database: nil, value: mean(names.tokens.asking), unit: "tokens",
                       baseline: mean(names.tokens.never), baselineName: "without them")
            if bare.generating > 0 {
                report.add("generated tokens per second (analyses)", database: nil, value: Double(bare.tokens) / (bare.generating / 1000), unit: "tokens/s")
            }
            report.add("chat: time to first piece", database: nil, value: median(selene.map(\.first)), unit: "s",
                       baseline: median(raw.map(\.first)), baselineName: "the backend's own stream")
            report.add("chat: time to the end", database: nil, value: median(selene.map(\.whole)), unit: "s",
                       baseline: median(raw.map(\.whole)), baselineName: "the backend's own stream")
        }
    }

    struct Document: Decodable { var title: String?; var text: String }

    /// What asking for people and places costs (#85): each note's bare analysis asked three ways
    /// in turn (the order rotating from note to note) — always asking for them, never (the prompt
    /// before), and as processing asks (`LLMClient.analyse`: only where the note has a name) —
    /// milliseconds of each, and the mean tokens the model wrote where the server says.
    struct NamesCost {
        var asking: [Double] = [], never: [Double] = [], processing: [Double] = []
        var tokens: (asking: [Int], never: [Int]) = ([], [])
        var withNames = 0
    }

    static func namesCost(_ notes: [Document], llm: LLMClient, settings: SeleneConfig.LLM) async -> NamesCost {
        var cost = NamesCost()
        for (index, doc) in notes.enumerated() {
            let prompt = ProcessingPrompts.analysis(title: doc.title, content: doc.text, numCtx: settings.numCtx)
            if ProperNames.any(in: [doc.title ?? "", doc.text].joined(separator: "\n")) { cost.withNames += 1 }
            let ways = [0, 1, 2]
            for way in ways[(index % 3)...] + ways[..<(index % 3)] {
                var written: Int?
                let ms = await SeleneBench.time {
                    switch way {
                    case 0: written = try? await llm.structuredWithStats(NoteAnalysis.self, system: ProcessingPrompts.analysisSystem, prompt: prompt).tokens
                    case 1: written = try? await llm.structuredWithStats(AnalysisWithoutNames.self, system: ProcessingPrompts.analysisSystem(askingNames: false),
                                                                         prompt: prompt).tokens
                    default: _ = try? await llm.analyseWithStats(title: doc.title, content: doc.text, numCtx: settings.numCtx)
                    }
                }
                switch way {
                case 0: cost.asking.append(ms); if let written { cost.tokens.asking.append(written) }
                case 1: cost.never.append(ms); if let written { cost.tokens.never.append(written) }
                default: cost.processing.append(ms)
                }
            }
        }
        return cost
    }

    /// Bare model calls, one analysis and one embedding per note: what processing a note costs at the least.
    struct BareCalls {
        var ms: [Double] = []
        var firstTry = 0, tokens = 0, generating = 0.0, failedCalls = 0
        /// Characters of the analyses as JSON, and of their people and places in it (#85: what
        /// asking for them adds to what the model writes, the most of a note's processing time).
        var answerCharacters = 0, nameCharacters = 0, naming = 0, analyses = 0
    }

    static func bareCalls(_ notes: [Document], llm: LLMClient, settings: SeleneConfig.LLM) async -> BareCalls {
        var bare = BareCalls()
        for doc in notes {
            var stats: (tries: Int, tokens: Int?) = (0, nil)
            var failed = false
            let ms = await SeleneBench.time {
                // Asked as processing asks (people and places only of a note with a name in it).
                let analysis = try? await llm.analyseWithStats(title: doc.title, content: doc.text, numCtx: settings.numCtx)
                stats = (analysis?.tries ?? 0, analysis?.tokens)
                if let value = analysis?.value {
                    bare.analyses += 1
                    bare.answerCharacters += (try? SeleneJSON.encode(value).count) ?? 0
                    // `"people":[…],"places":[…]` (their object without its braces) and the comma joining them to the rest.
                    bare.nameCharacters += ((try? SeleneJSON.encode(["people": value.people, "places": value.places]).count) ?? 2) - 1
                    if !value.people.isEmpty || !value.places.isEmpty { bare.naming += 1 }
                    if bare.naming <= 8, !value.people.isEmpty || !value.places.isEmpty {
                        print("   \(doc.title.flatMap { $0.isEmpty ? nil : $0 } ?? String(doc.text.prefix(40))): people \(value.people), places \(value.places)")
                    }
                }
                failed = (try? await llm.embed([ProcessingPrompts.embeddingText(title: doc.title, content: doc.text)])) == nil
            }
            bare.ms.append(ms)
            if failed { bare.failedCalls += 1 }
            if stats.tries == 1 {
                bare.firstTry += 1
                if let t = stats.tokens { bare.tokens += t; bare.generating += ms }
            }
        }
        return bare
    }

    /// The same notes through the queue (capture, claim, analyse, embed, store, associate, place),
    /// one at a time; then what the facts' indexing (#85) adds to each, the same step again alone.
    static func throughQueue(_ notes: [Document], app: Application) async throws -> (processed: [Double], outcomes: ProcessingQueue.Summary, indexing: [Double]) {
        let store = NoteStore(db: app.db)
        for doc in notes {
            let input = try CaptureInput(content: doc.text, title: doc.title.flatMap { $0.isEmpty ? nil : $0 }, source: .import).validated()
            _ = try await store.capture(input, idempotent: false, now: Date())
        }
        let queue = ProcessingQueue(db: app.writeDB, services: app.selene, owner: "bench", logger: app.logger)
        var processed: [Double] = []
        var outcomes = ProcessingQueue.Summary()
        for _ in notes {
            var summary = ProcessingQueue.Summary()
            processed.append(try await SeleneBench.time { summary = try await queue.runOnce(limit: 1) })
            outcomes.done += summary.done
            outcomes.failed += summary.failed
        }
        var indexing: [Double] = []
        let facts = NoteFactsStore(db: app.writeDB)
        for id in try await store.notes(ids: Array(1...notes.count)).map({ Int($0.id) }) {
            indexing.append(try await SeleneBench.time { try await facts.refresh(noteIds: [id]) })
        }
        return (processed, outcomes, indexing)
    }

    typealias StreamTimes = (first: Double, whole: Double)

    /// A chat answer streamed three times: through LLMClient, and the backend's own stream as the baseline.
    static func chatStreams(_ notes: [Document], llm: LLMClient, settings: SeleneConfig.LLM) async throws -> (selene: [StreamTimes], raw: [StreamTimes]) {
        let messages = [LLMMessage(role: .system, content: "You answer briefly from the person's notes."),
                        LLMMessage(role: .user, content: "Notes:\n" + notes.prefix(5).map { "- \($0.text)" }.joined(separator: "\n")
                                   + "\n\nQuestion: what do my notes say about the garden?")]
        func streamed(_ open: () async throws -> AsyncThrowingStream<String, any Error>) async throws -> StreamTimes {
            let start = DispatchTime.now().uptimeNanoseconds
            var first: Double?
            for try await _ in try await open() where first == nil {
                first = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            }
            return (first ?? .nan, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        var selene: [StreamTimes] = [], raw: [StreamTimes] = []
        for _ in 0..<3 {
            raw.append(try await streamed { try await llm.chatBackend.chatStream(messages, model: settings.chatModel, temperature: 0) })
            selene.append(try await streamed { try await llm.chatStream(messages, temperature: 0) })
        }
        return (selene, raw)
    }
}
