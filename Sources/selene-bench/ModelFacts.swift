import Foundation
import SeleneServer
import SeleneShared

/// The development sets' notes read by a real model (#85, point 2): each note's analysis asked
/// for as processing asks it (`LLMClient.analyse`, the model server `SELENE_LLM_*` names), its
/// concepts, themes, people and places kept in a cache outside the clone — one line per note, written as each
/// answer comes, so a run stopped part-way loses nothing and the next goes on where it stopped
/// (thousands of notes at seconds each take more than one sitting on two cores).
///
///     SELENE_LLM_PROVIDER=openai SELENE_LLM_URL=http://127.0.0.1:8080 SELENE_CHAT_MODEL=… \
///       swift run -c release selene-bench --only quality --model-facts 500   # 500 more notes a set, then the tables
///     swift run -c release selene-bench --only quality --facts-from MODEL     # the tables from what is cached
///
/// The quality tables then take each note's facts from the model's reading where the cache has
/// it, and say how many notes that is; the stand-in's (the note's own words) for the rest.
enum ModelFacts {
    /// One note's reading: the set's document id, the model's concepts, themes, people and places.
    struct Reading: Codable, Sendable {
        var id: String
        var concepts: [String]
        var themes: [String]
        var people: [String] = []
        var places: [String] = []
        /// Why the model's answer couldn't be used (after Selene's retries): processing would fail
        /// the note, and a failed note has no facts. Kept, so the note counts as read.
        var unusable: String? = nil
    }

    /// A note's reading, or why there is none.
    struct Answer: Sendable {
        var id: String
        var reading: Reading?
        var problem: String?

        static func of(_ doc: QualityBench.Document, llm: LLMClient) async -> Answer {
            do {
                let analysis = try await llm.analyse(title: doc.title, content: doc.text)
                return Answer(id: doc._id, reading: Reading(id: doc._id, concepts: analysis.concepts.map(\.name),
                                                            themes: [analysis.primaryTheme] + analysis.secondaryThemes,
                                                            people: analysis.people, places: analysis.places))
            } catch let error as LLMError {
                // The model answered, not usably: the note is read (and would fail processing).
                if case .invalidAnswer(let why) = error { return Answer(id: doc._id, reading: Reading(id: doc._id, concepts: [], themes: [], unusable: why)) }
                return Answer(id: doc._id, problem: "\(error)")
            } catch {
                return Answer(id: doc._id, problem: "\(error)")
            }
        }
    }

    /// `SELENE_BENCH_CACHE` (default `~/.cache/selene-bench`)/model-facts.
    static var folder: String {
        let base = ProcessInfo.processInfo.environment["SELENE_BENCH_CACHE"]
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache/selene-bench")
        return (base as NSString).appendingPathComponent("model-facts")
    }

    /// The cache of `set` read by `model` with today's analysis prompt and schema: a reading
    /// asked otherwise (before people and places were asked for, #85) is another file's
    /// (`SET--MODEL.jsonl` holds the first prompt's), so one table never mixes two prompts.
    static func file(set: String, model: String) -> String {
        let safe = model.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
        return (folder as NSString).appendingPathComponent("\(set)--\(String(safe))--\(promptTag).jsonl")
    }

    /// Eight hex digits of FNV-1a over the analysis prompts and their schemas (with and without
    /// names, and names among the note's own).
    static let promptTag: String = {
        let asked = [true, false].map { names in
            ProcessingPrompts.analysisSystem(askingNames: names) + "\n"
                + ((try? SeleneJSON.encode(NoteAnalysis.schema(askingNames: names))).map { String(decoding: $0, as: UTF8.self) } ?? "")
        } + [(try? SeleneJSON.encode(NoteAnalysis.schema(naming: ["A Name"]))).map { String(decoding: $0, as: UTF8.self) } ?? ""]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in asked.joined(separator: "\n").utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(format: "%08x", UInt32(truncatingIfNeeded: hash ^ (hash >> 32)))
    }()

    /// What is cached for `set` by `model`, by document id. A line cut off by a stop mid-write is
    /// left out (and read again next time).
    static func read(set: String, model: String) -> [String: Reading] {
        guard let text = try? String(contentsOfFile: file(set: set, model: model), encoding: .utf8) else { return [:] }
        var out: [String: Reading] = [:]
        for line in text.split(separator: "\n") {
            if let reading = try? JSONDecoder().decode(Reading.self, from: Data(line.utf8)) { out[reading.id] = reading }
        }
        return out
    }

    /// Reads up to `limit` notes of `corpus` not yet cached, in the corpus's order, with the
    /// configured model server; each answer appended to the cache as it comes. A note whose answer
    /// isn't usable (after Selene's retries) is cached as read with no facts; one the server didn't
    /// answer (down, timed out) is said, by id, and asked again next time.
    static func fill(set: String, corpus: [QualityBench.Document], limit: Int, readers: Int = 2) async throws -> String {
        guard let settings = try SeleneConfig.llmSettings({ ProcessInfo.processInfo.environment[$0] }) else {
            throw SeleneConfigError("--model-facts needs a model server: set SELENE_LLM_URL (and SELENE_LLM_PROVIDER, SELENE_CHAT_MODEL)")
        }
        let model = settings.chatModel
        let cached = read(set: set, model: model)
        let waiting = corpus.filter { cached[$0._id] == nil }.prefix(limit)
        print("   model facts (\(model) at \(settings.baseURL)): \(cached.count) of \(corpus.count) notes cached; reading \(waiting.count) more")
        guard !waiting.isEmpty else { return model }
        try await SeleneBench.withApplication(database: "sqlite", configure: { $0.llm = settings }) { app in
            let llm = app.selene.llm!
            let health = await llm.health()
            guard health.available else { throw SeleneConfigError("The model server isn't ready: \(health.reason ?? "unknown")") }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = file(set: set, model: model)
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            out.seekToEndOfFile()
            let started = Date()
            var read = 0, unusable = 0, failed: [String] = []
            // `readers` at a time (two, as the real-model tier's llama-server serves two slots): on two
            // cores a second request fills what one leaves idle between its steps, and a server started
            // with more slots decodes more notes in one batch.
            let docs = Array(waiting)
            var asked = 0
            try await withThrowingTaskGroup(of: Answer.self) { group in
                while asked < min(readers, docs.count) {
                    let doc = docs[asked]
                    group.addTask { await Answer.of(doc, llm: llm) }
                    asked += 1
                }
                while let answer = try await group.next() {
                    if let reading = answer.reading {
                        out.write(try JSONEncoder().encode(reading) + Data("\n".utf8))
                        read += 1
                        if let why = reading.unusable { unusable += 1; print("   \(answer.id): the model's answer was not usable (\(why)): read, no facts, as processing would fail it") }
                    } else {
                        failed.append(answer.id)
                        print("   \(answer.id): the model's reading is left out: \(answer.problem ?? "")")
                    }
                    if (read + failed.count) % 50 == 0 {
                        let each = Date().timeIntervalSince(started) / Double(read + failed.count)
                        print(String(format: "   … %d of %d read (%.1f s a note)", read + failed.count, docs.count, each))
                    }
                    if asked < docs.count {
                        let doc = docs[asked]
                        group.addTask { await Answer.of(doc, llm: llm) }
                        asked += 1
                    }
                }
            }
            try out.close()
            print(String(format: "   read %d notes in %.0f s (%d answers not usable); %d left out, to be asked again (%@)", read,
                         Date().timeIntervalSince(started), unusable, failed.count, failed.prefix(10).joined(separator: ", ")))
        }
        return model
    }
}
