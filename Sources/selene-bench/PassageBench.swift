import Foundation
import SeleneServer
import SeleneShared
import Vapor

/// Selene's quote under an answer that cites no note (`AnswerPassage`), measured without a
/// model (`--only passages`): every question is asked as if the model had cited nothing, through
/// the real retrieval and context (all-MiniLM-L6-v2 embeddings, as `--only quality` serves them),
/// and the quote Selene would add is held against the note that answers it. Figures: how many
/// questions get a quote, how many quotes come from an answer note (precision), how many
/// questions are quoted from their answer note (recall), and how often the answer note was shown
/// at all. The bar is chosen on `Benchmarks/selene-answers`' tuning half (precision weighted twice
/// recall, F0.5) and reported on its other half and on every question of `Benchmarks/selene-talk`
/// (chat conversations, each question searching its own: a second set of another shape, never
/// tuned on).
enum PassageBench {
    struct Asked { var text: String; var answers: Set<String>; var half: String; var context: ChatContext; var docOf: [Int: String] }
    struct Scores {
        var questions = 0, quoted = 0, right = 0, shown = 0
        var precision: Double { quoted == 0 ? 0 : Double(right) / Double(quoted) }
        var recall: Double { questions == 0 ? 0 : Double(right) / Double(questions) }
        var fHalf: Double { precision + recall == 0 ? 0 : 1.25 * precision * recall / (0.25 * precision + recall) }
    }

    static let grid: [AnswerPassage.Settings] = [0.34, 0.5, 0.67, 1.0].flatMap { share in [1, 2].map { AnswerPassage.Settings(minShare: share, minLead: $0) } }

    static func run(options: SeleneBench.Options, report: inout Report) async throws {
        let (url, helper) = try await QualityBench.embeddingServer(options.embedURL, model: options.embedModel)
        defer { helper?.terminate(); helper?.waitUntilExit() }
        let config = SeleneConfig.LLM(baseURL: url, chatModel: "none", embeddingModel: options.embedModel, requestTimeout: 600)

        // selene-answers: one person's notes, each question with the note that answers it.
        let answers = try QualityBench.lines("Benchmarks/selene-answers/corpus.jsonl", as: QualityBench.Document.self)
        struct Raw: Decodable { var _id: String; var text: String; var metadata: [String: String] }
        let answerQuestions = try QualityBench.lines("Benchmarks/selene-answers/queries.jsonl", as: Raw.self)
        let life = try await ask(answers, answerQuestions.map { ($0.text, Set([$0.metadata["note"] ?? ""]), $0.metadata["half"] ?? "test", "", Date()) }, config: config)

        // selene-talk: conversations; a question's answer notes are its judged messages.
        let talk = try QualityBench.lines("Benchmarks/selene-talk/corpus.jsonl", as: QualityBench.Document.self)
        var judged = try QualityBench.qrels("Benchmarks/selene-talk/qrels/test.tsv")
        judged.merge(try QualityBench.qrels("Benchmarks/selene-talk/qrels/dev.tsv")) { a, _ in a }
        let talkQuestions = try QualityBench.lines("Benchmarks/selene-talk/queries.jsonl", as: QualityBench.Query.self).compactMap { q -> (String, Set<String>, String, String, Date)? in
            guard let relevant = judged[q._id] else { return nil }
            return (q.text, Set(relevant.keys), "talk", q.metadata?["conversation"] ?? "", q.metadata?["asked"].flatMap(QualityBench.date) ?? Date())
        }
        let conversations = try await ask(talk, talkQuestions, config: config)

        let tuning = life.filter { $0.half == "dev" }
        // Equal F0.5: the stricter bar (the larger share, then the larger lead).
        let chosen = grid.max { (score(tuning, $0).fHalf, $0.minShare, $0.minLead) < (score(tuning, $1).fHalf, $1.minShare, $1.minLead) } ?? .default
        print("== Selene's quotes under answers that don't cite the note (model-free; \(tuning.count) questions to tune on; selene-talk beside, not tuned on)")
        for settings in grid {
            let s = score(tuning, settings), t = score(conversations, settings)
            print(String(format: "   share %.2f, lead %d: tuning half quoted %d of %d, precision %.2f, recall %.2f, F0.5 %.3f | selene-talk precision %.2f, recall %.2f, F0.5 %.3f%@",
                         settings.minShare, settings.minLead, s.quoted, s.questions, s.precision, s.recall, s.fHalf, t.precision, t.recall, t.fHalf,
                         settings == chosen ? "  ← chosen" : settings == .default ? "  (default)" : ""))
        }
        if chosen != .default {
            print(String(format: "   the tuning half chose share %.2f, lead %d; the default is share %.2f, lead %d", chosen.minShare, chosen.minLead,
                         AnswerPassage.Settings.default.minShare, AnswerPassage.Settings.default.minLead))
        }
        for (name, set) in [("selene-answers, reported half", life.filter { $0.half == "test" }), ("selene-talk, every question", conversations)] {
            let s = score(set, .default)
            print(String(format: "   %@ (%d): answer note shown %.2f; quoted %.2f; quotes from the answer note (precision) %.2f; questions quoted from it (recall) %.2f",
                         name, s.questions, Double(s.shown) / Double(max(1, s.questions)), Double(s.quoted) / Double(max(1, s.questions)), s.precision, s.recall))
            report.add("quote precision (\(name))", database: nil, value: s.precision, unit: "share")
            report.add("questions quoted from their answer note (\(name))", database: nil, value: s.recall, unit: "share",
                       baseline: Double(s.shown) / Double(max(1, s.questions)), baselineName: "answer note shown")
        }
    }

    /// Each question's context as chat builds it, in a database of `corpus` (one per conversation).
    static func ask(_ corpus: [QualityBench.Document], _ questions: [(text: String, answers: Set<String>, half: String, scope: String, at: Date)],
                    config: SeleneConfig.LLM) async throws -> [Asked] {
        let vectors = try await QualityBench.embeddings(corpus.map { ProcessingPrompts.embeddingText(title: $0.title, content: $0.text) }, config: config)
        let scopeOf = { (doc: QualityBench.Document) in doc.metadata?["conversation"] ?? "" }
        var asked: [Asked] = []
        for scope in Set(questions.map(\.scope)).sorted() {
            let docs = corpus.indices.filter { scopeOf(corpus[$0]) == scope }
            try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = config }) { app in
                let docOf = try await QualityBench.load(docs.map { corpus[$0] }, vectors: docs.map { vectors[$0] }, chunks: [], model: config.embeddingModel, into: app)
                for q in questions where q.scope == scope {
                    var engine = app.seleneChatEngine()
                    engine.now = { q.at }
                    let (_, context, _) = try await engine.prompt(q.text, in: ChatSession(title: q.text, createdAt: q.at, updatedAt: q.at))
                    asked.append(Asked(text: q.text, answers: q.answers, half: q.half, context: context, docOf: docOf))
                }
            }
        }
        return asked
    }

    static func score(_ asked: [Asked], _ settings: AnswerPassage.Settings) -> Scores {
        var s = Scores()
        for a in asked {
            s.questions += 1
            let answerNotes = a.context.notes.filter { a.docOf[Int($0.value.id)].map(a.answers.contains) ?? false }
            if !answerNotes.isEmpty { s.shown += 1 }
            guard let found = AnswerPassage.find(for: a.text, context: a.context.notes, settings: settings) else { continue }
            s.quoted += 1
            if answerNotes[found.number] != nil { s.right += 1 }
        }
        return s
    }
}
