import Foundation
import SeleneServer
import SeleneShared
import Vapor

/// Answers measured against the truth (`--only answers`): each question of
/// `Benchmarks/selene-answers` asked through the real pipeline (retrieval → prompt → the model the
/// environment configures → citations, as the web app asks it) and again with only the note that
/// answers it shown (the model's own ceiling), so retrieval's share and the model's are apart.
/// Per answer: does it hold the expected fact (all its words: "contains"; token F1), does it cite
/// the note that holds it (citation recall), are its citations that note (precision), by the model
/// or by Selene, template-token leaks, seconds. Selene's citation threshold is chosen here on the
/// tuning half (precision weighted twice recall, F0.5) and reported on the other half.
enum AnswerBench {
    struct Question { var id: String; var text: String; var note: String; var answer: String; var half: String }
    struct Answered { var question: Question; var raw: String; var context: ChatContext; var seconds: Double; var retrieved: Bool }

    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        guard let settings = try SeleneConfig.llmSettings({ ProcessInfo.processInfo.environment[$0] }) else {
            throw SeleneConfigError("selene-bench --only answers needs a model server: set SELENE_LLM_URL (and SELENE_LLM_PROVIDER, the models)")
        }
        let names = Set(AnswerPipeline.standard.steps.map(\.name))
        guard options.without.isSubset(of: names) else {
            throw SeleneConfigError("--without takes answer steps: \(AnswerPipeline.standard.steps.map(\.name).joined(separator: ", "))")
        }
        let steps = AnswerPipeline.standard.without(options.without)
        let (corpus, questions) = try development("Benchmarks/selene-answers")
        print("== Answers: \(settings.chatModel) at \(settings.baseURL); \(corpus.count) notes, \(questions.count) questions")
        let (pipeline, ceiling, noteOf) = try await askAll(questions, about: corpus, settings: settings)
        chooseCitations(pipeline, noteOf, steps: steps)
        if !options.without.isEmpty { print("   (steps off: \(options.without.sorted().joined(separator: ", ")))") }
        for (name, set) in [("pipeline", pipeline), ("answer note alone", ceiling)] {
            score(name, set, noteOf, steps: steps, without: options.without, report: &report)
        }
    }

    /// The notes and the questions, each with the note that answers it and its half.
    static func development(_ path: String) throws -> ([QualityBench.Document], [Question]) {
        let corpus = try QualityBench.lines(path + "/corpus.jsonl", as: QualityBench.Document.self)
        struct Raw: Decodable { var _id: String; var text: String; var metadata: [String: String] }
        let questions = try QualityBench.lines(path + "/queries.jsonl", as: Raw.self).map {
            Question(id: $0._id, text: $0.text, note: $0.metadata["note"] ?? "", answer: $0.metadata["answer"] ?? "", half: $0.metadata["half"] ?? "test")
        }
        return (corpus, questions)
    }

    /// Every question asked through the pipeline, and again with only its answer note shown;
    /// `noteOf` maps a document's id to the note it became.
    static func askAll(_ questions: [Question], about corpus: [QualityBench.Document], settings: SeleneConfig.LLM) async throws
        -> (pipeline: [Answered], ceiling: [Answered], noteOf: [String: Int]) {
        try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = settings }) { app in
            let llm = app.selene.llm!
            guard await llm.health().available else { throw SeleneConfigError("The model server isn't ready") }
            var vectors: [[Float]] = []
            for start in stride(from: 0, to: corpus.count, by: 32) {
                vectors += try await llm.embed(corpus[start..<min(start + 32, corpus.count)].map { ProcessingPrompts.embeddingText(title: $0.title, content: $0.text) })
            }
            let docOf = try await QualityBench.load(corpus, vectors: vectors, chunks: [], model: app.selene.vectors.model ?? "all-minilm", into: app)
            let noteOf = Dictionary(uniqueKeysWithValues: docOf.map { ($0.value, $0.key) })
            let engine = app.seleneChatEngine()
            let notes = try await NoteStore(db: app.db).notes(ids: Array(docOf.keys))
            let byDoc = Dictionary(uniqueKeysWithValues: notes.compactMap { note in docOf[Int(note.id)].map { ($0, note) } })

            var pipeline: [Answered] = [], ceiling: [Answered] = []
            for q in questions {
                let session = ChatSession(title: q.text, createdAt: Date(), updatedAt: Date())
                let (_, context, messages) = try await engine.prompt(q.text, in: session)
                let started = Date()
                let raw = (try? await engine.llm.complete(messages)) ?? ""
                let answerNote = noteOf[q.note].map(Int64.init)
                pipeline.append(Answered(question: q, raw: raw, context: context, seconds: Date().timeIntervalSince(started),
                                         retrieved: context.notes.values.contains { $0.id == answerNote }))
                guard let note = byDoc[q.note] else { continue }
                let alone = ContextBuilder().build(notes: [note])
                let started2 = Date()
                let raw2 = (try? await engine.llm.complete(PromptBuilder.chat(question: q.text, context: alone, summary: nil, history: [], mode: .chat))) ?? ""
                ceiling.append(Answered(question: q, raw: raw2, context: alone, seconds: Date().timeIntervalSince(started2), retrieved: true))
                print("   \(q.id): \(raw.prefix(100).replacingOccurrences(of: "\n", with: " ")) | alone: \(raw2.prefix(60).replacingOccurrences(of: "\n", with: " "))")
            }
            return (pipeline, ceiling, noteOf)
        }
    }

    static func fHalf(_ s: Scores) -> Double { s.precision + s.recall == 0 ? 0 : 1.25 * s.precision * s.recall / (0.25 * s.precision + s.recall) }

    /// Selene's citation threshold, chosen on the tuning half's pipeline answers (printed beside
    /// the default's).
    static func chooseCitations(_ pipeline: [Answered], _ noteOf: [String: Int], steps: AnswerPipeline) {
        var candidates: [CitationAttribution.Settings] = []
        for share in [0.2, 0.25, 0.34, 0.5, 0.67] {
            for lead in [0.0, 0.15, 0.3] { candidates.append(.init(minShare: share, minShared: 2, minLead: lead)) }
        }
        let tuning = pipeline.filter { $0.question.half == "dev" }
        let chosen = candidates.max { fHalf(score(tuning, noteOf, $0, steps: steps)) < fHalf(score(tuning, noteOf, $1, steps: steps)) } ?? .default
        print(String(format: "   Selene's citations on the tuning half: default (share %.2f, lead %.2f) F0.5 %.3f; best (share %.2f, lead %.2f) F0.5 %.3f",
                     CitationAttribution.Settings.default.minShare, CitationAttribution.Settings.default.minLead, fHalf(score(tuning, noteOf, .default, steps: steps)),
                     chosen.minShare, chosen.minLead, fHalf(score(tuning, noteOf, chosen, steps: steps))))
    }

    /// One set of answers scored on the reported half, each rule and each step switched off
    /// alone on both halves, and its figures added to the report.
    static func score(_ name: String, _ set: [Answered], _ noteOf: [String: Int], steps: AnswerPipeline, without: Set<String>, report: inout Report) {
        let held = set.filter { $0.question.half == "test" }
        let tuned = set.filter { $0.question.half == "dev" }
        let s = score(held, noteOf, .default, steps: steps)
        print(String(format: "   %@ (reported half, %d): contains %.2f, token F1 %.2f, cites the answer note %.2f (model %.2f), citation precision %.2f, retrieved %.2f, leaks %d, %.1f s/answer",
                     name, held.count, s.contains, s.f1, s.recall, s.modelRecall, s.precision, s.retrieved, s.leaks, s.seconds))
        rulesOff(set, held: held, tuned: tuned, noteOf, steps: steps)
        // Each named step of the pipeline switched off alone: what it is worth, on both halves.
        for step in AnswerPipeline.standard.steps.map(\.name) where !without.contains(step) {
            let off = steps.without([step])
            let reported = score(held, noteOf, .default, steps: off), tuning = score(tuned, noteOf, .default, steps: off)
            print(String(format: "   … step %@ off: holding the fact %.2f reported / %.2f tuning (as is %.2f / %.2f); citation precision %.2f / %.2f",
                         step, reported.contains, tuning.contains, s.contains, score(tuned, noteOf, .default, steps: steps).contains,
                         reported.precision, tuning.precision))
        }
        let none = AnswerPassage.Settings(checksFigures: false, quotesMissingFigure: false, quotesNextFigure: false)
        let unchecked = score(held, noteOf, .init(dropsCopies: false), passage: none, steps: steps)
        report.add("answers holding the fact (\(name))", database: nil, value: s.contains, unit: "share",
                   baseline: unchecked.contains, baselineName: "none of these rules")
        report.add("answers' token F1 (\(name))", database: nil, value: s.f1, unit: "")
        report.add("answers citing the answer note (\(name))", database: nil, value: s.recall, unit: "share", baseline: s.modelRecall, baselineName: "the model's own citations")
        report.add("citation precision (\(name))", database: nil, value: s.precision, unit: "share")
        report.add("template-token leaks (\(name))", database: nil, value: Double(s.leaks), unit: "answers")
        report.add("seconds per answer (\(name))", database: nil, value: s.seconds, unit: "s")
    }

    /// Each of the rules that make an answer what a person reads, switched off alone, on both
    /// halves (the tuning half saw them written): figures no shown note holds bring the note's
    /// sentence, so does an answer without a figure where the sentence has one, the sentence takes
    /// the next one's figure (`AnswerPassage`), and lines copying a note about something else or a
    /// note's day go (`CitationAttribution`).
    static func rulesOff(_ set: [Answered], held: [Answered], tuned: [Answered], _ noteOf: [String: Int], steps: AnswerPipeline) {
        let none = AnswerPassage.Settings(checksFigures: false, quotesMissingFigure: false, quotesNextFigure: false)
        let variants: [(String, CitationAttribution.Settings, AnswerPassage.Settings)] = [
            ("as is", .default, .default), ("figures unchecked", .default, .init(checksFigures: false)),
            ("no quote for a missing figure", .default, .init(quotesMissingFigure: false)),
            ("quote without the next figure", .default, .init(quotesNextFigure: false)),
            ("copied lines kept", .init(dropsCopies: false), .default), ("none of these", .init(dropsCopies: false), none)]
        let asIs = Set(set.filter { holds($0, .default, .default, steps) }.map(\.question.id))
        for (variant, attribution, passage) in variants {
            let reported = score(held, noteOf, attribution, passage: passage, steps: steps)
            let tuning = score(tuned, noteOf, attribution, passage: passage, steps: steps)
            // Which answers the rule decides: "-id" holds the fact only with the rule, "+id" only without it.
            let without = Set(set.filter { holds($0, attribution, passage, steps) }.map(\.question.id))
            let decided = (asIs.subtracting(without).sorted().map { "-" + $0 } + without.subtracting(asIs).sorted().map { "+" + $0 }).joined(separator: " ")
            print(String(format: "   … %@: holding the fact %.2f reported / %.2f tuning; token F1 %.2f / %.2f; citation precision %.2f / %.2f%@",
                         variant, reported.contains, tuning.contains, reported.f1, tuning.f1, reported.precision, tuning.precision,
                         decided.isEmpty ? "" : " (\(decided))"))
        }
    }

    /// Whether the answer as resolved holds all the expected answer's words.
    static func holds(_ a: Answered, _ attribution: CitationAttribution.Settings, _ passage: AnswerPassage.Settings, _ steps: AnswerPipeline) -> Bool {
        holds(ChatEngine.resolve(a.raw, context: a.context, question: a.question.text, attribution: attribution, passage: passage, pipeline: steps).text,
              a.question)
    }

    static func holds(_ text: String, _ question: Question) -> Bool {
        let expected = TextTokens.words(question.answer)
        return !expected.isEmpty && Set(expected).isSubset(of: Set(TextTokens.words(text)))
    }

    struct Scores { var contains = 0.0, f1 = 0.0, recall = 0.0, modelRecall = 0.0, precision = 0.0, retrieved = 0.0, leaks = 0, seconds = 0.0 }

    static func score(_ answers: [Answered], _ noteOf: [String: Int], _ attribution: CitationAttribution.Settings,
                      passage: AnswerPassage.Settings = .default, steps: AnswerPipeline = .standard) -> Scores {
        var s = Scores()
        var cited = 0, right = 0
        for a in answers {
            let parsed = ChatEngine.resolve(a.raw, context: a.context, question: a.question.text, attribution: attribution, passage: passage, pipeline: steps)
            let expected = TextTokens.words(a.question.answer), got = TextTokens.words(parsed.text)
            if holds(parsed.text, a.question) { s.contains += 1 }
            s.f1 += f1(got, expected)
            let answerNote = noteOf[a.question.note].map(Int64.init)
            if parsed.citedNoteIds.contains(where: { $0 == answerNote }) { s.recall += 1 }
            if parsed.citations.contains(where: { $0.noteId == answerNote && !$0.bySelene }) { s.modelRecall += 1 }
            cited += parsed.citations.count
            right += parsed.citations.filter { $0.noteId == answerNote }.count
            if TemplateTokens.clean(a.raw).removed > 0 { s.leaks += 1 }
            if a.retrieved { s.retrieved += 1 }
            s.seconds += a.seconds
        }
        let n = Double(max(1, answers.count))
        s.contains /= n; s.f1 /= n; s.recall /= n; s.modelRecall /= n; s.retrieved /= n; s.seconds /= n
        s.precision = cited == 0 ? 0 : Double(right) / Double(cited)
        return s
    }

    /// SQuAD's token F1 between an answer and the expected one.
    static func f1(_ got: [String], _ expected: [String]) -> Double {
        var counts: [String: Int] = [:]
        for w in expected { counts[w, default: 0] += 1 }
        var common = 0
        for w in got where (counts[w] ?? 0) > 0 { counts[w]! -= 1; common += 1 }
        guard common > 0 else { return 0 }
        let p = Double(common) / Double(got.count), r = Double(common) / Double(expected.count)
        return 2 * p * r / (p + r)
    }
}
